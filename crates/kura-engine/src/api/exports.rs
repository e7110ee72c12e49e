//! Export and import shapes: ExportTableToPointInTime, DescribeExport, ListExports,
//! ImportTable, DescribeImport, ListImports.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ExportTableToPointInTimeInput {
    pub table_arn: Option<String>,
    pub export_time: Option<f64>,
    pub client_token: Option<String>,
    pub s3_bucket: Option<String>,
    pub s3_bucket_owner: Option<String>,
    pub s3_prefix: Option<String>,
    pub s3_sse_algorithm: Option<String>,
    pub s3_sse_kms_key_id: Option<String>,
    pub export_format: Option<String>,
    pub export_type: Option<String>,
    pub incremental_export_specification: Option<IncrementalExportSpecification>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct IncrementalExportSpecification {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_from_time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_to_time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_view_type: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExportDescription {
    pub export_arn: String,
    pub export_status: String,
    pub start_time: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_manifest: Option<String>,
    pub table_arn: String,
    pub table_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_time: Option<f64>,
    pub client_token: String,
    pub s3_bucket: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s3_bucket_owner: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s3_prefix: Option<String>,
    pub s3_sse_algorithm: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s3_sse_kms_key_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_message: Option<String>,
    pub export_format: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub billed_size_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_count: Option<u64>,
    pub export_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incremental_export_specification: Option<IncrementalExportSpecification>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExportTableToPointInTimeOutput {
    pub export_description: ExportDescription,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DescribeExportInput {
    pub export_arn: Option<String>,
}

pub type DescribeExportOutput = ExportTableToPointInTimeOutput;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListExportsInput {
    pub table_arn: Option<String>,
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExportSummary {
    pub export_arn: String,
    pub export_status: String,
    pub export_type: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListExportsOutput {
    pub export_summaries: Vec<ExportSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct S3BucketSource {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s3_bucket_owner: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s3_bucket: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s3_key_prefix: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct InputFormatOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csv: Option<CsvOptions>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct CsvOptions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_list: Option<Vec<String>>,
}

/// `TableCreationParameters`, kept as sent (ImportTable echoes it) and turned into a
/// CreateTable request.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct TableCreationParameters {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute_definitions: Option<Vec<serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_schema: Option<Vec<serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub billing_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_demand_throughput: Option<serde_json::Value>,
    #[serde(rename = "SSESpecification", skip_serializing_if = "Option::is_none")]
    pub sse_specification: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_secondary_indexes: Option<Vec<serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_indexes: Option<Vec<serde_json::Value>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ImportTableInput {
    pub client_token: Option<String>,
    pub s3_bucket_source: Option<S3BucketSource>,
    pub input_format: Option<String>,
    pub input_format_options: Option<InputFormatOptions>,
    pub input_compression_type: Option<String>,
    pub table_creation_parameters: Option<TableCreationParameters>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ImportTableDescription {
    pub import_arn: String,
    pub import_status: String,
    pub table_arn: String,
    pub table_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_token: Option<String>,
    pub s3_bucket_source: S3BucketSource,
    pub error_count: u64,
    pub cloud_watch_log_group_arn: String,
    pub input_format: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_format_options: Option<InputFormatOptions>,
    pub input_compression_type: String,
    pub table_creation_parameters: TableCreationParameters,
    pub start_time: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_time: Option<f64>,
    pub processed_size_bytes: u64,
    pub processed_item_count: u64,
    pub imported_item_count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_message: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ImportTableOutput {
    pub import_table_description: ImportTableDescription,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DescribeImportInput {
    pub import_arn: Option<String>,
}

pub type DescribeImportOutput = ImportTableOutput;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListImportsInput {
    pub table_arn: Option<String>,
    pub page_size: Option<i64>,
    pub next_token: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ImportSummary {
    pub import_arn: String,
    pub import_status: String,
    pub table_arn: String,
    pub s3_bucket_source: S3BucketSource,
    pub cloud_watch_log_group_arn: String,
    pub input_format: String,
    pub start_time: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_time: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListImportsOutput {
    pub import_summary_list: Vec<ImportSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}
