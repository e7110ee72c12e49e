//! Filling a GSI that UpdateTable added to a table with items, while writes go on.
//!
//! The index is in the table record (Backfilling) from the commit that created it, so
//! every write from then on maintains its entries. This thread walks the table's items in
//! key order, a chunk at a time; each chunk is one writer job that reads every item as it
//! is *now* (not as the walk's snapshot saw it) and adds the entries still missing. An item
//! written meanwhile already has its entry, an item deleted meanwhile has none, so the
//! index ends exact. The last job marks the index ACTIVE. A restart walks again from the
//! start: adding a missing entry is idempotent.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::background::{Worker, stopping};
use crate::catalog::{Catalog, IndexRecord, TableRecord};
use crate::error::Result;
use crate::indexes::entries::{apply_entry_change, entry};
use crate::items::read_current;
use crate::keys;
pub use crate::workers::{BackfillJob, Backfiller};
use crate::writer::Writer;
use kura_store::{Direction, KeyRange, Space, Store};

/// Items, and bytes of items, per writer job: small enough that writes queued behind a
/// job wait little, whatever the item sizes.
const CHUNK: usize = 256;
const CHUNK_BYTES: usize = 4 * 1024 * 1024;

pub fn start(store: Arc<dyn Store>, writer: Arc<Writer>, catalog: Arc<Catalog>) -> Backfiller {
    Worker::start(
        "kura-backfill",
        "new indexes stay CREATING until restart",
        move |job, stop| backfill(store.as_ref(), &writer, &catalog, job, stop),
    )
}

/// The table and the index being filled, if both still exist as the job knew them.
fn still_filling(catalog: &Catalog, job: &BackfillJob) -> Option<(Arc<TableRecord>, IndexRecord)> {
    let table = catalog.get(&job.table).filter(|t| t.id == job.table_id)?;
    let index = table
        .indexes
        .iter()
        .find(|i| i.number == job.index_number && i.backfilling)?
        .clone();
    Some((table, index))
}

fn backfill(
    store: &dyn Store,
    writer: &Writer,
    catalog: &Arc<Catalog>,
    job: &BackfillJob,
    stop: &AtomicBool,
) -> Result<()> {
    let table_prefix = keys::table_prefix(job.table_id);
    let mut range = KeyRange::prefix(&table_prefix);
    let mut filled = 0usize;
    loop {
        if stopping(stop) {
            return Ok(());
        }
        let snapshot = store.snapshot()?;
        let mut chunk: Vec<Vec<u8>> = Vec::new();
        let mut bytes = 0usize;
        for row in snapshot.range(Space::Items, range.clone(), Direction::Forward) {
            let (key, value) = row?;
            bytes += value.len();
            chunk.push(key);
            if chunk.len() >= CHUNK || bytes >= CHUNK_BYTES {
                break;
            }
        }
        drop(snapshot);
        let Some(last) = chunk.last().cloned() else {
            break;
        };
        filled += chunk.len();
        let catalog = catalog.clone();
        let job_for_writer = job.clone();
        let gone = writer.submit_blocking(false, move |w| {
            let Some((table, index)) = still_filling(&catalog, &job_for_writer) else {
                return Ok(true);
            };
            for storage_key in chunk {
                let Some(item) = read_current(w, &storage_key)? else {
                    continue;
                };
                let table_key = table.key_schema.key_of_item(&item)?;
                // An item whose index key has the wrong type stays out of the index, as
                // DynamoDB leaves it (it reports such items as violations).
                let Ok(Some(new)) = entry(&table, &index, &table_key, &item) else {
                    continue;
                };
                if w.get(Space::Indexes, &new.key)?.is_none() {
                    apply_entry_change(w, table.id, &index, None, Some(new))?;
                }
            }
            Ok(false)
        })?;
        if gone {
            tracing::info!(?job, "index or table deleted during backfill");
            return Ok(());
        }
        range.start = std::ops::Bound::Excluded(last);
    }
    let catalog_for_writer = catalog.clone();
    let job_for_writer = job.clone();
    writer.submit_blocking(true, move |w| {
        let Some((table, _)) = still_filling(&catalog_for_writer, &job_for_writer) else {
            return Ok(());
        };
        let mut next = table.as_ref().clone();
        for index in &mut next.indexes {
            if index.number == job_for_writer.index_number {
                index.backfilling = false;
            }
        }
        catalog_for_writer.stage(w, Arc::new(next))
    })?;
    tracing::info!(?job, items = filled, "index backfill finished");
    Ok(())
}
