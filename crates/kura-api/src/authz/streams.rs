//! What the Streams operations ask of the policies: ListStreams on `*`, the others on the
//! stream ARN (GetRecords: the stream its shard iterator reads).

use kura_engine::api::{DescribeStreamInput, GetRecordsInput, GetShardIteratorInput};

use super::{Check, Scope};
use crate::operation::Op;

pub(crate) fn list_streams(scope: &Scope<'_>) -> Vec<Check> {
    vec![Check::of(Op::ListStreams, scope.any())]
}

pub(crate) fn describe_stream(scope: &Scope<'_>, input: &DescribeStreamInput) -> Vec<Check> {
    let arn = input.stream_arn.as_deref().unwrap_or_default();
    vec![Check::of(Op::DescribeStream, scope.stream(arn))]
}

pub(crate) fn get_shard_iterator(scope: &Scope<'_>, input: &GetShardIteratorInput) -> Vec<Check> {
    let arn = input.stream_arn.as_deref().unwrap_or_default();
    vec![Check::of(Op::GetShardIterator, scope.stream(arn))]
}

/// An iterator that names no live stream is checked on `table/*/stream/*`, so a policy
/// scoped to one stream refuses it; otherwise the engine reports the iterator's error.
pub(crate) fn get_records(scope: &Scope<'_>, input: &GetRecordsInput) -> Vec<Check> {
    let arn = input
        .shard_iterator
        .as_deref()
        .and_then(|it| scope.engine.shard_iterator_stream_arn(scope.ctx, it))
        .map(|arn| scope.stream(&arn))
        .unwrap_or_else(|| scope.stream("arn:aws:dynamodb:::table/*/stream/*"));
    vec![Check::of(Op::GetRecords, arn)]
}
