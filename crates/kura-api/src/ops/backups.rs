//! Backups, point-in-time recovery and exports: CreateBackup, DescribeBackup,
//! ListBackups, DeleteBackup, RestoreTableFromBackup, RestoreTableToPointInTime,
//! UpdateContinuousBackups, DescribeContinuousBackups, ExportTableToPointInTime,
//! DescribeExport, ListExports, ImportTable, DescribeImport, ListImports.

use kura_engine::api::{
    BackupArnInput, CreateBackupInput, DescribeExportInput, DescribeImportInput,
    ExportTableToPointInTimeInput, ImportTableInput, ListBackupsInput, ListExportsInput,
    ListImportsInput, RestoreTableFromBackupInput, RestoreTableToPointInTimeInput,
};

use super::{Call, json};
use crate::authz::{self, backups as checks};
use crate::error::ApiError;
use crate::operation::Op;

pub async fn create_backup(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: CreateBackupInput = call.input()?;
    authz::authorize(&call, |s| checks::create_backup(s, &input))?;
    json(&call.engine.create_backup(&call.ctx, input).await?)
}

pub fn describe_backup(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: BackupArnInput = call.input()?;
    authz::authorize(&call, |s| checks::on_backup(s, Op::DescribeBackup, &input))?;
    json(&call.engine.describe_backup(&call.ctx, input)?)
}

pub async fn delete_backup(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: BackupArnInput = call.input()?;
    authz::authorize(&call, |s| checks::on_backup(s, Op::DeleteBackup, &input))?;
    json(&call.engine.delete_backup(&call.ctx, input).await?)
}

pub fn list_backups(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListBackupsInput = call.input()?;
    authz::authorize(&call, checks::list_backups)?;
    json(&call.engine.list_backups(&call.ctx, input)?)
}

pub async fn restore_table_from_backup(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: RestoreTableFromBackupInput = call.input()?;
    authz::authorize(&call, |s| checks::restore_from_backup(s, &input))?;
    json(
        &call
            .engine
            .restore_table_from_backup(&call.ctx, input)
            .await?,
    )
}

pub async fn restore_table_to_point_in_time(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: RestoreTableToPointInTimeInput = call.input()?;
    authz::authorize(&call, |s| checks::restore_to_point_in_time(s, &input))?;
    json(
        &call
            .engine
            .restore_table_to_point_in_time(&call.ctx, input)
            .await?,
    )
}

pub async fn update_continuous_backups(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.update_continuous_backups(call.input()?).await?)
}

pub fn describe_continuous_backups(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_continuous_backups(call.input()?)?)
}

pub async fn export_table_to_point_in_time(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ExportTableToPointInTimeInput = call.input()?;
    authz::authorize(&call, |s| checks::export(s, &input))?;
    json(
        &call
            .engine
            .export_table_to_point_in_time(&call.ctx, input)
            .await?,
    )
}

pub fn describe_export(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DescribeExportInput = call.input()?;
    authz::authorize(&call, |s| checks::describe_export(s, &input))?;
    json(&call.engine.describe_export(input)?)
}

pub fn list_exports(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListExportsInput = call.input()?;
    authz::authorize(&call, checks::list_exports)?;
    json(&call.engine.list_exports(input)?)
}

pub async fn import_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ImportTableInput = call.input()?;
    authz::authorize(&call, |s| checks::import(s, &input))?;
    json(&call.engine.import_table(&call.ctx, input).await?)
}

pub fn describe_import(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DescribeImportInput = call.input()?;
    authz::authorize(&call, |s| checks::describe_import(s, &input))?;
    json(&call.engine.describe_import(input)?)
}

pub fn list_imports(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListImportsInput = call.input()?;
    authz::authorize(&call, checks::list_imports)?;
    json(&call.engine.list_imports(input)?)
}
