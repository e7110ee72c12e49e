//! Data protection: point-in-time recovery and its window, on-demand backups (create,
//! restore, delete), exports to S3 and imports with their progress, and the switch for
//! Contributor Insights (the metrics page posts it here).

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Value, json};

use super::layout::{self, Section, Tab, csrf, table_path};
use super::tables::describe;
use super::values::time_text;
use super::{Ctx, Fields, Posted, field};
use kura_api::error::ApiError;
use kura_api::operation::Op;

/// `GET /console/tables/{table}/protection`.
pub(crate) async fn page(ctx: Ctx, Path(table): Path<String>, Query(q): Query<Fields>) -> Response {
    render(ctx, &table, q.get("notice").map(String::as_str), None).await
}

async fn render(
    ctx: Ctx,
    table: &str,
    notice: Option<&str>,
    failed: Option<&ApiError>,
) -> Response {
    let t = match describe(&ctx, table).await {
        Ok(t) => t,
        Err(e) => return ctx.page(table, Tab::Tables, layout::error(&e)),
    };
    let arn = t["TableArn"].as_str().unwrap_or("").to_owned();
    let pitr = ctx
        .call(Op::DescribeContinuousBackups, json!({ "TableName": table }))
        .await
        .map(|o| o["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"].clone());
    let backups = ctx
        .call(Op::ListBackups, json!({ "TableName": table }))
        .await;
    let exports = ctx.call(Op::ListExports, json!({ "TableArn": arn })).await;
    let imports = ctx.call(Op::ListImports, json!({ "TableArn": arn })).await;
    let path = table_path(table, Section::Protection);
    let body = html! {
        (layout::notice(notice))
        @if let Some(e) = failed { (layout::error(e)) }
        (pitr_section(&ctx, &path, &pitr))
        section {
            h2 { "Backups" }
            form method="post" action=(path) {
                (csrf(&ctx))
                input type="hidden" name="action" value="backup";
                div.row {
                    label { "Backup name" input name="name" required; }
                    button type="submit" { "Create backup" }
                }
            }
            @match &backups {
                Err(e) => (layout::error(e)),
                Ok(list) => (backup_list(&ctx, &path, &list["BackupSummaries"])),
            }
        }
        section {
            h2 { "Exports" }
            form method="post" action=(path) {
                (csrf(&ctx))
                input type="hidden" name="action" value="export";
                div.row {
                    label { "S3 bucket" input name="bucket" required; }
                    label { "Prefix" input name="prefix"; }
                    label { "Format"
                        select name="format" { option { "DYNAMODB_JSON" } option { "ION" } }
                    }
                    button type="submit" { "Export to S3" }
                }
            }
            @match &exports {
                Err(e) => (layout::error(e)),
                Ok(list) => (exports_list(&ctx, &list["ExportSummaries"]).await),
            }
        }
        section {
            h2 { "Imports into this table" }
            @match &imports {
                Err(e) => (layout::error(e)),
                Ok(list) => (imports_list(&ctx, &list["ImportSummaryList"]).await),
            }
        }
    };
    ctx.page(table, Tab::Table(table, Section::Protection), body)
}

/// Point-in-time recovery: its status and window, the switch, and a restore.
fn pitr_section(ctx: &Ctx, path: &str, pitr: &Result<Value, ApiError>) -> Markup {
    html! {
        section {
            h2 { "Point-in-time recovery" }
            @match pitr {
                Err(e) => (layout::error(e)),
                Ok(p) => {
                    @let on = p["PointInTimeRecoveryStatus"] == "ENABLED";
                    dl.facts {
                        dt { "Status" } dd { (p["PointInTimeRecoveryStatus"].as_str().unwrap_or("DISABLED")) }
                        @if on {
                            dt { "Earliest restorable" } dd { (time_text(&p["EarliestRestorableDateTime"])) }
                            dt { "Latest restorable" } dd { (time_text(&p["LatestRestorableDateTime"])) }
                            dt { "Recovery period" } dd { (p["RecoveryPeriodInDays"]) " days" }
                        }
                    }
                    form.inline method="post" action=(path)
                        data-confirm=[on.then_some("Turn point-in-time recovery off? The restorable period ends: restores to any time before now are no longer possible.")] {
                        (csrf(ctx))
                        input type="hidden" name="action" value="pitr";
                        input type="hidden" name="enable" value=(if on { "false" } else { "true" });
                        button type="submit" { @if on { "Turn PITR off" } @else { "Turn PITR on" } }
                    }
                    @if on {
                        form method="post" action=(path) {
                            (csrf(ctx))
                            input type="hidden" name="action" value="restore_pitr";
                            div.row {
                                label { "New table name" input name="target" required; }
                                label { "Restore to (UTC, empty for the latest)" input name="time" placeholder="2026-11-27T10:00:00Z"; }
                            }
                            button type="submit" { "Restore to a point in time" }
                        }
                    }
                }
            }
        }
    }
}

