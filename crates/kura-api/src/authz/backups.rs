//! What the backup operations ask of the policies, on the resources IAM names for them:
//! CreateBackup and RestoreTableToPointInTime on the source table, DescribeBackup,
//! DeleteBackup and RestoreTableFromBackup on the backup ARN, ListBackups on `*`. A
//! restore also writes the target table, checked as the PutItem IAM asks for.
//! ExportTableToPointInTime is checked on the table, DescribeExport on the export ARN,
//! ListExports on `*`; ImportTable on the table it creates, DescribeImport on the import
//! ARN, ListImports on `*`.
//!
//! The bucket is the caller's too, as in AWS, where DynamoDB reads and writes S3 with the
//! caller's permissions (Developer Guide, "Requesting a table export" and "Requesting a
//! table import"): an export asks `s3:AbortMultipartUpload`, `s3:PutObject` and
//! `s3:PutObjectAcl` on the objects under `<prefix>/AWSDynamoDB/`, an import `s3:ListBucket`
//! on the bucket and `s3:GetObject` on the objects under its key prefix. Kura asks them
//! when the request is made (AWS finds out when the job runs, and fails it), so a client
//! with a table's rights cannot reach a bucket its policies do not name. The object keys
//! are not known then, so the check is on every key under the prefix: an Allow must cover
//! the prefix, and a Deny of any key under it (`bucket/exports/private/*`) refuses.

use kura_engine::api::{
    BackupArnInput, CreateBackupInput, DescribeExportInput, DescribeImportInput,
    ExportTableToPointInTimeInput, ImportTableInput, RestoreTableFromBackupInput,
    RestoreTableToPointInTimeInput,
};

use super::{Check, Scope};
use crate::operation::Op;

pub(crate) fn create_backup(scope: &Scope<'_>, input: &CreateBackupInput) -> Vec<Check> {
    let table = input.table_name.as_deref().unwrap_or_default();
    vec![Check::of(Op::CreateBackup, scope.table(table))]
}

pub(crate) fn on_backup(scope: &Scope<'_>, op: Op, input: &BackupArnInput) -> Vec<Check> {
    let arn = input.backup_arn.as_deref().unwrap_or_default();
    vec![Check::of(op, scope.stream(arn))]
}

pub(crate) fn list_backups(scope: &Scope<'_>) -> Vec<Check> {
    vec![Check::of(Op::ListBackups, scope.any())]
}

pub(crate) fn restore_from_backup(
    scope: &Scope<'_>,
    input: &RestoreTableFromBackupInput,
) -> Vec<Check> {
    let arn = input.backup_arn.as_deref().unwrap_or_default();
    let target = input.target_table_name.as_deref().unwrap_or_default();
    vec![
        Check::of(Op::RestoreTableFromBackup, scope.stream(arn)),
        Check::of(Op::PutItem, scope.table(target)),
    ]
}

pub(crate) fn restore_to_point_in_time(
    scope: &Scope<'_>,
    input: &RestoreTableToPointInTimeInput,
) -> Vec<Check> {
    let source = match (&input.source_table_name, &input.source_table_arn) {
        (Some(name), _) => scope.table(name),
        (None, Some(arn)) => scope.stream(arn),
        (None, None) => scope.any(),
    };
    let target = input.target_table_name.as_deref().unwrap_or_default();
    vec![
        Check::of(Op::RestoreTableToPointInTime, source),
        Check::of(Op::PutItem, scope.table(target)),
    ]
}

pub(crate) fn export(scope: &Scope<'_>, input: &ExportTableToPointInTimeInput) -> Vec<Check> {
    let arn = input.table_arn.as_deref().unwrap_or_default();
    let bucket = input.s3_bucket.as_deref().unwrap_or_default();
    let prefix = kura_engine::export_object_prefix(input.s3_prefix.as_deref());
    vec![
        Check::of(Op::ExportTableToPointInTime, scope.stream(arn)),
        Check::s3_objects_under("AbortMultipartUpload", bucket, &prefix),
        Check::s3_objects_under("PutObject", bucket, &prefix),
        Check::s3_objects_under("PutObjectAcl", bucket, &prefix),
    ]
}

pub(crate) fn describe_export(scope: &Scope<'_>, input: &DescribeExportInput) -> Vec<Check> {
    let arn = input.export_arn.as_deref().unwrap_or_default();
    vec![Check::of(Op::DescribeExport, scope.stream(arn))]
}

pub(crate) fn list_exports(scope: &Scope<'_>) -> Vec<Check> {
    vec![Check::of(Op::ListExports, scope.any())]
}

pub(crate) fn import(scope: &Scope<'_>, input: &ImportTableInput) -> Vec<Check> {
    let table = input
        .table_creation_parameters
        .as_ref()
        .and_then(|p| p.table_name.as_deref())
        .unwrap_or_default();
    let source = input.s3_bucket_source.as_ref();
    let bucket = source
        .and_then(|s| s.s3_bucket.as_deref())
        .unwrap_or_default();
    let prefix = source
        .and_then(|s| s.s3_key_prefix.as_deref())
        .unwrap_or_default();
    vec![
        Check::of(Op::ImportTable, scope.table(table)),
        Check::s3("ListBucket", format!("arn:aws:s3:::{bucket}"))
            .opt("s3:prefix", Some(prefix).filter(|p| !p.is_empty())),
        Check::s3_objects_under("GetObject", bucket, prefix),
    ]
}

pub(crate) fn describe_import(scope: &Scope<'_>, input: &DescribeImportInput) -> Vec<Check> {
    let arn = input.import_arn.as_deref().unwrap_or_default();
    vec![Check::of(Op::DescribeImport, scope.stream(arn))]
}

pub(crate) fn list_imports(scope: &Scope<'_>) -> Vec<Check> {
    vec![Check::of(Op::ListImports, scope.any())]
}
