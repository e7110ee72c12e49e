//! Control-plane shapes: CreateTable, DescribeTable, ListTables, UpdateTable, DeleteTable,
//! tags, DescribeLimits, DescribeEndpoints.

use serde::{Deserialize, Serialize};

use super::projection::{IndexNameInput, ProjectionInput, ProjectionOut};

/// `AttributeDefinition` as sent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct AttributeDefinitionInput {
    pub attribute_name: Option<String>,
    pub attribute_type: Option<String>,
}

impl AttributeDefinitionInput {
    /// The name and type, once the framework constraints have passed (S if unset).
    pub fn definition(&self) -> (String, kura_model::keycode::ScalarType) {
        let ty = self
            .attribute_type
            .as_deref()
            .and_then(kura_model::keycode::ScalarType::from_descriptor)
            .unwrap_or(kura_model::keycode::ScalarType::S);
        (self.attribute_name.clone().unwrap_or_default(), ty)
    }
}

/// `KeySchemaElement` as sent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct KeySchemaElementInput {
    pub attribute_name: Option<String>,
    pub key_type: Option<String>,
}

/// `ProvisionedThroughput` as sent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ProvisionedThroughputInput {
    pub read_capacity_units: Option<i64>,
    pub write_capacity_units: Option<i64>,
}

/// `Tag`, in and out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Tag {
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct CreateTableInput {
    pub table_name: Option<String>,
    pub attribute_definitions: Option<Vec<AttributeDefinitionInput>>,
    pub key_schema: Option<Vec<KeySchemaElementInput>>,
    pub billing_mode: Option<String>,
    pub provisioned_throughput: Option<ProvisionedThroughputInput>,
    pub tags: Option<Vec<Tag>>,
    pub deletion_protection_enabled: Option<bool>,
    pub table_class: Option<String>,
    pub global_secondary_indexes: Option<Vec<GlobalSecondaryIndexInput>>,
    pub local_secondary_indexes: Option<Vec<LocalSecondaryIndexInput>>,
    pub vector_indexes: Option<Vec<super::VectorIndexInput>>,
    // Arrive with later issues; until then a request that uses them is refused.
    pub stream_specification: Option<StreamSpecificationInput>,
    #[serde(rename = "SSESpecification")]
    pub sse_specification: Option<SseSpecificationInput>,
    pub resource_policy: Option<serde_json::Value>,
    pub on_demand_throughput: Option<serde_json::Value>,
    pub warm_throughput: Option<serde_json::Value>,
}

/// `GlobalSecondaryIndex` (and UpdateTable's `CreateGlobalSecondaryIndexAction`) as sent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GlobalSecondaryIndexInput {
    pub index_name: Option<String>,
    pub key_schema: Option<Vec<KeySchemaElementInput>>,
    pub projection: Option<ProjectionInput>,
    pub provisioned_throughput: Option<ProvisionedThroughputInput>,
    pub on_demand_throughput: Option<serde_json::Value>,
    pub warm_throughput: Option<serde_json::Value>,
}

/// `LocalSecondaryIndex` as sent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct LocalSecondaryIndexInput {
    pub index_name: Option<String>,
    pub key_schema: Option<Vec<KeySchemaElementInput>>,
    pub projection: Option<ProjectionInput>,
}

/// One `GlobalSecondaryIndexUpdate` of UpdateTable: exactly one action.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GlobalSecondaryIndexUpdateInput {
    pub create: Option<GlobalSecondaryIndexInput>,
    pub update: Option<UpdateGlobalSecondaryIndexInput>,
    pub delete: Option<IndexNameInput>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateGlobalSecondaryIndexInput {
    pub index_name: Option<String>,
    pub provisioned_throughput: Option<ProvisionedThroughputInput>,
    pub on_demand_throughput: Option<serde_json::Value>,
    pub warm_throughput: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct StreamSpecificationInput {
    pub stream_enabled: Option<bool>,
    pub stream_view_type: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct TableNameInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
}

pub type DescribeTableInput = TableNameInput;
pub type DeleteTableInput = TableNameInput;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateTableInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub billing_mode: Option<String>,
    pub provisioned_throughput: Option<ProvisionedThroughputInput>,
    pub deletion_protection_enabled: Option<bool>,
    pub table_class: Option<String>,
    pub attribute_definitions: Option<Vec<AttributeDefinitionInput>>,
    pub global_secondary_index_updates: Option<Vec<GlobalSecondaryIndexUpdateInput>>,
    pub vector_index_updates: Option<Vec<super::VectorIndexUpdateInput>>,
    pub stream_specification: Option<StreamSpecificationInput>,
    #[serde(rename = "SSESpecification")]
    pub sse_specification: Option<SseSpecificationInput>,
    pub replica_updates: Option<Vec<ReplicationGroupUpdateInput>>,
    /// EVENTUAL or STRONG, for a global table being made by `ReplicaUpdates` Creates.
    pub multi_region_consistency: Option<String>,
    pub global_table_witness_updates: Option<Vec<WitnessGroupUpdateInput>>,
    pub on_demand_throughput: Option<serde_json::Value>,
    pub warm_throughput: Option<serde_json::Value>,
}

