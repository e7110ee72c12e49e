//! Background removal of a deleted table's items.
//!
//! DeleteTable removes the catalog record and leaves a `purge` marker in the same batch;
//! this thread then deletes the items in bounded chunks through the writer and finally the
//! marker. Table ids are never reused, so leftovers are unreachable meanwhile, and a restart
//! resumes any purge whose marker is still there.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

use parking_lot::Mutex;

use crate::error::Result;
use crate::keys;
use crate::storage::{Direction, KeyRange, Space, Store};
use crate::writer::Writer;

/// Keys deleted per write job: keeps each batch, and the writer's pauses, small.
const CHUNK: usize = 1000;

pub struct Purger {
    queue: Mutex<Option<mpsc::Sender<u64>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    stop: Arc<AtomicBool>,
}

impl Purger {
    pub fn start(store: Arc<dyn Store>, writer: Arc<Writer>) -> Purger {
        let (tx, rx) = mpsc::channel::<u64>();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("kura-purge".into())
            .spawn(move || {
                while let Ok(table_id) = rx.recv() {
                    if let Err(e) = purge(store.as_ref(), &writer, table_id, &flag) {
                        tracing::warn!(table_id, error = %e, "table purge interrupted; resumes on restart");
                    }
                }
            })
            .inspect_err(|e| {
                tracing::error!(error = %e, "cannot start the purge thread; deleted tables keep their space until restart");
            })
            .ok();
        Purger {
            queue: Mutex::new(Some(tx)),
            thread: Mutex::new(thread),
            stop,
        }
    }

    /// Queues a deleted table for purging.
    pub fn wake(&self, table_id: u64) {
        if let Some(tx) = self.queue.lock().as_ref() {
            let _stopped = tx.send(table_id);
        }
    }

    /// Stops after the current chunk; unfinished purges resume on the next start.
    pub fn shutdown(&self) {
        self.stop.store(true, Ordering::SeqCst);
        drop(self.queue.lock().take());
        if let Some(handle) = self.thread.lock().take() {
            let _panicked = handle.join();
        }
    }
}

fn purge(store: &dyn Store, writer: &Writer, table_id: u64, stop: &AtomicBool) -> Result<()> {
    loop {
        if stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let snapshot = store.snapshot()?;
        let chunk: Vec<Vec<u8>> = snapshot
            .range(
                Space::Items,
                KeyRange::prefix(&keys::table_prefix(table_id)),
                Direction::Forward,
            )
            .take(CHUNK)
            .map(|row| row.map(|(k, _)| k))
            .collect::<std::result::Result<_, _>>()?;
        drop(snapshot);
        let done = chunk.is_empty();
        writer.submit_blocking(false, move |w| {
            for key in chunk {
                w.delete(Space::Items, key);
            }
            if done {
                w.delete(Space::Meta, keys::purge_key(table_id));
            }
            Ok(())
        })?;
        if done {
            tracing::debug!(table_id, "purged deleted table");
            return Ok(());
        }
    }
}
