//! One vector index in memory: the vectors (as contiguous f32 slots, or inside the graph
//! once there is one), each slot's item
//! (its storage key), its partition (the search schema's HASH value) and its inline
//! filter values, and the exact top-k search over them.
//!
//! The items are the durable truth: the index is rebuilt from them when the engine opens
//! (see `super::backfill`) and kept in step with every committed write (`super::apply`).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use kura_model::AttributeValue;

use super::ann::Ann;
use crate::catalog::vector::{Distance, norm};

/// What one item contributes to an index: its vector, partition and filter values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub vector: Vec<f32>,
    /// The HASH attribute's value, encoded (None: the index has no HASH element).
    pub partition: Option<Vec<u8>>,
    /// The INLINE_FILTER attributes' values, by search schema position (None: absent).
    pub filters: Vec<Option<AttributeValue>>,
}

/// Which items' inline filter values a search admits.
pub(crate) type Keep<'a> = &'a dyn Fn(&[Option<AttributeValue>]) -> bool;

/// A scored answer: the item's storage key and its score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hit {
    pub storage_key: Vec<u8>,
    pub score: f64,
}

/// Where an index's vectors live: one copy, never two.
enum Store {
    /// Kura's own: `dimensions` floats per slot (a free slot's are stale).
    Own(Vec<f32>),
    /// The approximate graph's (usearch keeps an f32 copy and gives it back unchanged),
    /// once the index holds more than `exact_below` vectors.
    Graph(Ann),
}

/// The vectors of one index.
pub(crate) struct VectorSlots {
    dimensions: usize,
    distance: Distance,
    store: Store,
    /// Each slot's vector norm (COSINE divides by it).
    norms: Vec<f64>,
    /// Each slot's item, None for a free slot.
    keys: Vec<Option<Vec<u8>>>,
    partitions: Vec<Option<Vec<u8>>>,
    filters: Vec<Vec<Option<AttributeValue>>>,
    by_key: HashMap<Vec<u8>, u32>,
    /// Slots by partition value, for a search that names one.
    by_partition: HashMap<Vec<u8>, Vec<u32>>,
    free: Vec<u32>,
    vector_bytes: u64,
    /// Searches whose candidates (the index, or the partition searched) are at most this
    /// many are exact; larger ones walk the graph.
    exact_below: usize,
    /// Candidates the graph search keeps per level.
    search_expansion: usize,
    /// Some while a graph is being built from a copy of the vectors: the slots changed
    /// since the copy, to be replayed into the graph before it takes over.
    building: Option<Vec<u32>>,
}

/// What a graph is built from, away from the index's lock.
pub(crate) struct GraphSeed {
    dimensions: usize,
    distance: Distance,
    search_expansion: usize,
    data: Vec<f32>,
    slots: Vec<u32>,
}

impl GraphSeed {
    /// The graph of the copied vectors (seconds for tens of thousands of them).
    pub(crate) fn build(self) -> crate::error::Result<Ann> {
        let started = std::time::Instant::now();
        let ann = Ann::new(
            self.dimensions,
            self.distance,
            self.search_expansion,
            self.slots.len() * 2,
        )?;
        for slot in &self.slots {
            let at = *slot as usize * self.dimensions;
            ann.put(*slot, &self.data[at..at + self.dimensions])?;
        }
        tracing::info!(
            vectors = self.slots.len(),
            seconds = started.elapsed().as_secs_f64(),
            "vector index graph built"
        );
        Ok(ann)
    }
}

impl VectorSlots {
    pub(crate) fn new(
        dimensions: usize,
        distance: Distance,
        exact_below: usize,
        search_expansion: usize,
    ) -> Self {
        VectorSlots {
            dimensions,
            distance,
            store: Store::Own(Vec::new()),
            norms: Vec::new(),
            keys: Vec::new(),
            partitions: Vec::new(),
            filters: Vec::new(),
            by_key: HashMap::new(),
            by_partition: HashMap::new(),
            free: Vec::new(),
            vector_bytes: 0,
            exact_below,
            search_expansion,
            building: None,
        }
    }

