//! The record operations of Kinesis Data Streams: PutRecord, PutRecords, GetShardIterator
//! and GetRecords.
//!
//! A put is one writer job: it reads the stream's metadata as the group left it, takes the
//! next sequence numbers, and writes the records and the metadata in one batch, so the
//! sequence numbers of acknowledged records are unique and never reused after a crash.
//! Shard iterators are the DynamoDB Streams ones (signed, [`crate::streams::iterator`]),
//! valid for five minutes as Kinesis's are.

use base64::Engine as _;
use kura_model::constraint::Constraints;
use kura_model::messages;

use super::stream::{
    KinesisShard, KinesisStream, StoredRecord, epoch_seconds, hash_key, parse_sequence,
    sequence_string, shard_id,
};
use super::stream_admin::not_found;
use super::{invalid_argument, resolve, stream_by_id};
use crate::api::kinesis::*;
use crate::error::{EngineError, Result};
use crate::streams::iterator::Iterator as ShardIterator;
use crate::{ACCOUNT_ID, Engine};
use kura_store::{Direction, Space};

/// Most bytes of one record, data and partition key together.
const MAX_RECORD_BYTES: usize = 1_048_576;
/// Most bytes of one PutRecords request, data and partition keys together.
const MAX_PUT_RECORDS_BYTES: usize = 10 * 1_048_576;
const MAX_PUT_RECORDS: usize = 500;
/// Most bytes and records one GetRecords returns.
const MAX_GET_BYTES: usize = 10 * 1_048_576;
const MAX_GET_RECORDS: i64 = 10_000;
/// How long a shard iterator stays valid.
const ITERATOR_LIFETIME_MS: i64 = 300_000;

/// A record to put, checked.
struct NewRecord {
    partition_key: String,
    hash: u128,
    data: Vec<u8>,
}

impl Engine {
    pub async fn kinesis_put_record(&self, input: PutRecordInput) -> Result<PutRecordOutput> {
        let mut c = Constraints::new();
        let record = check_record(
            &mut c,
            "",
            input.data.as_deref(),
            input.partition_key.as_deref(),
            input.explicit_hash_key.as_deref(),
        );
        if let Some(order) = &input.sequence_number_for_ordering {
            sequence_pattern(&mut c, "sequenceNumberForOrdering", order);
        }
        let name = resolve(input.stream());
        c.finish()?;
        let record = record?;
        let name = name?.to_owned();
        let stream = self.kinesis_stream(&input)?;
        let mut placed = self
            .put_kinesis_records(stream.id, name, vec![record])
            .await?;
        let (shard, seq) = placed
            .pop()
            .ok_or_else(|| EngineError::Internal("a put placed no record".into()))?;
        Ok(PutRecordOutput {
            shard_id: shard_id(shard),
            sequence_number: sequence_string(seq),
            encryption_type: "NONE".into(),
        })
    }

