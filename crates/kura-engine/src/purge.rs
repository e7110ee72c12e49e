//! Background removal of a deleted table's items and index entries, or of a deleted
//! index's entries.
//!
//! DeleteTable (UpdateTable for an index) removes the catalog record and leaves a purge
//! marker in the same batch; this thread then deletes the keys in bounded chunks through
//! the writer and finally the marker. Table ids and index numbers are never reused, so
//! leftovers are unreachable meanwhile, and a restart resumes any purge whose marker is
//! still there.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::background::{Worker, stopping};
use crate::error::Result;
use crate::keys;
use crate::writer::Writer;
use kura_store::{Direction, KeyRange, Space, Store};

/// Keys deleted per write job: keeps each batch, and the writer's pauses, small.
const CHUNK: usize = 1000;

/// What to purge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PurgeTarget {
    /// A deleted table: its items and all its index entries.
    Table(u64),
    /// A deleted index (table id, index number).
    Index(u64, u32),
    /// A deleted Kinesis stream: its records.
    KinesisStream(u64),
}

impl PurgeTarget {
    /// The key ranges to empty, and the marker to remove once they are empty.
    fn work(self) -> (Vec<(Space, Vec<u8>)>, Vec<u8>) {
        match self {
            PurgeTarget::Table(id) => {
                let prefix = keys::table_prefix(id).to_vec();
                (
                    vec![
                        (Space::Items, prefix.clone()),
                        (Space::Indexes, prefix.clone()),
                        (Space::Ttl, prefix.clone()),
                        (Space::History, prefix),
                        (Space::Meta, keys::collection_prefix(id)),
                        (Space::Meta, keys::replica_time_prefix(id)),
                        (Space::Meta, keys::replica_feed_prefix(id)),
                    ],
                    keys::purge_key(id),
                )
            }
            PurgeTarget::Index(id, number) => (
                vec![(Space::Indexes, keys::index_prefix(id, number).to_vec())],
                keys::index_purge_key(id, number),
            ),
            PurgeTarget::KinesisStream(id) => (
                vec![(Space::Streams, id.to_be_bytes().to_vec())],
                keys::kinesis_purge_key(id),
            ),
        }
    }
}

/// The purge thread.
pub type Purger = Worker<PurgeTarget>;

pub fn start(store: Arc<dyn Store>, writer: Arc<Writer>) -> Purger {
    Worker::start(
        "kura-purge",
        "deleted tables keep their space until restart",
        move |target, stop| purge(store.as_ref(), &writer, *target, stop),
    )
}

fn purge(store: &dyn Store, writer: &Writer, target: PurgeTarget, stop: &AtomicBool) -> Result<()> {
    let (ranges, marker) = target.work();
    for (space, prefix) in ranges {
        loop {
            if stopping(stop) {
                return Ok(());
            }
            let snapshot = store.snapshot()?;
            let chunk: Vec<Vec<u8>> = snapshot
                .range(space, KeyRange::prefix(&prefix), Direction::Forward)
                .take(CHUNK)
                .map(|row| row.map(|(k, _)| k))
                .collect::<std::result::Result<_, _>>()?;
            drop(snapshot);
            if chunk.is_empty() {
                break;
            }
            writer.submit_blocking(false, move |w| {
                for key in chunk {
                    w.delete(space, key);
                }
                Ok(())
            })?;
        }
    }
    writer.submit_blocking(false, move |w| {
        w.delete(Space::Meta, marker);
        Ok(())
    })?;
    tracing::debug!(?target, "purge finished");
    Ok(())
}
