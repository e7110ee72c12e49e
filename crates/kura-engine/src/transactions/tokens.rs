//! `ClientRequestToken`: a TransactWriteItems retried with the same token within 10
//! minutes returns the first answer and applies nothing again, also after a restart.
//!
//! The token's record (the request's fingerprint, when it ran, and the answer) is written
//! in the same batch as the transaction's items, so either both are durable or neither
//! is; the writer job checks for it before it checks any condition. An in-memory table
//! adds what a record cannot say: that the same token's transaction is running right now
//! (TransactionInProgressException). The sweeper deletes records older than 10 minutes.

use std::collections::{BTreeMap, HashSet};

use kura_model::messages;
use kura_model::wire::{ItemJson, item_from_json};
use parking_lot::Mutex;
use serde::Deserialize;

use crate::api::{ConsumedCapacity, ItemCollectionMetrics, TransactWriteItemsOutput};
use crate::error::{EngineError, Result};
use crate::keys;
use crate::writer::WriteContext;
use kura_store::Space;

/// How long a token protects its transaction.
pub const TOKEN_LIFETIME_MS: i64 = 10 * 60 * 1000;

const RECORD_VERSION: u8 = 1;

/// Tokens whose transactions are running now.
#[derive(Default)]
pub struct InFlight {
    running: Mutex<HashSet<String>>,
}

impl InFlight {
    /// Claims `token` until the returned guard drops.
    pub fn claim<'a>(&'a self, token: &str) -> Result<Claim<'a>> {
        let mut running = self.running.lock();
        if !running.insert(token.to_owned()) {
            return Err(EngineError::TransactionInProgress(
                messages::TRANSACTION_IN_PROGRESS.into(),
            ));
        }
        Ok(Claim {
            owner: self,
            token: token.to_owned(),
        })
    }
}

/// A token claimed by a running transaction.
pub struct Claim<'a> {
    owner: &'a InFlight,
    token: String,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.owner.running.lock().remove(&self.token);
    }
}

/// A token's request: the same token with another request is a mismatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint(pub u64);

impl Fingerprint {
    /// FNV-1a over the request's canonical text: stable across processes and builds
    /// (the standard library's hasher promises neither).
    pub fn of(text: &str) -> Fingerprint {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in text.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        Fingerprint(hash)
    }
}

/// What an earlier use of a token says about this request.
pub enum Earlier {
    /// None within the last 10 minutes: run the transaction.
    None,
    /// The same request succeeded: its answer.
    Answered(TransactWriteItemsOutput),
}

/// Looks the token up inside the writer job, so the answer is exact with respect to
/// every write before it.
pub fn earlier(w: &mut WriteContext<'_>, token: &str, fingerprint: Fingerprint) -> Result<Earlier> {
    let Some(bytes) = w.get(Space::Meta, &keys::token_key(token))? else {
        return Ok(Earlier::None);
    };
    let record = TokenRecord::decode(&bytes)?;
    if w.now_ms() - record.created_ms >= TOKEN_LIFETIME_MS {
        return Ok(Earlier::None);
    }
    if record.fingerprint != fingerprint {
        return Err(EngineError::IdempotentParameterMismatch(
            messages::IDEMPOTENT_MISMATCH.into(),
        ));
    }
    Ok(Earlier::Answered(record.answer))
}

/// Stages the token's record in the transaction's batch (replacing an expired one).
pub fn remember(
    w: &mut WriteContext<'_>,
    token: &str,
    fingerprint: Fingerprint,
    answer: &TransactWriteItemsOutput,
) -> Result<()> {
    let key = keys::token_key(token);
    if let Some(old) = w.get(Space::Meta, &key)? {
        let old = TokenRecord::decode(&old)?;
        w.delete(Space::Meta, keys::token_expiry_key(old.created_ms, token));
    }
    let created_ms = w.now_ms();
    let record = TokenRecord::encode(fingerprint, created_ms, answer)?;
    w.put(Space::Meta, key, record);
    w.put(
        Space::Meta,
        keys::token_expiry_key(created_ms, token),
        Vec::new(),
    );
    Ok(())
}

/// Deletes the token record written at `created_ms` (the sweeper's job, once that is 10
/// minutes ago); a record renewed since is left alone.
pub fn forget(w: &mut WriteContext<'_>, created_ms: i64, token: &str) -> Result<()> {
    w.delete(Space::Meta, keys::token_expiry_key(created_ms, token));
    let key = keys::token_key(token);
    if let Some(bytes) = w.get(Space::Meta, &key)?
        && TokenRecord::decode(&bytes)?.created_ms == created_ms
    {
        w.delete(Space::Meta, key);
    }
    Ok(())
}