    pub(crate) fn set_search_expansion(&mut self, expansion: usize) {
        self.search_expansion = expansion;
        if let Store::Graph(ann) = &self.store {
            ann.set_search_expansion(expansion);
        }
    }

    /// Whether searches of more than `exact_below` candidates walk a graph.
    pub(crate) fn has_graph(&self) -> bool {
        matches!(self.store, Store::Graph(_))
    }

    /// The number of items indexed.
    pub(crate) fn len(&self) -> usize {
        self.by_key.len()
    }

    /// The f32 bytes the index holds (DescribeTable's IndexSizeBytes).
    pub(crate) fn size_bytes(&self) -> u64 {
        self.vector_bytes
    }

    /// The memory the index takes, about: vectors (and the graph), norms, keys and maps.
    pub(crate) fn memory_bytes(&self) -> u64 {
        let vectors = match &self.store {
            Store::Own(data) => data.capacity() * 4,
            Store::Graph(ann) => ann.memory_bytes(),
        };
        let key_bytes: usize = self.by_key.keys().map(Vec::len).sum();
        let per_slot = 8 + 3 * 24 + 4;
        let per_item = 24 + 4 + 16;
        (vectors + self.keys.len() * per_slot + self.len() * per_item + 2 * key_bytes) as u64
    }

    /// Puts (or replaces) an item's entry; None removes the item.
    pub(crate) fn set(&mut self, storage_key: &[u8], entry: Option<Entry>) {
        self.remove(storage_key);
        let Some(entry) = entry else { return };
        debug_assert_eq!(entry.vector.len(), self.dimensions);
        let norm = norm(&entry.vector);
        let slot = match self.free.pop() {
            Some(slot) => {
                let i = slot as usize;
                self.norms[i] = norm;
                self.keys[i] = Some(storage_key.to_vec());
                self.partitions[i] = entry.partition.clone();
                self.filters[i] = entry.filters;
                slot
            }
            None => {
                self.norms.push(norm);
                self.keys.push(Some(storage_key.to_vec()));
                self.partitions.push(entry.partition.clone());
                self.filters.push(entry.filters);
                (self.keys.len() - 1) as u32
            }
        };
        if let Some(partition) = entry.partition {
            self.by_partition.entry(partition).or_default().push(slot);
        }
        self.by_key.insert(storage_key.to_vec(), slot);
        self.vector_bytes += (self.dimensions * 4) as u64;
        let stored = match &mut self.store {
            Store::Own(data) => {
                let at = slot as usize * self.dimensions;
                if data.len() < at + self.dimensions {
                    data.resize(at + self.dimensions, 0.0);
                }
                data[at..at + self.dimensions].copy_from_slice(&entry.vector);
                Ok(())
            }
            Store::Graph(ann) => ann.put(slot, &entry.vector),
        };
        if let Err(e) = stored {
            self.leave_graph(e, Some((slot, &entry.vector)));
        }
        if let Some(changed) = &mut self.building {
            changed.push(slot);
        }
    }

    /// Whether the index has outgrown exact search and no graph is built or being built.
    pub(crate) fn graph_due(&self) -> bool {
        matches!(self.store, Store::Own(_))
            && self.building.is_none()
            && self.len() > self.exact_below
    }

    /// A copy of the vectors to build the graph from; changes from now on are recorded
    /// for [`VectorSlots::finish_graph`]. Searches stay exact meanwhile.
    pub(crate) fn begin_graph(&mut self) -> GraphSeed {
        let data = match &self.store {
            Store::Own(data) => data.clone(),
            Store::Graph(_) => Vec::new(),
        };
        let slots = self
            .keys
            .iter()
            .enumerate()
            .filter(|(_, key)| key.is_some())
            .map(|(slot, _)| slot as u32)
            .collect();
        self.building = Some(Vec::new());
        GraphSeed {
            dimensions: self.dimensions,
            distance: self.distance,
            search_expansion: self.search_expansion,
            data,
            slots,
        }
    }

