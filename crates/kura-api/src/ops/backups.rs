//! Backups, point-in-time recovery and exports: CreateBackup, DescribeBackup,
//! ListBackups, DeleteBackup, RestoreTableFromBackup, RestoreTableToPointInTime,
//! UpdateContinuousBackups, DescribeContinuousBackups, ExportTableToPointInTime,
//! DescribeExport, ListExports, ImportTable, DescribeImport, ListImports.

use kura_engine::api::{
    BackupArnInput, CreateBackupInput, DescribeContinuousBackupsInput, DescribeExportInput,
    DescribeImportInput, ExportTableToPointInTimeInput, ImportTableInput, ListBackupsInput,
    ListExportsInput, ListImportsInput, RestoreTableFromBackupInput,
    RestoreTableToPointInTimeInput, UpdateContinuousBackupsInput,
};

use super::input::{Input, begin, checked_inputs, control_inputs};
use super::{Call, json};
use crate::authz::{Check, Scope, backups as checks};
use crate::error::ApiError;
use crate::operation::Op;

control_inputs! {
    UpdateContinuousBackupsInput => table_name;
    DescribeContinuousBackupsInput => table_name;
}

checked_inputs! {
    BackupArnInput => |scope, op, input| checks::on_backup(scope, op, input);
    ListBackupsInput => |scope, _, _input| checks::list_backups(scope);
    RestoreTableFromBackupInput => |scope, _, input| checks::restore_from_backup(scope, input);
    RestoreTableToPointInTimeInput => |scope, _, input| {
        checks::restore_to_point_in_time(scope, input)
    };
    ExportTableToPointInTimeInput => |scope, _, input| checks::export(scope, input);
    DescribeExportInput => |scope, _, input| checks::describe_export(scope, input);
    ListExportsInput => |scope, _, _input| checks::list_exports(scope);
    ImportTableInput => |scope, _, input| checks::import(scope, input);
    DescribeImportInput => |scope, _, input| checks::describe_import(scope, input);
    ListImportsInput => |scope, _, _input| checks::list_imports(scope);
}

impl Input for CreateBackupInput {
    fn tables(&self) -> Vec<&str> {
        self.table_name.as_deref().into_iter().collect()
    }

    fn checks(&self, scope: &Scope<'_>, _: Op) -> Vec<Check> {
        checks::create_backup(scope, self)
    }
}

pub async fn create_backup(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: CreateBackupInput = begin(&call).await?;
    json(&call.engine.create_backup(&call.ctx, input).await?)
}

pub async fn describe_backup(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: BackupArnInput = begin(&call).await?;
    json(&call.engine.describe_backup(&call.ctx, input)?)
}

pub async fn delete_backup(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: BackupArnInput = begin(&call).await?;
    json(&call.engine.delete_backup(&call.ctx, input).await?)
}

pub async fn list_backups(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListBackupsInput = begin(&call).await?;
    json(&call.engine.list_backups(&call.ctx, input)?)
}

pub async fn restore_table_from_backup(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: RestoreTableFromBackupInput = begin(&call).await?;
    json(
        &call
            .engine
            .restore_table_from_backup(&call.ctx, input)
            .await?,
    )
}

pub async fn restore_table_to_point_in_time(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: RestoreTableToPointInTimeInput = begin(&call).await?;
    json(
        &call
            .engine
            .restore_table_to_point_in_time(&call.ctx, input)
            .await?,
    )
}

pub async fn update_continuous_backups(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(
        &call
            .engine
            .update_continuous_backups(begin(&call).await?)
            .await?,
    )
}

pub async fn describe_continuous_backups(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(
        &call
            .engine
            .describe_continuous_backups(begin(&call).await?)?,
    )
}

pub async fn export_table_to_point_in_time(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ExportTableToPointInTimeInput = begin(&call).await?;
    json(
        &call
            .engine
            .export_table_to_point_in_time(&call.ctx, input)
            .await?,
    )
}

pub async fn describe_export(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DescribeExportInput = begin(&call).await?;
    json(&call.engine.describe_export(input)?)
}

pub async fn list_exports(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListExportsInput = begin(&call).await?;
    json(&call.engine.list_exports(input)?)
}

pub async fn import_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ImportTableInput = begin(&call).await?;
    json(&call.engine.import_table(&call.ctx, input).await?)
}

pub async fn describe_import(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DescribeImportInput = begin(&call).await?;
    json(&call.engine.describe_import(input)?)
}

pub async fn list_imports(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListImportsInput = begin(&call).await?;
    json(&call.engine.list_imports(input)?)
}
