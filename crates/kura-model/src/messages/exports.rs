//! The texts of ExportTableToPointInTime, DescribeExport, ListExports, ImportTable,
//! DescribeImport and ListImports.
//!
//! Sources: probes of real DynamoDB (2026-10-09) published as the "ack-api-quirks"
//! DynamoDB lab notes (`export.md`, `import.md`, `details/DDB-EXPORT-*`, `DDB-IMPORT-*`);
//! moto's AWS-verified export tests (`tests/test_dynamodb/test_dynamodb_export_table.py`);
//! ScyllaDB's alternator export tests run against AWS (`test/alternator/test_export*.py`);
//! the Developer Guide's import validation page. Where none captured a text, the function
//! says so.

/// TableNotFoundException of an export: the ARN as sent. Source: moto (AWS-verified); lab
/// DDB-EXPORT-001.
pub fn table_not_found(table_arn: &str) -> String {
    format!("Table not found: {table_arn}")
}

/// A TableArn that is not an ARN. Source: lab DDB-EXPORT-002.
pub const TABLE_ARN_NOT_ARN: &str =
    "One or more parameter values were invalid: tableArn is not a valid ARN";

/// A TableArn that is an ARN but not a table's (an index's). Source: lab DDB-EXPORT-002.
pub const TABLE_ARN_INVALID: &str = "Invalid Request: Table ARN is invalid.";

/// ExportTime in the future or before point-in-time recovery was enabled. Source: lab
/// DDB-EXPORT-003.
pub const EXPORT_TIME_INVALID: &str = "Export Time is invalid";

/// ExportTime before the recovery window. Source: lab DDB-EXPORT-003.
pub const EXPORT_TIME_OUTSIDE_WINDOW: &str =
    "Point in Time Recovery is not available for specified export time";

/// Source: lab DDB-EXPORT-004.
pub const SPEC_WITHOUT_INCREMENTAL_TYPE: &str = "Invalid Request: Export Type expected to be Incremental Export when incremental export specification is provided";
/// Source: lab DDB-EXPORT-004 (the space before the comma is DynamoDB's).
pub const SPEC_WITH_FULL_TYPE: &str = "Invalid Request: When Export Type is Full Export , Incremental Export Specification should not be provided";
/// Source: lab DDB-EXPORT-004.
pub const INCREMENTAL_WITHOUT_SPEC: &str = "Invalid Request: Incremental Export Specification expected when export type is set as Incremental Export";
/// Source: lab DDB-EXPORT-004.
pub const FROM_TIME_MISSING: &str =
    "Invalid Request: ExportFromTime must be provided in IncrementalExportSpecification";

/// An incremental window that starts before the history. Source: lab DDB-EXPORT-004.
pub fn from_before_creation(from: &str) -> String {
    format!(
        "Incremental export period from time cannot be less than the table creation time : {from}"
    )
}

/// Source: lab DDB-EXPORT-004.
pub fn to_after_now(to: &str) -> String {
    format!("Incremental export period to time cannot be greater than the current time : {to}")
}

/// Source: lab DDB-EXPORT-004.
pub const WINDOW_UNDER_15_MINUTES: &str =
    "Difference between export period from time and export period to time is less than 15 minutes";

/// A window over 24 hours. Source: Kura, in the form of [`WINDOW_UNDER_15_MINUTES`]; no
/// capture of DynamoDB's text exists.
pub const WINDOW_OVER_24_HOURS: &str =
    "Difference between export period from time and export period to time is greater than 24 hours";

/// Source: lab DDB-EXPORT-005; SCYLLA.
pub const EXPORT_CONFLICT: &str =
    "Export conflict: Duplicate request detected with conflicting parameters";

/// ExportNotFoundException (the doubled prefix is DynamoDB's). Source: lab DDB-EXPORT-006.
pub fn export_not_found(arn: &str) -> String {
    format!("Export not found: Export not found: {arn}")
}

/// Source: lab DDB-EXPORT-006.
pub const INVALID_EXPORT_ARN: &str = "Invalid Export ARN";

/// Source: lab DDB-EXPORT-006 (and its import twin).
pub fn invalid_next_token(token: &str) -> String {
    format!("Invalid Request: Provided nextToken is invalid: {token}")
}

/// S3SseKmsKeyId without KMS. Source: lab DDB-EXPORT-008.
pub const KMS_KEY_WITHOUT_KMS: &str =
    "Invalid Request: KMS Key Id is not supported for this encryption type";

/// Source: lab DDB-IMPORT-017.
pub const IMPORT_CONFLICT: &str =
    "Import conflict: Duplicate request detected with conflicting parameters";

/// ImportNotFoundException. Source: Kura, in the form of [`export_not_found`]; no capture
/// of DynamoDB's text exists.
pub fn import_not_found(arn: &str) -> String {
    format!("Import not found: {arn}")
}

/// Source: lab DDB-IMPORT-010.
pub const INVALID_IMPORT_ARN: &str = "Invalid Import ARN";

/// CSV options with another input format. Source: lab DDB-IMPORT-012.
pub fn csv_options_for(format: &str) -> String {
    format!("Invalid Request: Unsupported InputFormatOptions for the given input format: {format}.")
}

/// An import's FailureMessage when items were refused. Source: Developer Guide, "Import
/// format quotas and validation" (a DescribeImport of a failed import).
pub const ITEM_VALIDATION_FAILED: &str = "Some of the items failed validation checks and were not imported. Please check CloudWatch error logs for more details.";

/// An item without a key attribute. Source: Developer Guide, "Import format quotas and
/// validation" (the CloudWatch error record).
pub fn missing_key(name: &str) -> String {
    format!("One or more parameter values were invalid: Missing the key {name} in the item")
}
