//! The DynamoDBStreams_20120810 operations: ListStreams, DescribeStream, GetShardIterator,
//! GetRecords. All read one snapshot; none waits on a write.
//!
//! A shard iterator ([`Iterator`]) is signed by the engine and expires 15 minutes after
//! it was issued, by the engine's clock.

use kura_model::constraint::Constraints;
use kura_model::size::item_size;
use kura_model::{limits, messages};

use crate::Engine;
use crate::RequestContext;
use crate::api::*;
use crate::error::{EngineError, Result};
use crate::indexes::definition::key_schema_out;
use crate::keys;
use crate::streams::iterator::{self, Iterator};
use crate::streams::meta::{Shard, StreamMeta, ViewType, sequence_string};
use crate::streams::record::{Origin, StoredRecord};
use kura_store::{Direction, KeyRange, Snapshot, Space};

const ITERATOR_TYPES: [&str; 4] = [
    "TRIM_HORIZON",
    "LATEST",
    "AT_SEQUENCE_NUMBER",
    "AFTER_SEQUENCE_NUMBER",
];
const MAX_DESCRIBE_SHARDS: i64 = 100;
const MAX_LIST_STREAMS: i64 = 100;
/// The length bounds of ListStreams' ExclusiveStartStreamArn (the API model's, as
/// dynalite's `validations/listStreams.js` has them).
const MIN_STREAM_ARN: usize = 37;
const MAX_STREAM_ARN: usize = 1024;
/// GetRecords returns at most this many bytes of records.
const MAX_RECORDS_BYTES: usize = 1024 * 1024;

/// Every stream's metadata, in stream id order (creation order).
fn all_streams(snapshot: &dyn Snapshot) -> Result<Vec<StreamMeta>> {
    let range = KeyRange::prefix(keys::stream_meta_prefix());
    snapshot
        .range(Space::Meta, range, Direction::Forward)
        .map(|row| StreamMeta::decode(&row?.1))
        .collect()
}

fn stream_meta(snapshot: &dyn Snapshot, id: u64) -> Result<Option<StreamMeta>> {
    match snapshot.get(Space::Meta, &keys::stream_meta_key(id))? {
        Some(bytes) => Ok(Some(StreamMeta::decode(&bytes)?)),
        None => Ok(None),
    }
}

/// The stream an ARN names, with DynamoDB's not-found error.
fn stream_by_arn(snapshot: &dyn Snapshot, arn: &str) -> Result<StreamMeta> {
    let (table, label) = crate::arn::parse_stream(arn)
        .ok_or_else(|| EngineError::validation(messages::invalid_stream_arn(arn)))?;
    all_streams(snapshot)?
        .into_iter()
        .find(|m| m.table == table && m.label == label)
        .ok_or_else(|| EngineError::ResourceNotFound(messages::stream_not_found(arn)))
}

fn parse_sequence(text: &str) -> Result<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(EngineError::validation(messages::INVALID_SEQUENCE_NUMBER));
    }
    // Kura's numbers fit u64; longer ones (up to DynamoDB's 40 digits) are beyond any shard.
    text.trim_start_matches('0')
        .parse::<u64>()
        .or_else(|_| {
            if text.bytes().all(|b| b == b'0') {
                Ok(0)
            } else {
                Err(())
            }
        })
        .map_err(|()| EngineError::validation(messages::INVALID_SEQUENCE_NUMBER))
}

fn status(meta: &StreamMeta) -> &'static str {
    if meta.disabled_ms.is_some() {
        "DISABLED"
    } else {
        "ENABLED"
    }
}

/// The creation time a shard id carries (`shardId-<20 digits>-<8 hex>`).
fn created_ms_of_shard_id(id: &str) -> Option<i64> {
    let digits = id.strip_prefix("shardId-")?.split('-').next()?;
    (digits.len() == 20).then(|| digits.parse().ok()).flatten()
}

/// Whether `seq` lies in `shard` (an open shard holds everything from its first number).
fn in_shard(shard: &Shard, seq: u64) -> bool {
    seq >= shard.first_seq && shard.last_seq.is_none_or(|last| seq <= last)
}

