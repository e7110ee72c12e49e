//! RestoreTableFromBackup, RestoreTableToPointInTime, and the thread that fills restored
//! tables.
//!
//! A restore commits, in one batch, the new table's record (CREATING, refusing data
//! operations), a job record naming the source table and the stamp to restore, and a
//! hold on the source's history. The restore thread then rebuilds the source as of that
//! stamp ([`Reconstruction`]) a chunk at a time; each chunk's items, their index entries
//! and the job's position commit together, so a restart resumes exactly where the last
//! chunk ended. The last job makes the table ACTIVE and releases the hold.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use kura_model::constraint::Constraints;
use kura_model::messages::backups as msg;

use super::history::Reconstruction;
use super::pitr::window;
use super::records::{self, BackupRecord, RECORD_VERSION, RestoreJob};
use crate::api::*;
use crate::background::{Worker, stopping};
use crate::catalog::{Catalog, RestoreRecord, TableRecord};
use crate::error::{EngineError, Result};
use crate::items::{apply_item_change, decode_stored};
use crate::keys;
use crate::streams::record::Origin;
use crate::tables::restored::{override_constraints, restored_record};
use crate::tables::{Stats, allocate_table_id, describe};
pub use crate::workers::Restorer;
use crate::writer::{WriteContext, Writer};
use crate::{Engine, RequestContext, arn};
use kura_store::{Space, Store};

/// Items, and bytes of items, per writer job.
const CHUNK: usize = 512;
const CHUNK_BYTES: usize = 4 * 1024 * 1024;

pub fn start(store: Arc<dyn Store>, writer: Arc<Writer>, catalog: Arc<Catalog>) -> Restorer {
    Worker::start(
        "kura-restore",
        "restored tables stay CREATING until restart",
        move |target, stop| fill(store.as_ref(), &writer, &catalog, *target, stop),
    )
}

/// ISO 8601 to the second, as DynamoDB writes times into messages.
pub(crate) fn iso_seconds(ms: i64) -> String {
    let format =
        time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
    time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| ms.to_string())
}

/// What a restore reads: a table's data as of a stamp.
struct Source {
    table: TableRecord,
    at: Option<u64>,
    summary: RestoreRecord,
    backup_id: Option<String>,
}

impl Engine {
    pub async fn restore_table_from_backup(
        &self,
        ctx: &RequestContext,
        input: RestoreTableFromBackupInput,
    ) -> Result<RestoreTableOutput> {
        let mut c = Constraints::new();
        match input.target_table_name.as_deref() {
            Some("") => return Err(EngineError::validation(msg::TARGET_NAME_LENGTH)),
            target => c.name("targetTableName", target),
        }
        c.required_text("backupArn", input.backup_arn.as_deref(), 37, 1024);
        override_constraints(&mut c, &input.overrides);
        c.finish()?;
        let backup_arn = input.backup_arn.unwrap_or_default();
        let backup: BackupRecord = self.backup_by_arn(Some(&backup_arn))?;
        let source = Source {
            summary: RestoreRecord {
                source_backup_arn: Some(backup_arn),
                source_table_arn: ctx.table_arn(&backup.table.name),
                restore_ms: backup.created_ms,
                in_progress: true,
            },
            at: Some(backup.stamp),
            backup_id: Some(backup.id.clone()),
            table: backup.table,
        };
        self.start_restore(
            ctx,
            source,
            input.target_table_name.unwrap_or_default(),
            input.overrides,
        )
        .await
    }

