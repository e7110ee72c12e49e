//! A store that fails on demand, for fault-injection tests of the layers above storage.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use kura_engine::storage::{Snapshot, Store, StoreError, WriteBatch};

/// How the next commits fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Commits pass through.
    None,
    /// The sync fails before anything reaches the disk.
    SyncFailsBeforeWrite,
    /// The batch reaches the disk, but its sync reports failure (the durable state is
    /// unknown to the caller).
    SyncFailsAfterWrite,
}

/// Wraps a store; [`FaultyStore::inject`] makes its commits fail until cleared.
pub struct FaultyStore {
    inner: Arc<dyn Store>,
    fault: AtomicU8,
}

impl FaultyStore {
    pub fn new(inner: Arc<dyn Store>) -> Arc<FaultyStore> {
        Arc::new(FaultyStore {
            inner,
            fault: AtomicU8::new(0),
        })
    }

    pub fn inject(&self, fault: Fault) {
        let code = match fault {
            Fault::None => 0,
            Fault::SyncFailsBeforeWrite => 1,
            Fault::SyncFailsAfterWrite => 2,
        };
        self.fault.store(code, Ordering::SeqCst);
    }
}

impl Store for FaultyStore {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>, StoreError> {
        self.inner.snapshot()
    }

    fn commit(&self, batch: WriteBatch) -> Result<(), StoreError> {
        match self.fault.load(Ordering::SeqCst) {
            1 => Err(StoreError("injected: fsync failed (EIO)".into())),
            2 => {
                self.inner.commit(batch)?;
                Err(StoreError(
                    "injected: fsync failed (EIO) after the write".into(),
                ))
            }
            _ => self.inner.commit(batch),
        }
    }

    fn is_durable(&self) -> bool {
        self.inner.is_durable()
    }
}