impl Engine {
    pub fn list_streams(
        &self,
        ctx: &RequestContext,
        input: ListStreamsInput,
    ) -> Result<ListStreamsOutput> {
        let mut c = Constraints::new();
        if let Some(start) = &input.exclusive_start_stream_arn {
            c.length(
                "exclusiveStartStreamArn",
                start,
                start.len(),
                MIN_STREAM_ARN,
                MAX_STREAM_ARN,
            );
        }
        c.at_least("limit", input.limit, 1);
        if let Some(name) = input.table_name.as_deref() {
            c.name("tableName", Some(name));
        }
        c.finish()?;
        if input.limit.is_some_and(|l| l > MAX_LIST_STREAMS) {
            return Err(EngineError::validation(messages::LIST_STREAMS_LIMIT));
        }
        // A start that is not a stream ARN is refused (AWS; DynamoDB Local ignores it).
        if let Some(start) = &input.exclusive_start_stream_arn
            && crate::arn::parse_stream(start).is_none()
        {
            return Err(EngineError::validation(messages::invalid_stream_arn(start)));
        }
        let limit = input.limit.unwrap_or(MAX_LIST_STREAMS) as usize;
        let snapshot = self.store.snapshot()?;
        let mut streams: Vec<StreamMeta> = all_streams(snapshot.as_ref())?
            .into_iter()
            .filter(|m| input.table_name.as_deref().is_none_or(|t| m.table == t))
            .collect();
        if let Some(start) = &input.exclusive_start_stream_arn
            && let Some(position) = streams.iter().position(|m| m.arn(&ctx.region) == *start)
        {
            streams.drain(..=position);
        }
        let more = streams.len() > limit;
        streams.truncate(limit);
        let out: Vec<StreamSummary> = streams
            .iter()
            .map(|m| StreamSummary {
                stream_arn: m.arn(&ctx.region),
                table_name: m.table.clone(),
                stream_label: m.label.clone(),
            })
            .collect();
        Ok(ListStreamsOutput {
            last_evaluated_stream_arn: more
                .then(|| out.last().map(|s| s.stream_arn.clone()))
                .flatten(),
            streams: out,
        })
    }

    pub fn describe_stream(
        &self,
        ctx: &RequestContext,
        input: DescribeStreamInput,
    ) -> Result<DescribeStreamOutput> {
        let mut c = Constraints::new();
        c.not_null("streamArn", input.stream_arn.as_ref());
        c.at_least("limit", input.limit, 1);
        if let Some(filter) = &input.shard_filter {
            // Both members are optional in the API model, yet AWS refuses a filter
            // without either (docs/compat.md, "Streams and TTL").
            c.not_null("shardFilter.type", filter.filter_type.as_ref());
            c.one_of(
                "shardFilter.type",
                filter.filter_type.as_deref(),
                &["CHILD_SHARDS"],
            );
            c.not_null("shardFilter.shardId", filter.shard_id.as_ref());
            if let Some(id) = &filter.shard_id {
                c.length("shardFilter.shardId", id, id.len(), 28, 65);
            }
        }
        c.finish()?;
        if input.limit.is_some_and(|l| l > MAX_DESCRIBE_SHARDS) {
            return Err(EngineError::validation(messages::describe_stream_limit(
                MAX_DESCRIBE_SHARDS,
            )));
        }
        let arn = input.stream_arn.unwrap_or_default();
        let snapshot = self.store.snapshot()?;
        let meta = stream_by_arn(snapshot.as_ref(), &arn)?;
        let limit = input.limit.unwrap_or(MAX_DESCRIBE_SHARDS) as usize;
        // Shards whose records are all trimmed are gone.
        let mut shards: Vec<&Shard> = meta.live_shards().collect();
        // In ShardId order, as DynamoDB lists them (scylladb `test_streams.py`, against
        // AWS): the zero-padded creation time first makes it oldest first across
        // generations; shards opened together follow their ids' hash part.
        shards.sort_by_cached_key(|s| meta.shard_id(s));
        // CHILD_SHARDS of a shard: the shards it split into (none while it is open).
        if let Some(filter) = &input.shard_filter {
            let parent = filter.shard_id.as_deref().unwrap_or_default();
            shards.retain(|s| meta.parent_id(s).as_deref() == Some(parent));
        }
        if let Some(start) = &input.exclusive_start_shard_id {
            match shards.iter().position(|s| meta.shard_id(s) == *start) {
                Some(position) => {
                    shards.drain(..=position);
                }
                // A shard trimmed away since: the live shards created after it follow.
                // Anything else is unknown and gives an empty list, as DynamoDB does.
                None => match created_ms_of_shard_id(start) {
                    Some(created)
                        if meta.shards.first().is_some_and(|s| created < s.created_ms) =>
                    {
                        shards.retain(|s| s.created_ms > created);
                    }
                    _ => shards.clear(),
                },
            }
        }
        let more = shards.len() > limit;
        shards.truncate(limit);
        let described: Vec<ShardDescription> = shards
            .iter()
            .map(|s| ShardDescription {
                shard_id: meta.shard_id(s),
                parent_shard_id: meta.parent_id(s),
                sequence_number_range: SequenceNumberRange {
                    starting_sequence_number: sequence_string(s.first_seq),
                    ending_sequence_number: s.last_seq.map(sequence_string),
                },
            })
            .collect();
        Ok(DescribeStreamOutput {
            stream_description: StreamDescription {
                stream_arn: meta.arn(&ctx.region),
                stream_label: meta.label.clone(),
                stream_status: status(&meta),
                stream_view_type: meta.view_type.wire(),
                creation_request_date_time: meta.created_ms as f64 / 1000.0,
                table_name: meta.table.clone(),
                key_schema: key_schema_out(&meta.key_schema),
                last_evaluated_shard_id: more
                    .then(|| described.last().map(|s| s.shard_id.clone()))
                    .flatten(),
                shards: described,
            },
        })
    }

