//! The legacy global tables operations (version 2017.11.29): CreateGlobalTable,
//! DescribeGlobalTable, ListGlobalTables, UpdateGlobalTable and the settings pair.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct RegionNameInput {
    pub region_name: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct CreateGlobalTableInput {
    pub global_table_name: Option<String>,
    pub replication_group: Option<Vec<RegionNameInput>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GlobalTableNameInput {
    pub global_table_name: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListGlobalTablesInput {
    pub exclusive_start_global_table_name: Option<String>,
    pub limit: Option<i64>,
    pub region_name: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GlobalReplicaUpdateInput {
    pub create: Option<RegionNameInput>,
    pub delete: Option<RegionNameInput>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateGlobalTableInput {
    pub global_table_name: Option<String>,
    pub replica_updates: Option<Vec<GlobalReplicaUpdateInput>>,
}

/// UpdateGlobalTableSettings: its settings are accepted and not kept (docs/compat.md).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateGlobalTableSettingsInput {
    pub global_table_name: Option<String>,
    pub global_table_billing_mode: Option<String>,
    pub global_table_provisioned_write_capacity_units: Option<i64>,
    pub global_table_provisioned_write_capacity_auto_scaling_settings_update:
        Option<serde_json::Value>,
    pub global_table_global_secondary_index_settings_update: Option<serde_json::Value>,
    pub replica_settings_update: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReplicaOut {
    pub region_name: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GlobalTableDescription {
    pub replication_group: Vec<ReplicaOut>,
    pub global_table_arn: String,
    pub creation_date_time: f64,
    pub global_table_status: &'static str,
    pub global_table_name: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GlobalTableDescriptionOutput {
    pub global_table_description: GlobalTableDescription,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GlobalTableSummary {
    pub global_table_name: String,
    pub replication_group: Vec<ReplicaOut>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListGlobalTablesOutput {
    pub global_tables: Vec<GlobalTableSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_evaluated_global_table_name: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BillingModeOut {
    pub billing_mode: &'static str,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReplicaSettings {
    pub region_name: String,
    pub replica_status: &'static str,
    pub replica_billing_mode_summary: BillingModeOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica_provisioned_read_capacity_units: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica_provisioned_write_capacity_units: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GlobalTableSettingsOutput {
    pub global_table_name: String,
    pub replica_settings: Vec<ReplicaSettings>,
}

/// UpdateTableReplicaAutoScaling: Kura has no auto scaling; the settings are accepted and
/// not kept (docs/compat.md).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateTableReplicaAutoScalingInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub global_secondary_index_updates: Option<serde_json::Value>,
    pub provisioned_write_capacity_auto_scaling_update: Option<serde_json::Value>,
    pub replica_updates: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct IndexAutoScaling {
    pub index_name: String,
    pub index_status: &'static str,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ReplicaAutoScaling {
    pub region_name: String,
    pub replica_status: String,
    pub global_secondary_indexes: Vec<IndexAutoScaling>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableAutoScalingDescription {
    pub table_name: String,
    pub table_status: &'static str,
    pub replicas: Vec<ReplicaAutoScaling>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TableAutoScalingOutput {
    pub table_auto_scaling_description: TableAutoScalingDescription,
}
