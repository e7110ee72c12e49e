//! Stored records of the backup machinery, all in the `Meta` space as versioned JSON:
//! - `backup/` ‖ backup id → [`BackupRecord`];
//! - `bhold/` ‖ table id (u64 BE) → u64 BE: backups and restores that read the table's
//!   history, which keeps it recorded while there are any;
//! - `retired/` ‖ table id → [`RetiredTable`]: a deleted table kept for restores;
//! - `restore/` ‖ target table id → [`RestoreJob`]: a restore not yet finished.

use serde::{Deserialize, Serialize};

use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::writer::WriteContext;
use kura_store::{Direction, KeyRange, Snapshot, Space};

pub const RECORD_VERSION: u32 = 1;

const BACKUP: &[u8] = b"backup/";
const HOLDS: &[u8] = b"bhold/";
const RETIRED: &[u8] = b"retired/";
const RESTORE: &[u8] = b"restore/";

/// One backup: the table as defined at `stamp`, whose data is rebuilt from history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BackupRecord {
    pub v: u32,
    /// The last part of the ARN: creation time (ms, 14 digits) `-` 8 hex digits.
    pub id: String,
    pub name: String,
    /// `USER` or `SYSTEM`.
    pub backup_type: String,
    pub created_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiry_ms: Option<i64>,
    /// Every change at or before this stamp is in the backup, none after it.
    pub stamp: u64,
    pub item_count: u64,
    pub size_bytes: u64,
    /// The table's record when the backup was taken.
    pub table: TableRecord,
}

/// A deleted table whose items are kept for backups and point-in-time restores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetiredTable {
    pub v: u32,
    pub deleted_ms: i64,
    /// The table's last record.
    pub table: TableRecord,
}

/// A restore in progress into table `target_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestoreJob {
    pub v: u32,
    pub target: String,
    pub target_id: u64,
    pub source_id: u64,
    /// The stamp whose state is restored.
    pub at: u64,
    /// The last source `Items` key restored; the job resumes after it.
    #[serde(default)]
    pub after: Option<Vec<u8>>,
}

fn encode<T: Serialize>(record: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(record).map_err(|e| EngineError::Internal(format!("cannot encode: {e}")))
}

fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8], what: &str) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| EngineError::Internal(format!("corrupt {what}: {e}")))
}

pub fn backup_key(id: &str) -> Vec<u8> {
    [BACKUP, id.as_bytes()].concat()
}

pub fn holds_key(table_id: u64) -> Vec<u8> {
    [HOLDS, &table_id.to_be_bytes()].concat()
}

pub fn retired_key(table_id: u64) -> Vec<u8> {
    [RETIRED, &table_id.to_be_bytes()].concat()
}

pub fn restore_key(target_id: u64) -> Vec<u8> {
    [RESTORE, &target_id.to_be_bytes()].concat()
}

impl BackupRecord {
    pub fn put(&self, w: &mut WriteContext<'_>) -> Result<()> {
        w.put(Space::Meta, backup_key(&self.id), encode(self)?);
        Ok(())
    }
}

impl RetiredTable {
    pub fn put(&self, w: &mut WriteContext<'_>) -> Result<()> {
        w.put(Space::Meta, retired_key(self.table.id), encode(self)?);
        Ok(())
    }
}

impl RestoreJob {
    pub fn put(&self, w: &mut WriteContext<'_>) -> Result<()> {
        w.put(Space::Meta, restore_key(self.target_id), encode(self)?);
        Ok(())
    }
}

pub fn get_backup(w: &WriteContext<'_>, id: &str) -> Result<Option<BackupRecord>> {
    w.get(Space::Meta, &backup_key(id))?
        .map(|b| decode(&b, "backup record"))
        .transpose()
}

pub fn get_restore(w: &WriteContext<'_>, target_id: u64) -> Result<Option<RestoreJob>> {
    w.get(Space::Meta, &restore_key(target_id))?
        .map(|b| decode(&b, "restore job"))
        .transpose()
}

pub fn get_retired(w: &WriteContext<'_>, table_id: u64) -> Result<Option<RetiredTable>> {
    w.get(Space::Meta, &retired_key(table_id))?
        .map(|b| decode(&b, "retired table"))
        .transpose()
}

/// Every record under `prefix`, decoded.
fn all<T: for<'de> Deserialize<'de>>(
    snapshot: &dyn Snapshot,
    prefix: &[u8],
    what: &str,
) -> Result<Vec<T>> {
    snapshot
        .range(Space::Meta, KeyRange::prefix(prefix), Direction::Forward)
        .map(|row| decode(&row?.1, what))
        .collect()
}

pub fn all_backups(snapshot: &dyn Snapshot) -> Result<Vec<BackupRecord>> {
    all(snapshot, BACKUP, "backup record")
}

/// The backup with id `id`, as of `snapshot`.
pub fn backup_in(snapshot: &dyn Snapshot, id: &str) -> Result<Option<BackupRecord>> {
    snapshot
        .get(Space::Meta, &backup_key(id))?
        .map(|b| decode(&b, "backup record"))
        .transpose()
}

pub fn all_retired(snapshot: &dyn Snapshot) -> Result<Vec<RetiredTable>> {
    all(snapshot, RETIRED, "retired table")
}

pub fn all_restores(snapshot: &dyn Snapshot) -> Result<Vec<RestoreJob>> {
    all(snapshot, RESTORE, "restore job")
}

/// The number of backups and restores holding table `table_id`'s history.
pub fn holds(w: &WriteContext<'_>, table_id: u64) -> Result<u64> {
    match w.get(Space::Meta, &holds_key(table_id))? {
        None => Ok(0),
        Some(b) => <[u8; 8]>::try_from(b.as_slice())
            .map(u64::from_be_bytes)
            .map_err(|_| EngineError::Internal("corrupt history hold count".into())),
    }
}

/// Adds `delta` to the holds on table `table_id`'s history.
pub fn add_holds(w: &mut WriteContext<'_>, table_id: u64, delta: i64) -> Result<()> {
    let next = holds(w, table_id)?.saturating_add_signed(delta);
    if next == 0 {
        w.delete(Space::Meta, holds_key(table_id));
    } else {
        w.put(
            Space::Meta,
            holds_key(table_id),
            next.to_be_bytes().to_vec(),
        );
    }
    Ok(())
}