    /// Replays the changes made while `built` was built, and lets it hold the vectors
    /// (Kura's own copy is dropped). A failed build leaves every search exact for good.
    pub(crate) fn finish_graph(&mut self, built: crate::error::Result<Ann>) {
        let changed = self.building.take().unwrap_or_default();
        let Store::Own(data) = &self.store else {
            return;
        };
        let replayed = built.and_then(|ann| {
            for slot in changed {
                let i = slot as usize;
                if self.keys[i].is_some() {
                    ann.put(slot, &data[i * self.dimensions..(i + 1) * self.dimensions])?;
                } else {
                    ann.forget(slot)?;
                }
            }
            Ok(ann)
        });
        match replayed {
            Ok(ann) => self.store = Store::Graph(ann),
            Err(e) => {
                tracing::error!(error = %e, "vector index graph not built; searches stay exact");
                self.exact_below = usize::MAX;
            }
        }
    }

    /// Builds the graph here and now (the background fill's thread, and tests).
    pub(crate) fn build_graph_now(&mut self) {
        if self.graph_due() {
            let seed = self.begin_graph();
            self.finish_graph(seed.build());
        }
    }

    /// Falls back to exact search for good (the graph failed; exact search is never wrong,
    /// only slow): the vectors come back out of the graph into Kura's own copy, with
    /// `pending`, the one the failed call was given. A vector the graph cannot give back
    /// (it failed on it too) leaves the index, and the log says so.
    fn leave_graph(&mut self, e: crate::error::EngineError, pending: Option<(u32, &[f32])>) {
        tracing::error!(error = %e, "vector index graph dropped; searches are exact");
        self.exact_below = usize::MAX;
        let Store::Graph(ann) = &self.store else {
            return;
        };
        let dims = self.dimensions;
        let mut data = vec![0.0f32; self.keys.len() * dims];
        let mut lost = Vec::new();
        for (slot, key) in self.keys.iter().enumerate() {
            let Some(key) = key else { continue };
            let target = &mut data[slot * dims..(slot + 1) * dims];
            match pending {
                Some((at, vector)) if at as usize == slot => target.copy_from_slice(vector),
                _ => {
                    if ann.get(slot as u32, target).is_err() {
                        lost.push(key.clone());
                    }
                }
            }
        }
        self.store = Store::Own(data);
        for key in lost {
            tracing::error!(key = ?key, "vector lost with the graph: the item is out of the index");
            self.remove(&key);
        }
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
        if let Some(changed) = &mut self.building {
            changed.push(slot);
        }
        if let Store::Graph(ann) = &self.store
            && let Err(e) = ann.remove(slot)
        {
            self.leave_graph(e, None);
        }
    }

    /// The `k` nearest items to `query` among those in `partition` (every item when None)
    /// that `keep` accepts, best first. Exact when the candidates are at most
    /// `exact_below` (or there is no graph): the true top k, ties to the smaller storage
    /// key. Larger searches take the graph's candidates, filtered inside the walk, and
    /// score them exactly.
    pub(crate) fn search(
        &self,
        query: &[f32],
        k: usize,
        partition: Option<&[u8]>,
        keep: Option<Keep<'_>>,
    ) -> Vec<Hit> {
        let candidates = match partition {
            Some(value) => self.by_partition.get(value).map_or(0, Vec::len),
            None => self.len(),
        };
        // Without a partition or filters the walk needs no predicate: each call of one
        // crosses from C++ into Rust, and removed slots are skipped by the graph itself.
        let unfiltered = partition.is_none() && keep.is_none();
        let keep = keep.unwrap_or(&|_| true);
        if let Store::Graph(ann) = &self.store
            && candidates > self.exact_below
        {
            let admits = |slot: u32| {
                let i = slot as usize;
                i < self.keys.len()
                    && self.keys[i].is_some()
                    && (partition.is_none() || self.partitions[i].as_deref() == partition)
                    && keep(&self.filters[i])
            };
            let walked = if unfiltered {
                ann.search_all(query, k)
            } else {
                ann.search(query, k, admits)
            };
            match walked {
                Ok(slots) => return self.rank(query, k, slots.into_iter(), &|_| true),
                Err(e) => tracing::error!(error = %e, "graph search failed; searching exactly"),
            }
        }
        match partition {
            Some(value) => {
                let slots = self.by_partition.get(value).into_iter().flatten().copied();
                self.rank(query, k, slots, keep)
            }
            None => self.rank(query, k, 0..self.keys.len() as u32, keep),
        }
    }

