//! The vector indexes in memory: the registry of every table's indexes, what an item
//! contributes to one (and the checks a written vector gets), and the background fill from
//! the items.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use kura_model::item_codec::decode_item;
use kura_model::keycode::{ScalarType, encode_key_value};
use kura_model::messages::vectors as msg;
use kura_model::{AttributeValue, Item};
use parking_lot::{Mutex, RwLock};

use super::index::{Entry, VectorSlots};
use crate::catalog::{VectorIndexRecord, check_index_key_value};
use crate::error::{EngineError, Result};
use crate::keys;
use kura_store::{Direction, KeyRange, Space, Store};

/// Live figures of one vector index, from its in-memory state.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct VectorStats {
    pub item_count: u64,
    pub size_bytes: u64,
    /// The memory the index takes (vectors, graph, keys), about.
    pub memory_bytes: u64,
    /// Whether searches of more candidates than the exact threshold walk a graph.
    pub approximate: bool,
}

/// Searches over at most this many candidates are exact by default (`kura serve
/// --vector-exact-below`): about 1 ms at 128 dimensions, and the answer a test expects.
pub const DEFAULT_EXACT_BELOW: usize = 10_000;

/// Candidates a graph search keeps per level by default (`kura serve
/// --vector-search-expansion`): recall@10 1.000 on the benchmark's 100,000 × 128 set at
/// about 0.4 ms a search (0.970 at 64; ADR 0023).
pub const DEFAULT_SEARCH_EXPANSION: usize = 128;

/// Every vector index of every table, by table id and index name.
pub struct Vectors {
    indexes: RwLock<HashMap<(u64, String), Arc<LiveIndex>>>,
    exact_below: usize,
    search_expansion: AtomicUsize,
}

impl Default for Vectors {
    fn default() -> Self {
        Vectors::new(DEFAULT_EXACT_BELOW, DEFAULT_SEARCH_EXPANSION)
    }
}

/// One index in memory, and its fill state.
pub(crate) struct LiveIndex {
    pub(crate) record: VectorIndexRecord,
    pub(crate) slots: RwLock<VectorSlots>,
    /// Some while the index is being filled from the items: the keys written since the
    /// fill began, which the fill must not overwrite with what its snapshot saw.
    touched: Mutex<Option<HashSet<Vec<u8>>>>,
    /// Why the last fill failed: the index is not whole, and searches say so.
    failed: Mutex<Option<String>>,
}

impl LiveIndex {
    fn new(record: &VectorIndexRecord, filling: bool, tuning: (usize, usize)) -> LiveIndex {
        let (exact_below, search_expansion) = tuning;
        LiveIndex {
            slots: RwLock::new(VectorSlots::new(
                record.dimensions as usize,
                record.distance,
                exact_below,
                search_expansion,
            )),
            record: record.clone(),
            touched: Mutex::new(filling.then(HashSet::new)),
            failed: Mutex::new(None),
        }
    }

    /// Whether a fill is still running.
    pub(crate) fn filling(&self) -> bool {
        self.touched.lock().is_some()
    }

    /// The error of a fill that did not finish (the index is then not whole).
    pub(crate) fn failure(&self) -> Option<String> {
        self.failed.lock().clone()
    }

    /// A write's change, after its commit. The write that makes the index outgrow exact
    /// search starts its graph on a thread of its own: writes go on meanwhile (recorded,
    /// and replayed into the graph) and searches stay exact until it is done.
    pub(crate) fn apply(self: &Arc<Self>, storage_key: &[u8], entry: Option<Entry>) {
        let mut touched = self.touched.lock();
        if let Some(keys) = touched.as_mut() {
            keys.insert(storage_key.to_vec());
        }
        let seed = {
            let mut slots = self.slots.write();
            slots.set(storage_key, entry);
            slots.graph_due().then(|| slots.begin_graph())
        };
        drop(touched);
        if let Some(seed) = seed {
            let live = self.clone();
            let spawned = std::thread::Builder::new()
                .name("kura-vector-graph".into())
                .spawn(move || {
                    let built = seed.build();
                    live.slots.write().finish_graph(built);
                });
            if let Err(e) = spawned {
                self.slots
                    .write()
                    .finish_graph(Err(EngineError::Internal(format!("no graph thread: {e}"))));
            }
        }
    }
}

