//! DynamoDBStreams_20120810: ListStreams, DescribeStream, GetShardIterator, GetRecords.

use kura_engine::api::{
    DescribeStreamInput, GetRecordsInput, GetShardIteratorInput, ListStreamsInput,
};

use super::input::{begin, checked_inputs};
use super::{Call, json};
use crate::authz::streams as checks;
use crate::error::ApiError;

checked_inputs! {
    ListStreamsInput => |scope, _, _input| checks::list_streams(scope);
    DescribeStreamInput => |scope, _, input| checks::describe_stream(scope, input);
    GetShardIteratorInput => |scope, _, input| checks::get_shard_iterator(scope, input);
    GetRecordsInput => |scope, _, input| checks::get_records(scope, input);
}

pub async fn list_streams(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListStreamsInput = begin(&call).await?;
    json(&call.engine.list_streams(&call.ctx, input)?)
}

pub async fn describe_stream(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DescribeStreamInput = begin(&call).await?;
    json(&call.engine.describe_stream(&call.ctx, input)?)
}

pub async fn get_shard_iterator(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: GetShardIteratorInput = begin(&call).await?;
    json(&call.engine.get_shard_iterator(input)?)
}

pub async fn get_records(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: GetRecordsInput = begin(&call).await?;
    json(&call.engine.get_records(&call.ctx, input)?)
}
