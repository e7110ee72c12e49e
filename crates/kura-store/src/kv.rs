//! The seam itself: key spaces, batches, ranges, snapshots and the `Store` trait.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use imbl::OrdMap;

/// A key space. Each holds keys of one layout (see `docs/design.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    /// Store-wide records: format version, table id counter, table statistics.
    Meta,
    /// One record per table, keyed by table name.
    Catalog,
    /// Items of every table, keyed by table id, partition-key hash, partition key, sort key.
    Items,
    /// Entries of every secondary index, keyed by table id, index number, then as `Items`
    /// by the index key, with the table key last (index keys need not be unique).
    Indexes,
    /// Stream records, keyed by stream id and sequence number.
    Streams,
    /// The TTL index: table id, expiry time, item key; found by expiry, never by a scan.
    Ttl,
    /// Pre-images of item changes of tables with point-in-time recovery or backups, keyed
    /// by the `Items` key, then the change stamp: what restores undo.
    History,
}

impl Space {
    pub const ALL: [Space; 7] = [
        Space::Meta,
        Space::Catalog,
        Space::Items,
        Space::Indexes,
        Space::Streams,
        Space::Ttl,
        Space::History,
    ];

    /// The space's position in [`Space::ALL`] (the declaration order).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The space after this one in `Ord` order (the in-memory store keeps all in one map).
    pub fn next(self) -> Option<Space> {
        let i = Space::ALL.iter().position(|s| *s == self)?;
        Space::ALL.get(i + 1).copied()
    }

    /// The name the space has on disk. Never change one: it is part of the format.
    pub fn name(self) -> &'static str {
        match self {
            Space::Meta => "meta",
            Space::Catalog => "catalog",
            Space::Items => "items",
            Space::Indexes => "indexes",
            Space::Streams => "streams",
            Space::Ttl => "ttl",
            Space::History => "history",
        }
    }
}

/// A storage failure. After a failed commit the engine stops accepting writes.
#[derive(Debug, Clone, thiserror::Error)]
#[error("storage: {0}")]
pub struct StoreError(pub String);

impl StoreError {
    pub fn new(e: impl std::fmt::Display) -> Self {
        StoreError(e.to_string())
    }
}

/// Writes applied all together or not at all. A later write to a key replaces an earlier
/// one, so a batch never holds two writes of one key (stores need not order them).
#[derive(Debug, Default, Clone)]
pub struct WriteBatch {
    ops: BTreeMap<(Space, Vec<u8>), Option<Vec<u8>>>,
}

impl WriteBatch {
    pub fn put(&mut self, space: Space, key: Vec<u8>, value: Vec<u8>) {
        self.ops.insert((space, key), Some(value));
    }
    pub fn delete(&mut self, space: Space, key: Vec<u8>) {
        self.ops.insert((space, key), None);
    }
    /// What this batch does to a key: `None` if untouched, `Some(None)` if removed.
    pub fn get(&self, space: Space, key: &[u8]) -> Option<Option<&[u8]>> {
        // BTreeMap lookups need the owned tuple; keys are short.
        self.ops.get(&(space, key.to_vec())).map(|v| v.as_deref())
    }
    /// Moves every write of `other` into this batch, `other`'s winning.
    pub fn absorb(&mut self, other: WriteBatch) {
        self.ops.extend(other.ops);
    }
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    /// The writes in key order: `(space, key, Some(value) | None)`.
    /// The spaces the batch writes to, once per write.
    pub fn spaces(&self) -> impl Iterator<Item = Space> + '_ {
        self.ops.keys().map(|(space, _)| *space)
    }

    pub fn into_ops(self) -> impl Iterator<Item = (Space, Vec<u8>, Option<Vec<u8>>)> {
        self.ops
            .into_iter()
            .map(|((space, key), value)| (space, key, value))
    }
}

/// A key range for scans; bounds are byte strings.
#[derive(Debug, Clone)]
pub struct KeyRange {
    pub start: Bound<Vec<u8>>,
    pub end: Bound<Vec<u8>>,
}

impl KeyRange {
    /// Every key that starts with `prefix`.
    pub fn prefix(prefix: &[u8]) -> Self {
        let end = prefix_successor(prefix).map_or(Bound::Unbounded, Bound::Excluded);
        KeyRange {
            start: Bound::Included(prefix.to_vec()),
            end,
        }
    }

