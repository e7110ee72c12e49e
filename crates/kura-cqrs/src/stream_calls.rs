//! The DynamoDB and DynamoDB Streams calls the projector makes to find its stream, its
//! shards and where to read them, as AWS serves them (paged shard lists, iterators from a
//! sequence number or the trim horizon).

use std::sync::atomic::Ordering;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodbstreams::Client as StreamsClient;
use aws_sdk_dynamodbstreams::types::ShardIteratorType;

use crate::error::{CqrsError, Result};
use crate::projector_options::ProjectorStats;
use crate::shards::ShardInfo;

/// The latest stream of `table` (`None`: the table has no stream).
pub(crate) async fn stream_arn(client: &Client, table: &str) -> Result<Option<String>> {
    let table = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .map_err(CqrsError::dynamo)?;
    Ok(table
        .table()
        .and_then(|t| t.latest_stream_arn())
        .map(str::to_owned))
}

/// Every shard of the stream, page after page of DescribeStream (each counted in
/// `stats`).
pub(crate) async fn list_shards(
    streams: &StreamsClient,
    arn: &str,
    stats: &ProjectorStats,
) -> Result<Vec<ShardInfo>> {
    let mut shards = Vec::new();
    let mut start: Option<String> = None;
    loop {
        stats.describe_stream_calls.fetch_add(1, Ordering::Relaxed);
        let page = streams
            .describe_stream()
            .stream_arn(arn)
            .set_exclusive_start_shard_id(start.take())
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        let Some(description) = page.stream_description() else {
            break;
        };
        shards.extend(
            description
                .shards()
                .iter()
                .filter_map(ShardInfo::from_shard),
        );
        match description.last_evaluated_shard_id() {
            Some(last) => start = Some(last.to_owned()),
            None => break,
        }
    }
    Ok(shards)
}

/// An iterator just after the last sequence number finished, or at the shard's oldest
/// record.
pub(crate) async fn shard_iterator(
    streams: &StreamsClient,
    arn: &str,
    shard: &str,
    after: Option<&str>,
) -> Result<Option<String>> {
    let request = streams.get_shard_iterator().stream_arn(arn).shard_id(shard);
    let request = match after {
        Some(seq) => request
            .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
            .sequence_number(seq),
        None => request.shard_iterator_type(ShardIteratorType::TrimHorizon),
    };
    Ok(request
        .send()
        .await
        .map_err(CqrsError::dynamo)?
        .shard_iterator()
        .map(str::to_owned))
}
