//! A stream as a trigger reads it: a table's, through the engine's own DynamoDB Streams
//! operations, or a Kinesis stream, through its Kinesis operations; in process, so a
//! trigger sees exactly what any client sees (shards, lineage, trimming) without an HTTP
//! hop. The two differ in their records' shapes, which [`StreamSource::facts`],
//! [`StreamSource::lambda_record`] and [`StreamSource::sequence_text`] hide from the
//! runner.

use std::sync::Arc;

use kura_engine::api::kinesis as kinesis_api;
use kura_engine::api::{
    DescribeStreamInput, GetRecordsInput, GetShardIteratorInput, ListStreamsInput,
};
use kura_engine::{Engine, EngineError, RequestContext};
use serde_json::{Value, json};

use crate::config::EventSource;
use crate::error::TriggerError;

/// A shard as DescribeStream lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardInfo {
    pub id: String,
    pub parent: Option<String>,
    /// A merged Kinesis shard's second parent.
    pub adjacent_parent: Option<String>,
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
    /// Reads a Kinesis stream rather than a table's stream.
    kinesis: bool,
}

/// What the runner needs to know of one record: its sequence number, when it was
/// written, and the key whose records must stay in order.
pub struct RecordFacts {
    pub seq: u128,
    pub created_ms: i64,
    pub order_key: String,
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
            kinesis: false,
        }
    }

    /// This source, reading what `source` names.
    pub fn reading(&self, source: &EventSource) -> StreamSource {
        StreamSource {
            kinesis: source.is_kinesis(),
            ..self.clone()
        }
    }

    pub fn is_kinesis(&self) -> bool {
        self.kinesis
    }

    /// A sequence number as the stream writes it (and as a partial batch response names
    /// a record).
    pub fn sequence_text(&self, seq: u128) -> String {
        if self.kinesis {
            kura_engine::kinesis_sequence_text(u64::try_from(seq).unwrap_or(u64::MAX))
        } else {
            format!("{seq:021}")
        }
    }

    /// A sequence number's value, as the stream writes it.
    fn sequence_of(&self, text: &str) -> Option<u128> {
        if self.kinesis {
            kura_engine::kinesis_sequence_value(text).map(u128::from)
        } else {
            sequence_value(text)
        }
    }

    /// The sequence number, time and ordering key of a record as [`StreamSource::records`]
    /// returns it; None for a record without a sequence number.
    pub fn facts(&self, record: &Value) -> Option<RecordFacts> {
        if self.kinesis {
            let seq = record["SequenceNumber"]
                .as_str()
                .and_then(|s| self.sequence_of(s))?;
            let seconds = record["ApproximateArrivalTimestamp"]
                .as_f64()
                .unwrap_or(0.0);
            return Some(RecordFacts {
                seq,
                created_ms: (seconds * 1000.0) as i64,
                order_key: record["PartitionKey"].as_str().unwrap_or("").to_owned(),
            });
        }
        let dynamodb = &record["dynamodb"];
        let seq = dynamodb["SequenceNumber"]
            .as_str()
            .and_then(sequence_value)?;
        let seconds = dynamodb["ApproximateCreationDateTime"]
            .as_f64()
            .unwrap_or(0.0);
        Some(RecordFacts {
            seq,
            created_ms: (seconds * 1000.0) as i64,
            order_key: dynamodb["Keys"].to_string(),
        })
    }

    /// A record as Lambda's event carries it: a DynamoDB stream record with
    /// `eventSourceARN`, or Lambda's Kinesis record (`kinesis` with the record's members,
    /// `eventID` `<shard>:<sequence number>`, `eventName` `aws:kinesis:record`).
    pub fn lambda_record(&self, record: &Value, arn: &str, shard_id: &str) -> Value {
        if !self.kinesis {
            return crate::event::lambda_record(record, arn);
        }
        let seq = record["SequenceNumber"].as_str().unwrap_or("");
        json!({
            "kinesis": {
                "kinesisSchemaVersion": "1.0",
                "partitionKey": record["PartitionKey"],
                "sequenceNumber": seq,
                "data": record["Data"],
                "approximateArrivalTimestamp": record["ApproximateArrivalTimestamp"],
            },
            "eventSource": "aws:kinesis",
            "eventVersion": "1.0",
            "eventID": format!("{shard_id}:{seq}"),
            "eventName": "aws:kinesis:record",
            "invokeIdentityArn": format!("arn:aws:iam::{}:role/kura-trigger", kura_engine::ACCOUNT_ID),
            "awsRegion": self.ctx.region,
            "eventSourceARN": arn,
        })
    }

    /// What a filter pattern is matched against: the Lambda record, and for Kinesis its
    /// `data` decoded as JSON at the top (Lambda's `{"data": {...}}` patterns); data that
    /// is not JSON has no `data` to match.
    pub fn filter_view(&self, record: &Value) -> Value {
        if !self.kinesis {
            return record.clone();
        }
        use base64::Engine as _;
        let mut view = record.clone();
        let data = record["kinesis"]["data"]
            .as_str()
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
        if let (Some(data), Some(map)) = (data, view.as_object_mut()) {
            map.insert("data".into(), data);
        }
        view
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    pub fn context(&self) -> &RequestContext {
        &self.ctx
    }

    /// The ARN of the table's latest enabled stream, if it has one (of the Kinesis stream,
    /// if it exists, for a Kinesis source).
    pub fn stream_arn(&self, table: &str) -> Result<Option<String>, TriggerError> {
        if self.kinesis {
            let asked = kinesis_api::DescribeStreamSummaryInput {
                stream_name: Some(table.to_owned()),
                stream_arn: None,
            };
            return match self
                .engine
                .kinesis_describe_stream_summary(&self.ctx, asked)
            {
                Ok(out) => Ok(Some(out.stream_description_summary.stream_arn)),
                Err(EngineError::ResourceNotFound(_)) => Ok(None),
                Err(e) => Err(engine_error(e)),
            };
        }
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
        if self.kinesis {
            return self.kinesis_shards(arn);
        }
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
                    adjacent_parent: None,
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

    fn kinesis_shards(&self, arn: &str) -> Result<Vec<ShardInfo>, TriggerError> {
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let asked = kinesis_api::ListShardsInput {
                stream_arn: token.is_none().then(|| arn.to_owned()),
                next_token: token.take(),
                ..Default::default()
            };
            let page = match self.engine.kinesis_list_shards(asked) {
                Ok(page) => page,
                // Deleted: nothing left to read.
                Err(EngineError::ResourceNotFound(_)) => return Ok(out),
                Err(e) => return Err(engine_error(e)),
            };
            for shard in page.shards {
                let range = &shard.sequence_number_range;
                out.push(ShardInfo {
                    parent: shard.parent_shard_id.clone(),
                    adjacent_parent: shard.adjacent_parent_shard_id.clone(),
                    starting: self
                        .sequence_of(&range.starting_sequence_number)
                        .unwrap_or(0),
                    ending: range
                        .ending_sequence_number
                        .as_deref()
                        .and_then(|s| self.sequence_of(s)),
                    id: shard.shard_id,
                });
            }
            match page.next_token {
                Some(next) => token = Some(next),
                None => return Ok(out),
            }
        }
    }

    fn kinesis_iterator(
        &self,
        arn: &str,
        shard: &ShardInfo,
        start: Start,
    ) -> Result<Option<String>, TriggerError> {
        let (kind, number) = match start {
            Start::After(seq) if shard.ending.is_some_and(|end| seq >= end) => return Ok(None),
            Start::After(seq) if seq >= shard.starting => {
                ("AFTER_SEQUENCE_NUMBER", Some(self.sequence_text(seq)))
            }
            _ => ("TRIM_HORIZON", None),
        };
        let asked = kinesis_api::GetShardIteratorInput {
            stream_arn: Some(arn.to_owned()),
            shard_id: Some(shard.id.clone()),
            shard_iterator_type: Some(kind.to_owned()),
            starting_sequence_number: number,
            ..Default::default()
        };
        match self.engine.kinesis_get_shard_iterator(asked) {
            Ok(out) => Ok(Some(out.shard_iterator)),
            Err(EngineError::ResourceNotFound(_)) => Ok(None),
            Err(e) => Err(engine_error(e)),
        }
    }

    fn kinesis_records(&self, iterator: &str, limit: usize) -> Result<Page, TriggerError> {
        let asked = kinesis_api::GetRecordsInput {
            shard_iterator: Some(iterator.to_owned()),
            limit: Some(limit as i64),
            stream_arn: None,
        };
        let out = match self.engine.kinesis_get_records(asked) {
            Ok(out) => out,
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

    /// An iterator at `start` in `shard`; None when the shard holds nothing after it, or
    /// is gone.
    pub fn iterator(
        &self,
        arn: &str,
        shard: &ShardInfo,
        start: Start,
    ) -> Result<Option<String>, TriggerError> {
        if self.kinesis {
            return self.kinesis_iterator(arn, shard, start);
        }
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
        if self.kinesis {
            return self.kinesis_records(iterator, limit);
        }
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
        if self.kinesis {
            let name = arn.rsplit_once(":stream/").map_or(arn, |(_, n)| n);
            return self
                .engine
                .kinesis_newest_sequence(name)
                .map(u128::from)
                .map_err(engine_error);
        }
        self.engine
            .stream_newest_sequence(arn)
            .map_err(engine_error)
    }
}
