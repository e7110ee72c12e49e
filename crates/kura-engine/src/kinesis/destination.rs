//! DynamoDB's Kinesis streaming destination, on the write path: every change of a table
//! with an active destination is written to the Kinesis stream in the change's own batch,
//! so a change is delivered once and never lost, across `kill -9` too.
//!
//! The record is the JSON DynamoDB writes to Kinesis: `awsRegion`, `eventID`,
//! `eventName`, `userIdentity` (TTL deletions), `recordFormat`, `tableName`, `dynamodb`
//! (`ApproximateCreationDateTime` in the destination's precision, `Keys`, `NewImage`,
//! `OldImage`, `SizeBytes`) and `eventSource`. Its partition key is the MD5 of the item's
//! encoded primary key in hex, so every change of one item goes to one shard, in order.

use kura_expr::eval::compare::items_equal;
use kura_model::size::item_size;
use kura_model::{Item, KeySchema};
use md5::{Digest, Md5};
use serde::Serialize;

use super::stream::{KinesisStream, StoredRecord, hash_key, name_of_arn};
use crate::catalog::{KinesisDestinationRecord, TableRecord};
use crate::error::{EngineError, Result};
use crate::keys;
use crate::streams::record::{Origin, key_attributes};
use crate::writer::WriteContext;
use kura_store::Space;

pub(crate) const MILLISECOND: &str = "MILLISECOND";
pub(crate) const MICROSECOND: &str = "MICROSECOND";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChangeRecord<'a> {
    aws_region: &'a str,
    #[serde(rename = "eventID")]
    event_id: String,
    event_name: &'static str,
    user_identity: Option<UserIdentity>,
    record_format: &'static str,
    table_name: &'a str,
    dynamodb: Change<'a>,
    event_source: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UserIdentity {
    principal_id: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Change<'a> {
    approximate_creation_date_time: i64,
    approximate_creation_date_time_precision: &'a str,
    keys: Item,
    #[serde(skip_serializing_if = "Option::is_none")]
    new_image: Option<&'a Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    old_image: Option<&'a Item>,
    size_bytes: usize,
}

/// Writes the change `old` → `new` of an item of `table` to each of its active Kinesis
/// destinations. A write that changes nothing has no record; a destination whose stream
/// has been deleted gets none (DescribeKinesisStreamingDestination still lists it).
pub(crate) fn append(
    w: &mut WriteContext<'_>,
    table: &TableRecord,
    old: Option<&Item>,
    new: Option<&Item>,
    origin: Origin,
) -> Result<()> {
    if !table.kinesis_destinations.iter().any(|d| d.active) {
        return Ok(());
    }
    let event_name = match (old, new) {
        (None, Some(_)) => "INSERT",
        (Some(o), Some(n)) if !items_equal(o, n) => "MODIFY",
        (Some(_), None) => "REMOVE",
        _ => return Ok(()),
    };
    let Some(any) = new.or(old) else {
        return Ok(());
    };
    let key = key_attributes(&table.key_schema, any);
    let partition_key = partition_key(&table.key_schema, any)?;
    let now_us = w.now_ms().saturating_mul(1000);
    let size = item_size(&key) + new.map_or(0, item_size) + old.map_or(0, item_size);
    for destination in table.kinesis_destinations.iter().filter(|d| d.active) {
        let Some(mut stream) = stream_of(w, destination)? else {
            continue;
        };
        let record = ChangeRecord {
            aws_region: region_of(&destination.stream_arn),
            event_id: uuid::Uuid::new_v4().to_string(),
            event_name,
            user_identity: (origin == Origin::Ttl).then_some(UserIdentity {
                principal_id: "dynamodb.amazonaws.com",
                kind: "Service",
            }),
            record_format: "application/json",
            table_name: &table.name,
            dynamodb: Change {
                approximate_creation_date_time: if destination.precision == MICROSECOND {
                    now_us
                } else {
                    now_us / 1000
                },
                approximate_creation_date_time_precision: &destination.precision,
                keys: key.clone(),
                new_image: new,
                old_image: old,
                size_bytes: size,
            },
            event_source: "aws:dynamodb",
        };
        let data = serde_json::to_vec(&record)
            .map_err(|e| EngineError::Internal(format!("cannot encode a change record: {e}")))?;
        let shard = stream.shard_for(hash_key(&partition_key))?.number;
        let seq = stream.next_seq;
        stream.next_seq += 1;
        let stored = StoredRecord {
            arrival_ms: now_us / 1000,
            partition_key: partition_key.clone(),
            data,
        };
        w.put(
            Space::Streams,
            stream.record_key(shard, seq),
            stored.encode(),
        );
        w.put(Space::Meta, stream.key(), stream.encode()?);
    }
    Ok(())
}

/// The destination's stream as this job sees it (earlier jobs of the group included).
fn stream_of(
    w: &WriteContext<'_>,
    destination: &KinesisDestinationRecord,
) -> Result<Option<KinesisStream>> {
    let Some(name) = name_of_arn(&destination.stream_arn) else {
        return Ok(None);
    };
    let Some(id) = w.get(Space::Meta, &keys::kinesis_name_key(name))? else {
        return Ok(None);
    };
    let id = u64::from_be_bytes(
        id.as_slice()
            .try_into()
            .map_err(|_| EngineError::Internal("corrupt Kinesis stream name record".into()))?,
    );
    w.get(Space::Meta, &keys::kinesis_stream_key(id))?
        .map(|bytes| KinesisStream::decode(&bytes))
        .transpose()
}

/// The MD5 of the item's encoded primary key, in upper-case hex.
fn partition_key(schema: &KeySchema, item: &Item) -> Result<String> {
    let mut encoded = Vec::new();
    for attribute in schema.attributes() {
        if let Some(value) = item.get(&attribute.name) {
            kura_model::keycode::encode_key_value(value, &mut encoded)
                .map_err(|e| EngineError::Internal(format!("change record key: {e}")))?;
        }
    }
    Ok(hex::encode_upper(Md5::digest(&encoded)))
}

/// The region of a stream ARN (`arn:aws:kinesis:<region>:...`).
fn region_of(arn: &str) -> &str {
    arn.split(':').nth(3).unwrap_or("us-east-1")
}
