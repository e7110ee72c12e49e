//! What a trigger sends and what it reads back, in Lambda's shapes for DynamoDB streams:
//! the event (`{"Records": [...]}`, each record as GetRecords returns it plus
//! `eventSourceARN`), batches of it within Lambda's limits, and the function's partial batch
//! response (`batchItemFailures`).

use serde_json::{Map, Value, json};

/// Largest event Lambda sends in one synchronous invocation (6 MB).
pub const MAX_EVENT_BYTES: usize = 6 * 1024 * 1024;

/// One stream record (GetRecords' JSON) as Lambda's event carries it: with `eventSourceARN`
/// (the stream's ARN), and TTL deletions' `userIdentity` in the event's lower camel case.
pub fn lambda_record(record: &Value, stream_arn: &str) -> Value {
    let mut record = match record {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    if let Some(Value::Object(identity)) = record.get_mut("userIdentity") {
        let renamed: Map<String, Value> = identity
            .iter()
            .map(|(k, v)| {
                let key = match k.as_str() {
                    "PrincipalId" => "principalId".to_owned(),
                    "Type" => "type".to_owned(),
                    other => other.to_owned(),
                };
                (key, v.clone())
            })
            .collect();
        *identity = renamed;
    }
    record.insert(
        "eventSourceARN".into(),
        Value::String(stream_arn.to_owned()),
    );
    Value::Object(record)
}

/// The event for a batch of records (already in Lambda's shape).
pub fn lambda_event(records: &[Value]) -> Value {
    json!({ "Records": records })
}

/// Splits `records` into batches of at most `batch_size` records whose event stays within
/// [`MAX_EVENT_BYTES`]. A record too large for an event on its own still goes alone: Lambda
/// would fail it, and the trigger's retry and failure destination deal with it.
pub fn batches(records: Vec<Value>, batch_size: usize) -> Vec<Vec<Value>> {
    let envelope = lambda_event(&[]).to_string().len();
    let mut out: Vec<Vec<Value>> = Vec::new();
    let mut current: Vec<Value> = Vec::new();
    let mut bytes = envelope;
    for record in records {
        let size = record.to_string().len() + 1;
        let full = current.len() >= batch_size.max(1) || bytes + size > MAX_EVENT_BYTES;
        if full && !current.is_empty() {
            out.push(std::mem::take(&mut current));
            bytes = envelope;
        }
        bytes += size;
        current.push(record);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// What a function's answer means for a batch it took without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every record is done: the checkpoint moves past the batch.
    Success,
    /// Records from this position of the batch on are retried (the lowest failed sequence
    /// number); the ones before it are done.
    RetryFrom(usize),
    /// The whole batch is retried.
    Failure,
}

/// Reads a function's answer with Lambda's rules for ReportBatchItemFailures. Without that
/// setting, an answer is success whatever it holds. With it: no answer, `null`, `{}`, or an
/// empty or null `batchItemFailures` are success; an entry whose `itemIdentifier` is missing,
/// null, empty, or not a sequence number of the batch fails the whole batch; otherwise the
/// batch is retried from its lowest failed sequence number.
pub fn judge(answer: &[u8], sequence_numbers: &[&str], report_item_failures: bool) -> Outcome {
    if !report_item_failures {
        return Outcome::Success;
    }
    let text = String::from_utf8_lossy(answer);
    if text.trim().is_empty() {
        return Outcome::Success;
    }
    let Ok(Value::Object(response)) = serde_json::from_str::<Value>(&text) else {
        return Outcome::Success;
    };
    let failures = match response.get("batchItemFailures") {
        None | Some(Value::Null) => return Outcome::Success,
        Some(Value::Array(list)) if list.is_empty() => return Outcome::Success,
        Some(Value::Array(list)) => list,
        Some(_) => return Outcome::Failure,
    };
    let mut lowest: Option<usize> = None;
    for failure in failures {
        let identifier = failure
            .get("itemIdentifier")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let Some(position) =
            identifier.and_then(|id| sequence_numbers.iter().position(|s| *s == id))
        else {
            return Outcome::Failure;
        };
        lowest = Some(lowest.map_or(position, |l| l.min(position)));
    }
    match lowest {
        Some(position) => Outcome::RetryFrom(position),
        None => Outcome::Success,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(seq: &str, size: usize) -> Value {
        json!({
            "eventID": seq,
            "eventName": "REMOVE",
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": {"SequenceNumber": seq, "Keys": {"pk": {"S": "x".repeat(size)}}},
            "userIdentity": {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
        })
    }

    #[test]
    fn records_take_the_stream_arn_and_lambdas_identity_casing() {
        let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/2026-11-26T00:00:00.000";
        let shaped = lambda_record(&record("1", 1), arn);
        assert_eq!(shaped["eventSourceARN"], arn);
        assert_eq!(
            shaped["userIdentity"],
            json!({"principalId": "dynamodb.amazonaws.com", "type": "Service"})
        );
        assert_eq!(
            lambda_event(std::slice::from_ref(&shaped))["Records"][0],
            shaped
        );
    }

    #[test]
    fn batches_respect_the_count_and_the_event_size() {
        let small: Vec<Value> = (0..25).map(|i| record(&i.to_string(), 10)).collect();
        let sizes: Vec<usize> = batches(small, 10).iter().map(Vec::len).collect();
        assert_eq!(sizes, [10, 10, 5]);
        // Three records of 2.5 MB: two fit in 6 MB, the third goes next.
        let large: Vec<Value> = (0..3).map(|i| record(&i.to_string(), 2_500_000)).collect();
        let sizes: Vec<usize> = batches(large, 100).iter().map(Vec::len).collect();
        assert_eq!(sizes, [2, 1]);
        for batch in batches(
            (0..3).map(|i| record(&i.to_string(), 2_500_000)).collect(),
            100,
        ) {
            assert!(lambda_event(&batch).to_string().len() <= MAX_EVENT_BYTES);
        }
        assert!(batches(Vec::new(), 10).is_empty());
    }

    #[test]
    fn partial_batch_responses_follow_lambdas_rules() {
        let seqs = ["100", "200", "300"];
        let judge = |answer: &str| judge(answer.as_bytes(), &seqs, true);
        for success in [
            "",
            "null",
            "{}",
            r#"{"batchItemFailures": []}"#,
            r#"{"batchItemFailures": null}"#,
            r#""ok""#,
        ] {
            assert_eq!(judge(success), Outcome::Success, "{success}");
        }
        assert_eq!(
            judge(
                r#"{"batchItemFailures": [{"itemIdentifier": "300"}, {"itemIdentifier": "200"}]}"#
            ),
            Outcome::RetryFrom(1)
        );
        for failure in [
            r#"{"batchItemFailures": [{"itemIdentifier": ""}]}"#,
            r#"{"batchItemFailures": [{"itemIdentifier": null}]}"#,
            r#"{"batchItemFailures": [{"itemId": "200"}]}"#,
            r#"{"batchItemFailures": [{"itemIdentifier": "999"}]}"#,
            r#"{"batchItemFailures": "200"}"#,
        ] {
            assert_eq!(judge(failure), Outcome::Failure, "{failure}");
        }
        // Without ReportBatchItemFailures the answer is not read.
        assert_eq!(
            super::judge(
                br#"{"batchItemFailures": [{"itemIdentifier": ""}]}"#,
                &seqs,
                false
            ),
            Outcome::Success
        );
    }
}
