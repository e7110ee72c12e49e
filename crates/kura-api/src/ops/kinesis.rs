//! Kinesis_20131202: the Kinesis Data Streams operations Kura serves (stream management,
//! PutRecord(s), GetShardIterator, GetRecords, retention, tags). Each checks
//! `kinesis:<Operation>` on the stream it names, then calls the engine. Also DynamoDB's
//! four Kinesis streaming destination operations, which send a table's changes to one.

use kura_engine::api::kinesis::*;

use super::input::{begin, checked_inputs, control_inputs};
use super::{Call, json};
use crate::authz::kinesis as checks;
use crate::error::ApiError;
use crate::operation::Op;

checked_inputs! {
    CreateStreamInput => |scope, op, input| {
        checks::on_stream(scope, op, &StreamRefOf(input.stream_name.clone()))
    };
    DeleteStreamInput => |scope, op, input| checks::on_stream(scope, op, input);
    DescribeStreamInput => |scope, op, input| checks::on_stream(scope, op, input);
    DescribeStreamSummaryInput => |scope, op, input| checks::on_stream(scope, op, input);
    ListStreamsInput => |scope, _, _input| checks::list_streams(scope);
    ListShardsInput => |scope, op, input| checks::on_stream(scope, op, input);
    PutRecordInput => |scope, op, input| checks::on_stream(scope, op, input);
    PutRecordsInput => |scope, op, input| checks::on_stream(scope, op, input);
    GetShardIteratorInput => |scope, op, input| checks::on_stream(scope, op, input);
    GetRecordsInput => |scope, _, input| checks::get_records(scope, input);
    RetentionPeriodInput => |scope, op, input| checks::on_stream(scope, op, input);
    AddTagsToStreamInput => |scope, op, input| checks::on_stream(scope, op, input);
    RemoveTagsFromStreamInput => |scope, op, input| checks::on_stream(scope, op, input);
    SplitShardInput => |scope, op, input| checks::on_stream(scope, op, input);
    MergeShardsInput => |scope, op, input| checks::on_stream(scope, op, input);
    UpdateShardCountInput => |scope, op, input| checks::on_stream(scope, op, input);
    ListTagsForStreamInput => |scope, op, input| checks::on_stream(scope, op, input);
}

// DynamoDB's streaming destination operations are table operations.
control_inputs! {
    KinesisStreamingDestinationInput => table_name;
    DescribeKinesisStreamingDestinationInput => table_name;
    UpdateKinesisStreamingDestinationInput => table_name;
}

/// Kinesis answers an operation without output with an empty JSON object.
fn empty() -> Result<Vec<u8>, ApiError> {
    Ok(b"{}".to_vec())
}

pub async fn dispatch(op: Op, call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let engine = call.engine;
    match op {
        Op::KinesisCreateStream => {
            let input: CreateStreamInput = begin(&call).await?;
            engine.kinesis_create_stream(input).await?;
            empty()
        }
        Op::KinesisDeleteStream => {
            engine
                .kinesis_delete_stream(begin::<DeleteStreamInput>(&call).await?)
                .await?;
            empty()
        }
        Op::KinesisDescribeStream => {
            let input = begin::<DescribeStreamInput>(&call).await?;
            json(&engine.kinesis_describe_stream(&call.ctx, input)?)
        }
        Op::KinesisDescribeStreamSummary => {
            let input = begin::<DescribeStreamSummaryInput>(&call).await?;
            json(&engine.kinesis_describe_stream_summary(&call.ctx, input)?)
        }
        Op::KinesisListStreams => {
            let input: ListStreamsInput = begin(&call).await?;
            json(&engine.kinesis_list_streams(&call.ctx, input)?)
        }
        Op::KinesisListShards => {
            json(&engine.kinesis_list_shards(begin::<ListShardsInput>(&call).await?)?)
        }
        Op::KinesisPutRecord => json(
            &engine
                .kinesis_put_record(begin::<PutRecordInput>(&call).await?)
                .await?,
        ),
        Op::KinesisPutRecords => json(
            &engine
                .kinesis_put_records(begin::<PutRecordsInput>(&call).await?)
                .await?,
        ),
        Op::KinesisGetShardIterator => {
            json(&engine.kinesis_get_shard_iterator(begin::<GetShardIteratorInput>(&call).await?)?)
        }
        Op::KinesisGetRecords => {
            let input: GetRecordsInput = begin(&call).await?;
            json(&engine.kinesis_get_records(input)?)
        }
        Op::KinesisIncreaseStreamRetentionPeriod => {
            engine
                .kinesis_increase_retention(begin::<RetentionPeriodInput>(&call).await?)
                .await?;
            empty()
        }
        Op::KinesisDecreaseStreamRetentionPeriod => {
            engine
                .kinesis_decrease_retention(begin::<RetentionPeriodInput>(&call).await?)
                .await?;
            empty()
        }
        Op::KinesisAddTagsToStream => {
            engine
                .kinesis_add_tags(begin::<AddTagsToStreamInput>(&call).await?)
                .await?;
            empty()
        }
        Op::KinesisRemoveTagsFromStream => {
            engine
                .kinesis_remove_tags(begin::<RemoveTagsFromStreamInput>(&call).await?)
                .await?;
            empty()
        }
        Op::KinesisSplitShard => {
            engine
                .kinesis_split_shard(begin::<SplitShardInput>(&call).await?)
                .await?;
            empty()
        }
        Op::KinesisMergeShards => {
            engine
                .kinesis_merge_shards(begin::<MergeShardsInput>(&call).await?)
                .await?;
            empty()
        }
        Op::KinesisUpdateShardCount => {
            let input = begin::<UpdateShardCountInput>(&call).await?;
            json(&engine.kinesis_update_shard_count(&call.ctx, input).await?)
        }
        Op::KinesisListTagsForStream => {
            json(&engine.kinesis_list_tags(begin::<ListTagsForStreamInput>(&call).await?)?)
        }
        other => Err(ApiError::internal(format!(
            "{} is not a Kinesis operation",
            other.label()
        ))),
    }
}

/// EnableKinesisStreamingDestination (a table operation, authorized on the table).
pub async fn enable_destination(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: KinesisStreamingDestinationInput = begin(&call).await?;
    json(
        &call
            .engine
            .enable_kinesis_streaming_destination(input)
            .await?,
    )
}

pub async fn disable_destination(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: KinesisStreamingDestinationInput = begin(&call).await?;
    json(
        &call
            .engine
            .disable_kinesis_streaming_destination(input)
            .await?,
    )
}

pub async fn describe_destination(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DescribeKinesisStreamingDestinationInput = begin(&call).await?;
    json(&call.engine.describe_kinesis_streaming_destination(input)?)
}

pub async fn update_destination(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: UpdateKinesisStreamingDestinationInput = begin(&call).await?;
    json(
        &call
            .engine
            .update_kinesis_streaming_destination(input)
            .await?,
    )
}

/// CreateStream names its stream by name only.
struct StreamRefOf(Option<String>);

impl NamesStream for StreamRefOf {
    fn stream(&self) -> StreamRef<'_> {
        StreamRef {
            stream_name: self.0.as_deref(),
            stream_arn: None,
        }
    }
}