    pub async fn restore_table_to_point_in_time(
        &self,
        ctx: &RequestContext,
        input: RestoreTableToPointInTimeInput,
    ) -> Result<RestoreTableOutput> {
        let mut c = Constraints::new();
        if input.source_table_name.is_some() {
            c.name("sourceTableName", input.source_table_name.as_deref());
        }
        c.name("targetTableName", input.target_table_name.as_deref());
        override_constraints(&mut c, &input.overrides);
        c.finish()?;
        let latest = input.use_latest_restorable_time == Some(true);
        match (input.restore_date_time, latest) {
            (Some(_), true) => return Err(EngineError::validation(msg::BOTH_RESTORE_TIMES)),
            (None, false) => return Err(EngineError::validation(msg::NO_RESTORE_TIME)),
            _ => {}
        }
        let (table, by_arn) = match (&input.source_table_name, &input.source_table_arn) {
            (Some(_), Some(_)) => return Err(EngineError::validation(msg::BOTH_SOURCES)),
            (None, None) => return Err(EngineError::validation(msg::NO_SOURCE)),
            (Some(name), None) => (self.pitr_source(name)?, None),
            (None, Some(source_arn)) => {
                let name = arn::parse_table(source_arn)
                    .ok_or_else(|| EngineError::validation(msg::SOURCE_ARN_INVALID))?;
                let found = self.pitr_source(name).map_err(|e| match e {
                    EngineError::TableNotFound(_) => {
                        EngineError::TableNotFound(msg::SOURCE_ARN_NOT_FOUND.into())
                    }
                    other => other,
                })?;
                (found, Some(source_arn.clone()))
            }
        };
        let (table, deleted_ms) = table;
        let Some(pitr) = &table.pitr else {
            return Err(EngineError::PointInTimeRecoveryUnavailable(
                msg::pitr_not_enabled(&table.name),
            ));
        };
        let now = self.clock.now_ms();
        let (earliest, latest_ms) = window(pitr, deleted_ms.unwrap_or(now));
        let earliest = if deleted_ms.is_some() {
            // A deleted table's window keeps its end and loses its start as time passes.
            earliest.max(now - i64::from(pitr.recovery_days) * super::DAY_MS)
        } else {
            earliest
        };
        let at_ms = match input.restore_date_time {
            Some(seconds) => (seconds * 1000.0).round() as i64,
            None => latest_ms,
        };
        // DynamoDB compares whole seconds: a time inside the window's first or last
        // second is inside the window.
        if at_ms.div_euclid(1000) < earliest.div_euclid(1000)
            || at_ms.div_euclid(1000) > latest_ms.div_euclid(1000)
            || earliest > latest_ms
        {
            return Err(EngineError::InvalidRestoreTime(msg::invalid_restore_time(
                &iso_seconds(at_ms),
                &iso_seconds(earliest),
                &iso_seconds(latest_ms),
            )));
        }
        let at_ms = at_ms.clamp(earliest, latest_ms);
        let source = Source {
            summary: RestoreRecord {
                source_backup_arn: None,
                source_table_arn: by_arn.unwrap_or_else(|| ctx.table_arn(&table.name)),
                restore_ms: at_ms,
                in_progress: true,
            },
            // The latest restorable time of a live table is the present: the stamp is
            // taken when the restore commits. A past time includes its whole millisecond.
            at: match (latest, deleted_ms) {
                (true, None) => None,
                _ => Some(u64::try_from(at_ms).unwrap_or(0) * 1000 + 999),
            },
            backup_id: None,
            table,
        };
        self.start_restore(
            ctx,
            source,
            input.target_table_name.unwrap_or_default(),
            input.overrides,
        )
        .await
    }

    /// The table a point-in-time restore reads: a live table by that name, or else the
    /// last deleted one still kept, with its deletion time.
    fn pitr_source(&self, name: &str) -> Result<(TableRecord, Option<i64>)> {
        if let Some(table) = self.catalog.get(name) {
            if table.creating() {
                return Err(EngineError::TableNotFound(msg::table_not_found(name)));
            }
            return Ok((table.as_ref().clone(), None));
        }
        let snapshot = self.store.snapshot()?;
        records::all_retired(snapshot.as_ref())?
            .into_iter()
            .filter(|r| r.table.name == name)
            .max_by_key(|r| r.deleted_ms)
            .map(|r| (r.table, Some(r.deleted_ms)))
            .ok_or_else(|| EngineError::TableNotFound(msg::table_not_found(name)))
    }

    async fn start_restore(
        &self,
        ctx: &RequestContext,
        source: Source,
        target: String,
        overrides: RestoreOverrides,
    ) -> Result<RestoreTableOutput> {
        let now = self.clock.now_ms();
        let record = restored_record(
            ctx,
            &source.table,
            &target,
            &overrides,
            source.summary.clone(),
            now,
        )?;
        let catalog = self.catalog.clone();
        let restorer = self.restorer.clone();
        let record = self
            .writer
            .submit(true, move |w| {
                refuse_target(&catalog, &target)?;
                if let Some(id) = &source.backup_id {
                    refuse_busy_backup(&catalog, id, source.summary.source_backup_arn.as_deref())?;
                }
                let mut record = record;
                record.id = allocate_table_id(w, &catalog)?;
                let at = source.at.unwrap_or_else(|| w.next_stamp());
                RestoreJob {
                    v: RECORD_VERSION,
                    target: record.name.clone(),
                    target_id: record.id,
                    source_id: source.table.id,
                    at,
                    after: None,
                }
                .put(w)?;
                records::add_holds(w, source.table.id, 1)?;
                let record = Arc::new(record);
                catalog.stage(w, record.clone())?;
                let id = record.id;
                w.after_commit(move || restorer.submit(id));
                Ok(record)
            })
            .await?;
        tracing::info!(table = %record.name, id = record.id, source = %source.table.name, "restore started");
        Ok(RestoreTableOutput {
            table_description: describe(ctx, &record, &Stats::default(), "ACTIVE"),
        })
    }
}

