//! Keeping history only while something can restore from it.
//!
//! A table's history entries are needed from its *horizon* on: the earliest of its
//! recovery window's start, the stamps of its backups and the stamps of the restores and
//! exports reading it (the state at stamp `t` is made from entries after `t` only). A pass
//! - deletes SYSTEM backups past their expiry;
//! - stops recording the history of a live table that no longer has point-in-time
//!   recovery, backups or restores, and then drops all of it;
//! - purges a retired (deleted) table that nothing holds any more;
//! - deletes every other table's entries before its horizon.
//!
//! Each change is a writer job that re-checks what it relies on, so a pass never races a
//! backup, a restore or a setting change; entries it deletes are older than any stamp
//! handed out after its snapshot, so a backup taken meanwhile is never cut short.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::Mutex;

use super::pitr::window;
use super::records::{self, BackupRecord, RestoreJob};
use super::{DAY_MS, history};
use crate::catalog::Catalog;
use crate::clock::Clock;
use crate::error::Result;
use crate::keys;
use crate::purge::{PurgeTarget, Purger};
use crate::writer::Writer;
use kura_store::{Direction, KeyRange, Space, Store};

/// Keys deleted per writer job.
const CHUNK: usize = 1000;
/// How far a table's horizon must move before its history is read again to prune it
/// (an hour, in stamps): a prune reads all of a table's history, so a pass once a minute
/// must not repeat it for a horizon that moved a minute.
const PRUNE_STEP: u64 = 3_600_000_000;

/// What a pass needs.
pub(crate) struct Retention<'a> {
    pub store: &'a dyn Store,
    pub writer: &'a Writer,
    pub catalog: &'a Arc<Catalog>,
    pub purger: &'a Arc<Purger>,
    pub clock: &'a dyn Clock,
    /// The horizon each table was last pruned to, across passes.
    pub pruned: &'a Mutex<BTreeMap<u64, u64>>,
}

/// What reads history: (table id, the stamp whose later entries it needs) of every
/// backup, running restore and running export.
fn readers(
    backups: &[BackupRecord],
    restores: &[RestoreJob],
    exports: &[(u64, u64)],
) -> Vec<(u64, u64)> {
    backups
        .iter()
        .map(|b| (b.table.id, b.stamp))
        .chain(restores.iter().map(|r| (r.source_id, r.at)))
        .chain(exports.iter().copied())
        .collect()
}

/// The earliest stamp a reader of table `id` needs entries after, plus one.
fn held_from(id: u64, readers: &[(u64, u64)]) -> Option<u64> {
    readers
        .iter()
        .filter(|(t, _)| *t == id)
        .map(|(_, s)| s.saturating_add(1))
        .min()
}

fn stamp_of_ms(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0).saturating_mul(1000)
}