/// One of UpdateTable's `GlobalTableWitnessUpdates`: create or delete an MRSC table's
/// witness.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct WitnessGroupUpdateInput {
    pub create: Option<WitnessActionInput>,
    pub delete: Option<WitnessActionInput>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct WitnessActionInput {
    pub region_name: Option<String>,
}

/// An MRSC table's witness as DescribeTable lists it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct WitnessDescription {
    pub region_name: String,
    pub witness_status: &'static str,
}

/// One of UpdateTable's `ReplicaUpdates`: create, update or delete a replica (global
/// tables version 2019.11.21).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ReplicationGroupUpdateInput {
    pub create: Option<ReplicaActionInput>,
    pub update: Option<ReplicaActionInput>,
    pub delete: Option<ReplicaActionInput>,
}

/// A replica action's region and its per-replica overrides.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ReplicaActionInput {
    pub region_name: Option<String>,
    #[serde(rename = "KMSMasterKeyId")]
    pub kms_master_key_id: Option<String>,
    pub provisioned_throughput_override: Option<ProvisionedThroughputOverride>,
    pub on_demand_throughput_override: Option<OnDemandThroughputOverride>,
    pub global_secondary_indexes: Option<Vec<ReplicaGlobalSecondaryIndex>>,
    pub table_class_override: Option<String>,
}

/// A replica's own read capacity (its write capacity is the table's).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ProvisionedThroughputOverride {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_capacity_units: Option<i64>,
}

/// A replica's own maximum on-demand reads.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct OnDemandThroughputOverride {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_read_request_units: Option<i64>,
}

/// A GSI's read capacity in one replica (asked for, and described).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ReplicaGlobalSecondaryIndex {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput_override: Option<ProvisionedThroughputOverride>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_demand_throughput_override: Option<OnDemandThroughputOverride>,
}

