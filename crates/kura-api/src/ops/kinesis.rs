//! Kinesis_20131202: the Kinesis Data Streams operations Kura serves (stream management,
//! PutRecord(s), GetShardIterator, GetRecords, retention, tags). Each checks
//! `kinesis:<Operation>` on the stream it names, then calls the engine. Also DynamoDB's
//! four Kinesis streaming destination operations, which send a table's changes to one.

use kura_engine::api::kinesis::*;

use super::{Call, json};
use crate::authz::{self, kinesis as checks};
use crate::error::ApiError;
use crate::operation::Op;

/// Kinesis answers an operation without output with an empty JSON object.
fn empty() -> Result<Vec<u8>, ApiError> {
    Ok(b"{}".to_vec())
}

pub async fn dispatch(op: Op, call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let engine = call.engine;
    macro_rules! on_stream {
        ($input:ty) => {{
            let input: $input = call.input()?;
            authz::authorize(&call, |s| checks::on_stream(s, op, &input))?;
            input
        }};
    }
    match op {
        Op::KinesisCreateStream => {
            let input: CreateStreamInput = call.input()?;
            let stream = StreamRefOf(input.stream_name.clone());
            authz::authorize(&call, |s| checks::on_stream(s, op, &stream))?;
            engine.kinesis_create_stream(input).await?;
            empty()
        }
        Op::KinesisDeleteStream => {
            engine
                .kinesis_delete_stream(on_stream!(DeleteStreamInput))
                .await?;
            empty()
        }
        Op::KinesisDescribeStream => {
            let input = on_stream!(DescribeStreamInput);
            json(&engine.kinesis_describe_stream(&call.ctx, input)?)
        }
        Op::KinesisDescribeStreamSummary => {
            let input = on_stream!(DescribeStreamSummaryInput);
            json(&engine.kinesis_describe_stream_summary(&call.ctx, input)?)
        }
        Op::KinesisListStreams => {
            let input: ListStreamsInput = call.input()?;
            authz::authorize(&call, checks::list_streams)?;
            json(&engine.kinesis_list_streams(&call.ctx, input)?)
        }
        Op::KinesisListShards => json(&engine.kinesis_list_shards(on_stream!(ListShardsInput))?),
        Op::KinesisPutRecord => json(
            &engine
                .kinesis_put_record(on_stream!(PutRecordInput))
                .await?,
        ),
        Op::KinesisPutRecords => json(
            &engine
                .kinesis_put_records(on_stream!(PutRecordsInput))
                .await?,
        ),
        Op::KinesisGetShardIterator => {
            json(&engine.kinesis_get_shard_iterator(on_stream!(GetShardIteratorInput))?)
        }
        Op::KinesisGetRecords => {
            let input: GetRecordsInput = call.input()?;
            authz::authorize(&call, |s| checks::get_records(s, &call.ctx, &input))?;
            json(&engine.kinesis_get_records(input)?)
        }
        Op::KinesisIncreaseStreamRetentionPeriod => {
            engine
                .kinesis_increase_retention(on_stream!(RetentionPeriodInput))
                .await?;
            empty()
        }
        Op::KinesisDecreaseStreamRetentionPeriod => {
            engine
                .kinesis_decrease_retention(on_stream!(RetentionPeriodInput))
                .await?;
            empty()
        }
        Op::KinesisAddTagsToStream => {
            engine
                .kinesis_add_tags(on_stream!(AddTagsToStreamInput))
                .await?;
            empty()
        }
        Op::KinesisRemoveTagsFromStream => {
            engine
                .kinesis_remove_tags(on_stream!(RemoveTagsFromStreamInput))
                .await?;
            empty()
        }
        Op::KinesisSplitShard => {
            engine
                .kinesis_split_shard(on_stream!(SplitShardInput))
                .await?;
            empty()
        }
        Op::KinesisMergeShards => {
            engine
                .kinesis_merge_shards(on_stream!(MergeShardsInput))
                .await?;
            empty()
        }
        Op::KinesisUpdateShardCount => {
            let input = on_stream!(UpdateShardCountInput);
            json(&engine.kinesis_update_shard_count(&call.ctx, input).await?)
        }
        Op::KinesisListTagsForStream => {
            json(&engine.kinesis_list_tags(on_stream!(ListTagsForStreamInput))?)
        }
        other => Err(ApiError::internal(format!(
            "{} is not a Kinesis operation",
            other.label()
        ))),
    }
}

/// EnableKinesisStreamingDestination (a table operation: the pipeline has authorized it on
/// the table).
pub async fn enable_destination(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: KinesisStreamingDestinationInput = call.input()?;
    json(
        &call
            .engine
            .enable_kinesis_streaming_destination(input)
            .await?,
    )
}

pub async fn disable_destination(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: KinesisStreamingDestinationInput = call.input()?;
    json(
        &call
            .engine
            .disable_kinesis_streaming_destination(input)
            .await?,
    )
}

pub fn describe_destination(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DescribeKinesisStreamingDestinationInput = call.input()?;
    json(&call.engine.describe_kinesis_streaming_destination(input)?)
}

pub async fn update_destination(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: UpdateKinesisStreamingDestinationInput = call.input()?;
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