fn backup_list(ctx: &Ctx, path: &str, list: &Value) -> Markup {
    let backups: Vec<&Value> = list.as_array().into_iter().flatten().collect();
    html! {
        @if backups.is_empty() { p.empty { "No backups of this table." } } @else {
            table.grid {
                thead { tr { th { "Name" } th { "Status" } th { "Created" } th { "Size" } th { "Restore as" } th { span.sr { "Actions" } } } }
                tbody {
                    @for b in backups {
                        @let arn = b["BackupArn"].as_str().unwrap_or("");
                        tr {
                            td { (b["BackupName"].as_str().unwrap_or("")) }
                            td { (b["BackupStatus"].as_str().unwrap_or("")) }
                            td { (time_text(&b["BackupCreationDateTime"])) }
                            td.num { (super::tables::bytes(b["BackupSizeBytes"].as_u64().unwrap_or(0))) }
                            td {
                                form.inline method="post" action=(path) {
                                    (csrf(ctx))
                                    input type="hidden" name="action" value="restore_backup";
                                    input type="hidden" name="arn" value=(arn);
                                    input name="target" placeholder="new table name" aria-label="Restore as table" required;
                                    button type="submit" { "Restore" }
                                }
                            }
                            td {
                                form.inline method="post" action=(path)
                                    data-confirm=(format!("Delete the backup {}? It cannot be restored afterwards.", b["BackupName"].as_str().unwrap_or(""))) {
                                    (csrf(ctx))
                                    input type="hidden" name="action" value="delete_backup";
                                    input type="hidden" name="arn" value=(arn);
                                    button.danger type="submit" { "Delete" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Exports with what DescribeExport tells of each: status, items, bytes, the S3 place,
/// and the failure when there is one.
async fn exports_list(ctx: &Ctx, list: &Value) -> Markup {
    // Long: one table's markup, each row's cells from one DescribeExport answer.
    let mut rows = Vec::new();
    for summary in list.as_array().into_iter().flatten() {
        let arn = summary["ExportArn"].as_str().unwrap_or("").to_owned();
        let described = ctx
            .call(Op::DescribeExport, json!({ "ExportArn": arn }))
            .await
            .map(|d| d["ExportDescription"].clone())
            .unwrap_or_else(|_| summary.clone());
        rows.push(described);
    }
    html! {
        @if rows.is_empty() { p.empty { "None." } } @else {
            table.grid {
                thead { tr { th { "Started" } th { "Status" } th { "Items" } th { "Size" } th { "Where" } th { "Type" } } }
                tbody {
                    @for d in &rows {
                        tr {
                            td { (time_text(&d["StartTime"])) }
                            td {
                                (d["ExportStatus"].as_str().unwrap_or(""))
                                @if let Some(code) = d["FailureCode"].as_str() { " (" (code) ")" }
                            }
                            td.num { (d["ItemCount"]) }
                            td.num { (super::tables::bytes(d["BilledSizeBytes"].as_u64().unwrap_or(0))) }
                            td { code { "s3://" (d["S3Bucket"].as_str().unwrap_or("")) "/" (d["S3Prefix"].as_str().unwrap_or("")) } }
                            td { (d["ExportType"].as_str().unwrap_or("FULL_EXPORT")) " · " (d["ExportFormat"].as_str().unwrap_or("")) }
                        }
                    }
                }
            }
        }
    }
}

/// Imports with their progress (DescribeImport's counts).
async fn imports_list(ctx: &Ctx, list: &Value) -> Markup {
    let mut rows = Vec::new();
    for summary in list.as_array().into_iter().flatten() {
        let arn = summary["ImportArn"].as_str().unwrap_or("").to_owned();
        let described = ctx
            .call(Op::DescribeImport, json!({ "ImportArn": arn }))
            .await
            .map(|d| d["ImportTableDescription"].clone())
            .unwrap_or_else(|_| summary.clone());
        rows.push(described);
    }
    html! {
        @if rows.is_empty() { p.empty { "None." } } @else {
            table.grid {
                thead { tr { th { "ARN" } th { "Status" } th { "Processed" } th { "Imported" } th { "Errors" } } }
                tbody {
                    @for d in &rows {
                        tr {
                            td { code { (d["ImportArn"].as_str().unwrap_or("")) } }
                            td { (d["ImportStatus"].as_str().unwrap_or("")) }
                            td.num { (d["ProcessedItemCount"]) }
                            td.num { (d["ImportedItemCount"]) }
                            td.num { (d["ErrorCount"]) }
                        }
                    }
                }
            }
        }
    }
}

/// `POST /console/tables/{table}/protection`: the form's `action` names the change.
pub(crate) async fn act(Path(table): Path<String>, Posted { ctx, fields: f }: Posted) -> Response {
    match action(&ctx, &table, &f).await {
        Ok((done, section)) => ctx.redirect_notice(&table_path(&table, section), &done),
        Err(e) => render(ctx, &table, None, Some(&e)).await,
    }
}

async fn action(ctx: &Ctx, table: &str, f: &Fields) -> Result<(String, Section), ApiError> {
    let enable = field(f, "enable") == "true";
    let here = Section::Protection;
    match field(f, "action") {
        "pitr" => {
            ctx.call(
                Op::UpdateContinuousBackups,
                json!({ "TableName": table, "PointInTimeRecoverySpecification": {
                    "PointInTimeRecoveryEnabled": enable } }),
            )
            .await?;
            Ok((
                format!("Turned PITR {}", if enable { "on" } else { "off" }),
                here,
            ))
        }
        "backup" => {
            let out = ctx
                .call(
                    Op::CreateBackup,
                    json!({ "TableName": table, "BackupName": field(f, "name") }),
                )
                .await?;
            let status = out["BackupDetails"]["BackupStatus"].as_str().unwrap_or("");
            Ok((format!("Backup {} {status}", field(f, "name")), here))
        }
        "delete_backup" => {
            ctx.call(Op::DeleteBackup, json!({ "BackupArn": field(f, "arn") }))
                .await?;
            Ok(("Deleted the backup".to_owned(), here))
        }
        "restore_backup" => {
            ctx.call(
                Op::RestoreTableFromBackup,
                json!({ "BackupArn": field(f, "arn"), "TargetTableName": field(f, "target") }),
            )
            .await?;
            Ok((format!("Restoring into table {}", field(f, "target")), here))
        }
        "restore_pitr" => {
            let mut request =
                json!({ "SourceTableName": table, "TargetTableName": field(f, "target") });
            let at = field(f, "time");
            if at.is_empty() {
                request["UseLatestRestorableTime"] = json!(true);
            } else {
                let parsed =
                    time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
                        .map_err(|_| {
                            ApiError::validation(format!(
                                "{at} is not a time like 2026-11-27T10:00:00Z"
                            ))
                        })?;
                request["RestoreDateTime"] = json!(parsed.unix_timestamp());
            }
            ctx.call(Op::RestoreTableToPointInTime, request).await?;
            Ok((format!("Restoring into table {}", field(f, "target")), here))
        }
        "export" => {
            let arn = describe(ctx, table).await?["TableArn"].clone();
            let mut request = json!({ "TableArn": arn, "S3Bucket": field(f, "bucket"),
                                      "ExportFormat": field(f, "format") });
            if !field(f, "prefix").is_empty() {
                request["S3Prefix"] = json!(field(f, "prefix"));
            }
            ctx.call(Op::ExportTableToPointInTime, request).await?;
            Ok(("Export started".to_owned(), here))
        }
        "insights" => {
            let mut request = json!({ "TableName": table, "ContributorInsightsAction": "ENABLE" });
            let index = field(f, "index");
            if !index.is_empty() {
                request["IndexName"] = json!(index);
            }
            ctx.call(Op::UpdateContributorInsights, request).await?;
            let notice = if index.is_empty() {
                "Turned Contributor Insights on".to_owned()
            } else {
                format!("Turned Contributor Insights on for index {index}")
            };
            Ok((notice, Section::Metrics))
        }
        other => Err(ApiError::validation(format!(
            "unknown console action {other:?}"
        ))),
    }
}
