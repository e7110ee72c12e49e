//! A durable store in a directory that holds none yet, created by its first commit.
//!
//! Creating a fjall database syncs about a dozen files (the journal, its 64 MB
//! preallocation, the version marker, the meta tree): about 10 ms, most of a new data
//! directory's start (issue 54: first answer in 5 ms). Until something is written there is
//! nothing to keep, so reads see an empty store and the first commit creates the database
//! and then commits, durably as any other. The directory is locked from the start
//! (`kura.lock`), so a second server on it is refused at once, not at its first write.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use parking_lot::Mutex;

use super::fjall_store::{FjallStore, StoreOptions};
use super::memory::MemoryStore;
use super::{Footprint, Snapshot, Store, StoreError, WriteBatch};

/// The file a new directory is locked with until, and after, fjall takes its own.
const LOCK_FILE: &str = "kura.lock";

/// A [`FjallStore`] made on the first commit.
pub struct LazyFjallStore {
    dir: PathBuf,
    options: StoreOptions,
    store: OnceLock<FjallStore>,
    /// Serialises the creation (commits come from one writer, but stay safe without it).
    creating: Mutex<()>,
    /// Held open for the store's life: the lock is the open file.
    _lock: File,
}

impl LazyFjallStore {
    /// The store for `dir`: fjall's own when the directory holds one, else a lazy one.
    pub fn open(dir: &Path, options: StoreOptions) -> Result<Box<dyn Store>, StoreError> {
        if FjallStore::exists(dir) {
            return Ok(Box::new(FjallStore::open_with(dir, options)?));
        }
        let lock = File::create(dir.join(LOCK_FILE))
            .map_err(|e| StoreError::new(format!("cannot create {LOCK_FILE}: {e}")))?;
        if lock.try_lock().is_err() {
            return Err(StoreError::new(super::fjall_store::LOCKED));
        }
        Ok(Box::new(LazyFjallStore {
            dir: dir.to_owned(),
            options,
            store: OnceLock::new(),
            creating: Mutex::new(()),
            _lock: lock,
        }))
    }

    fn created(&self) -> Result<&FjallStore, StoreError> {
        if let Some(store) = self.store.get() {
            return Ok(store);
        }
        let _creating = self.creating.lock();
        if let Some(store) = self.store.get() {
            return Ok(store);
        }
        let store = FjallStore::open_with(&self.dir, self.options)?;
        tracing::debug!(dir = %self.dir.display(), "store created by its first write");
        Ok(self.store.get_or_init(|| store))
    }
}

impl Store for LazyFjallStore {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>, StoreError> {
        match self.store.get() {
            Some(store) => store.snapshot(),
            // Nothing was ever committed: the empty store.
            None => MemoryStore::new().snapshot(),
        }
    }

    fn commit(&self, batch: WriteBatch) -> Result<(), StoreError> {
        self.created()?.commit(batch)
    }

    fn is_durable(&self) -> bool {
        true
    }

    fn footprint(&self) -> Footprint {
        self.store.get().map(Store::footprint).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Space;

    #[test]
    fn a_new_directory_gets_its_store_with_the_first_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = LazyFjallStore::open(dir.path(), StoreOptions::default()).expect("open");
        assert!(
            !FjallStore::exists(dir.path()),
            "nothing made before a write"
        );
        let snapshot = store.snapshot().expect("snapshot");
        assert_eq!(snapshot.get(Space::Meta, b"k").expect("get"), None);
        assert!(
            LazyFjallStore::open(dir.path(), StoreOptions::default()).is_err(),
            "a second store on the directory is refused before any write"
        );
        let mut batch = WriteBatch::default();
        batch.put(Space::Meta, b"k".to_vec(), b"v".to_vec());
        store.commit(batch).expect("commit");
        assert!(FjallStore::exists(dir.path()));
        assert_eq!(snapshot.get(Space::Meta, b"k").expect("get"), None);
        assert_eq!(
            store
                .snapshot()
                .expect("snapshot")
                .get(Space::Meta, b"k")
                .expect("get"),
            Some(b"v".to_vec())
        );
        drop((snapshot, store));
        let store = LazyFjallStore::open(dir.path(), StoreOptions::default()).expect("reopen");
        assert_eq!(
            store
                .snapshot()
                .expect("snapshot")
                .get(Space::Meta, b"k")
                .expect("get"),
            Some(b"v".to_vec())
        );
    }
}