    /// Whether no key can be in the range (stores may refuse such ranges).
    pub fn is_empty(&self) -> bool {
        match (&self.start, &self.end) {
            (Bound::Included(s), Bound::Included(e)) => s > e,
            (Bound::Included(s) | Bound::Excluded(s), Bound::Excluded(e))
            | (Bound::Excluded(s), Bound::Included(e)) => s >= e,
            _ => false,
        }
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        let after_start = match &self.start {
            Bound::Included(s) => key >= s.as_slice(),
            Bound::Excluded(s) => key > s.as_slice(),
            Bound::Unbounded => true,
        };
        let before_end = match &self.end {
            Bound::Included(e) => key <= e.as_slice(),
            Bound::Excluded(e) => key < e.as_slice(),
            Bound::Unbounded => true,
        };
        after_start && before_end
    }
}

/// Checks the key contract every store enforces, so the memory store fails where fjall would.
pub fn check_key(key: &[u8]) -> Result<(), StoreError> {
    if key.is_empty() || key.len() > MAX_KEY_LEN {
        return Err(StoreError(format!(
            "key of {} bytes is out of range",
            key.len()
        )));
    }
    Ok(())
}

/// Checks that a range's bounds are keys a store accepts (stores may assert on longer ones).
pub fn check_range(range: &KeyRange) -> Result<(), StoreError> {
    for bound in [&range.start, &range.end] {
        if let Bound::Included(k) | Bound::Excluded(k) = bound
            && k.len() > MAX_KEY_LEN
        {
            return Err(StoreError(format!(
                "range bound of {} bytes is out of range",
                k.len()
            )));
        }
    }
    Ok(())
}

/// The smallest byte string greater than every string starting with `prefix`.
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// Scan direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Reverse,
}

pub type KvIter<'a> = Box<dyn Iterator<Item = Result<(Vec<u8>, Vec<u8>), StoreError>> + 'a>;

/// A consistent, read-only view of the store as of one commit.
pub trait Snapshot: Send {
    fn get(&self, space: Space, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError>;
    fn range(&self, space: Space, range: KeyRange, direction: Direction) -> KvIter<'_>;
}

/// Longest key a store must accept. Kura's longest key (an index entry key: an index key
/// and a table key, each up to 2 KB + 1 KB before escaping) is far below it.
pub const MAX_KEY_LEN: usize = 65_535;

/// An ordered key-value store with atomic, durable batches. Keys are 1..=[`MAX_KEY_LEN`]
/// bytes.
pub trait Store: Send + Sync + 'static {
    /// A view of everything committed so far. Never waits on a commit in progress.
    fn snapshot(&self) -> Result<Box<dyn Snapshot>, StoreError>;
    /// Applies `batch` atomically; when it returns Ok the batch survives a crash
    /// (for durable stores). Commits are issued by one writer at a time.
    fn commit(&self, batch: WriteBatch) -> Result<(), StoreError>;
    /// Whether commits survive a restart.
    fn is_durable(&self) -> bool;
    /// Disk and memory in use, as far as the store knows (zeros when it does not).
    fn footprint(&self) -> Footprint {
        Footprint::default()
    }
    /// The whole state at the last commit, in O(1), for a store that can freeze one (the
    /// in-memory store); None otherwise.
    fn freeze(&self) -> Option<Frozen> {
        None
    }
    /// Called every second or so (the engine's sweeper): when nothing was committed since
    /// the last call, the store writes out what it holds in memory only to speed up
    /// writes (fjall's memtables) and frees it; true when it did, once per quiet spell.
    /// Loses nothing: what it writes out is already in the journal.
    fn release_when_idle(&self) -> Result<bool, StoreError> {
        Ok(false)
    }
}

/// What a store occupies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes on disk: tables and journal.
    pub disk_bytes: u64,
    /// Bytes held by the block cache.
    pub cache_bytes: u64,
    /// The cache's bound.
    pub cache_capacity_bytes: u64,
    /// Bytes in write buffers (memtables) not yet flushed.
    pub write_buffer_bytes: u64,
    /// Bytes of write-ahead journal: what the next start replays.
    pub journal_bytes: u64,
}

pub(super) type Bytes = Arc<[u8]>;
pub(super) type Map = OrdMap<(Space, Bytes), Bytes>;

/// The smallest key: with a space, the start of that space.
pub(super) fn first() -> Bytes {
    Bytes::from(&[][..])
}

/// A memory store's whole state at one commit (test controls' snapshots).
#[derive(Clone)]
pub struct Frozen(pub(super) Arc<Map>);

impl Frozen {
    /// The items stored.
    pub fn items(&self) -> usize {
        self.0
            .range((Space::Items, first())..(Space::Indexes, first()))
            .count()
    }
}
