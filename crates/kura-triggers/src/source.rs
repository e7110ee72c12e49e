//! A table's stream as a trigger reads it: through the engine's own DynamoDB Streams
//! operations, in process, so a trigger sees exactly what any Streams client sees (shards,
//! lineage, trimming) without an HTTP hop.

use std::sync::Arc;

use kura_engine::api::{
    DescribeStreamInput, GetRecordsInput, GetShardIteratorInput, ListStreamsInput,
};
use kura_engine::{Engine, EngineError, RequestContext};
use serde_json::Value;

use crate::error::TriggerError;

/// A shard as DescribeStream lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardInfo {
    pub id: String,
    pub parent: Option<String>,
    pub starting: u128,
    /// Set once the shard is closed.
    pub ending: Option<u128>,
}

/// Where to start reading a shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    TrimHorizon,
    After(u128),
}

/// One page of GetRecords: the records (GetRecords' JSON) and the next iterator (None: the
/// shard is closed and read to its end).
pub struct Page {
    pub records: Vec<Value>,
    pub next: Option<String>,
}

#[derive(Clone)]
pub struct StreamSource {
    engine: Arc<Engine>,
    ctx: RequestContext,
}

fn engine_error(e: EngineError) -> TriggerError {
    TriggerError::Stream(e.to_string())
}

/// A sequence number's value (21 to 40 digits).
pub fn sequence_value(text: &str) -> Option<u128> {
    text.parse().ok()
}

impl StreamSource {
    pub fn new(engine: Arc<Engine>, region: &str) -> StreamSource {
        StreamSource {
            engine,
            ctx: RequestContext {
                region: region.to_owned(),
            },
        }
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    pub fn context(&self) -> &RequestContext {
        &self.ctx
    }

    /// The ARN of the table's latest enabled stream, if it has one.
    pub fn stream_arn(&self, table: &str) -> Result<Option<String>, TriggerError> {
        let listed = self
            .engine
            .list_streams(
                &self.ctx,
                ListStreamsInput {
                    table_name: Some(table.to_owned()),
                    ..Default::default()
                },
            )
            .map_err(engine_error)?;
        // Streams are listed in creation order: the last is the table's latest.
        let Some(latest) = listed.streams.last() else {
            return Ok(None);
        };
        let described = self
            .engine
            .describe_stream(
                &self.ctx,
                DescribeStreamInput {
                    stream_arn: Some(latest.stream_arn.clone()),
                    limit: Some(1),
                    ..Default::default()
                },
            )
            .map_err(engine_error)?;
        Ok((described.stream_description.stream_status == "ENABLED")
            .then(|| latest.stream_arn.clone()))
    }

    /// Every live shard of the stream, in DescribeStream's order (parents first).
    pub fn shards(&self, arn: &str) -> Result<Vec<ShardInfo>, TriggerError> {
        let mut out = Vec::new();
        let mut start: Option<String> = None;
        loop {
            let page = self
                .engine
                .describe_stream(
                    &self.ctx,
                    DescribeStreamInput {
                        stream_arn: Some(arn.to_owned()),
                        exclusive_start_shard_id: start.take(),
                        ..Default::default()
                    },
                )
                .map_err(engine_error)?;
            let description = page.stream_description;
            for shard in description.shards {
                let range = &shard.sequence_number_range;
                out.push(ShardInfo {
                    id: shard.shard_id.clone(),
                    parent: shard.parent_shard_id.clone(),
                    starting: sequence_value(&range.starting_sequence_number).unwrap_or(0),
                    ending: range
                        .ending_sequence_number
                        .as_deref()
                        .and_then(sequence_value),
                });
            }
            match description.last_evaluated_shard_id {
                Some(last) => start = Some(last),
                None => return Ok(out),
            }
        }
    }

    /// An iterator at `start` in `shard`; None when the shard holds nothing after it, or
    /// is gone.
    pub fn iterator(
        &self,
        arn: &str,
        shard: &ShardInfo,
        start: Start,
    ) -> Result<Option<String>, TriggerError> {
        let (kind, number) = match start {
            Start::After(seq) if shard.ending.is_some_and(|end| seq >= end) => return Ok(None),
            Start::After(seq) if seq >= shard.starting => {
                ("AFTER_SEQUENCE_NUMBER", Some(format!("{seq:021}")))
            }
            _ => ("TRIM_HORIZON", None),
        };
        let asked = GetShardIteratorInput {
            stream_arn: Some(arn.to_owned()),
            shard_id: Some(shard.id.clone()),
            shard_iterator_type: Some(kind.to_owned()),
            sequence_number: number,
        };
        match self.engine.get_shard_iterator(asked) {
            Ok(out) => Ok(Some(out.shard_iterator)),
            // Trimmed since: what is left of the shard is read from its trim horizon.
            Err(EngineError::TrimmedDataAccess(_)) if kind != "TRIM_HORIZON" => {
                self.iterator(arn, shard, Start::TrimHorizon)
            }
            // Trimmed away (every record of it expired) since it was listed: nothing to read.
            Err(EngineError::ResourceNotFound(_)) => Ok(None),
            Err(e) => Err(engine_error(e)),
        }
    }

    pub fn records(&self, iterator: &str, limit: usize) -> Result<Page, TriggerError> {
        let asked = GetRecordsInput {
            shard_iterator: Some(iterator.to_owned()),
            limit: Some(limit as i64),
        };
        let out = match self.engine.get_records(&self.ctx, asked) {
            Ok(out) => out,
            // The stream is gone (forgotten a day after its table was deleted): its shards
            // have ended.
            Err(EngineError::ResourceNotFound(_)) => {
                return Ok(Page {
                    records: Vec::new(),
                    next: None,
                });
            }
            Err(e) => return Err(engine_error(e)),
        };
        let records = out
            .records
            .iter()
            .map(|r| serde_json::to_value(r).map_err(|e| TriggerError::Stream(e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Page {
            records,
            next: out.next_shard_iterator,
        })
    }

    /// The sequence number of the newest record of the stream: a trigger starting at LATEST
    /// delivers what comes after it.
    pub fn newest_sequence(&self, arn: &str) -> Result<u128, TriggerError> {
        self.engine
            .stream_newest_sequence(arn)
            .map_err(engine_error)
    }
}
