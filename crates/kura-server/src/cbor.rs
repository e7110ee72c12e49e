//! Kinesis's CBOR encoding (`application/x-amz-cbor-1.1`), which the AWS SDKs for Java use
//! by default: a request in CBOR is read as the JSON the operations take, and its answer
//! (errors included) goes back in CBOR.
//!
//! The two encodings differ only where JSON has no type: a blob is a CBOR byte string
//! (base64 text in JSON) and a timestamp is CBOR tag 1 over epoch seconds (a number in
//! JSON). Reading, byte strings become base64 and tags are dropped; writing, a member named
//! `Data` holding text is a blob (the only blob Kinesis answers with: a record's data), and
//! a member whose name ends in `Timestamp` holding a number is a timestamp.

use base64::Engine as _;
use ciborium::Value as Cbor;
use serde_json::{Map, Number, Value as Json};

pub const CONTENT_TYPE: &str = "application/x-amz-cbor-1.1";

/// Deepest nesting read: Kinesis's shapes are a few levels deep.
const MAX_DEPTH: usize = 32;

/// A CBOR request body as JSON bytes; the error says why it is not one.
pub fn request_to_json(body: &[u8]) -> Result<Vec<u8>, String> {
    if body.is_empty() {
        return Ok(b"{}".to_vec());
    }
    let value: Cbor = ciborium::de::from_reader_with_recursion_limit(body, MAX_DEPTH)
        .map_err(|e| format!("Could not read the CBOR request body: {e}"))?;
    let json = to_json(value)?;
    serde_json::to_vec(&json).map_err(|e| e.to_string())
}

fn to_json(value: Cbor) -> Result<Json, String> {
    Ok(match value {
        Cbor::Null => Json::Null,
        Cbor::Bool(b) => Json::Bool(b),
        Cbor::Text(text) => Json::String(text),
        Cbor::Bytes(bytes) => Json::String(base64::engine::general_purpose::STANDARD.encode(bytes)),
        Cbor::Integer(i) => {
            let i = i128::from(i);
            if let Ok(v) = i64::try_from(i) {
                Json::Number(v.into())
            } else if let Ok(v) = u64::try_from(i) {
                Json::Number(v.into())
            } else {
                return Err(format!("The CBOR integer {i} is out of range"));
            }
        }
        Cbor::Float(f) => Json::Number(
            Number::from_f64(f).ok_or_else(|| format!("The CBOR number {f} is not finite"))?,
        ),
        // Tag 1 (epoch time) and any other: the value it wraps.
        Cbor::Tag(_, inner) => to_json(*inner)?,
        Cbor::Array(items) => {
            Json::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?)
        }
        Cbor::Map(entries) => {
            let mut map = Map::new();
            for (key, value) in entries {
                let Cbor::Text(key) = key else {
                    return Err("A CBOR map key is not text".to_owned());
                };
                map.insert(key, to_json(value)?);
            }
            Json::Object(map)
        }
        _ => return Err("The CBOR request body holds a value Kinesis does not take".to_owned()),
    })
}

/// A JSON answer as CBOR bytes. An answer that is not JSON (none is) goes as a CBOR text.
pub fn response_to_cbor(body: &[u8]) -> Vec<u8> {
    let value = match serde_json::from_slice::<Json>(body) {
        Ok(json) => to_cbor(None, json),
        Err(_) => Cbor::Text(String::from_utf8_lossy(body).into_owned()),
    };
    let mut out = Vec::with_capacity(body.len());
    // Writing to a Vec cannot fail.
    let _ = ciborium::ser::into_writer(&value, &mut out);
    out
}

fn to_cbor(key: Option<&str>, value: Json) -> Cbor {
    match value {
        Json::Null => Cbor::Null,
        Json::Bool(b) => Cbor::Bool(b),
        Json::String(text) if key == Some("Data") => {
            match base64::engine::general_purpose::STANDARD.decode(&text) {
                Ok(bytes) => Cbor::Bytes(bytes),
                Err(_) => Cbor::Text(text),
            }
        }
        Json::String(text) => Cbor::Text(text),
        Json::Number(n) => {
            let number = if let Some(i) = n.as_i64() {
                Cbor::Integer(i.into())
            } else if let Some(u) = n.as_u64() {
                Cbor::Integer(u.into())
            } else {
                Cbor::Float(n.as_f64().unwrap_or(0.0))
            };
            if key.is_some_and(|k| k.ends_with("Timestamp")) {
                Cbor::Tag(1, Box::new(number))
            } else {
                number
            }
        }
        Json::Array(items) => Cbor::Array(items.into_iter().map(|v| to_cbor(None, v)).collect()),
        Json::Object(map) => Cbor::Map(
            map.into_iter()
                .map(|(k, v)| {
                    let value = to_cbor(Some(&k), v);
                    (Cbor::Text(k), value)
                })
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_and_timestamps_cross_between_the_encodings() {
        let request = Cbor::Map(vec![
            (Cbor::Text("StreamName".into()), Cbor::Text("s".into())),
            (Cbor::Text("Data".into()), Cbor::Bytes(vec![0, 1, 255])),
            (
                Cbor::Text("Timestamp".into()),
                Cbor::Tag(1, Box::new(Cbor::Float(1.5))),
            ),
            (Cbor::Text("Limit".into()), Cbor::Integer(7.into())),
        ]);
        let mut bytes = Vec::new();
        ciborium::ser::into_writer(&request, &mut bytes).expect("encode");
        let json: Json =
            serde_json::from_slice(&request_to_json(&bytes).expect("read")).expect("json");
        assert_eq!(
            json,
            serde_json::json!({"StreamName": "s", "Data": "AAH/", "Timestamp": 1.5, "Limit": 7})
        );
        let answer = br#"{"Records": [{"Data": "AAH/", "ApproximateArrivalTimestamp": 1.5, "PartitionKey": "k"}], "MillisBehindLatest": 0}"#;
        let cbor: Cbor =
            ciborium::de::from_reader(response_to_cbor(answer).as_slice()).expect("cbor");
        let member = |map: &Cbor, key: &str| -> Cbor {
            let Cbor::Map(entries) = map else {
                return Cbor::Null;
            };
            entries
                .iter()
                .find(|(k, _)| *k == Cbor::Text(key.into()))
                .map_or(Cbor::Null, |(_, v)| v.clone())
        };
        let Cbor::Array(records) = member(&cbor, "Records") else {
            panic!("records: {cbor:?}")
        };
        let record = &records[0];
        assert_eq!(member(record, "Data"), Cbor::Bytes(vec![0, 1, 255]));
        assert_eq!(
            member(record, "ApproximateArrivalTimestamp"),
            Cbor::Tag(1, Box::new(Cbor::Float(1.5)))
        );
        assert_eq!(member(record, "PartitionKey"), Cbor::Text("k".into()));
    }

    #[test]
    fn bad_bodies_are_refused_not_trusted() {
        for bad in [
            &[0xff][..],
            &[0xa1, 0x01, 0x02],
            &[0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        ] {
            assert!(request_to_json(bad).is_err(), "{bad:?}");
        }
        // Nesting past the limit.
        let deep = [vec![0x81u8; 10_000], vec![0xf6]].concat();
        assert!(request_to_json(&deep).is_err());
    }
}