    pub fn get_shard_iterator(
        &self,
        input: GetShardIteratorInput,
    ) -> Result<GetShardIteratorOutput> {
        let mut c = Constraints::new();
        c.not_null("streamArn", input.stream_arn.as_ref());
        c.not_null("shardId", input.shard_id.as_ref());
        c.not_null("shardIteratorType", input.shard_iterator_type.as_ref());
        c.one_of(
            "shardIteratorType",
            input.shard_iterator_type.as_deref(),
            &ITERATOR_TYPES,
        );
        if let Some(id) = &input.shard_id {
            c.length("shardId", id, id.len(), 28, 65);
        }
        if let Some(seq) = &input.sequence_number {
            c.length("sequenceNumber", seq, seq.len(), 21, 40);
        }
        c.finish()?;
        let kind = input.shard_iterator_type.as_deref().unwrap_or_default();
        let at_number = matches!(kind, "AT_SEQUENCE_NUMBER" | "AFTER_SEQUENCE_NUMBER");
        let sequence = match (&input.sequence_number, at_number) {
            (None, true) => {
                return Err(EngineError::validation(messages::sequence_number_required(
                    kind,
                )));
            }
            (Some(_), false) => {
                return Err(EngineError::validation(
                    messages::sequence_number_not_allowed(kind),
                ));
            }
            (Some(text), true) => Some(parse_sequence(text)?),
            (None, false) => None,
        };
        let snapshot = self.store.snapshot()?;
        let meta = stream_by_arn(
            snapshot.as_ref(),
            input.stream_arn.as_deref().unwrap_or_default(),
        )?;
        let shard = meta
            .shard(input.shard_id.as_deref().unwrap_or_default())
            .ok_or_else(|| EngineError::ResourceNotFound(messages::SHARD_NOT_FOUND.into()))?;
        let next_seq = match (kind, sequence) {
            ("TRIM_HORIZON", _) => shard.first_seq.max(shard.trim_seq),
            ("LATEST", _) => shard.last_seq.map_or(meta.next_seq, |last| last + 1),
            // A shard's own StartingSequenceNumber is valid even when nothing was
            // written there (scylladb `test_get_shard_iterator`, against AWS): no record
            // has that number, so AFTER it is the same position as AT it.
            (_, Some(seq))
                if seq == shard.first_seq
                    && shard
                        .last_seq
                        .map_or(seq >= meta.next_seq, |last| last < seq) =>
            {
                seq
            }
            (_, Some(seq)) => {
                if !in_shard(shard, seq) || (shard.last_seq.is_none() && seq >= meta.next_seq) {
                    return Err(EngineError::validation(messages::INVALID_SEQUENCE_NUMBER));
                }
                if seq < shard.trim_seq {
                    return Err(EngineError::TrimmedDataAccess(
                        messages::DATA_TRIMMED.into(),
                    ));
                }
                if kind == "AT_SEQUENCE_NUMBER" {
                    seq
                } else {
                    seq + 1
                }
            }
            _ => return Err(EngineError::validation(messages::INVALID_ITERATOR)),
        };
        let iterator = Iterator {
            stream_id: meta.id,
            shard: shard.number,
            next_seq,
            issued_ms: self.clock.now_ms(),
        };
        Ok(GetShardIteratorOutput {
            shard_iterator: iterator.encode(&self.iterator_key),
        })
    }