    /// The best `k` of `slots` by exact score.
    fn rank(
        &self,
        query: &[f32],
        k: usize,
        slots: impl Iterator<Item = u32>,
        keep: &dyn Fn(&[Option<AttributeValue>]) -> bool,
    ) -> Vec<Hit> {
        let query_norm = norm(query);
        let mut scratch = match self.store {
            Store::Own(_) => Vec::new(),
            Store::Graph(_) => vec![0.0f32; self.dimensions],
        };
        // A max-heap on "worse": its top is the worst of the best k so far.
        let mut best: BinaryHeap<Ranked<'_>> = BinaryHeap::with_capacity(k + 1);
        for slot in slots {
            let i = slot as usize;
            let Some(key) = self.keys[i].as_deref() else {
                continue;
            };
            if !keep(&self.filters[i]) {
                continue;
            }
            let vector = match &self.store {
                Store::Own(data) => &data[i * self.dimensions..(i + 1) * self.dimensions],
                Store::Graph(ann) => match ann.get(slot, &mut scratch) {
                    Ok(()) => &scratch[..],
                    Err(e) => {
                        tracing::error!(error = %e, "vector not read back from the graph");
                        continue;
                    }
                },
            };
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
        let mut slots = VectorSlots::new(2, Distance::Euclidean, usize::MAX, 128);
        slots.set(b"a", entry(&[0.0, 0.0]));
        slots.set(b"b", entry(&[3.0, 4.0]));
        slots.set(b"c", entry(&[1.0, 0.0]));
        slots.set(b"d", entry(&[0.0, 1.0]));
        let hits = slots.search(&[0.0, 0.0], 3, None, None);
        let keys: Vec<&[u8]> = hits.iter().map(|h| h.storage_key.as_slice()).collect();
        assert_eq!(keys, vec![&b"a"[..], b"c", b"d"]);
        assert_eq!(hits[1].score, 1.0);
        slots.set(b"a", None);
        slots.set(b"c", entry(&[10.0, 0.0]));
        let hits = slots.search(&[0.0, 0.0], 2, None, None);
        let keys: Vec<&[u8]> = hits.iter().map(|h| h.storage_key.as_slice()).collect();
        assert_eq!(keys, vec![&b"d"[..], b"b"]);
        assert_eq!(slots.len(), 3);
        assert_eq!(slots.size_bytes(), 3 * 2 * 4);
    }

    #[test]
    fn dot_product_ranks_the_largest_first_and_cosine_ignores_length() {
        let mut slots = VectorSlots::new(2, Distance::DotProduct, usize::MAX, 128);
        slots.set(b"small", entry(&[1.0, 0.0]));
        slots.set(b"large", entry(&[5.0, 0.0]));
        let hits = slots.search(&[1.0, 0.0], 2, None, None);
        assert_eq!(hits[0].storage_key, b"large");
        assert_eq!(hits[0].score, 5.0);
        let mut slots = VectorSlots::new(2, Distance::Cosine, usize::MAX, 128);
        slots.set(b"same", entry(&[5.0, 0.0]));
        slots.set(b"across", entry(&[0.0, 1.0]));
        let hits = slots.search(&[1.0, 0.0], 2, None, None);
        assert_eq!(hits[0].storage_key, b"same");
        assert!(hits[0].score.abs() < 1e-6);
        assert!((hits[1].score - 1.0).abs() < 1e-6);
    }
}

#[cfg(test)]
mod graph_tests {
    use super::*;

    /// Embedding-like data: points near a few centres, in a low-dimensional subspace.
    fn points(n: usize, dims: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut gauss = move || (0..12).map(|_| rng.f32()).sum::<f32>() - 6.0;
        let centres: Vec<Vec<f32>> = (0..8)
            .map(|_| (0..dims).map(|_| gauss()).collect())
            .collect();
        let axes: Vec<Vec<f32>> = (0..4)
            .map(|_| (0..dims).map(|_| gauss() * 0.3).collect())
            .collect();
        (0..n)
            .map(|i| {
                let mut v = centres[i % centres.len()].clone();
                for axis in &axes {
                    let z = gauss();
                    v.iter_mut().zip(axis).for_each(|(x, a)| *x += z * a);
                }
                v.iter_mut().for_each(|x| *x += 0.05 * gauss());
                v
            })
            .collect()
    }