/// A restore's target must not exist; one being restored from a backup says so.
fn refuse_target(catalog: &Catalog, target: &str) -> Result<()> {
    let Some(existing) = catalog.get(target) else {
        return Ok(());
    };
    match existing.restore.as_ref() {
        Some(RestoreRecord {
            in_progress: true,
            source_backup_arn: Some(arn),
            ..
        }) => Err(EngineError::TableInUse(msg::table_being_restored(
            target, arn,
        ))),
        _ => Err(EngineError::TableAlreadyExists(msg::table_already_exists(
            target,
        ))),
    }
}

/// Whether a restore from backup `id` is running.
pub(crate) fn restoring_from(catalog: &Catalog, id: &str) -> bool {
    catalog.all().values().any(|t| {
        t.restore.as_ref().is_some_and(|r| {
            r.in_progress
                && r.source_backup_arn
                    .as_deref()
                    .and_then(arn::parse_backup)
                    .is_some_and(|(_, b)| b == id)
        })
    })
}

fn refuse_busy_backup(catalog: &Catalog, id: &str, arn: Option<&str>) -> Result<()> {
    if restoring_from(catalog, id) {
        return Err(EngineError::BackupInUse(msg::backup_restoring_another(
            arn.unwrap_or_default(),
        )));
    }
    Ok(())
}

/// The target table of `job`, if it still exists and is being restored.
fn target_of(catalog: &Catalog, job: &RestoreJob) -> Option<Arc<TableRecord>> {
    catalog
        .get(&job.target)
        .filter(|t| t.id == job.target_id && t.restoring())
}

/// Ends `job`: the table becomes ACTIVE (if it is still there), the hold goes.
fn finish(w: &mut WriteContext<'_>, catalog: &Arc<Catalog>, job: &RestoreJob) -> Result<()> {
    if let Some(table) = target_of(catalog, job) {
        let mut next = table.as_ref().clone();
        // DynamoDB shows RestoreSummary only while the restore runs.
        next.restore = None;
        catalog.stage(w, Arc::new(next))?;
    }
    w.delete(Space::Meta, records::restore_key(job.target_id));
    records::add_holds(w, job.source_id, -1)
}

fn fill(
    store: &dyn Store,
    writer: &Writer,
    catalog: &Arc<Catalog>,
    target_id: u64,
    stop: &AtomicBool,
) -> Result<()> {
    loop {
        if stopping(stop) {
            return Ok(());
        }
        let snapshot = store.snapshot()?;
        let Some(job) = snapshot
            .get(Space::Meta, &records::restore_key(target_id))?
            .map(|b| serde_json::from_slice::<RestoreJob>(&b))
            .transpose()
            .map_err(|e| EngineError::Internal(format!("corrupt restore job: {e}")))?
        else {
            return Ok(());
        };
        let mut chunk = Vec::new();
        let mut bytes = 0;
        for row in Reconstruction::new(
            snapshot.as_ref(),
            job.source_id,
            job.at,
            job.after.as_deref(),
        ) {
            let (key, value) = row?;
            bytes += value.len();
            chunk.push((key, value));
            if chunk.len() >= CHUNK || bytes >= CHUNK_BYTES {
                break;
            }
        }
        drop(snapshot);
        let catalog = catalog.clone();
        let done = chunk.is_empty();
        let finished = writer.submit_blocking(done, move |w| {
            let Some(mut job) = records::get_restore(w, target_id)? else {
                return Ok(true);
            };
            let Some(table) = target_of(&catalog, &job) else {
                // The table went away: nothing more to fill.
                w.delete(Space::Meta, records::restore_key(job.target_id));
                records::add_holds(w, job.source_id, -1)?;
                return Ok(true);
            };
            if chunk.is_empty() {
                finish(w, &catalog, &job)?;
                return Ok(true);
            }
            let prefix = keys::table_prefix(table.id);
            for (key, value) in &chunk {
                let item = decode_stored(value)?;
                let target_key = [&prefix[..], key.get(8..).unwrap_or_default()].concat();
                apply_item_change(w, &table, target_key, None, Some(item), Origin::Request)?;
            }
            job.after = chunk.last().map(|(k, _)| k.clone());
            job.put(w)?;
            Ok(false)
        })?;
        if finished {
            tracing::info!(target_id, "restore finished");
            return Ok(());
        }
    }
}