/// `txtok/` values: version (u8) ‖ fingerprint (u64 BE) ‖ created (ms, i64 BE) ‖ the
/// answer as DynamoDB JSON.
struct TokenRecord {
    fingerprint: Fingerprint,
    created_ms: i64,
    answer: TransactWriteItemsOutput,
}

impl TokenRecord {
    fn encode(
        fingerprint: Fingerprint,
        created_ms: i64,
        answer: &TransactWriteItemsOutput,
    ) -> Result<Vec<u8>> {
        let mut out = vec![RECORD_VERSION];
        out.extend_from_slice(&fingerprint.0.to_be_bytes());
        out.extend_from_slice(&created_ms.to_be_bytes());
        serde_json::to_writer(&mut out, answer)
            .map_err(|e| EngineError::Internal(format!("cannot encode token record: {e}")))?;
        Ok(out)
    }

    fn decode(bytes: &[u8]) -> Result<TokenRecord> {
        let corrupt = |what: &str| EngineError::Internal(format!("corrupt token record: {what}"));
        let (&version, rest) = bytes.split_first().ok_or_else(|| corrupt("empty"))?;
        if version != RECORD_VERSION {
            return Err(corrupt(&format!("version {version}")));
        }
        let (fingerprint, rest) = rest.split_at_checked(8).ok_or_else(|| corrupt("short"))?;
        let (created, answer) = rest.split_at_checked(8).ok_or_else(|| corrupt("short"))?;
        let stored: StoredAnswer =
            serde_json::from_slice(answer).map_err(|e| corrupt(&e.to_string()))?;
        Ok(TokenRecord {
            fingerprint: Fingerprint(u64::from_be_bytes(
                fingerprint.try_into().map_err(|_| corrupt("fingerprint"))?,
            )),
            created_ms: i64::from_be_bytes(created.try_into().map_err(|_| corrupt("time"))?),
            answer: stored.into_output().map_err(|e| corrupt(&e.to_string()))?,
        })
    }
}

/// The answer as serialised by `TransactWriteItemsOutput`, read back.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct StoredAnswer {
    #[serde(default)]
    consumed_capacity: Option<Vec<ConsumedCapacity>>,
    #[serde(default)]
    item_collection_metrics: Option<BTreeMap<String, Vec<StoredMetrics>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct StoredMetrics {
    item_collection_key: ItemJson,
    #[serde(rename = "SizeEstimateRangeGB")]
    size_estimate_range_gb: [f64; 2],
}

impl StoredAnswer {
    fn into_output(self) -> Result<TransactWriteItemsOutput, kura_model::ModelError> {
        let item_collection_metrics = match self.item_collection_metrics {
            None => None,
            Some(tables) => {
                let mut out = BTreeMap::new();
                for (table, metrics) in tables {
                    let mut list = Vec::with_capacity(metrics.len());
                    for m in metrics {
                        list.push(ItemCollectionMetrics {
                            item_collection_key: item_from_json(m.item_collection_key)?,
                            size_estimate_range_gb: m.size_estimate_range_gb,
                        });
                    }
                    out.insert(table, list);
                }
                Some(out)
            }
        };
        Ok(TransactWriteItemsOutput {
            consumed_capacity: self.consumed_capacity,
            item_collection_metrics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kura_model::AttributeValue;

    #[test]
    fn records_round_trip() {
        let answer = TransactWriteItemsOutput {
            consumed_capacity: Some(vec![ConsumedCapacity {
                table_name: "T".into(),
                capacity_units: 4.0,
                read_capacity_units: None,
                write_capacity_units: Some(4.0),
                table: None,
                global_secondary_indexes: None,
                local_secondary_indexes: None,
                vector_indexes: None,
            }]),
            item_collection_metrics: Some(BTreeMap::from([(
                "T".into(),
                vec![ItemCollectionMetrics::new(
                    "pk",
                    &AttributeValue::S("a".into()),
                    10,
                )],
            )])),
        };
        let bytes = TokenRecord::encode(Fingerprint(7), 1234, &answer).unwrap();
        let back = TokenRecord::decode(&bytes).unwrap();
        assert_eq!(back.fingerprint, Fingerprint(7));
        assert_eq!(back.created_ms, 1234);
        assert_eq!(
            serde_json::to_string(&back.answer).unwrap(),
            serde_json::to_string(&answer).unwrap()
        );
        assert!(TokenRecord::decode(&bytes[..5]).is_err());
        assert!(TokenRecord::decode(&[9]).is_err());
    }

    #[test]
    fn fingerprints_are_stable() {
        assert_eq!(Fingerprint::of(""), Fingerprint(0xcbf2_9ce4_8422_2325));
        assert_eq!(Fingerprint::of("a"), Fingerprint(0xaf63_dc4c_8601_ec8c));
        assert_ne!(Fingerprint::of("ab"), Fingerprint::of("ba"));
    }
}