    /// The sequence number of the stream's newest record (0 when it has none): an
    /// in-process reader starting at LATEST across all shards reads what comes after it.
    pub fn stream_newest_sequence(&self, arn: &str) -> Result<u128> {
        let snapshot = self.store.snapshot()?;
        let meta = stream_by_arn(snapshot.as_ref(), arn)?;
        Ok(u128::from(meta.next_seq.saturating_sub(1)))
    }

    /// The ARN of the stream a shard iterator reads (for the server's authorization of
    /// GetRecords); None for an iterator that does not decode or a stream that is gone.
    pub fn shard_iterator_stream_arn(
        &self,
        ctx: &RequestContext,
        iterator: &str,
    ) -> Option<String> {
        let iterator = Iterator::decode(iterator, &self.iterator_key)?;
        let snapshot = self.store.snapshot().ok()?;
        let meta = stream_meta(snapshot.as_ref(), iterator.stream_id).ok()??;
        Some(meta.arn(&ctx.region))
    }

    pub fn get_records(
        &self,
        ctx: &RequestContext,
        input: GetRecordsInput,
    ) -> Result<GetRecordsOutput> {
        let mut c = Constraints::new();
        match &input.shard_iterator {
            None => c.not_null::<()>("shardIterator", None),
            Some(text) => c.length("shardIterator", text, text.len(), 1, 2048),
        }
        c.at_least("limit", input.limit, 1);
        c.finish()?;
        let text = input.shard_iterator.unwrap_or_default();
        let Some(iterator) = Iterator::decode(&text, &self.iterator_key) else {
            if iterator::is_version_1(&text) {
                return Err(EngineError::ExpiredIterator(
                    messages::ITERATOR_EXPIRED.into(),
                ));
            }
            return Err(EngineError::validation(messages::INVALID_ITERATOR));
        };
        let now = self.clock.now_ms();
        if now.saturating_sub(iterator.issued_ms) > limits::SHARD_ITERATOR_LIFETIME_MS {
            return Err(EngineError::ExpiredIterator(
                messages::ITERATOR_EXPIRED.into(),
            ));
        }
        if input.limit.is_some_and(|l| l > limits::MAX_GET_RECORDS) {
            return Err(EngineError::validation(messages::GET_RECORDS_LIMIT));
        }
        let limit = input.limit.unwrap_or(limits::MAX_GET_RECORDS) as usize;
        let snapshot = self.store.snapshot()?;
        let meta = stream_meta(snapshot.as_ref(), iterator.stream_id)?
            .ok_or_else(|| EngineError::ResourceNotFound(messages::ITERATOR_SHARD_GONE.into()))?;
        // A shard forgotten by trimming was closed, and every record it held was older
        // than the retention period: an iterator (at most 15 minutes old) into it had read
        // it to its end. Nothing more, and no next iterator.
        let Some(shard) = meta.shard_by_number(iterator.shard) else {
            return Ok(GetRecordsOutput::default());
        };
        if iterator.next_seq < shard.trim_seq {
            return Err(EngineError::TrimmedDataAccess(
                messages::DATA_TRIMMED.into(),
            ));
        }
        let range = meta.shard_records(shard, iterator.next_seq);
        let mut records = Vec::new();
        let mut bytes = 0usize;
        let mut next_seq = iterator.next_seq;
        // Whether the read reached the end of what the shard holds now (not a limit).
        let mut exhausted = true;
        if !range.is_empty() {
            for row in snapshot.range(Space::Streams, range, Direction::Forward) {
                if records.len() >= limit || bytes >= MAX_RECORDS_BYTES {
                    exhausted = false;
                    break;
                }
                let (key, value) = row?;
                let seq = keys::seq_of_record_key(&key)
                    .ok_or_else(|| EngineError::Internal("corrupt stream record key".into()))?;
                let stored = StoredRecord::decode(&value)?;
                let record = wire_record(&meta, seq, stored, &ctx.region);
                bytes += record.dynamodb.size_bytes as usize;
                records.push(record);
                next_seq = seq + 1;
            }
        }
        if !records.is_empty() {
            self.counters.table(&meta.table).stream_read(
                meta.id,
                shard.number,
                records.len(),
                next_seq,
            );
        }
        // A closed shard read to its end has no next iterator: readers go on to its child.
        // (Its last sequence number may belong to another shard's record: sequence numbers
        // are the stream's, so a shard's own records need not reach it.)
        if exhausted && let Some(last) = shard.last_seq {
            next_seq = next_seq.max(last + 1);
        }
        let finished = shard.last_seq.is_some_and(|last| next_seq > last);
        let next_shard_iterator = (!finished).then(|| {
            Iterator {
                next_seq,
                issued_ms: now,
                ..iterator
            }
            .encode(&self.iterator_key)
        });
        Ok(GetRecordsOutput {
            records,
            next_shard_iterator,
        })
    }
}

