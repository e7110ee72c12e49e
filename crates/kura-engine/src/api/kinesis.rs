//! Kinesis Data Streams shapes (`Kinesis_20131202`, JSON 1.1). Kept in their own module,
//! not glob-exported with the DynamoDB shapes: several names (DescribeStream, GetRecords,
//! GetShardIterator, ListStreams) are DynamoDB Streams' too.
//!
//! Times are epoch seconds (the JSON 1.1 protocol's timestamps); `Data` is base64.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The stream a request names: by `StreamName`, by `StreamARN`, or both (they must then
/// agree). Each input carries the two members itself rather than a flattened struct:
/// serde's flatten buffers numbers, which breaks under serde_json's arbitrary precision.
#[derive(Debug, Clone, Copy)]
pub struct StreamRef<'a> {
    pub stream_name: Option<&'a str>,
    pub stream_arn: Option<&'a str>,
}

/// The inputs that name a stream.
pub trait NamesStream {
    fn stream(&self) -> StreamRef<'_>;
}

macro_rules! names_stream {
    ($($input:ty),*) => {$(
        impl NamesStream for $input {
            fn stream(&self) -> StreamRef<'_> {
                StreamRef {
                    stream_name: self.stream_name.as_deref(),
                    stream_arn: self.stream_arn.as_deref(),
                }
            }
        }
    )*};
}

names_stream!(
    DeleteStreamInput,
    DescribeStreamInput,
    ListShardsInput,
    PutRecordInput,
    PutRecordsInput,
    GetShardIteratorInput,
    RetentionPeriodInput,
    AddTagsToStreamInput,
    RemoveTagsFromStreamInput,
    ListTagsForStreamInput
);

/// DescribeStreamSummary takes the stream and nothing else.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DescribeStreamSummaryInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
}

