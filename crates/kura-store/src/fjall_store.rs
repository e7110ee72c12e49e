//! The durable store: fjall (an LSM tree with a write-ahead journal). See ADR 0002.
//!
//! One fjall keyspace per [`Space`]. A commit is one fjall write batch (atomic across
//! keyspaces) with `SyncAll` durability: fjall syncs the journal *before* applying the batch
//! to its memtables, so no reader ever sees a write that a crash could still lose, and
//! `commit` returns only when the batch would survive power loss. A failed sync poisons
//! fjall itself; we report it.

use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

use fjall::{
    Database, Keyspace, KeyspaceCreateOptions, KvSeparationOptions, PersistMode, Readable,
};

use parking_lot::{Mutex, RwLock};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Direction, KeyRange, KvIter, Snapshot, Space, Store, StoreError, WriteBatch};

/// How much memory the store may hold; memory is bounded by these, not by the data size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreOptions {
    /// The block cache shared by every key space.
    pub cache_bytes: u64,
    /// The size at which a key space's memtable is flushed to disk. fjall records it when
    /// the key space is created, so it applies to new data directories.
    pub memtable_bytes: u64,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            cache_bytes: 8 << 20,
            memtable_bytes: 4 << 20,
        }
    }
}

/// fjall's background workers. With two or more, worker 0 hands every compaction message
/// back to the queue and takes it again while another worker is busy: on 2 cores that spin
/// took an eighth of the CPU under writes, so small machines get one worker, which flushes
/// and compacts in turn (BatchWriteItem gained about a quarter). Larger ones keep fjall's
/// default, one per core up to 4.
fn background_workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    if cores <= 2 { 1 } else { cores.min(4) }
}

/// The open key spaces, by [`Space::index`]. A key space is created on its first write,
/// not when the store opens: fjall syncs a new key space's files, about 3 ms each, and a new
/// data directory would otherwise spend most of its start creating seven (issue 16).
type OpenSpaces = [Option<Keyspace>; Space::ALL.len()];

/// A fjall database in a directory.
pub struct FjallStore {
    db: Database,
    options: StoreOptions,
    /// Replaced, never changed in place: a snapshot keeps the set it was taken with; a space
    /// created after it holds nothing the snapshot could see.
    spaces: RwLock<Arc<OpenSpaces>>,
    /// Serialises creating key spaces (commits may come from more than one thread).
    creating: Mutex<()>,
    idle: IdleWatch,
}

/// Commits counted, to tell an idle store from a busy one ([`Store::release_when_idle`]).
#[derive(Default)]
struct IdleWatch {
    commits: AtomicU64,
    /// The count at the last call, and when the memtables were last written out.
    seen: AtomicU64,
    released: AtomicU64,
}

impl FjallStore {
    /// Opens (or creates) the store in `dir`, recovering the journal after a crash.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        FjallStore::open_with(dir, StoreOptions::default())
    }

    /// [`FjallStore::open`] with memory bounds other than the defaults.
    pub fn open_with(dir: &Path, options: StoreOptions) -> Result<Self, StoreError> {
        let db = Database::builder(dir)
            // Every commit syncs itself (see `commit`); no background journal syncing.
            .manual_journal_persist(true)
            .cache_size(options.cache_bytes)
            // The journal is replayed after a crash: keep it short (fjall's minimum) so a
            // restart takes milliseconds, by flushing key spaces that hold old journals.
            .max_journaling_size(64 << 20)
            .worker_threads(background_workers())
            .open()
            .map_err(|e| match e {
                fjall::Error::Locked => StoreError::new(
                    "another process holds the data directory's lock: is a kura serve already \
                     running on it? Stop it, or give this one another --data-dir",
                ),
                e => plain(e),
            })?;
        let mut spaces: OpenSpaces = Default::default();
        for space in Space::ALL {
            if db.keyspace_exists(space.name()) {
                spaces[space.index()] = Some(open_keyspace(&db, space, options)?);
            }
        }
        flush_a_long_journal(&db, &spaces)?;
        Ok(FjallStore {
            db,
            options,
            spaces: RwLock::new(Arc::new(spaces)),
            creating: Mutex::new(()),
            idle: IdleWatch::default(),
        })
    }

    fn open_spaces(&self) -> Arc<OpenSpaces> {
        self.spaces.read().clone()
    }

    /// The open key spaces, with every space `batch` writes to created first.
    fn spaces_for(&self, batch: &WriteBatch) -> Result<Arc<OpenSpaces>, StoreError> {
        let current = self.open_spaces();
        let missing =
            |spaces: &OpenSpaces| batch.spaces().any(|space| spaces[space.index()].is_none());
        if !missing(&current) {
            return Ok(current);
        }
        let _creating = self.creating.lock();
        let mut spaces = (*self.open_spaces()).clone();
        for space in batch.spaces() {
            if spaces[space.index()].is_none() {
                spaces[space.index()] = Some(open_keyspace(&self.db, space, self.options)?);
            }
        }
        let spaces = Arc::new(spaces);
        *self.spaces.write() = spaces.clone();
        Ok(spaces)
    }
}

