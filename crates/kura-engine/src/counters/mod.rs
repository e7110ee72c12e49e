//! What the engine counts as it works, in plain atomics: capacity consumed per table and
//! index, TTL deletions, stream records, the writer's groups and syncs, the traffic the
//! design advisor reads, and Contributor Insights. The server turns these into Prometheus
//! metrics when it is scraped; nothing here knows of a registry (DESIGN.md).
//!
//! Recording is on the hot path, so it is a read-locked map lookup and a few relaxed
//! atomic adds per request; Contributor Insights adds a short mutex only on tables that
//! have it enabled.

pub mod histogram;
pub mod hot;
mod labels;
pub use labels::key_text;
pub mod insights;
pub mod kinesis;
pub mod recent;
pub mod traffic;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Mutex, RwLock};

use kura_model::{AttributeValue, Item, PrimaryKey};

use crate::capacity::Consumed;
pub use histogram::Histogram;
pub use insights::{Insights, KeyCount, TopKeys};
pub use traffic::{Traffic, TrafficSnapshot};

/// Capacity units, kept in thousandths so that halves (eventually consistent reads) and
/// doubles (transactions) add up exactly in an integer.
#[derive(Debug, Default)]
pub struct Units(AtomicU64);

impl Units {
    pub fn add(&self, units: f64) {
        if units > 0.0 {
            self.0
                .fetch_add((units * 1000.0).round() as u64, Ordering::Relaxed);
        }
    }

    pub fn get(&self) -> f64 {
        self.0.load(Ordering::Relaxed) as f64 / 1000.0
    }
}

/// Read and write units consumed on one table or index, and (indexes) the Query and Scan
/// pages read from it.
#[derive(Debug, Default)]
pub struct Consumption {
    pub read: Units,
    pub write: Units,
    pub pages: AtomicU64,
    pub consistent_pages: AtomicU64,
    /// Pages that had to read the table too: an LSI page fetching unprojected attributes,
    /// or a GSI page whose first key a GetItem or BatchGetItem read within 10 s.
    pub followed_pages: AtomicU64,
    /// Query and Scan requests refused for asking a GSI for attributes it does not project
    /// (a ProjectionExpression naming them, or Select ALL_ATTRIBUTES).
    pub refused_reads: AtomicU64,
}

impl Consumption {
    fn add(&self, units: f64, is_write: bool) {
        if is_write {
            self.write.add(units)
        } else {
            self.read.add(units)
        }
    }
}

/// Whether an index is global or local (CloudWatch reports GSIs only; Kura reports both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IndexScope {
    Global,
    Local,
}

/// One table's counters. Kept by name for as long as the table exists.
#[derive(Default)]
pub struct TableCounters {
    /// Requests that consumed capacity on the table (each table of a batch counts once).
    pub requests: AtomicU64,
    pub consumed: Consumption,
    indexes: RwLock<BTreeMap<(IndexScope, String), Arc<Consumption>>>,
    pub ttl_deleted: AtomicU64,
    pub stream_records_read: AtomicU64,
    /// The furthest sequence number GetRecords served on the table's stream, by stream id.
    stream_positions: Mutex<BTreeMap<(u64, u32), u64>>,
    pub traffic: Traffic,
    pub insights: Insights,
    /// The always-on, sampled count of the most accessed partition keys.
    pub hot: hot::HotKeys,
    /// Keys lately read from the table, keys lately returned first by a GSI page, and keys
    /// lately written by a single-item write.
    reads: recent::RecentKeys,
    gsi_returned: recent::RecentKeys,
    writes: recent::RecentKeys,
}

