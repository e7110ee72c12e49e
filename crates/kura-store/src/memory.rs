//! An in-memory store for tests and `--in-memory`: persistent maps give O(1) snapshots.
//!
//! Keys and values are shared slices: a commit copies the tree nodes on the path to each
//! key it writes (the nodes before it belong to snapshots), and copying a node clones its
//! entries. With `Vec<u8>` that cloned every key and value of the node (64 entries of
//! about 1 KB for a table of 1 KB items) on every commit; with `Arc<[u8]>` it counts
//! references.

use std::sync::Arc;

use parking_lot::RwLock;

use super::kv::{Bytes, Frozen, Map, first};
use super::{Direction, KeyRange, KvIter, Snapshot, Space, Store, StoreError, WriteBatch};

/// Everything in memory, lost on exit.
#[derive(Default)]
pub struct MemoryStore {
    current: RwLock<Arc<Map>>,
    /// Serialises commits, so readers only ever wait for a pointer swap.
    commit_lock: parking_lot::Mutex<()>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// A store that starts from a frozen state (which stays as it is).
    pub fn thaw(frozen: &Frozen) -> Self {
        MemoryStore {
            current: RwLock::new(frozen.0.clone()),
            commit_lock: parking_lot::Mutex::new(()),
        }
    }
}

struct MemorySnapshot(Arc<Map>);

impl Snapshot for MemorySnapshot {
    fn get(&self, space: Space, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.0.get(&(space, Bytes::from(key))).map(|v| v.to_vec()))
    }

    fn range(&self, space: Space, range: KeyRange, direction: Direction) -> KvIter<'_> {
        use std::ops::Bound;
        // Refuse what fjall refuses, so both stores fail alike.
        if let Err(e) = super::check_range(&range) {
            return Box::new(std::iter::once(Err(e)));
        }
        let within = |b: &Bound<Vec<u8>>| match b {
            Bound::Included(k) => Bound::Included((space, Bytes::from(k.as_slice()))),
            Bound::Excluded(k) => Bound::Excluded((space, Bytes::from(k.as_slice()))),
            Bound::Unbounded => Bound::Unbounded,
        };
        // Unbounded ends are clamped to `space`, so no other space's keys are visited.
        let start = match &range.start {
            Bound::Unbounded => Bound::Included((space, first())),
            b => within(b),
        };
        let end = match (&range.end, space.next()) {
            (Bound::Unbounded, Some(next)) => Bound::Excluded((next, first())),
            (b, _) => within(b),
        };
        let iter = self
            .0
            .range((start, end))
            .map(|((_, k), v)| Ok((k.to_vec(), v.to_vec())));
        match direction {
            Direction::Forward => Box::new(iter),
            Direction::Reverse => Box::new(iter.rev()),
        }
    }
}

impl Store for MemoryStore {
    /// The whole committed state, in O(1): later commits do not change it.
    fn freeze(&self) -> Option<Frozen> {
        Some(Frozen(self.current.read().clone()))
    }

    fn snapshot(&self) -> Result<Box<dyn Snapshot>, StoreError> {
        Ok(Box::new(MemorySnapshot(self.current.read().clone())))
    }

    fn commit(&self, batch: WriteBatch) -> Result<(), StoreError> {
        let _one_writer = self.commit_lock.lock();
        // Validate the whole batch first: a batch applies entirely or not at all.
        let ops: Vec<_> = batch.into_ops().collect();
        for (_, key, _) in &ops {
            super::check_key(key)?;
        }
        let mut next = (**self.current.read()).clone();
        for (space, key, value) in ops {
            match value {
                Some(v) => {
                    next.insert((space, Bytes::from(key)), Bytes::from(v));
                }
                None => {
                    next.remove(&(space, Bytes::from(key)));
                }
            }
        }
        *self.current.write() = Arc::new(next);
        Ok(())
    }

    fn is_durable(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn conformance() {
        super::super::conformance::run_all(super::MemoryStore::new);
    }
}