/// The longest an idle store waits for its memtables to be written out.
const IDLE_FLUSH_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// A journal longer than this at open is flushed away before the store serves.
const JOURNAL_FLUSHED_AT_OPEN: u64 = 64 << 20;
/// A `Meta` key no one reads; see [`flush_a_long_journal`].
const FLUSH_NUDGE: &[u8] = b"~journal-flush-nudge";

/// Every start replays the journal, so its length is the start time (about 10 ms a MB).
/// fjall starts a new journal only when it flushes a memtable while the journal is past
/// 64 MB, and its one worker on a small machine compacts first: a process that never
/// lives long enough to flush (killed every second, say) replays a journal that grows
/// with every life (a 240 MB one took 2.5 s; docs/reliability.md). So a long journal is
/// flushed now, once: every memtable is written out, fjall starts a new journal and
/// drops the old. `rotate_memtable_and_wait` is fjall's, public but hidden from its docs.
fn flush_a_long_journal(db: &Database, spaces: &OpenSpaces) -> Result<(), StoreError> {
    let journal = db.journal_disk_space().map_err(plain)?;
    if journal <= JOURNAL_FLUSHED_AT_OPEN {
        return Ok(());
    }
    let started = std::time::Instant::now();
    // fjall reopens the journal for appending and reads its length from the write
    // position, which is 0 until something is written: one write of a key nothing reads
    // moves it to the end, so the flush below sees the journal's true length. (A
    // tombstone would not do: a flush may drop it, and the journal then waits for it.)
    if let Some(meta) = &spaces[Space::Meta.index()] {
        let mut nudge = db.batch().durability(Some(PersistMode::SyncAll));
        nudge.insert(meta, FLUSH_NUDGE, b"1");
        nudge.commit().map_err(plain)?;
    }
    for keyspace in spaces.iter().flatten() {
        keyspace.rotate_memtable_and_wait().map_err(plain)?;
    }
    // The old journal is deleted just after the last flush: wait for it, or a kill now
    // would leave it to be replayed again.
    let deadline = started + std::time::Duration::from_secs(30);
    while db.journal_count() > 1 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    tracing::info!(
        journal_mb = journal >> 20,
        journals_left = db.journal_count(),
        ms = started.elapsed().as_millis() as u64,
        "the journal was long: flushed before serving, so the next start need not replay it"
    );
    Ok(())
}

/// Opens a key space, creating it with Kura's options when it does not exist.
fn open_keyspace(
    db: &Database,
    space: Space,
    options: StoreOptions,
) -> Result<Keyspace, StoreError> {
    let create = || {
        let opts = KeyspaceCreateOptions::default().max_memtable_size(options.memtable_bytes);
        match space {
            // Pre-images are written once, read only by restores and deleted by
            // retention: kept out of the tree, compaction does not rewrite them.
            Space::History => opts.with_kv_separation(Some(
                KvSeparationOptions::default().separation_threshold(256),
            )),
            _ => opts,
        }
    };
    db.keyspace(space.name(), create).map_err(plain)
}

struct FjallSnapshot {
    snapshot: fjall::Snapshot,
    spaces: Arc<OpenSpaces>,
}

impl FjallSnapshot {
    /// The key space, or `None` when it did not exist when the snapshot was taken (so it
    /// held nothing this snapshot can see).
    fn keyspace(&self, space: Space) -> Option<&Keyspace> {
        self.spaces[space.index()].as_ref()
    }
}

impl Snapshot for FjallSnapshot {
    fn get(&self, space: Space, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(ks) = self.keyspace(space) else {
            return Ok(None);
        };
        Ok(self
            .snapshot
            .get(ks, key)
            .map_err(plain)?
            .map(|v| v.to_vec()))
    }

    fn range(&self, space: Space, range: KeyRange, direction: Direction) -> KvIter<'_> {
        if let Err(e) = super::check_range(&range) {
            return Box::new(std::iter::once(Err(e)));
        }
        let Some(ks) = self.keyspace(space) else {
            return Box::new(std::iter::empty());
        };
        let bounds: (Bound<Vec<u8>>, Bound<Vec<u8>>) = (range.start, range.end);
        let iter = self.snapshot.range(ks, bounds);
        let to_pair = |guard: fjall::Guard| {
            guard
                .into_inner()
                .map(|(k, v)| (k.to_vec(), v.to_vec()))
                .map_err(plain)
        };
        match direction {
            Direction::Forward => Box::new(iter.map(to_pair)),
            Direction::Reverse => Box::new(iter.rev().map(to_pair)),
        }
    }
}

