//! DynamoDBStreams_20120810: ListStreams, DescribeStream, GetShardIterator, GetRecords.

use kura_engine::api::{
    DescribeStreamInput, GetRecordsInput, GetShardIteratorInput, ListStreamsInput,
};

use super::{Call, json};
use crate::authz::{self, streams as checks};
use crate::error::ApiError;

pub fn list_streams(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListStreamsInput = call.input()?;
    authz::authorize(&call, checks::list_streams)?;
    json(&call.engine.list_streams(&call.ctx, input)?)
}

pub fn describe_stream(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DescribeStreamInput = call.input()?;
    authz::authorize(&call, |s| checks::describe_stream(s, &input))?;
    json(&call.engine.describe_stream(&call.ctx, input)?)
}

pub fn get_shard_iterator(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: GetShardIteratorInput = call.input()?;
    authz::authorize(&call, |s| checks::get_shard_iterator(s, &input))?;
    json(&call.engine.get_shard_iterator(input)?)
}

pub fn get_records(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: GetRecordsInput = call.input()?;
    authz::authorize(&call, |s| checks::get_records(s, &call.ctx, &input))?;
    json(&call.engine.get_records(&call.ctx, input)?)
}
