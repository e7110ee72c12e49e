//! One vector index in memory: the vectors as contiguous f32 slots, each slot's item
//! (its storage key), its partition (the search schema's HASH value) and its inline
//! filter values, and the exact top-k search over them.
//!
//! The items are the durable truth: the index is rebuilt from them when the engine opens
//! (see `super::backfill`) and kept in step with every committed write (`super::apply`).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use kura_model::AttributeValue;

use super::definition::Distance;

/// What one item contributes to an index: its vector, partition and filter values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub vector: Vec<f32>,
    /// The HASH attribute's value, encoded (None: the index has no HASH element).
    pub partition: Option<Vec<u8>>,
    /// The INLINE_FILTER attributes' values, by search schema position (None: absent).
    pub filters: Vec<Option<AttributeValue>>,
}

/// A scored answer: the item's storage key and its score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hit {
    pub storage_key: Vec<u8>,
    pub score: f64,
}

/// The vectors of one index.
#[derive(Debug)]
pub(crate) struct VectorSlots {
    dimensions: usize,
    distance: Distance,
    /// `dimensions` floats per slot; a free slot's are stale.
    data: Vec<f32>,
    /// Each slot's vector norm (COSINE divides by it).
    norms: Vec<f32>,
    /// Each slot's item, None for a free slot.
    keys: Vec<Option<Vec<u8>>>,
    partitions: Vec<Option<Vec<u8>>>,
    filters: Vec<Vec<Option<AttributeValue>>>,
    by_key: HashMap<Vec<u8>, u32>,
    /// Slots by partition value, for a search that names one.
    by_partition: HashMap<Vec<u8>, Vec<u32>>,
    free: Vec<u32>,
    vector_bytes: u64,
}

impl VectorSlots {
    pub(crate) fn new(dimensions: usize, distance: Distance) -> Self {
        VectorSlots {
            dimensions,
            distance,
            data: Vec::new(),
            norms: Vec::new(),
            keys: Vec::new(),
            partitions: Vec::new(),
            filters: Vec::new(),
            by_key: HashMap::new(),
            by_partition: HashMap::new(),
            free: Vec::new(),
            vector_bytes: 0,
        }
    }

    /// The number of items indexed.
    pub(crate) fn len(&self) -> usize {
        self.by_key.len()
    }

    /// The f32 bytes the index holds (DescribeTable's IndexSizeBytes).
    pub(crate) fn size_bytes(&self) -> u64 {
        self.vector_bytes
    }

    /// Puts (or replaces) an item's entry; None removes the item.
    pub(crate) fn set(&mut self, storage_key: &[u8], entry: Option<Entry>) {
        self.remove(storage_key);
        let Some(entry) = entry else { return };
        debug_assert_eq!(entry.vector.len(), self.dimensions);
        let norm = entry.vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        let slot = match self.free.pop() {
            Some(slot) => {
                let at = slot as usize * self.dimensions;
                self.data[at..at + self.dimensions].copy_from_slice(&entry.vector);
                self.norms[slot as usize] = norm;
                self.keys[slot as usize] = Some(storage_key.to_vec());
                self.partitions[slot as usize] = entry.partition.clone();
                self.filters[slot as usize] = entry.filters;
                slot
            }
            None => {
                let slot = self.keys.len() as u32;
                self.data.extend_from_slice(&entry.vector);
                self.norms.push(norm);
                self.keys.push(Some(storage_key.to_vec()));
                self.partitions.push(entry.partition.clone());
                self.filters.push(entry.filters);
                slot
            }
        };
        if let Some(partition) = entry.partition {
            self.by_partition.entry(partition).or_default().push(slot);
        }
        self.by_key.insert(storage_key.to_vec(), slot);
        self.vector_bytes += (self.dimensions * 4) as u64;
    }

    fn remove(&mut self, storage_key: &[u8]) {
        let Some(slot) = self.by_key.remove(storage_key) else {
            return;
        };
        let i = slot as usize;
        self.keys[i] = None;
        self.filters[i] = Vec::new();
        if let Some(partition) = self.partitions[i].take()
            && let Some(slots) = self.by_partition.get_mut(&partition)
        {
            slots.retain(|s| *s != slot);
            if slots.is_empty() {
                self.by_partition.remove(&partition);
            }
        }
        self.free.push(slot);
        self.vector_bytes -= (self.dimensions * 4) as u64;
    }

