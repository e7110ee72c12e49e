//! CreateBackup, DescribeBackup, ListBackups, DeleteBackup.

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::messages::backups as msg;

use super::records::{self, BackupRecord, RECORD_VERSION};
use crate::api::*;
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::keys::{self, TableStats};
use crate::tables::{Stats, describe};
use crate::writer::WriteContext;
use crate::{Engine, RequestContext, arn};
use kura_store::Space;

const BACKUP_TYPES: [&str; 4] = ["USER", "SYSTEM", "AWS_BACKUP", "ALL"];
/// Source: API Reference, ListBackups `Limit` (1 to 100).
const LIST_MAX: i64 = 100;
/// Source: API Reference, `BackupArn` (37 to 1024 characters).
const ARN_MIN: usize = 37;
const ARN_MAX: usize = 1024;

fn seconds(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

/// Checks a `BackupArn` member.
fn arn_constraints(c: &mut Constraints, value: Option<&str>) {
    c.required_text("backupArn", value, ARN_MIN, ARN_MAX);
}

/// Takes backup `id` of `table` now: the next change stamp, the table's statistics, and
/// a hold that keeps the table's history recorded. Runs in a writer job.
pub(crate) fn take_backup(
    w: &mut WriteContext<'_>,
    catalog: &Arc<crate::catalog::Catalog>,
    table: &TableRecord,
    name: &str,
    backup_type: &str,
    expiry_ms: Option<i64>,
) -> Result<BackupRecord> {
    let now = w.now_ms();
    let stamp = w.next_stamp();
    let stats = TableStats::read(w.get(Space::Meta, &keys::stats_key(table.id))?)?;
    // DynamoDB's SYSTEM backups end in eight zeros; others in eight random hex digits.
    let suffix = if backup_type == "SYSTEM" {
        "00000000".to_owned()
    } else {
        uuid::Uuid::new_v4()
            .simple()
            .to_string()
            .chars()
            .take(8)
            .collect()
    };
    let record = BackupRecord {
        v: RECORD_VERSION,
        id: format!("{now:014}-{suffix}"),
        name: name.to_owned(),
        backup_type: backup_type.to_owned(),
        created_ms: now,
        expiry_ms,
        stamp,
        item_count: stats.item_count,
        size_bytes: stats.size_bytes,
        table: table.clone(),
    };
    if table.history_from.is_none() && catalog.get(&table.name).is_some_and(|t| t.id == table.id) {
        let mut next = table.clone();
        next.history_from = Some(stamp);
        catalog.stage(w, Arc::new(next))?;
    }
    records::add_holds(w, table.id, 1)?;
    record.put(w)?;
    Ok(record)
}

pub(crate) fn details(
    ctx: &RequestContext,
    b: &BackupRecord,
    status: &'static str,
) -> BackupDetails {
    BackupDetails {
        backup_arn: arn::backup(&ctx.region, &b.table.name, &b.id),
        backup_name: b.name.clone(),
        backup_size_bytes: b.size_bytes,
        backup_status: status,
        backup_type: b.backup_type.clone(),
        backup_creation_date_time: seconds(b.created_ms),
        backup_expiry_date_time: b.expiry_ms.map(seconds),
    }
}

fn throughput_out(t: &crate::catalog::Throughput) -> ProvisionedThroughputOut {
    ProvisionedThroughputOut {
        read_capacity_units: t.read,
        write_capacity_units: t.write,
    }
}

fn description(ctx: &RequestContext, b: &BackupRecord, status: &'static str) -> BackupDescription {
    let table = &b.table;
    let shown = describe(ctx, table, &Stats::default(), "ACTIVE");
    let globals: Vec<GlobalSecondaryIndexInfo> = shown
        .global_secondary_indexes
        .into_iter()
        .flatten()
        .map(|g| GlobalSecondaryIndexInfo {
            provisioned_throughput: table
                .index(&g.index_name)
                .and_then(|i| i.throughput.as_ref())
                .map(throughput_out),
            index_name: g.index_name,
            key_schema: g.key_schema,
            projection: g.projection,
        })
        .collect();
    let locals: Vec<LocalSecondaryIndexInfo> = shown
        .local_secondary_indexes
        .into_iter()
        .flatten()
        .map(|l| LocalSecondaryIndexInfo {
            index_name: l.index_name,
            key_schema: l.key_schema,
            projection: l.projection,
        })
        .collect();
    BackupDescription {
        backup_details: details(ctx, b, status),
        source_table_details: SourceTableDetails {
            table_name: table.name.clone(),
            table_id: table.uuid.clone(),
            table_arn: ctx.table_arn(&table.name),
            table_size_bytes: b.size_bytes,
            key_schema: shown.key_schema.unwrap_or_default(),
            table_creation_date_time: seconds(table.created_ms),
            provisioned_throughput: throughput_out(&table.throughput),
            item_count: b.item_count,
            billing_mode: table.billing_mode.wire(),
        },
        source_table_feature_details: SourceTableFeatureDetails {
            local_secondary_indexes: (!locals.is_empty()).then_some(locals),
            global_secondary_indexes: (!globals.is_empty()).then_some(globals),
            stream_description: shown.stream_specification,
            time_to_live_description: table.ttl.as_ref().filter(|t| t.enabled).map(|t| {
                TimeToLiveDescription {
                    time_to_live_status: "ENABLED",
                    attribute_name: Some(t.attribute.clone()),
                }
            }),
            sse_description: shown.sse_description,
        },
    }
}

impl Engine {
    pub async fn create_backup(
        &self,
        ctx: &RequestContext,
        input: CreateBackupInput,
    ) -> Result<CreateBackupOutput> {
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        c.name("backupName", input.backup_name.as_deref());
        c.finish()?;
        let table_name = input.table_name.unwrap_or_default();
        let name = input.backup_name.unwrap_or_default();
        let catalog = self.catalog.clone();
        let record = self
            .writer
            .submit(true, move |w| {
                let table = catalog
                    .get(&table_name)
                    .ok_or_else(|| EngineError::TableNotFound(msg::table_not_found(&table_name)))?;
                if table.creating() {
                    // DynamoDB answers so for a table that is still being created.
                    return Err(EngineError::TableNotFound(msg::table_not_found(
                        &table_name,
                    )));
                }
                take_backup(w, &catalog, &table, &name, "USER", None)
            })
            .await?;
        tracing::info!(table = %record.table.name, backup = %record.id, "backup created");
        Ok(CreateBackupOutput {
            // DynamoDB answers CREATING; Kura's backup is whole once this commits, so
            // DescribeBackup says AVAILABLE from then on.
            backup_details: details(ctx, &record, "CREATING"),
        })
    }

    /// The backup a `BackupArn` names, as of now.
    pub(crate) fn backup_by_arn(&self, arn: Option<&str>) -> Result<BackupRecord> {
        let arn = arn.unwrap_or_default();
        let not_found = || EngineError::BackupNotFound(msg::backup_not_found(arn));
        let (table, id) = arn::parse_backup(arn)
            .ok_or_else(|| EngineError::validation(msg::INVALID_BACKUP_ARN))?;
        let snapshot = self.store.snapshot()?;
        let record = records::backup_in(snapshot.as_ref(), id)?.ok_or_else(not_found)?;
        if record.table.name != table {
            return Err(not_found());
        }
        Ok(record)
    }

    pub fn describe_backup(
        &self,
        ctx: &RequestContext,
        input: DescribeBackupInput,
    ) -> Result<DescribeBackupOutput> {
        let mut c = Constraints::new();
        arn_constraints(&mut c, input.backup_arn.as_deref());
        c.finish()?;
        let record = self.backup_by_arn(input.backup_arn.as_deref())?;
        Ok(DescribeBackupOutput {
            backup_description: description(ctx, &record, "AVAILABLE"),
        })
    }

    pub async fn delete_backup(
        &self,
        ctx: &RequestContext,
        input: DeleteBackupInput,
    ) -> Result<DeleteBackupOutput> {
        let mut c = Constraints::new();
        arn_constraints(&mut c, input.backup_arn.as_deref());
        c.finish()?;
        let found = self.backup_by_arn(input.backup_arn.as_deref())?;
        let arn = input.backup_arn.unwrap_or_default();
        if let Some(expiry) = found.expiry_ms.filter(|_| found.backup_type == "SYSTEM") {
            return Err(EngineError::validation(msg::system_backup_undeletable(
                &arn,
                &super::restore::iso_seconds(expiry),
            )));
        }
        let catalog = self.catalog.clone();
        let record = self
            .writer
            .submit(true, move |w| {
                let record = records::get_backup(w, &found.id)?
                    .ok_or_else(|| EngineError::BackupNotFound(msg::backup_not_found(&arn)))?;
                if super::restore::restoring_from(&catalog, &record.id) {
                    return Err(EngineError::BackupInUse(msg::backup_restoring(&arn)));
                }
                w.delete(Space::Meta, records::backup_key(&record.id));
                records::add_holds(w, record.table.id, -1)?;
                Ok(record)
            })
            .await?;
        tracing::info!(backup = %record.id, "backup deleted");
        Ok(DeleteBackupOutput {
            backup_description: description(ctx, &record, "DELETED"),
        })
    }

    pub fn list_backups(
        &self,
        ctx: &RequestContext,
        input: ListBackupsInput,
    ) -> Result<ListBackupsOutput> {
        let mut c = Constraints::new();
        if input.table_name.is_some() {
            c.name("tableName", input.table_name.as_deref());
        }
        c.at_least("limit", input.limit, 1);
        c.at_most("limit", input.limit, LIST_MAX);
        if let Some(start) = input.exclusive_start_backup_arn.as_deref() {
            c.length(
                "exclusiveStartBackupArn",
                start,
                start.chars().count(),
                ARN_MIN,
                ARN_MAX,
            );
        }
        c.one_of("backupType", input.backup_type.as_deref(), &BACKUP_TYPES);
        c.finish()?;
        if let (Some(lower), Some(upper)) =
            (input.time_range_lower_bound, input.time_range_upper_bound)
            && lower > upper
        {
            return Err(EngineError::validation(msg::TIME_RANGE_INVERTED));
        }
        let snapshot = self.store.snapshot()?;
        let mut all = records::all_backups(snapshot.as_ref())?;
        all.sort_by_key(|b| (b.created_ms, b.stamp));
        let wanted_type = input.backup_type.as_deref().unwrap_or("USER");
        let lower_ms = input
            .time_range_lower_bound
            .map(|s| (s * 1000.0).round() as i64);
        let upper_ms = input
            .time_range_upper_bound
            .map(|s| (s * 1000.0).round() as i64);
        let start_id = input
            .exclusive_start_backup_arn
            .as_deref()
            .and_then(arn::parse_backup)
            .map(|(_, id)| id.to_owned());
        let mut past_start = start_id.is_none();
        let mut matching = all.iter().filter(|b| {
            if !past_start {
                past_start = Some(&b.id) == start_id.as_ref();
                return false;
            }
            (wanted_type == "ALL" || b.backup_type == wanted_type)
                && input.table_name.as_ref().is_none_or(|t| *t == b.table.name)
                && lower_ms.is_none_or(|l| b.created_ms >= l)
                && upper_ms.is_none_or(|u| b.created_ms < u)
        });
        let limit = usize::try_from(input.limit.unwrap_or(LIST_MAX)).unwrap_or(100);
        let page: Vec<&BackupRecord> = matching.by_ref().take(limit).collect();
        let more = matching.next().is_some();
        let summaries: Vec<BackupSummary> = page
            .iter()
            .map(|b| BackupSummary {
                table_name: b.table.name.clone(),
                table_id: b.table.uuid.clone(),
                table_arn: ctx.table_arn(&b.table.name),
                backup_arn: arn::backup(&ctx.region, &b.table.name, &b.id),
                backup_name: b.name.clone(),
                backup_creation_date_time: seconds(b.created_ms),
                backup_expiry_date_time: b.expiry_ms.map(seconds),
                backup_status: "AVAILABLE",
                backup_type: b.backup_type.clone(),
                backup_size_bytes: b.size_bytes,
            })
            .collect();
        let last_evaluated_backup_arn = if more {
            summaries.last().map(|s| s.backup_arn.clone())
        } else {
            None
        };
        Ok(ListBackupsOutput {
            backup_summaries: summaries,
            last_evaluated_backup_arn,
        })
    }
}