impl Vectors {
    pub fn new(exact_below: usize, search_expansion: usize) -> Vectors {
        Vectors {
            indexes: RwLock::new(HashMap::new()),
            exact_below,
            search_expansion: AtomicUsize::new(search_expansion),
        }
    }

    /// What a new index is made with: the exact threshold and the graph's expansion.
    fn tuning(&self) -> (usize, usize) {
        (
            self.exact_below,
            self.search_expansion.load(Ordering::Relaxed),
        )
    }

    /// Changes the candidates every graph search keeps per level, now and for indexes made
    /// later: more finds more true neighbours, and takes longer.
    pub(crate) fn set_search_expansion(&self, expansion: usize) {
        self.search_expansion.store(expansion, Ordering::Relaxed);
        for live in self.indexes.read().values() {
            live.slots.write().set_search_expansion(expansion);
        }
    }

    /// The live index `name` of table `table_id`.
    pub(crate) fn get(&self, table_id: u64, name: &str) -> Option<Arc<LiveIndex>> {
        self.indexes
            .read()
            .get(&(table_id, name.to_owned()))
            .cloned()
    }

    /// Live figures for DescribeTable.
    pub(crate) fn stats(&self, table_id: u64, name: &str) -> VectorStats {
        self.get(table_id, name)
            .map(|live| {
                let slots = live.slots.read();
                VectorStats {
                    item_count: slots.len() as u64,
                    size_bytes: slots.size_bytes(),
                    memory_bytes: slots.memory_bytes(),
                    approximate: slots.has_graph(),
                }
            })
            .unwrap_or_default()
    }

    /// Registers an index; `filling`: it must be filled from the items before it is whole.
    pub(crate) fn add(
        &self,
        table_id: u64,
        record: &VectorIndexRecord,
        filling: bool,
    ) -> Arc<LiveIndex> {
        let live = Arc::new(LiveIndex::new(record, filling, self.tuning()));
        self.indexes
            .write()
            .insert((table_id, record.name.clone()), live.clone());
        live
    }

    /// The index of a write, registered empty if this is its first (a new table's, or a
    /// restored or imported table's being filled by its job).
    pub(crate) fn get_or_add(&self, table_id: u64, record: &VectorIndexRecord) -> Arc<LiveIndex> {
        if let Some(live) = self.get(table_id, &record.name) {
            return live;
        }
        let mut indexes = self.indexes.write();
        indexes
            .entry((table_id, record.name.clone()))
            .or_insert_with(|| Arc::new(LiveIndex::new(record, false, self.tuning())))
            .clone()
    }

    /// Forgets one index (`Some(name)`) or all of a table's.
    pub(crate) fn remove(&self, table_id: u64, name: Option<&str>) {
        self.indexes
            .write()
            .retain(|(id, index), _| *id != table_id || name.is_some_and(|n| n != index));
    }
}

/// What `item` puts into `index`: None when it has no vector or no partition value (it is
/// then not in the index); an error when the vector or partition value is malformed.
pub(crate) fn entry_of(index: &VectorIndexRecord, item: &Item) -> Result<Option<Entry>> {
    let Some(value) = item.get(&index.attribute) else {
        return Ok(None);
    };
    let invalid = |message: String| Err(EngineError::validation(message));
    let AttributeValue::L(elements) = value else {
        return invalid(msg::write_not_a_list(&index.attribute, &index.name));
    };
    if elements.len() != index.dimensions as usize {
        return invalid(msg::write_size_mismatch(
            &index.attribute,
            index.dimensions,
            elements.len(),
            &index.name,
        ));
    }
    let mut vector = Vec::with_capacity(elements.len());
    for (position, element) in elements.iter().enumerate() {
        match as_f32(element) {
            Some(x) => vector.push(x),
            None => {
                return invalid(msg::write_element_type(
                    &index.attribute,
                    position,
                    element.value_type().descriptor(),
                    &index.name,
                ));
            }
        }
    }
    let Some((partition, filters)) = placement(index, item)? else {
        return Ok(None);
    };
    Ok(Some(Entry {
        vector,
        partition,
        filters,
    }))
}

/// Where an item sits in an index apart from its vector: its partition (encoded; None
/// when the index has no HASH element) and its inline filter values.
pub(crate) type Placement = (Option<Vec<u8>>, Vec<Option<AttributeValue>>);

