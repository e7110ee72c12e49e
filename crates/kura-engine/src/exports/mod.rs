//! ExportTableToPointInTime, DescribeExport and ListExports (ADR 0012).
//!
//! An export reads the table as of a point in time from the same history that
//! point-in-time restores use (`backups::history`), so, as on DynamoDB, it needs
//! point-in-time recovery and never touches the live table's reads or writes. The request
//! commits an export record (IN_PROGRESS) and a hold on the table's history; the export
//! thread ([`job`]) writes DynamoDB's layout to the bucket and commits COMPLETED or
//! FAILED. A restart re-runs any export still IN_PROGRESS from the start: its objects
//! have fixed names, so a re-run overwrites them.

pub(crate) mod format;
pub(crate) mod job;

use kura_model::constraint::Constraints;
use kura_model::messages::{backups as backup_msg, exports as msg};
use serde::{Deserialize, Serialize};

use crate::api::*;
use crate::backups::records as holds;
use crate::backups::{DAY_MS, pitr};
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::jobs::JobRecords;
use crate::{Engine, RequestContext, arn, paging};
use kura_store::Snapshot;

const EXPORT: &[u8] = b"export/";
/// The export records, under `export/` ‖ id in `Meta`.
pub(crate) const RECORDS: JobRecords<ExportRecord> = JobRecords::new(EXPORT, "export");
const RECORD_VERSION: u32 = 1;
/// ListExports' page when MaxResults is not given, and its bound (API Reference: 1–25).
const LIST_DEFAULT: i64 = 10;
const LIST_MAX: i64 = 25;
const MINUTE_MS: i64 = 60_000;
/// Source: API Reference, `S3Bucket`.
const BUCKET_PATTERN: &str = "^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$";

/// Where an export with `S3Prefix` `prefix` puts its objects: `<prefix>/AWSDynamoDB/`.
/// The server's authorization asks for S3 rights on the same keys.
pub fn object_prefix(prefix: Option<&str>) -> String {
    match prefix {
        Some(p) if !p.is_empty() => format!("{}/AWSDynamoDB/", p.trim_end_matches('/')),
        _ => "AWSDynamoDB/".to_owned(),
    }
}

/// One export, as stored under `export/` ‖ id in `Meta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportRecord {
    pub v: u32,
    pub id: String,
    pub table_name: String,
    pub table_id: u64,
    pub table_uuid: String,
    /// The table's key attribute names (incremental records carry the key).
    pub key_names: Vec<String>,
    /// The region of the request: the ARNs in the manifests are built with it.
    pub region: String,
    pub status: String,
    pub start_ms: i64,
    #[serde(default)]
    pub end_ms: Option<i64>,
    /// A full export's point in time.
    #[serde(default)]
    pub export_time_ms: Option<i64>,
    /// Full: the stamp of the state exported. Incremental: the window's end stamp.
    pub at: u64,
    /// Incremental: the window's start stamp (changes after it are exported).
    #[serde(default)]
    pub from: Option<u64>,
    #[serde(default)]
    pub from_ms: Option<i64>,
    #[serde(default)]
    pub to_ms: Option<i64>,
    #[serde(default)]
    pub view_type: Option<String>,
    /// ExportTime and ExportToTime as the request gave them (both default to "now"): what
    /// a repeated ClientToken is compared on.
    #[serde(default)]
    pub asked_times_ms: (Option<i64>, Option<i64>),
    pub client_token: String,
    pub s3_bucket: String,
    #[serde(default)]
    pub s3_bucket_owner: Option<String>,
    #[serde(default)]
    pub s3_prefix: Option<String>,
    pub s3_sse_algorithm: String,
    #[serde(default)]
    pub s3_sse_kms_key_id: Option<String>,
    pub format: String,
    pub export_type: String,
    #[serde(default)]
    pub item_count: Option<u64>,
    #[serde(default)]
    pub billed_size_bytes: Option<u64>,
    #[serde(default)]
    pub manifest: Option<String>,
    #[serde(default)]
    pub failure_code: Option<String>,
    #[serde(default)]
    pub failure_message: Option<String>,
}

