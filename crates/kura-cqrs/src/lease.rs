//! Where a projector is in each shard, and which projector may read it. One row per
//! shard in the module's projector table (`CHECKPOINT` / shard id) holds the last
//! sequence number finished, whether the shard is read to its end, and a lease: the
//! projector that owns the shard (`owner`) and until when (`leaseUntil`, epoch
//! milliseconds). A projector reads a shard only while it holds its lease and saves its
//! position only while it still does, so two projectors on one module never both apply
//! a shard's records; one that dies loses its shards when its lease runs out, and another
//! takes them over from the last checkpoint.
//!
//! Leases compare the clocks of the machines the projectors run on: keep them in sync
//! to well within [`crate::ProjectorOptions::lease`].

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use crate::error::{CqrsError, Result};
use crate::names::{FINISHED, SEQUENCE};
use crate::rows::{key, n, s};

const CHECKPOINT_PK: &str = "CHECKPOINT";
const OWNER: &str = "owner";
const LEASE_UNTIL: &str = "leaseUntil";

/// A shard's checkpoint as stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Saved {
    pub sequence: Option<String>,
    pub finished: bool,
}

/// One projector's checkpoints and leases.
#[derive(Debug, Clone)]
pub(crate) struct Checkpoints {
    client: Client,
    table: String,
    /// This projector, as leases name it.
    owner: String,
    lease: Duration,
}

fn now_ms() -> i64 {
    let now = time::OffsetDateTime::now_utc();
    i64::try_from(now.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

fn lease_ms(lease: Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX)
}

impl Checkpoints {
    pub fn new(client: Client, table: String, owner: String, lease: Duration) -> Checkpoints {
        Checkpoints {
            client,
            table,
            owner,
            lease,
        }
    }

    /// Takes the lease on `shard`, or renews this projector's own, for the lease's time
    /// from now. `None` when another projector holds it; else the checkpoint as stored.
    pub async fn lease(&self, shard: &str) -> Result<Option<Saved>> {
        let now = now_ms();
        let taken = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(CHECKPOINT_PK, shard)))
            .update_expression("SET #owner = :me, #until = :until")
            .condition_expression("attribute_not_exists(#owner) OR #owner = :me OR #until < :now")
            .expression_attribute_names("#owner", OWNER)
            .expression_attribute_names("#until", LEASE_UNTIL)
            .expression_attribute_values(":me", s(&self.owner))
            .expression_attribute_values(":until", n(now.saturating_add(lease_ms(self.lease))))
            .expression_attribute_values(":now", n(now))
            .return_values(ReturnValue::AllNew)
            .send()
            .await;
        match taken {
            Ok(out) => {
                let row = out.attributes();
                Ok(Some(Saved {
                    sequence: match row.and_then(|r| r.get(SEQUENCE)) {
                        Some(AttributeValue::S(seq)) => Some(seq.clone()),
                        _ => None,
                    },
                    finished: matches!(
                        row.and_then(|r| r.get(FINISHED)),
                        Some(AttributeValue::Bool(true))
                    ),
                }))
            }
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_conditional_check_failed_exception()) =>
            {
                Ok(None)
            }
            Err(e) => Err(CqrsError::dynamo(e)),
        }
    }

    /// Saves how far `shard` is read (and renews the lease) while this projector still
    /// holds it; `false` when another one has taken it over.
    pub async fn save(&self, shard: &str, sequence: Option<&str>, finished: bool) -> Result<bool> {
        let now = now_ms();
        let mut update = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(CHECKPOINT_PK, shard)))
            .condition_expression("#owner = :me")
            .expression_attribute_names("#owner", OWNER)
            .expression_attribute_names("#until", LEASE_UNTIL)
            .expression_attribute_names("#finished", FINISHED)
            .expression_attribute_values(":me", s(&self.owner))
            .expression_attribute_values(":until", n(now.saturating_add(lease_ms(self.lease))))
            .expression_attribute_values(":finished", AttributeValue::Bool(finished));
        update = match sequence {
            Some(seq) => update
                .update_expression(
                    "SET #until = :until, #finished = :finished, #sequence = :sequence",
                )
                .expression_attribute_names("#sequence", SEQUENCE)
                .expression_attribute_values(":sequence", s(seq)),
            None => update.update_expression("SET #until = :until, #finished = :finished"),
        };
        match update.send().await {
            Ok(_) => Ok(true),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_conditional_check_failed_exception()) =>
            {
                Ok(false)
            }
            Err(e) => Err(CqrsError::dynamo(e)),
        }
    }
}