impl Store for FjallStore {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>, StoreError> {
        // The snapshot first, then the key spaces: a space is in the set before its first
        // batch commits, so every space holding data this snapshot sees is in the set read
        // after it (the other order could miss a space created and written in between).
        let snapshot = self.db.snapshot();
        Ok(Box::new(FjallSnapshot {
            snapshot,
            spaces: self.open_spaces(),
        }))
    }

    fn commit(&self, batch: WriteBatch) -> Result<(), StoreError> {
        let spaces = self.spaces_for(&batch)?;
        let mut fb = self.db.batch().durability(Some(PersistMode::SyncAll));
        for (space, key, value) in batch.into_ops() {
            // fjall asserts on these; a bad key must be an error, never a panic.
            super::check_key(&key)?;
            let ks = spaces[space.index()]
                .as_ref()
                .ok_or_else(|| StoreError(format!("key space {} is not open", space.name())))?;
            match value {
                Some(v) => fb.insert(ks, key, v),
                None => fb.remove(ks, key),
            }
        }
        self.idle.commits.fetch_add(1, Ordering::Relaxed);
        fb.commit().map_err(plain)
    }

    fn is_durable(&self) -> bool {
        true
    }

    fn release_when_idle(&self) -> Result<bool, StoreError> {
        let commits = self.idle.commits.load(Ordering::Relaxed);
        let busy = self.idle.seen.swap(commits, Ordering::Relaxed) != commits;
        if busy || self.idle.released.load(Ordering::Relaxed) == commits {
            return Ok(false);
        }
        // Each memtable is flushed by fjall's worker and dropped once written; waiting for
        // that here (on the sweeper's thread) lets the caller hand the memory back at
        // once. An empty one is not rotated. The wait is bounded: a flush that cannot
        // finish (a full disk) must not hold the sweeper, or its shutdown. `rotate_memtable`
        // is fjall's, public but hidden from its docs.
        let started = std::time::Instant::now();
        let spaces = self.open_spaces();
        for keyspace in spaces.iter().flatten() {
            keyspace.rotate_memtable().map_err(plain)?;
        }
        let flushing = || {
            spaces
                .iter()
                .flatten()
                .any(|k| k.sealed_memtable_count() > 0)
        };
        while flushing() && started.elapsed() < IDLE_FLUSH_WAIT {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        self.idle.released.store(commits, Ordering::Relaxed);
        tracing::debug!(
            ms = started.elapsed().as_millis() as u64,
            "idle: memtables written out"
        );
        Ok(true)
    }

    fn footprint(&self) -> super::Footprint {
        super::Footprint {
            disk_bytes: self.db.disk_space().unwrap_or(0),
            cache_bytes: self.db.cache_size(),
            cache_capacity_bytes: self.db.cache_capacity(),
            write_buffer_bytes: self.db.write_buffer_size(),
            journal_bytes: self.db.journal_disk_space().unwrap_or(0),
        }
    }
}

/// A storage error in plain words: the operating system's own message when an I/O error is
/// at its root ("No space left on device (os error 28)"), not fjall's nested debug form, so
/// a full or read-only volume is named as such in the one line an operator reads.
fn plain(error: impl std::error::Error + 'static) -> StoreError {
    let mut cause: &(dyn std::error::Error + 'static) = &error;
    loop {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return StoreError::new(io);
        }
        match cause.source() {
            Some(next) => cause = next,
            None => return StoreError::new(&error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance;

    #[test]
    fn conformance() {
        let dirs = parking_lot::Mutex::new(Vec::new());
        conformance::run_all(|| {
            let dir = tempfile::tempdir().expect("tempdir");
            let store = FjallStore::open(dir.path()).expect("open");
            dirs.lock().push(dir);
            store
        });
    }

    #[test]
    fn an_idle_store_writes_its_memtables_out_and_loses_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FjallStore::open(dir.path()).expect("open");
        let mut batch = WriteBatch::default();
        for i in 0..500u32 {
            batch.put(Space::Items, i.to_be_bytes().to_vec(), vec![7; 100]);
        }
        store.commit(batch).expect("commit");
        let items = || {
            store.open_spaces()[Space::Items.index()]
                .clone()
                .expect("open")
        };
        // Written since the last call: busy, nothing is written out.
        assert!(!store.release_when_idle().expect("release"));
        assert_eq!(items().table_count(), 0);
        // Nothing since: the memtable is on disk when the call returns.
        assert!(store.release_when_idle().expect("release"));
        assert_eq!(items().table_count(), 1);
        // Once only, until the next write.
        assert!(!store.release_when_idle().expect("release"));
        assert_eq!(items().table_count(), 1);
        let read = store.snapshot().expect("snapshot");
        for i in 0..500u32 {
            assert_eq!(
                read.get(Space::Items, &i.to_be_bytes()).expect("get"),
                Some(vec![7; 100])
            );
        }
        drop((read, store));
        let store = FjallStore::open(dir.path()).expect("reopen");
        let read = store.snapshot().expect("snapshot");
        assert_eq!(
            read.range(Space::Items, KeyRange::prefix(b""), Direction::Forward)
                .count(),
            500
        );
    }

    #[test]
    fn space_index_is_the_position_in_all() {
        for (i, space) in Space::ALL.into_iter().enumerate() {
            assert_eq!(space.index(), i);
        }
    }

    #[test]
    fn key_spaces_are_created_on_their_first_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FjallStore::open(dir.path()).expect("open");
        assert_eq!(store.db.keyspace_count(), 0);
        let before = store.snapshot().expect("snapshot");
        let mut batch = WriteBatch::default();
        batch.put(Space::Items, b"k".to_vec(), b"v".to_vec());
        store.commit(batch).expect("commit");
        assert_eq!(store.db.keyspace_count(), 1);
        // The snapshot from before the space existed sees it empty; a new one sees the write.
        assert_eq!(before.get(Space::Items, b"k").expect("get"), None);
        let after = store.snapshot().expect("snapshot");
        assert_eq!(
            after.get(Space::Items, b"k").expect("get"),
            Some(b"v".to_vec())
        );
        assert_eq!(after.get(Space::History, b"k").expect("get"), None);
        drop((before, after, store));
        let store = FjallStore::open(dir.path()).expect("reopen");
        assert_eq!(store.db.keyspace_count(), 1);
    }

    #[test]
    fn commits_survive_reopen() {
        let dir = tempfile::tempdir().expect("tempdir");
        {
            let store = FjallStore::open(dir.path()).expect("open");
            let mut batch = WriteBatch::default();
            batch.put(Space::Items, b"k".to_vec(), b"v".to_vec());
            store.commit(batch).expect("commit");
        }
        let store = FjallStore::open(dir.path()).expect("reopen");
        let snap = store.snapshot().expect("snapshot");
        assert_eq!(
            snap.get(Space::Items, b"k").expect("get"),
            Some(b"v".to_vec())
        );
    }

    /// A store whose memtables never filled (as in a process killed before it flushes)
    /// leaves a journal past 64 MB; the next open flushes it away, so the open after
    /// that replays almost nothing, and nothing is lost.
    #[test]
    fn a_long_journal_is_flushed_at_open() {
        let dir = tempfile::tempdir().expect("tempdir");
        let never_full = StoreOptions {
            memtable_bytes: 1 << 30,
            ..StoreOptions::default()
        };
        let mut rng = fastrand::Rng::with_seed(7);
        {
            let store = FjallStore::open_with(dir.path(), never_full).expect("open");
            for n in 0..80u32 {
                let mut batch = WriteBatch::default();
                for k in 0..64u32 {
                    let value: Vec<u8> = (0..16 << 10).map(|_| rng.u8(..)).collect();
                    batch.put(
                        Space::Items,
                        [n.to_be_bytes(), k.to_be_bytes()].concat(),
                        value,
                    );
                }
                store.commit(batch).expect("commit");
            }
            // As every store has: `Meta` holds the format marker.
            let mut batch = WriteBatch::default();
            batch.put(Space::Meta, b"format".to_vec(), b"1".to_vec());
            store.commit(batch).expect("commit");
            assert!(store.footprint().journal_bytes > JOURNAL_FLUSHED_AT_OPEN);
        }
        let store = FjallStore::open(dir.path()).expect("reopen");
        // What is left is the new journal, made 64 MB long (fjall preallocates) and
        // nearly empty.
        let journal = store.footprint().journal_bytes;
        assert!(
            journal <= JOURNAL_FLUSHED_AT_OPEN && store.db.journal_count() == 1,
            "journal after open: {journal} bytes in {} files",
            store.db.journal_count()
        );
        let snap = store.snapshot().expect("snapshot");
        let rows = snap
            .range(Space::Items, KeyRange::prefix(b""), Direction::Forward)
            .count();
        assert_eq!(rows, 80 * 64);
    }

    #[test]
    fn storage_errors_name_their_io_cause_plainly() {
        let full = fjall::Error::Io(std::io::Error::from_raw_os_error(28));
        assert_eq!(
            super::plain(full).to_string(),
            "storage: No space left on device (os error 28)"
        );
    }
}
