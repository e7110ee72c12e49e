//! On-demand backups and point-in-time recovery (see ADR 0011).
//!
//! Neither copies a table. While a table has point-in-time recovery on or any backup, its
//! changes keep their pre-images ([`history`]); a backup is a change stamp, and a restore
//! rebuilds the table as of a stamp from its items and that history, into a new table,
//! in the background ([`restore`]). A backup therefore costs the bytes of the changes
//! made since, not a copy. A deleted table whose history is still needed is retired, not
//! purged: its items stay under its id until no backup, restore or recovery window needs
//! them ([`retention`]).
//!
//! - `backup`: CreateBackup, DescribeBackup, ListBackups, DeleteBackup;
//! - `pitr`: UpdateContinuousBackups, DescribeContinuousBackups;
//! - `restore`: RestoreTableFromBackup, RestoreTableToPointInTime and the restore thread;
//! - `retention`: pruning history nobody can restore to, purging retired tables;
//! - `records`: the stored records of backups, retired tables and restore jobs.

mod backup;
mod day;
pub(crate) mod history;
pub(crate) mod pitr;
pub(crate) mod records;
pub(crate) mod restore;
pub(crate) mod retention;

/// Days a SYSTEM backup (taken when a table with point-in-time recovery is deleted) is
/// kept, as DynamoDB keeps it.
pub const SYSTEM_BACKUP_DAYS: i64 = 35;

pub use day::DAY_MS;

use std::sync::Arc;

use crate::catalog::{Catalog, TableRecord};
use crate::error::Result;
use crate::writer::WriteContext;

/// Keeps a deleted table's items and history for the backups and recovery window that
/// still need them. A table with point-in-time recovery leaves a SYSTEM backup of its
/// last state, kept 35 days, as DynamoDB does.
pub(crate) fn retire(
    w: &mut WriteContext<'_>,
    catalog: &Arc<Catalog>,
    table: &TableRecord,
) -> Result<()> {
    let now = w.now_ms();
    if table.pitr.is_some() {
        backup::take_backup(
            w,
            catalog,
            table,
            &format!("{}$DeletedTableBackup", table.name),
            "SYSTEM",
            Some(now + SYSTEM_BACKUP_DAYS * DAY_MS),
        )?;
    }
    records::RetiredTable {
        v: records::RECORD_VERSION,
        deleted_ms: now,
        table: table.clone(),
    }
    .put(w)
}