    /// The exact `k` nearest items to `query` among those in `partition` (every item when
    /// None) that `keep` accepts, best first. Ties go to the smaller storage key, so the
    /// answer is deterministic.
    pub(crate) fn search(
        &self,
        query: &[f32],
        k: usize,
        partition: Option<&[u8]>,
        keep: &dyn Fn(&[Option<AttributeValue>]) -> bool,
    ) -> Vec<Hit> {
        let query_norm = query.iter().map(|x| x * x).sum::<f32>().sqrt();
        // A max-heap on "worse": its top is the worst of the best k so far.
        let mut best: BinaryHeap<Ranked<'_>> = BinaryHeap::with_capacity(k + 1);
        let mut consider = |slot: u32| {
            let i = slot as usize;
            let Some(key) = self.keys[i].as_deref() else {
                return;
            };
            if !keep(&self.filters[i]) {
                return;
            }
            let at = i * self.dimensions;
            let vector = &self.data[at..at + self.dimensions];
            let score = self
                .distance
                .score(query, query_norm, vector, self.norms[i]);
            let candidate = Ranked {
                badness: self.distance.badness(score),
                score,
                key,
            };
            if best.len() < k {
                best.push(candidate);
            } else if let Some(worst) = best.peek()
                && candidate < *worst
            {
                best.pop();
                best.push(candidate);
            }
        };
        match partition {
            Some(value) => {
                for &slot in self.by_partition.get(value).into_iter().flatten() {
                    consider(slot);
                }
            }
            None => {
                for slot in 0..self.keys.len() as u32 {
                    consider(slot);
                }
            }
        }
        best.into_sorted_vec()
            .into_iter()
            .map(|r| Hit {
                storage_key: r.key.to_vec(),
                score: r.score,
            })
            .collect()
    }
}

/// A candidate ordered by how far it is from the query (then by key): smaller is better.
struct Ranked<'a> {
    badness: f64,
    score: f64,
    key: &'a [u8],
}

impl PartialEq for Ranked<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked<'_> {}

impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.badness
            .total_cmp(&other.badness)
            .then_with(|| self.key.cmp(other.key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(v: &[f32]) -> Option<Entry> {
        Some(Entry {
            vector: v.to_vec(),
            partition: None,
            filters: Vec::new(),
        })
    }

    #[test]
    fn exact_search_orders_by_distance_then_key_and_forgets_removed_items() {
        let mut slots = VectorSlots::new(2, Distance::Euclidean);
        slots.set(b"a", entry(&[0.0, 0.0]));
        slots.set(b"b", entry(&[3.0, 4.0]));
        slots.set(b"c", entry(&[1.0, 0.0]));
        slots.set(b"d", entry(&[0.0, 1.0]));
        let hits = slots.search(&[0.0, 0.0], 3, None, &|_| true);
        let keys: Vec<&[u8]> = hits.iter().map(|h| h.storage_key.as_slice()).collect();
        assert_eq!(keys, vec![&b"a"[..], b"c", b"d"]);
        assert_eq!(hits[1].score, 1.0);
        slots.set(b"a", None);
        slots.set(b"c", entry(&[10.0, 0.0]));
        let hits = slots.search(&[0.0, 0.0], 2, None, &|_| true);
        let keys: Vec<&[u8]> = hits.iter().map(|h| h.storage_key.as_slice()).collect();
        assert_eq!(keys, vec![&b"d"[..], b"b"]);
        assert_eq!(slots.len(), 3);
        assert_eq!(slots.size_bytes(), 3 * 2 * 4);
    }

    #[test]
    fn dot_product_ranks_the_largest_first_and_cosine_ignores_length() {
        let mut slots = VectorSlots::new(2, Distance::DotProduct);
        slots.set(b"small", entry(&[1.0, 0.0]));
        slots.set(b"large", entry(&[5.0, 0.0]));
        let hits = slots.search(&[1.0, 0.0], 2, None, &|_| true);
        assert_eq!(hits[0].storage_key, b"large");
        assert_eq!(hits[0].score, 5.0);
        let mut slots = VectorSlots::new(2, Distance::Cosine);
        slots.set(b"same", entry(&[5.0, 0.0]));
        slots.set(b"across", entry(&[0.0, 1.0]));
        let hits = slots.search(&[1.0, 0.0], 2, None, &|_| true);
        assert_eq!(hits[0].storage_key, b"same");
        assert!(hits[0].score.abs() < 1e-6);
        assert!((hits[1].score - 1.0).abs() < 1e-6);
    }
}
