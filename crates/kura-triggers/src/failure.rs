//! Where a batch goes when the function cannot take it: Lambda's on-failure destination.
//! Lambda sends an invocation record (what failed, where in the stream, why) rather than
//! the records; Kura sends the same record and, because local streams are trimmed after 24
//! hours too, the records themselves under `records` (the event the function was sent).
//!
//! - `table/NAME`: one item per failed batch. Its partition key (a string) is the record's
//!   `requestId`, a string sort key its timestamp; every member of the invocation record is
//!   an attribute (JSON objects as maps, arrays as lists, numbers as numbers).
//! - `file:PATH`: one JSON line per failed batch, appended and synced.

use std::io::Write;
use std::sync::Arc;

use kura_engine::Engine;
use kura_engine::api::{DescribeTableInput, PutItemInput};
use serde_json::{Map, Value, json};

use crate::config::FailureDestination;
use crate::error::TriggerError;

/// Why a batch was given up (Lambda's `condition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    RetryAttemptsExhausted,
    RecordAgeExceeded,
}

impl Condition {
    pub fn wire(self) -> &'static str {
        match self {
            Condition::RetryAttemptsExhausted => "RetryAttemptsExhausted",
            Condition::RecordAgeExceeded => "RecordAgeExceeded",
        }
    }
}

/// What Kura knows of a failed batch.
pub struct FailedBatch<'a> {
    /// Read from a Kinesis stream (Lambda's `KinesisBatchInfo`), not a table's stream.
    pub kinesis: bool,
    pub trigger: &'a str,
    pub region: &'a str,
    pub stream_arn: &'a str,
    pub shard_id: &'a str,
    pub records: &'a [Value],
    pub condition: Condition,
    pub invocations: u64,
    pub function_error: Option<String>,
    pub now_ms: i64,
}