/// Where `item` sits in `index`; None when the index needs a partition value the item
/// lacks.
pub(crate) fn placement(index: &VectorIndexRecord, item: &Item) -> Result<Option<Placement>> {
    let partition = match index.partition_key() {
        None => None,
        Some((name, ty)) => match item.get(name) {
            None => return Ok(None),
            Some(value) => Some(partition_bytes(index, name, ty, value)?),
        },
    };
    let filters = index
        .inline_filters()
        .map(|name| item.get(name).cloned())
        .collect();
    Ok(Some((partition, filters)))
}

/// A number as the index stores it: an f32, refused when out of its range.
pub(crate) fn as_f32(value: &AttributeValue) -> Option<f32> {
    let AttributeValue::N(n) = value else {
        return None;
    };
    let x = n.to_f32();
    x.is_finite().then_some(x)
}

/// A partition value, encoded for the index's map, after the checks a GSI key gets.
pub(crate) fn partition_bytes(
    index: &VectorIndexRecord,
    name: &str,
    ty: ScalarType,
    value: &AttributeValue,
) -> Result<Vec<u8>> {
    check_index_key_value(&index.name, name, ty, value)?;
    let mut out = Vec::new();
    encode_key_value(value, &mut out)
        .map_err(|e| EngineError::Internal(format!("cannot encode a partition value: {e}")))?;
    Ok(out)
}

/// Fills `live` from the table's items in the background, then calls `done` (only when
/// the fill succeeded: a failed one leaves the index marked, and searches refused).
pub(crate) fn fill_in_background(
    store: Arc<dyn Store>,
    table_id: u64,
    live: Arc<LiveIndex>,
    done: impl FnOnce() + Send + 'static,
) {
    let fill_live = live.clone();
    let spawned = std::thread::Builder::new()
        .name("kura-vector-fill".into())
        .spawn(move || {
            let live = fill_live;
            let run = std::panic::AssertUnwindSafe(|| fill(store.as_ref(), table_id, &live));
            let outcome = match std::panic::catch_unwind(run) {
                Ok(outcome) => outcome,
                Err(_) => Err(EngineError::Internal("the fill panicked".into())),
            };
            let failed = outcome.err().map(|e| e.to_string());
            if let Some(e) = &failed {
                tracing::error!(index = %live.record.name, error = %e, "vector index fill failed");
            }
            let ok = failed.is_none();
            *live.failed.lock() = failed;
            *live.touched.lock() = None;
            if ok {
                done();
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "could not start a vector index fill");
        *live.failed.lock() = Some(format!("could not start its fill: {e}"));
        *live.touched.lock() = None;
    }
}

fn fill(store: &dyn Store, table_id: u64, live: &LiveIndex) -> Result<()> {
    let started = std::time::Instant::now();
    let snapshot = store.snapshot()?;
    let prefix = keys::table_prefix(table_id);
    let mut batch: Vec<(Vec<u8>, Entry)> = Vec::with_capacity(512);
    let mut count = 0usize;
    for row in snapshot.range(Space::Items, KeyRange::prefix(&prefix), Direction::Forward) {
        let (key, value) = row?;
        let item = decode_item(&value)
            .map_err(|e| EngineError::Internal(format!("corrupt stored item: {e}")))?;
        // Items written before the index existed may not fit it: they stay out of it.
        if let Ok(Some(entry)) = entry_of(&live.record, &item) {
            batch.push((key.to_vec(), entry));
        }
        if batch.len() == batch.capacity() {
            count += batch.len();
            put_unless_touched(live, &mut batch);
        }
    }
    count += batch.len();
    put_unless_touched(live, &mut batch);
    tracing::info!(
        index = %live.record.name,
        vectors = count,
        seconds = started.elapsed().as_secs_f64(),
        "vector index filled"
    );
    Ok(())
}

fn put_unless_touched(live: &LiveIndex, batch: &mut Vec<(Vec<u8>, Entry)>) {
    let touched = live.touched.lock();
    let mut slots = live.slots.write();
    for (key, entry) in batch.drain(..) {
        if touched.as_ref().is_some_and(|t| t.contains(&key)) {
            continue;
        }
        slots.set(&key, Some(entry));
    }
    // The fill's own thread builds the graph of an index that outgrew exact search.
    slots.build_graph_now();
}
