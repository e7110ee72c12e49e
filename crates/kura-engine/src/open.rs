//! What opening an engine reads from its store before anything runs: the format version
//! (written with a new store's first write, checked on an old one), the catalog, and the
//! work a stop cut short (purges, index backfills, restores, exports, imports), which the
//! engine's workers resume.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::backups::records::RestoreJob;
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::indexes::backfill::BackfillJob;
use crate::purge::PurgeTarget;
use crate::streams::iterator::IteratorKey;
use crate::{backups, exports, imports, keys};
use kura_store::{Direction, KeyRange, Snapshot, Space, Store, WriteBatch};

/// A store's state as opening finds it.
pub(crate) struct Recovered {
    pub tables: BTreeMap<String, Arc<TableRecord>>,
    pub purges: Vec<PurgeTarget>,
    pub backfills: Vec<BackfillJob>,
    pub restores: Vec<RestoreJob>,
    /// Ids of the exports and imports still IN_PROGRESS.
    pub exports: Vec<String>,
    pub imports: Vec<String>,
    /// The key shard iterators are signed with (made now if the store has none).
    pub iterator_key: IteratorKey,
    /// Writes the first commit carries: the format marker and the iterator key, on a new
    /// store (an existing store without a key gets it at once, see `recover`).
    pub first_writes: WriteBatch,
}

/// Checks the store's format (or has the first commit write it) and reads what the engine
/// resumes.
pub(crate) fn recover(store: &dyn Store) -> Result<Recovered> {
    let snapshot = store.snapshot()?;
    // A store without the marker holds nothing: the marker goes with the first commit
    // that writes anything (the writer carries it), so opening a new data directory does
    // not create and sync a key space for it.
    let mut first_writes = WriteBatch::default();
    match snapshot.get(Space::Meta, keys::META_FORMAT)? {
        None => {
            let version = keys::STORE_FORMAT_VERSION.to_be_bytes().to_vec();
            first_writes.put(Space::Meta, keys::META_FORMAT.to_vec(), version);
        }
        Some(bytes) => {
            let version = <[u8; 4]>::try_from(bytes.as_slice())
                .map(u32::from_be_bytes)
                .ok();
            if version != Some(keys::STORE_FORMAT_VERSION) {
                return Err(EngineError::Internal(format!(
                    "the data directory has store format {version:?}; this build reads format {}",
                    keys::STORE_FORMAT_VERSION
                )));
            }
        }
    }
    // Made with the store's first write, before any stream exists. A store older than
    // signed iterators has data but no key: it is written now, on its own, because an
    // iterator may be handed out (and must survive a restart) before anything is written.
    let iterator_key = match snapshot.get(Space::Meta, keys::META_ITERATOR_KEY)? {
        Some(bytes) => IteratorKey::from_stored(&bytes).ok_or_else(|| {
            EngineError::Internal(format!(
                "the data directory's shard iterator key has {} bytes, not 32",
                bytes.len()
            ))
        })?,
        None => {
            let key = IteratorKey::generate();
            let (meta_key, stored) = (keys::META_ITERATOR_KEY.to_vec(), key.stored());
            if first_writes.is_empty() {
                let mut write = WriteBatch::default();
                write.put(Space::Meta, meta_key, stored);
                store.commit(write)?;
            } else {
                first_writes.put(Space::Meta, meta_key, stored);
            }
            key
        }
    };
    let mut tables = BTreeMap::new();
    for row in snapshot.range(Space::Catalog, KeyRange::prefix(b""), Direction::Forward) {
        let (_, bytes) = row?;
        let record = TableRecord::decode(&bytes).map_err(EngineError::Internal)?;
        tables.insert(record.name.clone(), Arc::new(record));
    }
    let purges = purge_markers(snapshot.as_ref())?;
    // Jobs cut short by a stop, resumed below: restores, exports, imports.
    let restores = backups::records::all_restores(snapshot.as_ref())?;
    let unfinished_exports: Vec<String> = exports::RECORDS
        .all(snapshot.as_ref())?
        .into_iter()
        .filter(|e| e.status == "IN_PROGRESS")
        .map(|e| e.id)
        .collect();
    let unfinished_imports: Vec<String> = imports::RECORDS
        .all(snapshot.as_ref())?
        .into_iter()
        .filter(|i| i.status == "IN_PROGRESS")
        .map(|i| i.id)
        .collect();
    drop(snapshot);
    let backfills: Vec<BackfillJob> = tables
        .values()
        .flat_map(|t| {
            t.indexes
                .iter()
                .filter(|i| i.backfilling)
                .map(|i| BackfillJob {
                    table: t.name.clone(),
                    table_id: t.id,
                    index_number: i.number,
                })
        })
        .collect();
    Ok(Recovered {
        tables,
        purges,
        backfills,
        restores,
        exports: unfinished_exports,
        imports: unfinished_imports,
        iterator_key,
        first_writes,
    })
}

/// The purges a stop cut short: of tables, of indexes and of Kinesis streams, by their
/// markers.
fn purge_markers(snapshot: &dyn Snapshot) -> Result<Vec<PurgeTarget>> {
    let mut purges = Vec::new();
    let markers = KeyRange::prefix(keys::purge_prefix());
    for row in snapshot.range(Space::Meta, markers, Direction::Forward) {
        let (key, _) = row?;
        let id = keys::table_id_of_purge_key(&key)
            .ok_or_else(|| EngineError::Internal("corrupt purge marker".into()))?;
        purges.push(PurgeTarget::Table(id));
    }
    let markers = KeyRange::prefix(keys::index_purge_prefix());
    for row in snapshot.range(Space::Meta, markers, Direction::Forward) {
        let (key, _) = row?;
        let (id, number) = keys::index_of_purge_key(&key)
            .ok_or_else(|| EngineError::Internal("corrupt index purge marker".into()))?;
        purges.push(PurgeTarget::Index(id, number));
    }
    let markers = KeyRange::prefix(keys::kinesis_purge_prefix());
    for row in snapshot.range(Space::Meta, markers, Direction::Forward) {
        let (key, _) = row?;
        let id = keys::stream_id_of_kinesis_purge_key(&key)
            .ok_or_else(|| EngineError::Internal("corrupt Kinesis purge marker".into()))?;
        purges.push(PurgeTarget::KinesisStream(id));
    }
    Ok(purges)
}
