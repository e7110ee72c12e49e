//! What the backup operations ask of the policies, on the resources IAM names for them:
//! CreateBackup and RestoreTableToPointInTime on the source table, DescribeBackup,
//! DeleteBackup and RestoreTableFromBackup on the backup ARN, ListBackups on `*`. A
//! restore also writes the target table, checked as the PutItem IAM asks for.
//! ExportTableToPointInTime is checked on the table, DescribeExport on the export ARN,
//! ListExports on `*`; ImportTable on the table it creates, DescribeImport on the import
//! ARN, ListImports on `*`.

use kura_engine::api::{
    BackupArnInput, CreateBackupInput, DescribeExportInput, DescribeImportInput,
    ExportTableToPointInTimeInput, ImportTableInput, RestoreTableFromBackupInput,
    RestoreTableToPointInTimeInput,
};

use super::{Check, Scope};

pub(crate) fn create_backup(scope: &Scope<'_>, input: &CreateBackupInput) -> Vec<Check> {
    let table = input.table_name.as_deref().unwrap_or_default();
    vec![Check::new("CreateBackup", scope.table(table))]
}

pub(crate) fn on_backup(
    scope: &Scope<'_>,
    action: &'static str,
    input: &BackupArnInput,
) -> Vec<Check> {
    let arn = input.backup_arn.as_deref().unwrap_or_default();
    vec![Check::new(action, scope.stream(arn))]
}

pub(crate) fn list_backups(scope: &Scope<'_>) -> Vec<Check> {
    vec![Check::new("ListBackups", scope.any())]
}

pub(crate) fn restore_from_backup(
    scope: &Scope<'_>,
    input: &RestoreTableFromBackupInput,
) -> Vec<Check> {
    let arn = input.backup_arn.as_deref().unwrap_or_default();
    let target = input.target_table_name.as_deref().unwrap_or_default();
    vec![
        Check::new("RestoreTableFromBackup", scope.stream(arn)),
        Check::new("PutItem", scope.table(target)),
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
        Check::new("RestoreTableToPointInTime", source),
        Check::new("PutItem", scope.table(target)),
    ]
}

pub(crate) fn export(scope: &Scope<'_>, input: &ExportTableToPointInTimeInput) -> Vec<Check> {
    let arn = input.table_arn.as_deref().unwrap_or_default();
    vec![Check::new("ExportTableToPointInTime", scope.stream(arn))]
}

pub(crate) fn describe_export(scope: &Scope<'_>, input: &DescribeExportInput) -> Vec<Check> {
    let arn = input.export_arn.as_deref().unwrap_or_default();
    vec![Check::new("DescribeExport", scope.stream(arn))]
}

pub(crate) fn list_exports(scope: &Scope<'_>) -> Vec<Check> {
    vec![Check::new("ListExports", scope.any())]
}

pub(crate) fn import(scope: &Scope<'_>, input: &ImportTableInput) -> Vec<Check> {
    let table = input
        .table_creation_parameters
        .as_ref()
        .and_then(|p| p.table_name.as_deref())
        .unwrap_or_default();
    vec![Check::new("ImportTable", scope.table(table))]
}

pub(crate) fn describe_import(scope: &Scope<'_>, input: &DescribeImportInput) -> Vec<Check> {
    let arn = input.import_arn.as_deref().unwrap_or_default();
    vec![Check::new("DescribeImport", scope.stream(arn))]
}

pub(crate) fn list_imports(scope: &Scope<'_>) -> Vec<Check> {
    vec![Check::new("ListImports", scope.any())]
}