fn rfc3339(ms: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

fn sequence(record: &Value) -> Value {
    match record.get("kinesis") {
        Some(kinesis) => kinesis["sequenceNumber"].clone(),
        None => record["dynamodb"]["SequenceNumber"].clone(),
    }
}

fn arrival(record: &Value) -> String {
    let seconds = match record.get("kinesis") {
        Some(kinesis) => kinesis["approximateArrivalTimestamp"].as_f64(),
        None => record["dynamodb"]["ApproximateCreationDateTime"].as_f64(),
    };
    rfc3339((seconds.unwrap_or(0.0) * 1000.0) as i64)
}

/// Lambda's invocation record for a failed batch (`DDBStreamBatchInfo` for a table's
/// stream, `KinesisBatchInfo` for a Kinesis stream), with the records.
pub fn invocation_record(batch: &FailedBatch<'_>) -> Value {
    let first = batch.records.first().cloned().unwrap_or(Value::Null);
    let last = batch.records.last().cloned().unwrap_or(Value::Null);
    let info = if batch.kinesis {
        "KinesisBatchInfo"
    } else {
        "DDBStreamBatchInfo"
    };
    let mut record = json!({
        "requestContext": {
            "requestId": uuid::Uuid::new_v4().to_string(),
            "functionArn": format!(
                "arn:aws:lambda:{}:{}:function:{}",
                batch.region,
                kura_engine::ACCOUNT_ID,
                batch.trigger
            ),
            "condition": batch.condition.wire(),
            "approximateInvokeCount": batch.invocations,
        },
        "responseContext": {
            "statusCode": 200,
            "executedVersion": "$LATEST",
            "functionError": batch.function_error.clone().unwrap_or_else(|| "Unhandled".into()),
        },
        "version": "1.0",
        "timestamp": rfc3339(batch.now_ms),
        "records": batch.records,
    });
    if let Some(map) = record.as_object_mut() {
        map.insert(
            info.to_owned(),
            json!({
                "shardId": batch.shard_id,
                "startSequenceNumber": sequence(&first),
                "endSequenceNumber": sequence(&last),
                "approximateArrivalOfFirstRecord": arrival(&first),
                "approximateArrivalOfLastRecord": arrival(&last),
                "batchSize": batch.records.len(),
                "streamArn": batch.stream_arn,
            }),
        );
    }
    record
}

/// A JSON value as a DynamoDB attribute value.
fn attribute(value: &Value) -> Value {
    match value {
        Value::Null => json!({"NULL": true}),
        Value::Bool(b) => json!({ "BOOL": b }),
        Value::Number(n) => json!({"N": n.to_string()}),
        Value::String(s) => json!({ "S": s }),
        Value::Array(items) => json!({"L": items.iter().map(attribute).collect::<Vec<_>>()}),
        Value::Object(map) => {
            let members: Map<String, Value> =
                map.iter().map(|(k, v)| (k.clone(), attribute(v))).collect();
            json!({ "M": members })
        }
    }
}

/// Sends the invocation record of a failed batch to `destination`.
pub async fn send(
    engine: &Arc<Engine>,
    destination: &FailureDestination,
    record: &Value,
) -> Result<(), TriggerError> {
    match destination {
        FailureDestination::File(path) => {
            let mut line =
                serde_json::to_vec(record).map_err(|e| TriggerError::Destination(e.to_string()))?;
            line.push(b'\n');
            let path = path.clone();
            tokio::task::spawn_blocking(move || {
                let mut file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)?;
                file.write_all(&line)?;
                file.sync_data()
            })
            .await
            .map_err(|e| TriggerError::Destination(e.to_string()))?
            .map_err(|e| TriggerError::Destination(e.to_string()))
        }
        FailureDestination::Table(table) => {
            let destination_error = |e: kura_engine::EngineError| {
                TriggerError::Destination(format!("table {table}: {e}"))
            };
            let asked: DescribeTableInput = serde_json::from_value(json!({"TableName": table}))
                .map_err(|e| TriggerError::Destination(e.to_string()))?;
            let described = engine
                .describe_table(&kura_engine::RequestContext::default(), asked)
                .await
                .map_err(destination_error)?;
            let Value::Object(mut item) = attribute(record)["M"].clone() else {
                return Err(TriggerError::Destination("not an object".into()));
            };
            let described = serde_json::to_value(&described)
                .map_err(|e| TriggerError::Destination(e.to_string()))?;
            for key in described["Table"]["KeySchema"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let name = key["AttributeName"].as_str().unwrap_or_default().to_owned();
                let value = if key["KeyType"] == "HASH" {
                    record["requestContext"]["requestId"].clone()
                } else {
                    record["timestamp"].clone()
                };
                item.insert(name, attribute(&value));
            }
            let input: PutItemInput =
                serde_json::from_value(json!({"TableName": table, "Item": item}))
                    .map_err(|e| TriggerError::Destination(e.to_string()))?;
            engine.put_item(input).await.map_err(destination_error)?;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invocation_records_describe_the_batch_as_lambda_does() {
        let records = vec![
            json!({"dynamodb": {"SequenceNumber": "000000000000000000005", "ApproximateCreationDateTime": 1_700_000_000.0}}),
            json!({"dynamodb": {"SequenceNumber": "000000000000000000009", "ApproximateCreationDateTime": 1_700_000_001.0}}),
        ];
        let record = invocation_record(&FailedBatch {
            kinesis: false,
            trigger: "fn",
            region: "us-east-1",
            stream_arn: "arn:s",
            shard_id: "shardId-1",
            records: &records,
            condition: Condition::RetryAttemptsExhausted,
            invocations: 3,
            function_error: None,
            now_ms: 1_700_000_002_000,
        });
        let info = &record["DDBStreamBatchInfo"];
        assert_eq!(info["startSequenceNumber"], "000000000000000000005");
        assert_eq!(info["endSequenceNumber"], "000000000000000000009");
        assert_eq!(info["batchSize"], 2);
        assert_eq!(
            info["approximateArrivalOfFirstRecord"],
            "2023-11-14T22:13:20Z"
        );
        assert_eq!(
            record["requestContext"]["condition"],
            "RetryAttemptsExhausted"
        );
        assert_eq!(record["requestContext"]["approximateInvokeCount"], 3);
        assert_eq!(record["timestamp"], "2023-11-14T22:13:22Z");
        assert_eq!(record["records"].as_array().map(Vec::len), Some(2));
    }
}