impl TableCounters {
    /// Capacity one request consumed on this table and its indexes.
    pub fn consume(&self, consumed: &Consumed, is_write: bool) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.consumed.add(consumed.table, is_write);
        for (scope, map) in [
            (IndexScope::Global, &consumed.global),
            (IndexScope::Local, &consumed.local),
        ] {
            for (name, units) in map {
                self.index(scope, name).add(*units, is_write);
            }
        }
    }

    fn index(&self, scope: IndexScope, name: &str) -> Arc<Consumption> {
        let key = (scope, name.to_owned());
        if let Some(found) = self.indexes.read().get(&key) {
            return found.clone();
        }
        self.indexes.write().entry(key).or_default().clone()
    }

    /// A Query or Scan page read from an index; `fetched` when it read the table too.
    pub fn index_page(&self, scope: IndexScope, name: &str, consistent: bool, fetched: bool) {
        let index = self.index(scope, name);
        index.pages.fetch_add(1, Ordering::Relaxed);
        if consistent {
            index.consistent_pages.fetch_add(1, Ordering::Relaxed);
        }
        if fetched {
            index.followed_pages.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A Query or Scan refused for asking the GSI `name` for attributes it does not project.
    pub fn gsi_read_refused(&self, name: &str) {
        let index = self.index(IndexScope::Global, name);
        index.refused_reads.fetch_add(1, Ordering::Relaxed);
    }

    /// A GSI page whose first item has table key `storage_key`: a GetItem or BatchGetItem
    /// of it within 10 s counts the page as not covered by the index. `index_number` is the
    /// index's number in the table (its low byte tags the mark).
    pub fn gsi_page_returned(&self, storage_key: &[u8], index_number: u32, now_ms: i64) {
        self.gsi_returned.mark(
            recent::Slot::of(storage_key),
            now_ms,
            (index_number & 0xff) as u8,
        );
    }

    /// A table read of `storage_key` (GetItem, BatchGetItem) at `now_ms`: remembered for
    /// read-modify-write, and checked against GSI pages that returned it (`gsis` maps a
    /// mark's tag to the index's name).
    pub fn key_read(&self, storage_key: &[u8], now_ms: i64, gsis: &dyn Fn(u8) -> Option<String>) {
        let slot = recent::Slot::of(storage_key);
        self.reads.mark(slot, now_ms, 0);
        if let Some(tag) = self.gsi_returned.take_within(slot, now_ms, 10_000)
            && let Some(name) = gsis(tag)
        {
            self.index(IndexScope::Global, &name)
                .followed_pages
                .fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A PutItem, UpdateItem or DeleteItem of the key in `slot` at `now_ms`.
    pub fn key_written(&self, slot: recent::Slot, now_ms: i64) {
        self.writes.mark(slot, now_ms, 0);
    }

    /// An eventually consistent GetItem of `storage_key` at `now_ms`: a read that may miss
    /// the write when that key was written within the second before
    /// (`api.write-then-read-eventual`).
    pub fn eventual_read(&self, storage_key: &[u8], now_ms: i64) {
        let written = self
            .writes
            .take_within(recent::Slot::of(storage_key), now_ms, 1_000)
            .is_some();
        self.traffic.eventual_get(written);
    }

    /// A PutItem that replaced an item: a read-modify-write when the key was read within
    /// 5 s before.
    pub fn key_replaced(&self, slot: recent::Slot, now_ms: i64) {
        let read_first = self.reads.take_within(slot, now_ms, 5_000).is_some();
        self.traffic.replaced(read_first);
    }

    /// GetRecords served `records` of shard `shard` of stream `stream`, up to `next_seq`.
    pub fn stream_read(&self, stream: u64, shard: u32, records: usize, next_seq: u64) {
        self.stream_records_read
            .fetch_add(records as u64, Ordering::Relaxed);
        let mut positions = self.stream_positions.lock();
        let at = positions.entry((stream, shard)).or_default();
        *at = (*at).max(next_seq);
    }

    /// Forgets the read positions of stream `stream`'s shards not in `live`.
    pub fn retain_stream_positions(&self, stream: u64, live: &[u32]) {
        self.stream_positions
            .lock()
            .retain(|(s, shard), _| *s != stream || live.contains(shard));
    }

    /// The first sequence number of a shard no GetRecords has served yet, once one has.
    pub fn stream_position(&self, stream: u64, shard: u32) -> Option<u64> {
        self.stream_positions.lock().get(&(stream, shard)).copied()
    }

    /// Capacity consumed per index so far.
    pub fn index_consumption(&self) -> Vec<(IndexScope, String, Arc<Consumption>)> {
        self.indexes
            .read()
            .iter()
            .map(|((scope, name), c)| (*scope, name.clone(), c.clone()))
            .collect()
    }
}

/// The writer's group commit: how many writes each synced batch carried, and how long the
/// commit (with its sync) took.
pub struct WriterCounters {
    pub group_size: Histogram,
    pub commit_seconds: Histogram,
}

impl Default for WriterCounters {
    fn default() -> Self {
        WriterCounters {
            group_size: Histogram::new(&[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]),
            commit_seconds: Histogram::new(histogram::LATENCY_BUCKETS),
        }
    }
}

tokio::task_local! {
    /// Set while a request of the web console runs (see [`counted_apart`]).
    static CONSOLE: ();
}

/// Runs `request` with its traffic counted apart from the application's: the web
/// console's browsing must not raise the design advisor's findings, fill Contributor
/// Insights' top keys or add to the application's consumed capacity (issue 36). The
/// engine records on the request's own task, so a task-local marks it.
pub async fn counted_apart<F: std::future::Future>(request: F) -> F::Output {
    CONSOLE.scope((), request).await
}

/// Whether the running task is a request [`counted_apart`].
fn apart() -> bool {
    CONSOLE.try_with(|_| ()).is_ok()
}

/// Every counter of one engine.
#[derive(Default)]
pub struct Counters {
    tables: RwLock<HashMap<String, Arc<TableCounters>>>,
    /// The console's requests, by table: never read as the application's.
    console: RwLock<HashMap<String, Arc<TableCounters>>>,
    pub writer: WriterCounters,
    /// Reads of Kinesis streams, by stream name.
    pub kinesis: kinesis::KinesisCounters,
    /// Capacity emulation, when on: consumed capacity is also taken from its buckets.
    pub(crate) charge: Option<Charge>,
    /// When counting began (epoch ms on the engine's clock): what traffic evidence covers.
    since_ms: i64,
}

/// What taking consumed capacity from the throttle's buckets needs.
pub(crate) struct Charge {
    pub throttle: Arc<crate::throttle::Throttle>,
    pub catalog: Arc<crate::catalog::Catalog>,
    pub clock: Arc<dyn crate::clock::Clock>,
}

impl Counters {
    pub(crate) fn with_charge(charge: Option<Charge>, since_ms: i64) -> Self {
        Counters {
            charge,
            since_ms,
            ..Counters::default()
        }
    }

    /// When counting began (epoch ms): the traffic the counters hold is all since then.
    pub fn since_ms(&self) -> i64 {
        self.since_ms
    }

    /// The counters the running request records into for `table`, created on first use:
    /// the application's, or the console's for a request [`counted_apart`].
    pub fn table(&self, table: &str) -> Arc<TableCounters> {
        if apart() {
            return Counters::entry(&self.console, table);
        }
        self.application(table)
    }

    /// The application's counters of `table`, whoever asks (turning Contributor Insights
    /// on from the console turns it on for the application's traffic).
    pub fn application(&self, table: &str) -> Arc<TableCounters> {
        Counters::entry(&self.tables, table)
    }

    /// The console's own traffic on `table`, if it has any.
    pub fn console(&self, table: &str) -> Option<Arc<TableCounters>> {
        self.console.read().get(table).cloned()
    }

    fn entry(map: &RwLock<HashMap<String, Arc<TableCounters>>>, table: &str) -> Arc<TableCounters> {
        if let Some(found) = map.read().get(table) {
            return found.clone();
        }
        map.write().entry(table.to_owned()).or_default().clone()
    }

    /// The counters of `table` if it has any yet.
    pub fn existing(&self, table: &str) -> Option<Arc<TableCounters>> {
        self.tables.read().get(table).cloned()
    }

    /// Records capacity consumed on one table.
    pub fn consume(&self, table: &str, consumed: &Consumed, is_write: bool) {
        self.table(table).consume(consumed, is_write);
        self.charge(table, consumed, is_write, None);
    }

    /// Takes consumed capacity from the throttle's buckets (when capacity is emulated),
    /// and from the bucket of the partition key value `partition` when given.
    pub(crate) fn charge(
        &self,
        table: &str,
        consumed: &Consumed,
        is_write: bool,
        partition: Option<&AttributeValue>,
    ) {
        let Some(charge) = &self.charge else {
            return;
        };
        if let Some(record) = charge.catalog.get(table) {
            self.charge_table(&record, consumed, is_write, partition);
        }
    }

    /// [`Counters::charge`] on a table record the request already holds.
    pub(crate) fn charge_table(
        &self,
        table: &crate::catalog::TableRecord,
        consumed: &Consumed,
        is_write: bool,
        partition: Option<&AttributeValue>,
    ) {
        let Some(charge) = &self.charge else {
            return;
        };
        let partition = partition.map(key_text);
        charge.throttle.consume(
            table,
            consumed,
            crate::throttle::Access::of(is_write),
            partition.as_deref(),
            charge.clock.now_ms(),
        );
    }

    /// Records capacity consumed on several tables (batches, transactions).
    pub fn consume_all(&self, consumed: &BTreeMap<String, Consumed>, is_write: bool) {
        for (table, c) in consumed {
            self.consume(table, c, is_write);
        }
    }

    /// Every table with counters, by name.
    pub fn tables(&self) -> BTreeMap<String, Arc<TableCounters>> {
        self.tables
            .read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Keeps the counters of the tables `exists` names only (a request in flight while its
    /// table was deleted can bring an entry back; a scrape drops it again).
    pub fn retain(&self, exists: impl Fn(&str) -> bool) {
        self.tables.write().retain(|name, _| exists(name));
        self.console.write().retain(|name, _| exists(name));
    }

    /// Drops a deleted table's counters (a table created later under the name starts
    /// from zero, as a new CloudWatch dimension would).
    pub fn forget(&self, table: &str) {
        self.tables.write().remove(table);
        self.console.write().remove(table);
    }
}

/// How a key is shown: its partition key, and `partition | sort` with a sort key (as
/// Contributor Insights lists items).
pub fn key_label(key: &PrimaryKey) -> String {
    let partition = key_text(&key.hash);
    match &key.range {
        Some(sort) => insights::item_label(&partition, &key_text(sort)),
        None => partition,
    }
}

/// Records one item's key with the table's (`index` None) or a GSI's Contributor Insights.
pub fn note_key(stats: &TableCounters, index: Option<&str>, key: &PrimaryKey, now_ms: i64) {
    let partition = key_text(&key.hash);
    let sort = key.range.as_ref().map(key_text);
    stats.insights.accessed(
        index,
        &insights::EventKey {
            partition: &partition,
            sort: sort.as_deref(),
        },
        now_ms,
    );
}

/// [`note_key`] for an item read through a table or index whose key attributes are
/// `partition` and `sort`.
pub fn note_item(
    stats: &TableCounters,
    index: Option<&str>,
    (partition, sort): (&str, Option<&str>),
    item: &Item,
    now_ms: i64,
) {
    let Some(hash) = item.get(partition) else {
        return;
    };
    let key = PrimaryKey {
        hash: hash.clone(),
        range: sort.and_then(|s| item.get(s)).cloned(),
    };
    note_key(stats, index, &key, now_ms);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_add_halves_and_doubles_exactly() {
        let u = Units::default();
        for _ in 0..3 {
            u.add(0.5);
        }
        u.add(2.0);
        assert_eq!(u.get(), 3.5);
    }

    #[test]
    fn consumption_splits_table_and_indexes() {
        let stats = Counters::default();
        let mut c = Consumed::table(2.0);
        c.global.insert("g".into(), 1.0);
        c.local.insert("l".into(), 0.5);
        stats.consume("t", &c, true);
        stats.consume("t", &Consumed::table(0.5), false);
        let t = stats.existing("t").expect("counted");
        assert_eq!(t.consumed.write.get(), 2.0);
        assert_eq!(t.consumed.read.get(), 0.5);
        let indexes = t.index_consumption();
        assert_eq!(indexes.len(), 2);
        assert_eq!(indexes[0].1, "g");
        assert_eq!(indexes[0].2.write.get(), 1.0);
        assert_eq!(indexes[1].2.write.get(), 0.5);
        stats.forget("t");
        assert!(stats.existing("t").is_none());
    }
}