    fn entry(v: &[f32], partition: u8) -> Option<Entry> {
        Some(Entry {
            vector: v.to_vec(),
            partition: Some(vec![partition]),
            filters: Vec::new(),
        })
    }

    #[test]
    fn a_large_index_walks_a_graph_that_finds_the_true_neighbours_and_forgets_deletes() {
        let dims = 16;
        let data = points(3000, dims, 1);
        let mut graph = VectorSlots::new(dims, Distance::Euclidean, 500, 128);
        let mut exact = VectorSlots::new(dims, Distance::Euclidean, usize::MAX, 128);
        for (i, v) in data.iter().enumerate() {
            let key = format!("{i:05}").into_bytes();
            graph.set(&key, entry(v, (i % 2) as u8));
            graph.build_graph_now();
            exact.set(&key, entry(v, (i % 2) as u8));
        }
        assert!(graph.has_graph());
        // Every third item goes away; none may come back.
        for i in (0..3000).step_by(3) {
            let key = format!("{i:05}").into_bytes();
            graph.set(&key, None);
            exact.set(&key, None);
        }
        let (mut found, mut wanted) = (0, 0);
        for q in points(50, dims, 2) {
            for partition in [None, Some(&[1u8][..])] {
                let got = graph.search(&q, 10, partition, None);
                let truth = exact.search(&q, 10, partition, None);
                assert_eq!(got.len(), 10);
                for hit in &got {
                    let i: usize = std::str::from_utf8(&hit.storage_key)
                        .unwrap()
                        .parse()
                        .unwrap();
                    assert_ne!(i % 3, 0, "a deleted item was returned");
                    if partition.is_some() {
                        assert_eq!(i % 2, 1, "an item of another partition was returned");
                    }
                }
                // Scores are exact whatever proposed the candidates.
                assert!(got.windows(2).all(|w| w[0].score <= w[1].score));
                wanted += truth.len();
                found += got.iter().filter(|h| truth.contains(h)).count();
            }
        }
        let recall = found as f64 / wanted as f64;
        assert!(recall >= 0.9, "recall@10 {recall}");
    }

    #[test]
    fn writes_made_while_the_graph_is_built_are_replayed_into_it() {
        let dims = 8;
        let data = points(1200, dims, 3);
        let mut slots = VectorSlots::new(dims, Distance::Euclidean, 900, 128);
        let key = |i: usize| format!("{i:05}").into_bytes();
        for (i, v) in data.iter().enumerate().take(901) {
            slots.set(&key(i), entry(v, 0));
        }
        assert!(slots.graph_due());
        let seed = slots.begin_graph();
        assert!(!slots.graph_due(), "one build at a time");
        // While the graph is built: new items, moved ones and deleted ones.
        for (i, v) in data.iter().enumerate().skip(901) {
            slots.set(&key(i), entry(v, 0));
        }
        let far = vec![50.0f32; dims];
        slots.set(&key(7), entry(&far, 0));
        for i in (0..1200).step_by(5) {
            slots.set(&key(i), None);
        }
        assert!(
            !slots.has_graph(),
            "searches stay exact until the graph is done"
        );
        slots.finish_graph(seed.build());
        assert!(slots.has_graph());
        // 960 candidates, above the threshold: the graph proposes them. Every vector it
        // holds is the current one: its nearest to `far` is the moved item, and no deleted
        // item comes back.
        let hits = slots.search(&far, 1, Some(&[0u8][..]), None);
        assert_eq!(hits[0].storage_key, key(7));
        assert_eq!(hits[0].score, 0.0);
        for q in points(20, dims, 4) {
            for hit in slots.search(&q, 10, Some(&[0u8][..]), None) {
                let i: usize = std::str::from_utf8(&hit.storage_key)
                    .unwrap()
                    .parse()
                    .unwrap();
                assert_ne!(i % 5, 0, "a deleted item was returned");
            }
        }
        assert_eq!(slots.len(), 1200 - 240);
    }
}
