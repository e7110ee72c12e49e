//! The approximate nearest-neighbour graph of a large vector index: usearch's HNSW
//! (ADR 0023), keyed by slot number. Once an index has a graph, the graph's f32 copy is the
//! index's only one: it proposes candidates, and their scores are computed again from the
//! vectors it gives back, so every reported score is exact.

use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use crate::catalog::vector::Distance;
use crate::error::{EngineError, Result};

/// Candidates kept per level while inserting (the graph's quality; the search's own is
/// `--vector-search-expansion`).
const EXPANSION_ADD: usize = 128;
const CONNECTIVITY: usize = 16;

pub(crate) struct Ann {
    index: Index,
}

fn failed(what: &str, e: impl std::fmt::Display) -> EngineError {
    EngineError::Internal(format!("vector index graph: {what}: {e}"))
}

impl Ann {
    pub(crate) fn new(
        dimensions: usize,
        distance: Distance,
        search_expansion: usize,
        capacity: usize,
    ) -> Result<Ann> {
        let options = IndexOptions {
            dimensions,
            metric: match distance {
                Distance::Cosine => MetricKind::Cos,
                Distance::Euclidean => MetricKind::L2sq,
                Distance::DotProduct => MetricKind::IP,
            },
            quantization: ScalarKind::F32,
            connectivity: CONNECTIVITY,
            expansion_add: EXPANSION_ADD,
            expansion_search: search_expansion,
            multi: false,
        };
        let index = Index::new(&options).map_err(|e| failed("create", e))?;
        index
            .reserve(capacity.max(1024))
            .map_err(|e| failed("reserve", e))?;
        Ok(Ann { index })
    }

    /// Adds (or replaces) slot `slot`'s vector.
    pub(crate) fn put(&self, slot: u32, vector: &[f32]) -> Result<()> {
        let key = u64::from(slot);
        if self.index.contains(key) {
            self.index.remove(key).map_err(|e| failed("remove", e))?;
        }
        if self.index.size() + 1 > self.index.capacity() {
            self.index
                .reserve(self.index.capacity() * 2)
                .map_err(|e| failed("reserve", e))?;
        }
        self.index.add(key, vector).map_err(|e| failed("add", e))
    }

    /// Removes slot `slot`'s vector if the graph has it.
    pub(crate) fn forget(&self, slot: u32) -> Result<()> {
        if self.index.contains(u64::from(slot)) {
            self.remove(slot)?;
        }
        Ok(())
    }

    pub(crate) fn remove(&self, slot: u32) -> Result<()> {
        self.index
            .remove(u64::from(slot))
            .map(|_| ())
            .map_err(|e| failed("remove", e))
    }

    /// Candidates a search keeps per level (TopK when it is more).
    pub(crate) fn set_search_expansion(&self, expansion: usize) {
        self.index.change_expansion_search(expansion);
    }

    /// Slot `slot`'s vector, exactly as it was put, into `into`.
    pub(crate) fn get(&self, slot: u32, into: &mut [f32]) -> Result<()> {
        match self.index.get(u64::from(slot), into) {
            Ok(found) if found > 0 => Ok(()),
            Ok(_) => Err(failed("get", format!("slot {slot} is not in the graph"))),
            Err(e) => Err(failed("get", e)),
        }
    }

    /// The memory the graph takes, vectors included.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.index.memory_usage()
    }

    /// Up to `count` slots near `query`, any of them.
    pub(crate) fn search_all(&self, query: &[f32], count: usize) -> Result<Vec<u32>> {
        let matches = self
            .index
            .search(query, count)
            .map_err(|e| failed("search", e))?;
        Ok(slots_of(&matches))
    }

    /// Up to `count` slots near `query` that `keep` accepts; the filter runs inside the
    /// graph walk, so the answer is full whenever enough slots pass it.
    pub(crate) fn search(
        &self,
        query: &[f32],
        count: usize,
        keep: impl Fn(u32) -> bool,
    ) -> Result<Vec<u32>> {
        let matches = self
            .index
            .filtered_search(query, count, |key| u32::try_from(key).is_ok_and(&keep))
            .map_err(|e| failed("search", e))?;
        Ok(slots_of(&matches))
    }
}

/// The slots a search found, nearest first.
fn slots_of(matches: &usearch::ffi::Matches) -> Vec<u32> {
    matches
        .keys
        .iter()
        .filter_map(|k| u32::try_from(*k).ok())
        .collect()
}