/// A replica as DescribeTable lists it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReplicaDescription {
    pub region_name: String,
    pub replica_status: String,
    #[serde(rename = "KMSMasterKeyId", skip_serializing_if = "Option::is_none")]
    pub kms_master_key_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput_override: Option<ProvisionedThroughputOverride>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_demand_throughput_override: Option<OnDemandThroughputOverride>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_secondary_indexes: Option<Vec<ReplicaGlobalSecondaryIndex>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica_table_class_summary: Option<TableClassSummary>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListTablesInput {
    pub exclusive_start_table_name: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListTablesOutput {
    pub table_names: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_evaluated_table_name: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct TagResourceInput {
    pub resource_arn: Option<String>,
    pub tags: Option<Vec<Tag>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UntagResourceInput {
    pub resource_arn: Option<String>,
    pub tag_keys: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListTagsOfResourceInput {
    pub resource_arn: Option<String>,
    pub next_token: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListTagsOfResourceOutput {
    pub tags: Vec<Tag>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

/// The `TableDescription` structure.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableDescription {
    /// Absent only in DeleteTable's answer, as in DynamoDB's (so are CreationDateTime,
    /// KeySchema and the members that describe indexes, streams and encryption).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute_definitions: Option<Vec<AttributeDefinitionOut>>,
    pub table_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_schema: Option<Vec<KeySchemaElementOut>>,
    pub table_status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_date_time: Option<f64>,
    pub provisioned_throughput: ProvisionedThroughputDescription,
    pub table_size_bytes: u64,
    pub item_count: u64,
    pub table_arn: String,
    pub table_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub billing_mode_summary: Option<BillingModeSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_class_summary: Option<TableClassSummary>,
    pub deletion_protection_enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_secondary_indexes: Option<Vec<GlobalSecondaryIndexDescription>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_secondary_indexes: Option<Vec<LocalSecondaryIndexDescription>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_indexes: Option<Vec<super::VectorIndexDescription>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_specification: Option<super::StreamSpecificationOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_stream_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_stream_arn: Option<String>,
    #[serde(rename = "SSEDescription", skip_serializing_if = "Option::is_none")]
    pub sse_description: Option<SseDescription>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore_summary: Option<super::RestoreSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_table_version: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<Vec<ReplicaDescription>>,
    /// STRONG for an MRSC table; absent otherwise, as DynamoDB leaves it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multi_region_consistency: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_table_witnesses: Option<Vec<WitnessDescription>>,
}

/// `SSESpecification`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SseSpecificationInput {
    #[serde(rename = "Enabled")]
    pub enabled: Option<bool>,
    #[serde(rename = "SSEType")]
    pub sse_type: Option<String>,
    #[serde(rename = "KMSMasterKeyId")]
    pub kms_master_key_id: Option<String>,
}

/// `SSEDescription`: present only for a table encrypted with a KMS key.
#[derive(Debug, Clone, Serialize)]
pub struct SseDescription {
    #[serde(rename = "Status")]
    pub status: &'static str,
    #[serde(rename = "SSEType")]
    pub sse_type: &'static str,
    #[serde(rename = "KMSMasterKeyArn")]
    pub kms_master_key_arn: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GlobalSecondaryIndexDescription {
    pub index_name: String,
    pub key_schema: Vec<KeySchemaElementOut>,
    pub projection: ProjectionOut,
    pub index_status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backfilling: Option<bool>,
    pub provisioned_throughput: ProvisionedThroughputDescription,
    pub index_size_bytes: u64,
    pub item_count: u64,
    pub index_arn: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct LocalSecondaryIndexDescription {
    pub index_name: String,
    pub key_schema: Vec<KeySchemaElementOut>,
    pub projection: ProjectionOut,
    pub index_size_bytes: u64,
    pub item_count: u64,
    pub index_arn: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AttributeDefinitionOut {
    pub attribute_name: String,
    pub attribute_type: &'static str,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeySchemaElementOut {
    pub attribute_name: String,
    pub key_type: &'static str,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProvisionedThroughputDescription {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_increase_date_time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_decrease_date_time: Option<f64>,
    pub number_of_decreases_today: u32,
    pub read_capacity_units: i64,
    pub write_capacity_units: i64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BillingModeSummary {
    pub billing_mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_update_to_pay_per_request_date_time: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableClassSummary {
    pub table_class: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateTableOutput {
    pub table_description: TableDescription,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeTableOutput {
    pub table: TableDescription,
}

pub type UpdateTableOutput = CreateTableOutput;
pub type DeleteTableOutput = CreateTableOutput;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeLimitsOutput {
    pub account_max_read_capacity_units: i64,
    pub account_max_write_capacity_units: i64,
    pub table_max_read_capacity_units: i64,
    pub table_max_write_capacity_units: i64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Endpoint {
    pub address: String,
    pub cache_period_in_minutes: i64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeEndpointsOutput {
    pub endpoints: Vec<Endpoint>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PutResourcePolicyInput {
    pub resource_arn: Option<String>,
    pub policy: Option<String>,
    pub expected_revision_id: Option<String>,
    pub confirm_remove_self_resource_access: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GetResourcePolicyInput {
    pub resource_arn: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DeleteResourcePolicyInput {
    pub resource_arn: Option<String>,
    pub expected_revision_id: Option<String>,
}

/// PutResourcePolicy's answer.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ResourcePolicyRevision {
    pub revision_id: String,
}

/// DeleteResourcePolicy's answer: the deleted policy's revision, absent when there was no
/// policy (API Reference: "This value will be empty if you make a request against a
/// resource without a policy").
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DeleteResourcePolicyOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetResourcePolicyOutput {
    pub policy: String,
    pub revision_id: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct RestoreSummary {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_backup_arn: Option<String>,
    pub source_table_arn: String,
    pub restore_date_time: f64,
    pub restore_in_progress: bool,
}

/// `StreamSpecification` in DescribeTable.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamSpecificationOut {
    pub stream_enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_view_type: Option<&'static str>,
}