/// The history positions running exports read from: (table id, stamp they need entries
/// after).
pub(crate) fn readers(snapshot: &dyn Snapshot) -> Result<Vec<(u64, u64)>> {
    Ok(RECORDS
        .all(snapshot)?
        .into_iter()
        .filter(|e| e.status == "IN_PROGRESS")
        .map(|e| (e.table_id, e.from.unwrap_or(e.at)))
        .collect())
}

fn seconds(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

fn ms_of(seconds: f64) -> i64 {
    (seconds * 1000.0).round() as i64
}

pub(crate) fn describe(record: &ExportRecord) -> ExportDescription {
    let incremental = record.export_type == "INCREMENTAL_EXPORT";
    ExportDescription {
        export_arn: arn::export(&record.region, &record.table_name, &record.id),
        export_status: record.status.clone(),
        start_time: seconds(record.start_ms),
        end_time: record.end_ms.map(seconds),
        export_manifest: record.manifest.clone(),
        table_arn: arn::table(&record.region, &record.table_name),
        table_id: record.table_uuid.clone(),
        export_time: record.export_time_ms.map(seconds),
        client_token: record.client_token.clone(),
        s3_bucket: record.s3_bucket.clone(),
        s3_bucket_owner: record.s3_bucket_owner.clone(),
        s3_prefix: record.s3_prefix.clone(),
        s3_sse_algorithm: record.s3_sse_algorithm.clone(),
        s3_sse_kms_key_id: record.s3_sse_kms_key_id.clone(),
        failure_code: record.failure_code.clone(),
        failure_message: record.failure_message.clone(),
        export_format: record.format.clone(),
        billed_size_bytes: record.billed_size_bytes,
        item_count: record.item_count,
        export_type: record.export_type.clone(),
        incremental_export_specification: incremental.then(|| IncrementalExportSpecification {
            export_from_time: record.from_ms.map(seconds),
            export_to_time: record.to_ms.map(seconds),
            export_view_type: record.view_type.clone(),
        }),
    }
}

/// The framework constraints of an export request, in the API Reference's member order.
fn constraints(input: &ExportTableToPointInTimeInput) -> Result<()> {
    let mut c = Constraints::new();
    c.required_text("tableArn", input.table_arn.as_deref(), 1, 1024);
    if let Some(token) = input.client_token.as_deref()
        && (token.is_empty() || token.contains('$'))
    {
        c.fail(
            Some(token),
            "clientToken",
            "Member must satisfy regular expression pattern: ^[^\\$]+$",
        );
    }
    match input.s3_bucket.as_deref() {
        None => c.not_null::<()>("s3Bucket", None),
        Some(bucket) => {
            let valid = bucket.len() >= 2
                && bucket
                    .bytes()
                    .next()
                    .is_some_and(|b| b.is_ascii_alphanumeric())
                && bucket
                    .bytes()
                    .last()
                    .is_some_and(|b| b.is_ascii_alphanumeric())
                && bucket
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
            if !valid {
                c.fail(
                    Some(bucket),
                    "s3Bucket",
                    &format!("Member must satisfy regular expression pattern: {BUCKET_PATTERN}"),
                );
            }
            c.length("s3Bucket", bucket, bucket.chars().count(), 0, 255);
        }
    }
    if let Some(owner) = input.s3_bucket_owner.as_deref()
        && !(owner.len() == 12 && owner.bytes().all(|b| b.is_ascii_digit()))
    {
        c.fail(
            Some(owner),
            "s3BucketOwner",
            "Member must satisfy regular expression pattern: [0-9]{12}",
        );
    }
    if let Some(prefix) = input.s3_prefix.as_deref() {
        c.length("s3Prefix", prefix, prefix.chars().count(), 1, 1024);
    }
    c.one_of(
        "s3SseAlgorithm",
        input.s3_sse_algorithm.as_deref(),
        &["AES256", "KMS"],
    );
    if let Some(key) = input.s3_sse_kms_key_id.as_deref() {
        c.length("s3SseKmsKeyId", key, key.chars().count(), 1, 2048);
    }
    c.one_of(
        "exportFormat",
        input.export_format.as_deref(),
        &["ION", "DYNAMODB_JSON"],
    );
    c.one_of(
        "exportType",
        input.export_type.as_deref(),
        &["FULL_EXPORT", "INCREMENTAL_EXPORT"],
    );
    if let Some(spec) = &input.incremental_export_specification {
        c.one_of(
            "incrementalExportSpecification.exportViewType",
            spec.export_view_type.as_deref(),
            &["NEW_IMAGE", "NEW_AND_OLD_IMAGES"],
        );
    }
    c.finish()?;
    Ok(())
}

/// Whether `a` and `b` ask for the same export (a ClientToken may only repeat a request).
fn same_request(a: &ExportRecord, b: &ExportRecord) -> bool {
    (
        &a.table_name,
        &a.s3_bucket,
        &a.s3_bucket_owner,
        &a.s3_prefix,
        &a.s3_sse_algorithm,
        &a.s3_sse_kms_key_id,
        &a.format,
        &a.export_type,
        a.asked_times_ms,
        a.from_ms,
        &a.view_type,
    ) == (
        &b.table_name,
        &b.s3_bucket,
        &b.s3_bucket_owner,
        &b.s3_prefix,
        &b.s3_sse_algorithm,
        &b.s3_sse_kms_key_id,
        &b.format,
        &b.export_type,
        b.asked_times_ms,
        b.from_ms,
        &b.view_type,
    )
}

impl Engine {
    pub async fn export_table_to_point_in_time(
        &self,
        ctx: &RequestContext,
        input: ExportTableToPointInTimeInput,
    ) -> Result<ExportTableToPointInTimeOutput> {
        constraints(&input)?;
        let (table_arn, table_name, incremental) = checked_request(&input)?;
        let table = self
            .catalog
            .ready(table_name)
            .ok_or_else(|| EngineError::TableNotFound(msg::table_not_found(&table_arn)))?;
        let now = self.clock.now_ms();
        let mut record = new_record(ctx, &table, &input, incremental.is_some(), now);
        set_window(&mut record, &table, &input, incremental.as_ref(), now)?;
        let snapshot = self.store.snapshot()?;
        let earlier = RECORDS
            .all(snapshot.as_ref())?
            .into_iter()
            .find(|e| input.client_token.is_some() && e.client_token == record.client_token);
        drop(snapshot);
        if let Some(earlier) = earlier {
            if same_request(&earlier, &record) {
                return Ok(ExportTableToPointInTimeOutput {
                    export_description: describe(&earlier),
                });
            }
            return Err(EngineError::ExportConflict(msg::EXPORT_CONFLICT.into()));
        }
        let exporter = self.exporter.clone();
        let export_time = input.export_time;
        let record = self
            .writer
            .submit(false, move |w| {
                let hex = uuid::Uuid::new_v4().simple().to_string();
                record.id = format!(
                    "{:014}-{}",
                    record.start_ms,
                    hex.get(..8).unwrap_or("00000000")
                );
                if record.export_type == "FULL_EXPORT" {
                    record.at = match export_time {
                        // A time includes its whole millisecond.
                        Some(_) => {
                            u64::try_from(record.export_time_ms.unwrap_or(0)).unwrap_or(0) * 1000
                                + 999
                        }
                        None => w.next_stamp(),
                    };
                }
                RECORDS.write(w, &record.id, &record)?;
                holds::add_holds(w, record.table_id, 1)?;
                let id = record.id.clone();
                w.after_commit(move || exporter.submit(id));
                Ok(record)
            })
            .await?;
        tracing::info!(table = %record.table_name, export = %record.id, "export started");
        Ok(ExportTableToPointInTimeOutput {
            export_description: describe(&record),
        })
    }

    pub fn describe_export(&self, input: DescribeExportInput) -> Result<DescribeExportOutput> {
        let mut c = Constraints::new();
        c.required_text("exportArn", input.export_arn.as_deref(), 37, 1024);
        c.finish()?;
        let export_arn = input.export_arn.unwrap_or_default();
        let (table, id) = arn::parse_export(&export_arn)
            .ok_or_else(|| EngineError::validation(msg::INVALID_EXPORT_ARN))?;
        let snapshot = self.store.snapshot()?;
        let record = RECORDS
            .read(snapshot.as_ref(), id)?
            .filter(|r| r.table_name == table)
            .ok_or_else(|| EngineError::ExportNotFound(msg::export_not_found(&export_arn)))?;
        Ok(DescribeExportOutput {
            export_description: describe(&record),
        })
    }

    pub fn list_exports(&self, input: ListExportsInput) -> Result<ListExportsOutput> {
        let mut c = Constraints::new();
        c.text("tableArn", input.table_arn.as_deref(), 1, 1024);
        c.at_least("maxResults", input.max_results, 1);
        c.at_most("maxResults", input.max_results, LIST_MAX);
        c.finish()?;
        let after = paging::after(input.next_token.as_deref())?;
        let table = input
            .table_arn
            .as_deref()
            .map(|a| arn::parse_table(a).unwrap_or(a).to_owned());
        // Exports of a table listed by its ARN are those of the table that has the name
        // now (DynamoDB lists none for a deleted or re-created table).
        let uuid = table
            .as_deref()
            .and_then(|t| self.catalog.get(t))
            .map(|t| t.uuid.clone());
        let records = RECORDS.all(self.store.snapshot()?.as_ref())?;
        let (page, next_token) = paging::newest_first(
            &records,
            |r| &r.id,
            after.as_deref(),
            input.max_results.unwrap_or(LIST_DEFAULT),
            |r| table.is_none() || uuid.as_ref() == Some(&r.table_uuid),
        );
        Ok(ListExportsOutput {
            export_summaries: page
                .iter()
                .map(|r| ExportSummary {
                    export_arn: arn::export(&r.region, &r.table_name, &r.id),
                    export_status: r.status.clone(),
                    export_type: r.export_type.clone(),
                })
                .collect(),
            next_token,
        })
    }
}

/// The table ARN and name an export names, and its incremental specification, once the
/// request's members agree with each other (DynamoDB's order of checks).
fn checked_request(
    input: &ExportTableToPointInTimeInput,
) -> Result<(String, &str, Option<IncrementalExportSpecification>)> {
    let table_arn = input.table_arn.clone().unwrap_or_default();
    if !table_arn.starts_with("arn:") {
        return Err(EngineError::validation(msg::TABLE_ARN_NOT_ARN));
    }
    let Some(table_name) = input.table_arn.as_deref().and_then(arn::parse_table) else {
        return Err(EngineError::validation(msg::TABLE_ARN_INVALID));
    };
    if input.s3_sse_kms_key_id.is_some() && input.s3_sse_algorithm.as_deref() != Some("KMS") {
        return Err(EngineError::validation(msg::KMS_KEY_WITHOUT_KMS));
    }
    let incremental = match (
        input.export_type.as_deref(),
        &input.incremental_export_specification,
    ) {
        (None, Some(_)) => {
            return Err(EngineError::validation(msg::SPEC_WITHOUT_INCREMENTAL_TYPE));
        }
        (Some("FULL_EXPORT"), Some(_)) => {
            return Err(EngineError::validation(msg::SPEC_WITH_FULL_TYPE));
        }
        (Some("INCREMENTAL_EXPORT"), None) => {
            return Err(EngineError::validation(msg::INCREMENTAL_WITHOUT_SPEC));
        }
        (Some("INCREMENTAL_EXPORT"), Some(spec)) => {
            if spec.export_from_time.is_none() {
                return Err(EngineError::validation(msg::FROM_TIME_MISSING));
            }
            Some(spec.clone())
        }
        _ => None,
    };
    Ok((table_arn, table_name, incremental))
}

/// A new export's record as the request asks for it (the window is set apart).
fn new_record(
    ctx: &RequestContext,
    table: &TableRecord,
    input: &ExportTableToPointInTimeInput,
    incremental: bool,
    now: i64,
) -> ExportRecord {
    ExportRecord {
        v: RECORD_VERSION,
        id: String::new(),
        table_name: table.name.clone(),
        table_id: table.id,
        table_uuid: table.uuid.clone(),
        key_names: table
            .key_schema
            .attributes()
            .map(|a| a.name.clone())
            .collect(),
        region: ctx.region.clone(),
        status: "IN_PROGRESS".into(),
        start_ms: now,
        end_ms: None,
        export_time_ms: None,
        at: 0,
        from: None,
        from_ms: None,
        to_ms: None,
        view_type: None,
        asked_times_ms: (
            input.export_time.map(ms_of),
            input
                .incremental_export_specification
                .as_ref()
                .and_then(|s| s.export_to_time)
                .map(ms_of),
        ),
        client_token: input
            .client_token
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        s3_bucket: input.s3_bucket.clone().unwrap_or_default(),
        s3_bucket_owner: input.s3_bucket_owner.clone(),
        s3_prefix: input.s3_prefix.clone(),
        s3_sse_algorithm: input
            .s3_sse_algorithm
            .clone()
            .unwrap_or_else(|| "AES256".into()),
        s3_sse_kms_key_id: input.s3_sse_kms_key_id.clone(),
        format: input
            .export_format
            .clone()
            .unwrap_or_else(|| "DYNAMODB_JSON".into()),
        export_type: if incremental {
            "INCREMENTAL_EXPORT"
        } else {
            "FULL_EXPORT"
        }
        .into(),
        item_count: None,
        billed_size_bytes: None,
        manifest: None,
        failure_code: None,
        failure_message: None,
    }
}

/// The window: a full export's time, an incremental export's from and to, checked
/// against the table's recovery window and the clock.
fn set_window(
    record: &mut ExportRecord,
    table: &TableRecord,
    input: &ExportTableToPointInTimeInput,
    incremental: Option<&IncrementalExportSpecification>,
    now: i64,
) -> Result<()> {
    match incremental {
        None => {
            let Some(pitr) = &table.pitr else {
                return Err(EngineError::PointInTimeRecoveryUnavailable(
                    backup_msg::pitr_not_enabled(&table.name),
                ));
            };
            let at = input.export_time.map(ms_of);
            let (earliest, _) = pitr::window(pitr, now);
            match at {
                Some(t) if t > now || t < pitr.enabled_ms => {
                    return Err(EngineError::InvalidExportTime(
                        msg::EXPORT_TIME_INVALID.into(),
                    ));
                }
                Some(t) if t < earliest => {
                    return Err(EngineError::InvalidExportTime(
                        msg::EXPORT_TIME_OUTSIDE_WINDOW.into(),
                    ));
                }
                _ => {}
            }
            record.export_time_ms = Some(at.unwrap_or(now));
        }
        Some(spec) => {
            let from = spec.export_from_time.map(ms_of).unwrap_or_default();
            let to = spec.export_to_time.map_or(now, ms_of);
            let iso = crate::backups::restore::iso_seconds;
            let earliest = table.pitr.as_ref().map(|p| pitr::window(p, now).0);
            if earliest.is_none_or(|e| from < e) || from >= to {
                return Err(EngineError::InvalidExportTime(msg::from_before_creation(
                    &iso(from),
                )));
            }
            if to > now {
                return Err(EngineError::InvalidExportTime(msg::to_after_now(&iso(to))));
            }
            if to - from < 15 * MINUTE_MS {
                return Err(EngineError::InvalidExportTime(
                    msg::WINDOW_UNDER_15_MINUTES.into(),
                ));
            }
            if to - from > DAY_MS {
                return Err(EngineError::InvalidExportTime(
                    msg::WINDOW_OVER_24_HOURS.into(),
                ));
            }
            record.from_ms = Some(from);
            record.to_ms = Some(to);
            record.view_type = Some(
                spec.export_view_type
                    .clone()
                    .unwrap_or_else(|| "NEW_AND_OLD_IMAGES".into()),
            );
            // ExportFromTime is inclusive and ExportToTime exclusive (API Reference).
            let stamp = |ms: i64| u64::try_from(ms).unwrap_or(0).saturating_mul(1000);
            record.from = Some(stamp(from).saturating_sub(1));
            record.at = stamp(to).saturating_sub(1);
        }
    }
    Ok(())
}
