//! Backup and restore shapes: CreateBackup, DescribeBackup, ListBackups, DeleteBackup,
//! RestoreTableFromBackup, RestoreTableToPointInTime, UpdateContinuousBackups,
//! DescribeContinuousBackups.

use serde::{Deserialize, Serialize};

use super::{
    GlobalSecondaryIndexInput, KeySchemaElementOut, LocalSecondaryIndexInput, ProjectionOut,
    ProvisionedThroughputInput, SseDescription, SseSpecificationInput, StreamSpecificationOut,
    TableDescription,
};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct CreateBackupInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub backup_name: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateBackupOutput {
    pub backup_details: BackupDetails,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BackupDetails {
    pub backup_arn: String,
    pub backup_name: String,
    pub backup_size_bytes: u64,
    pub backup_status: &'static str,
    pub backup_type: String,
    pub backup_creation_date_time: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup_expiry_date_time: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct BackupArnInput {
    pub backup_arn: Option<String>,
}

pub type DescribeBackupInput = BackupArnInput;
pub type DeleteBackupInput = BackupArnInput;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeBackupOutput {
    pub backup_description: BackupDescription,
}

pub type DeleteBackupOutput = DescribeBackupOutput;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BackupDescription {
    pub backup_details: BackupDetails,
    pub source_table_details: SourceTableDetails,
    pub source_table_feature_details: SourceTableFeatureDetails,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SourceTableDetails {
    pub table_name: String,
    pub table_id: String,
    pub table_arn: String,
    pub table_size_bytes: u64,
    pub key_schema: Vec<KeySchemaElementOut>,
    pub table_creation_date_time: f64,
    pub provisioned_throughput: ProvisionedThroughputOut,
    pub item_count: u64,
    pub billing_mode: &'static str,
}

/// `ProvisionedThroughput` as a backup reports it (no change history).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProvisionedThroughputOut {
    pub read_capacity_units: i64,
    pub write_capacity_units: i64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SourceTableFeatureDetails {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_secondary_indexes: Option<Vec<LocalSecondaryIndexInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_secondary_indexes: Option<Vec<GlobalSecondaryIndexInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_description: Option<StreamSpecificationOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_to_live_description: Option<super::TimeToLiveDescription>,
    #[serde(rename = "SSEDescription", skip_serializing_if = "Option::is_none")]
    pub sse_description: Option<SseDescription>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct LocalSecondaryIndexInfo {
    pub index_name: String,
    pub key_schema: Vec<KeySchemaElementOut>,
    pub projection: ProjectionOut,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GlobalSecondaryIndexInfo {
    pub index_name: String,
    pub key_schema: Vec<KeySchemaElementOut>,
    pub projection: ProjectionOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<ProvisionedThroughputOut>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListBackupsInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub limit: Option<i64>,
    pub time_range_lower_bound: Option<f64>,
    pub time_range_upper_bound: Option<f64>,
    pub exclusive_start_backup_arn: Option<String>,
    pub backup_type: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListBackupsOutput {
    pub backup_summaries: Vec<BackupSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_evaluated_backup_arn: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BackupSummary {
    pub table_name: String,
    pub table_id: String,
    pub table_arn: String,
    pub backup_arn: String,
    pub backup_name: String,
    pub backup_creation_date_time: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup_expiry_date_time: Option<f64>,
    pub backup_status: &'static str,
    pub backup_type: String,
    pub backup_size_bytes: u64,
}

/// What RestoreTableFromBackup and RestoreTableToPointInTime share.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct RestoreOverrides {
    pub billing_mode_override: Option<String>,
    pub global_secondary_index_override: Option<Vec<GlobalSecondaryIndexInput>>,
    pub local_secondary_index_override: Option<Vec<LocalSecondaryIndexInput>>,
    pub provisioned_throughput_override: Option<ProvisionedThroughputInput>,
    pub on_demand_throughput_override: Option<serde_json::Value>,
    #[serde(rename = "SSESpecificationOverride")]
    pub sse_specification_override: Option<SseSpecificationInput>,
    /// The restored table's vector indexes (all of the source's when absent).
    pub vector_index_override: Option<Vec<super::VectorIndexInput>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct RestoreTableFromBackupInput {
    pub target_table_name: Option<String>,
    pub backup_arn: Option<String>,
    #[serde(flatten)]
    pub overrides: RestoreOverrides,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct RestoreTableToPointInTimeInput {
    pub source_table_arn: Option<String>,
    pub source_table_name: Option<String>,
    pub target_table_name: Option<String>,
    pub use_latest_restorable_time: Option<bool>,
    pub restore_date_time: Option<f64>,
    #[serde(flatten)]
    pub overrides: RestoreOverrides,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct RestoreTableOutput {
    pub table_description: TableDescription,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateContinuousBackupsInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub point_in_time_recovery_specification: Option<PointInTimeRecoverySpecification>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PointInTimeRecoverySpecification {
    pub point_in_time_recovery_enabled: Option<bool>,
    pub recovery_period_in_days: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateContinuousBackupsOutput {
    pub continuous_backups_description: ContinuousBackupsDescription,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DescribeContinuousBackupsInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
}

pub type DescribeContinuousBackupsOutput = UpdateContinuousBackupsOutput;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ContinuousBackupsDescription {
    pub continuous_backups_status: &'static str,
    pub point_in_time_recovery_description: PointInTimeRecoveryDescription,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PointInTimeRecoveryDescription {
    pub point_in_time_recovery_status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_period_in_days: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub earliest_restorable_date_time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_restorable_date_time: Option<f64>,
}