names_stream!(DescribeStreamSummaryInput);

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "PascalCase")]
pub struct StreamModeDetails {
    pub stream_mode: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct CreateStreamInput {
    pub stream_name: Option<String>,
    pub shard_count: Option<i64>,
    pub stream_mode_details: Option<StreamModeDetailsInput>,
    pub tags: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct StreamModeDetailsInput {
    pub stream_mode: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DeleteStreamInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub enforce_consumer_deletion: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DescribeStreamInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub limit: Option<i64>,
    pub exclusive_start_shard_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct HashKeyRange {
    pub starting_hash_key: String,
    pub ending_hash_key: String,
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
pub struct Shard {
    pub shard_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_shard_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adjacent_parent_shard_id: Option<String>,
    pub hash_key_range: HashKeyRange,
    pub sequence_number_range: SequenceNumberRange,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct EnhancedMetrics {
    pub shard_level_metrics: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamDescription {
    pub stream_name: String,
    #[serde(rename = "StreamARN")]
    pub stream_arn: String,
    pub stream_status: String,
    pub stream_mode_details: StreamModeDetails,
    pub shards: Vec<Shard>,
    pub has_more_shards: bool,
    pub retention_period_hours: u32,
    pub stream_creation_timestamp: f64,
    pub enhanced_monitoring: Vec<EnhancedMetrics>,
    pub encryption_type: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeStreamOutput {
    pub stream_description: StreamDescription,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamDescriptionSummary {
    pub stream_name: String,
    #[serde(rename = "StreamARN")]
    pub stream_arn: String,
    pub stream_status: String,
    pub stream_mode_details: StreamModeDetails,
    pub retention_period_hours: u32,
    pub stream_creation_timestamp: f64,
    pub enhanced_monitoring: Vec<EnhancedMetrics>,
    pub encryption_type: String,
    pub open_shard_count: usize,
    pub consumer_count: usize,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeStreamSummaryOutput {
    pub stream_description_summary: StreamDescriptionSummary,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListStreamsInput {
    pub limit: Option<i64>,
    pub exclusive_start_stream_name: Option<String>,
    pub next_token: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamSummary {
    pub stream_name: String,
    #[serde(rename = "StreamARN")]
    pub stream_arn: String,
    pub stream_status: String,
    pub stream_mode_details: StreamModeDetails,
    pub stream_creation_timestamp: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListStreamsOutput {
    pub stream_names: Vec<String>,
    pub has_more_streams: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
    pub stream_summaries: Vec<StreamSummary>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListShardsInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub next_token: Option<String>,
    pub exclusive_start_shard_id: Option<String>,
    pub max_results: Option<i64>,
    pub stream_creation_timestamp: Option<f64>,
    pub shard_filter: Option<ShardFilterInput>,
}

/// ListShards' `ShardFilter`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ShardFilterInput {
    #[serde(rename = "Type")]
    pub filter_type: Option<String>,
    pub shard_id: Option<String>,
    pub timestamp: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListShardsOutput {
    pub shards: Vec<Shard>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PutRecordInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub data: Option<String>,
    pub partition_key: Option<String>,
    pub explicit_hash_key: Option<String>,
    pub sequence_number_for_ordering: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutRecordOutput {
    pub shard_id: String,
    pub sequence_number: String,
    pub encryption_type: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PutRecordsEntry {
    pub data: Option<String>,
    pub partition_key: Option<String>,
    pub explicit_hash_key: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PutRecordsInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub records: Option<Vec<PutRecordsEntry>>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutRecordsResultEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence_number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutRecordsOutput {
    pub failed_record_count: usize,
    pub records: Vec<PutRecordsResultEntry>,
    pub encryption_type: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GetShardIteratorInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub shard_id: Option<String>,
    pub shard_iterator_type: Option<String>,
    pub starting_sequence_number: Option<String>,
    pub timestamp: Option<f64>,
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
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Record {
    pub sequence_number: String,
    pub approximate_arrival_timestamp: f64,
    pub data: String,
    pub partition_key: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ChildShard {
    pub shard_id: String,
    pub parent_shards: Vec<String>,
    pub hash_key_range: HashKeyRange,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetRecordsOutput {
    pub records: Vec<Record>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_shard_iterator: Option<String>,
    pub millis_behind_latest: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child_shards: Option<Vec<ChildShard>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct RetentionPeriodInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub retention_period_hours: Option<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct AddTagsToStreamInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub tags: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct RemoveTagsFromStreamInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub tag_keys: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListTagsForStreamInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub exclusive_start_tag_key: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KinesisTag {
    pub key: String,
    pub value: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListTagsForStreamOutput {
    pub tags: Vec<KinesisTag>,
    pub has_more_tags: bool,
}

// DynamoDB's Kinesis streaming destination (`DynamoDB_20120810`): the table operations that
// send a table's changes to a Kinesis stream.

/// `EnableKinesisStreamingConfiguration` and `UpdateKinesisStreamingConfiguration`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct KinesisStreamingConfiguration {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approximate_creation_date_time_precision: Option<String>,
}

/// The input of EnableKinesisStreamingDestination and DisableKinesisStreamingDestination.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct KinesisStreamingDestinationInput {
    pub table_name: Option<String>,
    pub stream_arn: Option<String>,
    pub enable_kinesis_streaming_configuration: Option<KinesisStreamingConfiguration>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KinesisStreamingDestinationOutput {
    pub table_name: String,
    pub stream_arn: String,
    pub destination_status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_kinesis_streaming_configuration: Option<KinesisStreamingConfiguration>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DescribeKinesisStreamingDestinationInput {
    pub table_name: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KinesisDataStreamDestination {
    pub stream_arn: String,
    pub destination_status: &'static str,
    pub approximate_creation_date_time_precision: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeKinesisStreamingDestinationOutput {
    pub table_name: String,
    pub kinesis_data_stream_destinations: Vec<KinesisDataStreamDestination>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateKinesisStreamingDestinationInput {
    pub table_name: Option<String>,
    pub stream_arn: Option<String>,
    pub update_kinesis_streaming_configuration: Option<KinesisStreamingConfiguration>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateKinesisStreamingDestinationOutput {
    pub table_name: String,
    pub stream_arn: String,
    pub destination_status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update_kinesis_streaming_configuration: Option<KinesisStreamingConfiguration>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct SplitShardInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub shard_to_split: Option<String>,
    pub new_starting_hash_key: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct MergeShardsInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub shard_to_merge: Option<String>,
    pub adjacent_shard_to_merge: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateShardCountInput {
    pub stream_name: Option<String>,
    #[serde(rename = "StreamARN")]
    pub stream_arn: Option<String>,
    pub target_shard_count: Option<i64>,
    pub scaling_type: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateShardCountOutput {
    pub stream_name: String,
    pub current_shard_count: usize,
    pub target_shard_count: usize,
    #[serde(rename = "StreamARN")]
    pub stream_arn: String,
}

names_stream!(SplitShardInput, MergeShardsInput, UpdateShardCountInput);
