//! DynamoDBStreams_20120810: ListStreams, DescribeStream, GetShardIterator, GetRecords.

use super::{Call, json};
use crate::error::ApiError;

pub fn list_streams(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.list_streams(&call.ctx, call.input()?)?)
}

pub fn describe_stream(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_stream(&call.ctx, call.input()?)?)
}

pub fn get_shard_iterator(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.get_shard_iterator(call.input()?)?)
}

pub fn get_records(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.get_records(&call.ctx, call.input()?)?)
}