    pub async fn kinesis_put_records(&self, input: PutRecordsInput) -> Result<PutRecordsOutput> {
        let mut c = Constraints::new();
        c.not_null("records", input.records.as_ref());
        let entries = input.records.as_deref().unwrap_or_default();
        if input.records.is_some() {
            c.length(
                "records",
                &format!("[{} records]", entries.len()),
                entries.len(),
                1,
                MAX_PUT_RECORDS,
            );
        }
        let records: Vec<Result<NewRecord>> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                check_record(
                    &mut c,
                    &format!("records.{}.member.", i + 1),
                    e.data.as_deref(),
                    e.partition_key.as_deref(),
                    e.explicit_hash_key.as_deref(),
                )
            })
            .collect();
        let name = resolve(input.stream());
        c.finish()?;
        let records = records.into_iter().collect::<Result<Vec<_>>>()?;
        let total: usize = records
            .iter()
            .map(|r| r.data.len() + r.partition_key.len())
            .sum();
        if total > MAX_PUT_RECORDS_BYTES {
            return Err(invalid_argument(format!(
                "Records size exceeds {} MB limit",
                MAX_PUT_RECORDS_BYTES / 1_048_576
            )));
        }
        let name = name?.to_owned();
        let stream = self.kinesis_stream(&input)?;
        let placed = self.put_kinesis_records(stream.id, name, records).await?;
        Ok(PutRecordsOutput {
            failed_record_count: 0,
            records: placed
                .into_iter()
                .map(|(shard, seq)| PutRecordsResultEntry {
                    sequence_number: Some(sequence_string(seq)),
                    shard_id: Some(shard_id(shard)),
                    error_code: None,
                    error_message: None,
                })
                .collect(),
            encryption_type: "NONE".into(),
        })
    }

    /// Writes `records` to stream `id` in one job: (shard number, sequence number) of each.
    async fn put_kinesis_records(
        &self,
        id: u64,
        name: String,
        records: Vec<NewRecord>,
    ) -> Result<Vec<(u32, u64)>> {
        self.writer
            .submit(false, move |w| {
                let key = crate::keys::kinesis_stream_key(id);
                // Deleted (or deleted and made again) since the request looked it up.
                let bytes = w.get(Space::Meta, &key)?.ok_or_else(|| not_found(&name))?;
                let mut stream = KinesisStream::decode(&bytes)?;
                let now = w.now_ms();
                let mut placed = Vec::with_capacity(records.len());
                for record in records {
                    let shard = stream.shard_for(record.hash)?.number;
                    let seq = stream.next_seq;
                    stream.next_seq += 1;
                    let stored = StoredRecord {
                        arrival_ms: now,
                        partition_key: record.partition_key,
                        data: record.data,
                    };
                    w.put(
                        Space::Streams,
                        stream.record_key(shard, seq),
                        stored.encode(),
                    );
                    placed.push((shard, seq));
                }
                w.put(Space::Meta, key, stream.encode()?);
                Ok(placed)
            })
            .await
    }

    pub fn kinesis_get_shard_iterator(
        &self,
        input: GetShardIteratorInput,
    ) -> Result<GetShardIteratorOutput> {
        const TYPES: [&str; 5] = [
            "AT_SEQUENCE_NUMBER",
            "AFTER_SEQUENCE_NUMBER",
            "TRIM_HORIZON",
            "LATEST",
            "AT_TIMESTAMP",
        ];
        let mut c = Constraints::new();
        c.required_text("shardId", input.shard_id.as_deref(), 1, 128);
        let kind = input.shard_iterator_type.as_deref();
        c.not_null("shardIteratorType", kind.as_ref());
        c.one_of("shardIteratorType", kind, &TYPES);
        if let Some(seq) = &input.starting_sequence_number {
            sequence_pattern(&mut c, "startingSequenceNumber", seq);
        }
        let name = resolve(input.stream());
        c.finish()?;
        name?;
        let stream = self.kinesis_stream(&input)?;
        let wanted = input.shard_id.as_deref().unwrap_or_default();
        let shard = stream.shard(wanted).ok_or_else(|| {
            EngineError::ResourceNotFound(format!(
                "Shard {wanted} in stream {} under account {ACCOUNT_ID} does not exist",
                stream.name
            ))
        })?;
        // One past the shard's last record: where a reader waits for the next one.
        let end = shard.last_seq.map_or(stream.next_seq, |last| last + 1);
        let starting = |kind: &str| -> Result<u64> {
            let text = input.starting_sequence_number.as_deref().ok_or_else(|| {
                invalid_argument(format!(
                    "StartingSequenceNumber must be specified for ShardIteratorType {kind}."
                ))
            })?;
            parse_sequence(text)
                .filter(|seq| (shard.first_seq..end).contains(seq))
                .ok_or_else(|| {
                    invalid_argument(format!(
                        "StartingSequenceNumber {text} used in GetShardIterator on shard {} in \
                         stream {} under account {ACCOUNT_ID} is invalid.",
                        shard.id(),
                        stream.name
                    ))
                })
        };
        let next_seq = match kind.unwrap_or_default() {
            "AT_SEQUENCE_NUMBER" => starting("AT_SEQUENCE_NUMBER")?,
            "AFTER_SEQUENCE_NUMBER" => starting("AFTER_SEQUENCE_NUMBER")? + 1,
            "LATEST" => end,
            "AT_TIMESTAMP" => {
                let at = input.timestamp.ok_or_else(|| {
                    invalid_argument(
                        "Timestamp must be specified for ShardIteratorType AT_TIMESTAMP.",
                    )
                })?;
                self.kinesis_first_at(&stream, shard.number, shard.first_seq, end, at)?
            }
            _ => shard.first_seq,
        };
        let iterator = ShardIterator {
            stream_id: stream.id,
            shard: shard.number,
            next_seq,
            issued_ms: self.clock.now_ms(),
        };
        Ok(GetShardIteratorOutput {
            shard_iterator: iterator.encode(&self.iterator_key),
        })
    }

    /// The sequence number of the first record of a shard that arrived at or after `at`
    /// (epoch seconds), or `end` when none did.
    fn kinesis_first_at(
        &self,
        stream: &KinesisStream,
        shard: u32,
        first: u64,
        end: u64,
        at: f64,
    ) -> Result<u64> {
        let at_ms = (at * 1000.0) as i64;
        let snapshot = self.store.snapshot()?;
        for row in snapshot.range(
            Space::Streams,
            stream.records_from(shard, first),
            Direction::Forward,
        ) {
            let (key, value) = row?;
            if StoredRecord::arrival_ms_of(&value).is_some_and(|t| t >= at_ms) {
                return crate::keys::seq_of_record_key(&key)
                    .ok_or_else(|| EngineError::Internal("corrupt Kinesis record key".into()));
            }
        }
        Ok(end)
    }

    /// The last sequence number stream `name` has handed out (0 before its first record):
    /// a reader starting at LATEST reads what comes after it.
    pub fn kinesis_newest_sequence(&self, name: &str) -> Result<u64> {
        let snapshot = self.store.snapshot()?;
        let stream =
            super::stream_by_name(snapshot.as_ref(), name)?.ok_or_else(|| not_found(name))?;
        Ok(stream.next_seq - 1)
    }

    /// The ARN of the stream a shard iterator reads, if it is one of this server's and the
    /// stream is there (what the authorization of GetRecords checks).
    pub fn kinesis_iterator_stream_arn(
        &self,
        ctx: &crate::RequestContext,
        iterator: &str,
    ) -> Option<String> {
        let iterator = ShardIterator::decode(iterator, &self.iterator_key)?;
        let snapshot = self.store.snapshot().ok()?;
        let stream = stream_by_id(snapshot.as_ref(), iterator.stream_id).ok()??;
        Some(stream.arn(&ctx.region))
    }

    pub fn kinesis_get_records(&self, input: GetRecordsInput) -> Result<GetRecordsOutput> {
        let mut c = Constraints::new();
        c.required_text("shardIterator", input.shard_iterator.as_deref(), 1, 512);
        c.at_least("limit", input.limit, 1);
        c.at_most("limit", input.limit, MAX_GET_RECORDS);
        c.finish()?;
        let text = input.shard_iterator.as_deref().unwrap_or_default();
        let now = self.clock.now_ms();
        let iterator = self.live_iterator(text, now)?;
        let snapshot = self.store.snapshot()?;
        let stream = stream_by_id(snapshot.as_ref(), iterator.stream_id)?.ok_or_else(|| {
            EngineError::ResourceNotFound(format!(
                "Shard {} in a stream under account {ACCOUNT_ID} does not exist",
                shard_id(iterator.shard)
            ))
        })?;
        let shard = stream
            .shards
            .iter()
            .find(|s| s.number == iterator.shard)
            .ok_or_else(|| {
                EngineError::ResourceNotFound(format!(
                    "Shard {} in stream {} under account {ACCOUNT_ID} does not exist",
                    shard_id(iterator.shard),
                    stream.name
                ))
            })?;
        let limit = usize::try_from(input.limit.unwrap_or(MAX_GET_RECORDS)).unwrap_or(10_000);
        let trim_before = now - stream.retention_ms();
        let mut records = Vec::new();
        let mut bytes = 0usize;
        let mut next_seq = iterator.next_seq;
        let mut behind_ms = 0;
        let mut cut = false;
        for row in snapshot.range(
            Space::Streams,
            stream.records_from(shard.number, iterator.next_seq),
            Direction::Forward,
        ) {
            let (key, value) = row?;
            let seq = crate::keys::seq_of_record_key(&key)
                .ok_or_else(|| EngineError::Internal("corrupt Kinesis record key".into()))?;
            let record = StoredRecord::decode(&value)?;
            if record.arrival_ms < trim_before {
                // Past the retention period: trimmed, even if the sweeper has not yet.
                next_seq = seq + 1;
                continue;
            }
            let size = record.data.len() + record.partition_key.len();
            if records.len() >= limit || (!records.is_empty() && bytes + size > MAX_GET_BYTES) {
                behind_ms = (now - record.arrival_ms).max(0);
                cut = true;
                break;
            }
            bytes += size;
            next_seq = seq + 1;
            records.push(Record {
                sequence_number: sequence_string(seq),
                approximate_arrival_timestamp: epoch_seconds(record.arrival_ms),
                data: base64::engine::general_purpose::STANDARD.encode(&record.data),
                partition_key: record.partition_key,
            });
        }
        // CloudWatch's IteratorAge: how old the last record returned is (0 when none was).
        let age = records.last().map_or(0, |r| {
            now - (r.approximate_arrival_timestamp * 1000.0) as i64
        });
        self.counters
            .kinesis
            .read(&stream.name, records.len(), bytes, age.max(0));
        // Sequence numbers are the stream's, so a shard's own have gaps: a closed shard
        // whose every record was read is read to its end, whatever its last number was.
        if !cut && let Some(last) = shard.last_seq {
            next_seq = next_seq.max(last + 1);
        }
        // A closed shard read to its end has no next iterator: its children follow it.
        let finished = shard.last_seq.is_some_and(|last| next_seq > last);
        let child_shards = finished.then(|| child_shards(&stream, shard));
        let next_shard_iterator = (!finished).then(|| {
            ShardIterator {
                next_seq,
                issued_ms: now,
                ..iterator
            }
            .encode(&self.iterator_key)
        });
        Ok(GetRecordsOutput {
            records,
            next_shard_iterator,
            millis_behind_latest: behind_ms,
            child_shards,
        })
    }

    /// The iterator `text` encodes, refused when it is not one of this engine's or has
    /// outlived Kinesis's five minutes.
    fn live_iterator(&self, text: &str, now: i64) -> Result<ShardIterator> {
        let iterator = ShardIterator::decode(text, &self.iterator_key)
            .ok_or_else(|| invalid_argument("Invalid ShardIterator."))?;
        if now.saturating_sub(iterator.issued_ms) > ITERATOR_LIFETIME_MS {
            return Err(EngineError::ExpiredIterator(format!(
                "Iterator expired. The iterator was created at time {} while right now it is \
                 {} which is further in the future than the tolerated delay of \
                 {ITERATOR_LIFETIME_MS} milliseconds.",
                http_time(iterator.issued_ms),
                http_time(now)
            )));
        }
        Ok(iterator)
    }
}

