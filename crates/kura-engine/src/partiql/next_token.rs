//! `NextToken`: where a SELECT stopped (which partition of an `IN`, and the last key
//! read), bound to the statement and parameters it was issued for. Opaque to clients (hex
//! of a small versioned JSON record); a token that does not decode is "Invalid NextToken",
//! one issued for another request "NextToken does not match request".

use kura_model::Item;
use kura_model::messages::partiql as msg;
use kura_model::wire::ItemJson;
use serde::{Deserialize, Serialize};

use crate::error::{EngineError, Result};

const VERSION: u8 = 1;

#[derive(Serialize, Deserialize)]
struct Record {
    v: u8,
    /// The request's fingerprint.
    f: u64,
    /// The partition (index into the `IN` values) to go on with.
    p: usize,
    /// The key to start after, when the partition (or the scan) was left mid-way.
    #[serde(skip_serializing_if = "Option::is_none")]
    k: Option<serde_json::Value>,
}

/// Where to go on.
pub(crate) struct Position {
    pub partition: usize,
    pub start: Option<ItemJson>,
}

pub(crate) fn encode(fingerprint: u64, partition: usize, start: Option<&Item>) -> Result<String> {
    let record = Record {
        v: VERSION,
        f: fingerprint,
        p: partition,
        k: start
            .map(serde_json::to_value)
            .transpose()
            .map_err(|e| EngineError::Internal(e.to_string()))?,
    };
    let json = serde_json::to_vec(&record).map_err(|e| EngineError::Internal(e.to_string()))?;
    Ok(json.iter().map(|b| format!("{b:02x}")).collect())
}

pub(crate) fn decode(token: &str, fingerprint: u64) -> Result<Position> {
    let invalid = || EngineError::validation(msg::INVALID_NEXT_TOKEN);
    if !token.len().is_multiple_of(2) || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid());
    }
    let bytes = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(token.get(i..i + 2).unwrap_or(""), 16))
        .collect::<std::result::Result<Vec<u8>, _>>()
        .map_err(|_| invalid())?;
    let record: Record = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
    if record.v != VERSION {
        return Err(invalid());
    }
    if record.f != fingerprint {
        return Err(EngineError::validation(msg::NEXT_TOKEN_MISMATCH));
    }
    let start = record
        .k
        .map(serde_json::from_value::<ItemJson>)
        .transpose()
        .map_err(|_| invalid())?;
    Ok(Position {
        partition: record.p,
        start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kura_model::AttributeValue;

    #[test]
    fn round_trip_and_refusals() {
        let key = Item::from([("pk".to_owned(), AttributeValue::s("a"))]);
        let token = encode(7, 2, Some(&key)).unwrap();
        let position = decode(&token, 7).unwrap();
        assert_eq!(position.partition, 2);
        assert!(position.start.is_some());
        assert!(
            matches!(decode(&token, 8), Err(EngineError::Validation(m)) if m == msg::NEXT_TOKEN_MISMATCH)
        );
        for bad in ["", "zz", "abc", "00", &token[..token.len() - 2]] {
            assert!(
                matches!(decode(bad, 7), Err(EngineError::Validation(m)) if m == msg::INVALID_NEXT_TOKEN),
                "{bad}"
            );
        }
    }
}
