//! DynamoDB Streams shapes (DynamoDBStreams_20120810) and the stream and TTL members of the
//! table operations.

use kura_model::Item;
use serde::{Deserialize, Serialize};

use super::KeySchemaElementOut;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListStreamsInput {
    pub table_name: Option<String>,
    pub limit: Option<i64>,
    pub exclusive_start_stream_arn: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamSummary {
    pub stream_arn: String,
    pub table_name: String,
    pub stream_label: String,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListStreamsOutput {
    pub streams: Vec<StreamSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_evaluated_stream_arn: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DescribeStreamInput {
    pub stream_arn: Option<String>,
    pub limit: Option<i64>,
    pub exclusive_start_shard_id: Option<String>,
    pub shard_filter: Option<ShardFilter>,
}

/// `ShardFilter`: only the children of `ShardId` (`Type` is `CHILD_SHARDS`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ShardFilter {
    #[serde(rename = "Type")]
    pub filter_type: Option<String>,
    pub shard_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SequenceNumberRange {
    pub starting_sequence_number: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ending_sequence_number: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ShardDescription {
    pub shard_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_shard_id: Option<String>,
    pub sequence_number_range: SequenceNumberRange,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamDescription {
    pub stream_arn: String,
    pub stream_label: String,
    pub stream_status: &'static str,
    pub stream_view_type: &'static str,
    pub creation_request_date_time: f64,
    pub table_name: String,
    pub key_schema: Vec<KeySchemaElementOut>,
    pub shards: Vec<ShardDescription>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_evaluated_shard_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeStreamOutput {
    pub stream_description: StreamDescription,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GetShardIteratorInput {
    pub stream_arn: Option<String>,
    pub shard_id: Option<String>,
    pub shard_iterator_type: Option<String>,
    pub sequence_number: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetShardIteratorOutput {
    pub shard_iterator: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GetRecordsInput {
    pub shard_iterator: Option<String>,
    pub limit: Option<i64>,
}

/// One change, as GetRecords returns it (the top-level members are camelCase on the wire).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    #[serde(rename = "eventID")]
    pub event_id: String,
    pub event_name: &'static str,
    pub event_version: &'static str,
    pub event_source: &'static str,
    pub aws_region: String,
    pub dynamodb: StreamRecord,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_identity: Option<Identity>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamRecord {
    pub approximate_creation_date_time: f64,
    pub keys: Item,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_image: Option<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_image: Option<Item>,
    pub sequence_number: String,
    pub size_bytes: u64,
    pub stream_view_type: &'static str,
}

/// Who made a change DynamoDB made itself (TTL deletions).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Identity {
    pub principal_id: &'static str,
    #[serde(rename = "Type")]
    pub kind: &'static str,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetRecordsOutput {
    pub records: Vec<Record>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_shard_iterator: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateTimeToLiveInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub time_to_live_specification: Option<TimeToLiveSpecification>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TimeToLiveSpecification {
    #[serde(default)]
    pub enabled: Option<bool>,
    #[serde(default)]
    pub attribute_name: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateTimeToLiveOutput {
    pub time_to_live_specification: TimeToLiveSpecification,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TimeToLiveDescription {
    pub time_to_live_status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute_name: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeTimeToLiveOutput {
    pub time_to_live_description: TimeToLiveDescription,
}