impl Retention<'_> {
    pub fn run(&self) -> Result<()> {
        let now = self.clock.now_ms();
        let snapshot = self.store.snapshot()?;
        let mut backups = records::all_backups(snapshot.as_ref())?;
        let retired = records::all_retired(snapshot.as_ref())?;
        let restores = records::all_restores(snapshot.as_ref())?;
        let exports = crate::exports::readers(snapshot.as_ref())?;
        drop(snapshot);

        for expired in backups
            .iter()
            .filter(|b| b.expiry_ms.is_some_and(|e| e <= now))
        {
            let id = expired.id.clone();
            self.writer.submit_blocking(false, move |w| {
                if let Some(backup) = records::get_backup(w, &id)? {
                    w.delete(Space::Meta, records::backup_key(&id));
                    records::add_holds(w, backup.table.id, -1)?;
                }
                Ok(())
            })?;
        }
        backups.retain(|b| b.expiry_ms.is_none_or(|e| e > now));
        let readers = readers(&backups, &restores, &exports);

        // Table id → (horizon, whether to prune even if it moved little).
        let mut horizons: BTreeMap<u64, (u64, bool)> = BTreeMap::new();
        for table in self.catalog.all().values() {
            if table.history_from.is_none() {
                continue;
            }
            let pitr_from = table.pitr.as_ref().map(|p| stamp_of_ms(window(p, now).0));
            let held = held_from(table.id, &readers);
            match pitr_from.into_iter().chain(held).min() {
                Some(horizon) => {
                    horizons.insert(table.id, (horizon, false));
                }
                None => {
                    // No later pass looks at this table's history again: prune it all now.
                    if let Some(stopped_at) = self.stop_history(table.name.clone(), table.id)? {
                        horizons.insert(table.id, (stopped_at, true));
                    }
                }
            }
        }
        for kept in &retired {
            let id = kept.table.id;
            let window_from = kept.table.pitr.as_ref().and_then(|p| {
                let days = i64::from(p.recovery_days) * DAY_MS;
                (now < kept.deleted_ms + days).then(|| stamp_of_ms(p.enabled_ms.max(now - days)))
            });
            match window_from.into_iter().chain(held_from(id, &readers)).min() {
                Some(horizon) => {
                    horizons.insert(id, (horizon, false));
                }
                None => self.purge_retired(id)?,
            }
        }
        for (table_id, (horizon, force)) in horizons {
            let last = self.pruned.lock().get(&table_id).copied();
            if !force && last.is_some_and(|l| horizon < l.saturating_add(PRUNE_STEP)) {
                continue;
            }
            self.prune(table_id, horizon)?;
            self.pruned.lock().insert(table_id, horizon);
        }
        Ok(())
    }

    /// Stops recording table `id`'s history if nothing needs it any more; returns the
    /// stamp before which all of it may go.
    fn stop_history(&self, name: String, id: u64) -> Result<Option<u64>> {
        let catalog = self.catalog.clone();
        self.writer.submit_blocking(true, move |w| {
            let Some(table) = catalog.get(&name).filter(|t| t.id == id) else {
                return Ok(None);
            };
            if table.pitr.is_some() || records::holds(w, id)? > 0 || table.history_from.is_none() {
                return Ok(None);
            }
            let mut next = table.as_ref().clone();
            next.history_from = None;
            catalog.stage(w, Arc::new(next))?;
            tracing::debug!(table = %name, "history no longer recorded");
            Ok(Some(w.next_stamp()))
        })
    }

    /// Removes a deleted table that no backup, restore or recovery window holds.
    fn purge_retired(&self, id: u64) -> Result<()> {
        let purger = self.purger.clone();
        self.writer.submit_blocking(false, move |w| {
            if records::holds(w, id)? > 0 || records::get_retired(w, id)?.is_none() {
                return Ok(());
            }
            w.delete(Space::Meta, records::retired_key(id));
            w.put(Space::Meta, keys::purge_key(id), Vec::new());
            w.after_commit(move || purger.submit(PurgeTarget::Table(id)));
            tracing::debug!(table_id = id, "retired table released");
            Ok(())
        })
    }

    /// Deletes table `table_id`'s history entries stamped before `horizon`.
    fn prune(&self, table_id: u64, horizon: u64) -> Result<()> {
        let prefix = keys::table_prefix(table_id);
        let snapshot = self.store.snapshot()?;
        let mut chunk = Vec::new();
        for row in snapshot.range(
            Space::History,
            KeyRange::prefix(&prefix),
            Direction::Forward,
        ) {
            let (key, _) = row?;
            if history::split_entry_key(&key).is_some_and(|(_, stamp)| stamp < horizon) {
                chunk.push(key);
            }
            if chunk.len() >= CHUNK {
                let keys = std::mem::take(&mut chunk);
                self.delete(keys)?;
            }
        }
        drop(snapshot);
        if !chunk.is_empty() {
            self.delete(chunk)?;
        }
        Ok(())
    }

    fn delete(&self, keys: Vec<Vec<u8>>) -> Result<()> {
        self.writer.submit_blocking(false, move |w| {
            for key in keys {
                w.delete(Space::History, key);
            }
            Ok(())
        })
    }
}
