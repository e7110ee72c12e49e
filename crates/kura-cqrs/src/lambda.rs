//! The projector as an AWS Lambda function: a DynamoDB Streams event source mapping on
//! the command table delivers batches of records, in order per shard, and the function
//! applies them as the long-running projector would (the data table, history, the
//! handlers, parking, the handoff from `publish_sync`). With the mapping's
//! `FunctionResponseTypes: ["ReportBatchItemFailures"]`, a record the function could not
//! finish is reported, and the mapping delivers it again with the ones after it, so an
//! item's versions stay in order. The mapping holds the shard: no lease is taken.
//!
//! ```no_run
//! # async fn main_body(module: kura_cqrs::Module, streams: aws_sdk_dynamodbstreams::Client) {
//! let projector = module.projector(streams, kura_cqrs::ProjectorOptions::default());
//! kura_cqrs::lambda::run(projector).await.expect("the Lambda runtime");
//! # }
//! ```

use std::collections::HashMap;
use std::io::{Read, Write};

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use aws_sdk_dynamodbstreams::types::{AttributeValue, OperationType, Record, StreamRecord};

use crate::error::{CqrsError, Result};
use crate::projector::Projector;

/// Applies one event's records in order; the response names the first record not
/// finished, if any.
pub async fn apply_event(projector: &Projector, event: Event) -> DynamoDbEventResponse {
    let records: Vec<Record> = event.records.into_iter().map(stream_record).collect();
    let mut response = DynamoDbEventResponse::default();
    // Boxed: the projector's future is deep, and an application's `main` awaiting
    // `run` would otherwise overflow the compiler's query depth computing its layout.
    if let Some(sequence) = Box::pin(projector.apply_records(&records)).await {
        let mut failure = DynamoDbBatchItemFailure::default();
        failure.item_identifier = Some(sequence);
        response.batch_item_failures.push(failure);
    }
    response
}

/// Serves invocations through the Lambda runtime API until the runtime stops it.
pub async fn run(projector: Projector) -> Result<()> {
    let projector = &projector;
    lambda_runtime::run(lambda_runtime::service_fn(
        move |invocation: lambda_runtime::LambdaEvent<Event>| async move {
            Ok::<_, lambda_runtime::Error>(apply_event(projector, invocation.payload).await)
        },
    ))
    .await
    .map_err(|e| CqrsError::Dynamo {
        code: "LambdaRuntime".into(),
        message: e.to_string(),
        source: None,
    })
}

/// Reads one event from standard input, applies it, writes the response to standard
/// output: the function run as a command (Kura's stream triggers with `Function.Command`,
/// or by hand with a recorded event).
pub async fn apply_stdin(projector: &Projector) -> Result<()> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| CqrsError::Malformed(format!("reading the event: {e}")))?;
    let event: Event = serde_json::from_str(&input)
        .map_err(|e| CqrsError::Malformed(format!("not a DynamoDB Streams event: {e}")))?;
    let response = apply_event(projector, event).await;
    let text = serde_json::to_string(&response)
        .map_err(|e| CqrsError::Malformed(format!("the response: {e}")))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").map_err(|e| CqrsError::Malformed(format!("writing: {e}")))?;
    Ok(())
}

impl crate::CommandRecord {
    /// The version a Lambda DynamoDB Streams event's record publishes
    /// ([`crate::CommandRecord::from_stream`]): for a function of the application's own
    /// on the command table's stream.
    pub fn from_lambda(record: EventRecord) -> Result<Option<crate::CommandRecord>> {
        crate::CommandRecord::from_stream(&stream_record(record))
    }
}

/// A Lambda event's record as the Streams API gives it, for the projector.
fn stream_record(record: EventRecord) -> Record {
    let change = record.change;
    let image: HashMap<String, AttributeValue> = change.new_image.into();
    let created =
        aws_smithy_types::DateTime::from_secs(change.approximate_creation_date_time.timestamp());
    let stream = StreamRecord::builder()
        .set_new_image(Some(image))
        .set_sequence_number(change.sequence_number)
        .approximate_creation_date_time(created)
        .build();
    Record::builder()
        .event_name(OperationType::from(record.event_name.as_str()))
        .event_id(record.event_id)
        .dynamodb(stream)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lambda_record_reads_as_the_streams_api_gives_it() {
        let event: Event = serde_json::from_value(serde_json::json!({"Records": [{
            "eventID": "1", "eventName": "INSERT", "eventVersion": "1.1",
            "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/x",
            "dynamodb": {
                "ApproximateCreationDateTime": 1764842400,
                "Keys": {"pk": {"S": "ORDER#t"}, "sk": {"S": "ORDER#1@1"}},
                "NewImage": {"pk": {"S": "ORDER#t"}, "sk": {"S": "ORDER#1@1"},
                             "version": {"N": "1"}, "attributes": {"M": {"qty": {"N": "2"}}}},
                "SequenceNumber": "100", "SizeBytes": 40, "StreamViewType": "NEW_IMAGE"
            }
        }]}))
        .expect("a Lambda DynamoDB event");
        let event_record = event.records.into_iter().next().expect("one");
        let typed = crate::CommandRecord::from_lambda(event_record.clone())
            .expect("a command row")
            .expect("an insert");
        assert_eq!(
            (typed.sequence_number.as_str(), typed.command.version.get()),
            ("100", 1)
        );
        assert_eq!(typed.command.attributes["qty"], serde_json::json!(2));
        let record = stream_record(event_record);
        assert_eq!(record.event_name(), Some(&OperationType::Insert));
        let change = record.dynamodb().expect("change");
        assert_eq!(change.sequence_number(), Some("100"));
        let image = change.new_image().expect("image");
        assert_eq!(image["version"], AttributeValue::N("1".into()));
        assert!(
            matches!(&image["attributes"], AttributeValue::M(m) if m["qty"] == AttributeValue::N("2".into()))
        );
    }
}