/// A stored record as GetRecords returns it.
fn wire_record(meta: &StreamMeta, seq: u64, stored: StoredRecord, region: &str) -> Record {
    let size = item_size(&stored.keys)
        + stored.new_image.as_ref().map_or(0, item_size)
        + stored.old_image.as_ref().map_or(0, item_size);
    let view: ViewType = meta.view_type;
    Record {
        event_id: format!("{:016x}{:016x}", meta.id, seq),
        event_name: stored.event.wire(),
        event_version: "1.1",
        event_source: "aws:dynamodb",
        aws_region: region.to_owned(),
        dynamodb: StreamRecord {
            // DynamoDB reports whole seconds.
            approximate_creation_date_time: stored.created_ms.div_euclid(1000) as f64,
            keys: stored.keys,
            new_image: stored.new_image,
            old_image: stored.old_image,
            sequence_number: sequence_string(seq),
            size_bytes: size as u64,
            stream_view_type: view.wire(),
        },
        user_identity: (stored.origin == Origin::Ttl).then_some(Identity {
            principal_id: "dynamodb.amazonaws.com",
            kind: "Service",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_numbers_parse() {
        assert_eq!(parse_sequence("000000000000000000042").ok(), Some(42));
        assert!(parse_sequence("12a").is_err());
        assert!(parse_sequence("").is_err());
        assert!(parse_sequence("99999999999999999999999999").is_err());
    }
}

/// How far a table's stream has been read, for `/metrics`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamLag {
    pub table: String,
    /// Records written to the table's current stream since it was enabled.
    pub written: u64,
    /// Age of the oldest record after the furthest position GetRecords has served in any
    /// shard a reader has read, when something is left there (None otherwise).
    pub unread_age_ms: Option<i64>,
}

impl Engine {
    /// The lag of every enabled stream (the DynamoDB Streams API names no readers, so the
    /// furthest position served stands for the readers' checkpoint).
    pub fn stream_lag(&self) -> Result<Vec<StreamLag>> {
        let snapshot = self.store.snapshot()?;
        let now = self.clock.now_ms();
        let mut out = Vec::new();
        for table in self.catalog.all().values() {
            let Some(spec) = table.stream.as_ref().filter(|s| s.enabled) else {
                continue;
            };
            let Some(meta) = stream_meta(snapshot.as_ref(), spec.id)? else {
                continue;
            };
            let counters = self.counters.existing(&table.name);
            if let Some(c) = &counters {
                let live: Vec<u32> = meta.live_shards().map(|s| s.number).collect();
                c.retain_stream_positions(meta.id, &live);
            }
            let mut unread_age_ms: Option<i64> = None;
            for shard in meta.live_shards() {
                let Some(next) = counters
                    .as_ref()
                    .and_then(|c| c.stream_position(meta.id, shard.number))
                else {
                    continue;
                };
                let range = meta.shard_records(shard, next.max(shard.trim_seq));
                if range.is_empty() {
                    continue;
                }
                let first_unread = snapshot
                    .range(Space::Streams, range, Direction::Forward)
                    .next()
                    .transpose()?;
                if let Some(created) =
                    first_unread.and_then(|(_, bytes)| StoredRecord::created_ms_of(&bytes))
                {
                    let age = now.saturating_sub(created).max(0);
                    unread_age_ms = Some(unread_age_ms.map_or(age, |a| a.max(age)));
                }
            }
            out.push(StreamLag {
                table: table.name.clone(),
                written: meta.next_seq.saturating_sub(1),
                unread_age_ms,
            });
        }
        Ok(out)
    }
}