/// The shards a split or merge of `shard` made: where a reader goes once it is read to its
/// end.
fn child_shards(stream: &KinesisStream, shard: &KinesisShard) -> Vec<ChildShard> {
    stream
        .shards
        .iter()
        .filter(|s| s.parent == Some(shard.number) || s.adjacent_parent == Some(shard.number))
        .map(|s| ChildShard {
            shard_id: s.id(),
            parent_shards: s
                .parent
                .iter()
                .chain(&s.adjacent_parent)
                .map(|p| shard_id(*p))
                .collect(),
            hash_key_range: s.wire().hash_key_range,
        })
        .collect()
}

/// Checks one record's members (`prefix` names it inside PutRecords) and decodes it.
fn check_record(
    c: &mut Constraints,
    prefix: &str,
    data: Option<&str>,
    partition_key: Option<&str>,
    explicit_hash_key: Option<&str>,
) -> Result<NewRecord> {
    let data_path = format!("{prefix}data");
    let key_path = format!("{prefix}partitionKey");
    c.not_null(&data_path, data.as_ref());
    c.required_text(&key_path, partition_key, 1, 256);
    if let Some(hash) = explicit_hash_key
        && !is_decimal(hash, 39)
    {
        c.fail(
            Some(hash),
            &format!("{prefix}explicitHashKey"),
            "Member must satisfy regular expression pattern: 0|([1-9]\\d{0,38})",
        );
    }
    let data = match data {
        Some(text) => base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|_| EngineError::Serialization(messages::invalid_base64(text)))?,
        None => Vec::new(),
    };
    if data.len() > MAX_RECORD_BYTES {
        let n = data.len();
        c.fail(
            Some(&format!("java.nio.HeapByteBuffer[pos=0 lim={n} cap={n}]")),
            &data_path,
            &messages::max_length(MAX_RECORD_BYTES),
        );
    }
    let partition_key = partition_key.unwrap_or_default().to_owned();
    let hash = match explicit_hash_key {
        None => hash_key(&partition_key),
        Some(text) => text.parse::<u128>().map_err(|_| {
            invalid_argument(format!(
                "Invalid ExplicitHashKey. ExplicitHashKey must be in the range: [0, 2^128-1]. \
                 Specified value was {text}"
            ))
        })?,
    };
    Ok(NewRecord {
        partition_key,
        hash,
        data,
    })
}

/// `0|([1-9]\d{0,max-1})`.
fn is_decimal(text: &str, max: usize) -> bool {
    text == "0"
        || (!text.is_empty()
            && text.len() <= max
            && !text.starts_with('0')
            && text.bytes().all(|b| b.is_ascii_digit()))
}

fn sequence_pattern(c: &mut Constraints, path: &str, text: &str) {
    if !is_decimal(text, 129) {
        c.fail(
            Some(text),
            path,
            "Member must satisfy regular expression pattern: 0|([1-9]\\d{0,128})",
        );
    }
}

/// A time as Kinesis writes it in ExpiredIteratorException: `Thu Jan 01 00:00:00 UTC 2026`.
fn http_time(ms: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| {
            let format = time::macros::format_description!(
                "[weekday repr:short] [month repr:short] [day] [hour]:[minute]:[second] UTC [year]"
            );
            t.format(&format).ok()
        })
        .unwrap_or_else(|| ms.to_string())
}
