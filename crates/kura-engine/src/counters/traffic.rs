//! What the design advisor reads about a table's traffic (docs/advisor.md): how it is
//! scanned, filtered, paged and read, and what its batches left unprocessed. Plain
//! counters, always on: each is one relaxed atomic add where the request already is.

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

/// Items at least this large count as near the 400 KB item limit (Kura's threshold:
/// 90% of the limit).
pub const NEAR_LIMIT_BYTES: usize = kura_model::limits::MAX_ITEM_SIZE / 10 * 9;

#[derive(Default)]
pub struct Traffic {
    scans: AtomicU64,
    scanned: AtomicU64,
    scan_returned: AtomicU64,
    filtered_reads: AtomicU64,
    filter_evaluated: AtomicU64,
    filter_kept: AtomicU64,
    filtered_queries: AtomicU64,
    query_filter_evaluated: AtomicU64,
    query_filter_kept: AtomicU64,
    reads: AtomicU64,
    consistent_reads: AtomicU64,
    unprojected_queries: AtomicU64,
    unprojected_scans: AtomicU64,
    unprojected_gsi_reads: AtomicU64,
    pages_with_more: AtomicU64,
    pages_continued: AtomicU64,
    pages_followed: AtomicU64,
    /// Cut pages not remembered because [`MAX_WAITING`] were already waiting.
    pages_untracked: AtomicU64,
    /// Fingerprints of the LastEvaluatedKeys of pages the size limit cut, awaiting the
    /// request that continues each: how many cuts of that page wait, and when the last was.
    cut_waiting: Mutex<std::collections::HashMap<u64, (u32, std::time::Instant)>>,
    unprocessed_returned: AtomicU64,
    unprocessed_retried: AtomicU64,
    near_limit_writes: AtomicU64,
    near_limit_example: Mutex<Option<String>>,
    updates: AtomicU64,
    unguarded_updates: AtomicU64,
    replacing_puts: AtomicU64,
    read_modify_writes: AtomicU64,
    dropping_puts: AtomicU64,
    dropped_example: Mutex<Option<String>>,
    creating_puts: AtomicU64,
    unguarded_creates: AtomicU64,
    conditional_puts: AtomicU64,
    index_key_refusals: AtomicU64,
    index_key_example: Mutex<Option<String>>,
    appending_updates: AtomicU64,
    deletes: AtomicU64,
    unchanged_puts: AtomicU64,
    eventual_gets: AtomicU64,
    reads_after_write: AtomicU64,
    /// Whether the table's stream was turned off and not yet on again, the writes since,
    /// and the switches (off, then on) that had writes between.
    stream_paused: std::sync::atomic::AtomicBool,
    gap_writes: AtomicU64,
    switch_gaps: AtomicU64,
    switch_gap_writes: AtomicU64,
    nested_filters: AtomicU64,
    /// Query and Scan pages whose filter uses `contains`.
    contains_filters: AtomicU64,
    /// Attributes filters searched with `contains` (at most [`MAX_CONTAINS`] names).
    contains_attributes: Mutex<std::collections::BTreeSet<String>>,
    /// Unconditional PutItem/DeleteItem: the current 10 s window's start and count, and how
    /// many windows reached [`BULK_WRITES`].
    single_writes_since_ms: std::sync::atomic::AtomicI64,
    single_writes_in_window: AtomicU64,
    bulk_windows: AtomicU64,
    /// Keys a batch answered as unprocessed, awaiting their retry (bounded).
    unprocessed_waiting: Mutex<std::collections::HashSet<Vec<u8>>>,
    /// Changes another region sent that a later write from a third place had already
    /// replaced here: concurrent writes to one item that last writer wins settled.
    replica_conflicts: AtomicU64,
    replica_conflict_example: Mutex<Option<String>>,
}

/// Unconditional single-item writes to one table within [`BULK_WINDOW_MS`] that count as a
/// bulk load better sent with BatchWriteItem (Kura's threshold, docs/advisor.md).
pub const BULK_WRITES: u64 = 100;
pub const BULK_WINDOW_MS: i64 = 10_000;

/// Most attribute names remembered from `contains` filters, per table.
const MAX_CONTAINS: usize = 32;

/// Most unprocessed keys (and cut pages) remembered per table while they wait for a retry
/// (or a continuation).
const MAX_WAITING: usize = 10_000;

/// A cut page younger than this may be about to be continued: not counted as dropped.
const IN_FLIGHT: std::time::Duration = std::time::Duration::from_secs(2);

/// A copy of a table's traffic counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrafficSnapshot {
    pub scans: u64,
    pub scanned_items: u64,
    pub scan_returned_items: u64,
    pub filtered_reads: u64,
    pub filter_evaluated_items: u64,
    pub filter_kept_items: u64,
    pub filtered_queries: u64,
    pub query_filter_evaluated_items: u64,
    pub query_filter_kept_items: u64,
    pub reads: u64,
    pub consistent_reads: u64,
    pub unprojected_queries: u64,
    pub unprojected_scans: u64,
    pub unprojected_gsi_reads: u64,
    pub pages_with_more: u64,
    pub pages_continued: u64,
    pub pages_followed: u64,
    /// Cut pages no request has continued, leaving out the last few seconds' (a client may
    /// be about to) and the untracked.
    pub pages_unfollowed: u64,
    pub pages_untracked: u64,
    pub unprocessed_returned: u64,
    pub unprocessed_retried: u64,
    pub near_limit_writes: u64,
    pub near_limit_example: Option<String>,
    pub updates: u64,
    pub unguarded_updates: u64,
    pub replacing_puts: u64,
    pub read_modify_writes: u64,
    pub dropping_puts: u64,
    pub dropped_example: Option<String>,
    pub creating_puts: u64,
    pub unguarded_creates: u64,
    pub conditional_puts: u64,
    pub index_key_refusals: u64,
    pub index_key_example: Option<String>,
    pub appending_updates: u64,
    pub deletes: u64,
    pub unchanged_puts: u64,
    pub eventual_gets: u64,
    pub reads_after_write: u64,
    pub switch_gaps: u64,
    pub switch_gap_writes: u64,
    pub nested_filters: u64,
    pub contains_filters: u64,
    pub contains_attributes: Vec<String>,
    pub bulk_windows: u64,
    pub replica_conflicts: u64,
    pub replica_conflict_example: Option<String>,
}

/// A page's fingerprint: its key and the request's Limit. A LastEvaluatedKey and the
/// ExclusiveStartKey of the request that follows it have the same one (numbers are kept in
/// canonical form, maps in name order); a client paging the same items with another Limit
/// passes through the same keys but follows its own pages, not another client's.
pub fn page_fingerprint(key: &kura_model::Item, limit: Option<usize>) -> u64 {
    use std::hash::{Hash, Hasher};
    // SipHash with fixed keys: the same key, the same fingerprint, in every request.
    let mut hasher = std::hash::DefaultHasher::new();
    limit.hash(&mut hasher);
    for (name, value) in key {
        name.hash(&mut hasher);
        serde_json::to_string(value)
            .unwrap_or_default()
            .hash(&mut hasher);
    }
    hasher.finish()
}

fn add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

impl Traffic {
    /// A Scan page: items read and items returned.
    pub fn scan(&self, scanned: usize, returned: usize) {
        add(&self.scans, 1);
        add(&self.scanned, scanned as u64);
        add(&self.scan_returned, returned as u64);
    }

    /// A Query or Scan page with a filter: items it evaluated and kept.
    pub fn filtered(&self, evaluated: usize, kept: usize, scan: bool) {
        add(&self.filtered_reads, 1);
        add(&self.filter_evaluated, evaluated as u64);
        add(&self.filter_kept, kept as u64);
        if !scan {
            add(&self.filtered_queries, 1);
            add(&self.query_filter_evaluated, evaluated as u64);
            add(&self.query_filter_kept, kept as u64);
        }
    }

    /// A GetItem, a BatchGetItem's table, a Query or Scan page: consistent or not.
    pub fn read(&self, consistent: bool) {
        add(&self.reads, 1);
        if consistent {
            add(&self.consistent_reads, 1);
        }
    }

    /// A Query or Scan answering whole items (no ProjectionExpression, AttributesToGet or
    /// COUNT): of the table or an LSI, or of a GSI.
    pub fn unprojected(&self, scan: bool, gsi: bool) {
        let counter = match (gsi, scan) {
            (true, _) => &self.unprojected_gsi_reads,
            (false, true) => &self.unprojected_scans,
            (false, false) => &self.unprojected_queries,
        };
        add(counter, 1);
    }

    /// A Query or Scan page: the fingerprint of its LastEvaluatedKey when the 1 MB page
    /// size cut it (a key the client must follow), and of its ExclusiveStartKey when it
    /// continued a page. A continuation follows the cut page whose key it carries, so one
    /// client paging with Limit cannot hide another that drops its cut pages.
    pub fn page(&self, cut_by_size: Option<u64>, continued: Option<u64>, scan: bool) {
        // Scan and Query keys never meet: a Scan's start key is not a Query's.
        let kind = |key: u64| key ^ u64::from(scan);
        if let Some(key) = continued {
            add(&self.pages_continued, 1);
            // Only once some page was cut: a table paged by Limit alone takes no lock.
            if self.pages_with_more.load(Ordering::Relaxed) > 0 {
                let mut waiting = self.cut_waiting.lock();
                if let Some((count, _)) = waiting.get_mut(&kind(key)) {
                    // Each cut of the page is followed by a continuation of its own: two
                    // clients reading it, one dropping it, leave one waiting.
                    *count -= 1;
                    if *count == 0 {
                        waiting.remove(&kind(key));
                    }
                    add(&self.pages_followed, 1);
                }
            }
        }
        if let Some(key) = cut_by_size {
            add(&self.pages_with_more, 1);
            let mut waiting = self.cut_waiting.lock();
            let now = std::time::Instant::now();
            let full = waiting.len() >= MAX_WAITING;
            match waiting.get_mut(&kind(key)) {
                Some((count, at)) => {
                    *count += 1;
                    *at = now;
                }
                None if !full => {
                    waiting.insert(kind(key), (1, now));
                }
                None => add(&self.pages_untracked, 1),
            }
        }
    }

    /// Keys (their storage bytes) a batch answered as unprocessed.
    pub fn unprocessed(&self, keys: impl IntoIterator<Item = Vec<u8>>) {
        let mut waiting = self.unprocessed_waiting.lock();
        for key in keys {
            add(&self.unprocessed_returned, 1);
            if waiting.len() < MAX_WAITING {
                waiting.insert(key);
            }
        }
    }

    /// A key a batch asked for or wrote: a retry if it was left unprocessed before.
    pub fn batch_key(&self, key: &[u8]) {
        if self.unprocessed_returned.load(Ordering::Relaxed)
            == self.unprocessed_retried.load(Ordering::Relaxed)
        {
            return;
        }
        if self.unprocessed_waiting.lock().remove(key) {
            add(&self.unprocessed_retried, 1);
        }
    }

    /// Changes from another region that arrived after a later write to the same item from
    /// elsewhere, and were dropped (last writer wins); `example` describes one.
    pub fn replica_conflicts(&self, count: u64, example: impl FnOnce() -> String) {
        add(&self.replica_conflicts, count);
        let mut kept = self.replica_conflict_example.lock();
        if kept.is_none() {
            *kept = Some(example());
        }
    }

    /// An item written at `size` bytes; `key` describes it for the advisor's evidence.
    pub fn written(&self, size: usize, key: impl FnOnce() -> String) {
        if size >= NEAR_LIMIT_BYTES {
            add(&self.near_limit_writes, 1);
            let mut example = self.near_limit_example.lock();
            if example.is_none() {
                *example = Some(key());
            }
        }
    }

    /// An UpdateItem: whether its condition tests the partition key's existence, and
    /// whether it appends to a list (`list_append`) or adds to a set (`ADD`).
    pub fn update(&self, guarded: bool, appends: bool) {
        add(&self.updates, 1);
        if !guarded {
            add(&self.unguarded_updates, 1);
        }
        if appends {
            add(&self.appending_updates, 1);
        }
    }

    /// A PutItem on a table with a stream that replaced an item by an equal one: no stream
    /// record is written for it.
    pub fn unchanged_put(&self) {
        add(&self.unchanged_puts, 1);
    }

    /// An eventually consistent GetItem; `after_write` when its key was written within the
    /// second before.
    pub fn eventual_get(&self, after_write: bool) {
        add(&self.eventual_gets, 1);
        if after_write {
            add(&self.reads_after_write, 1);
        }
    }

    /// A DeleteItem.
    pub fn deleted(&self) {
        add(&self.deletes, 1);
    }

    /// A single-item write that changed an item: one the stream misses while it is off.
    pub fn changed(&self) {
        if self.stream_paused.load(Ordering::Relaxed) {
            add(&self.gap_writes, 1);
        }
    }

    /// UpdateTable turned the table's stream off (`on` false) or on. Writes while it is
    /// off are in no stream: a switch of view type (off, then on) with writes between
    /// lost them for the stream's consumers.
    pub fn stream_switched(&self, on: bool) {
        if !on {
            self.gap_writes.store(0, Ordering::Relaxed);
            self.stream_paused.store(true, Ordering::Relaxed);
        } else if self.stream_paused.swap(false, Ordering::Relaxed) {
            let writes = self.gap_writes.swap(0, Ordering::Relaxed);
            if writes > 0 {
                add(&self.switch_gaps, 1);
                add(&self.switch_gap_writes, writes);
            }
        }
    }

    /// A PutItem that replaced an item; `read_first` when its key was read just before.
    pub fn replaced(&self, read_first: bool) {
        add(&self.replacing_puts, 1);
        if read_first {
            add(&self.read_modify_writes, 1);
        }
    }

    /// A PutItem that replaced an item without some of its attributes (`dropped` names
    /// one): a partial update written as a whole item.
    pub fn dropped(&self, dropped: impl FnOnce() -> String) {
        add(&self.dropping_puts, 1);
        let mut example = self.dropped_example.lock();
        if example.is_none() {
            *example = Some(dropped());
        }
    }

    /// A PutItem: whether it had a condition, and whether it created the item.
    pub fn put(&self, conditional: bool, created: bool) {
        if conditional {
            add(&self.conditional_puts, 1);
        }
        if created {
            add(&self.creating_puts, 1);
            if !conditional {
                add(&self.unguarded_creates, 1);
            }
        }
    }

    /// A write refused for an index key attribute that is NULL, empty or of the wrong type
    /// (`why` is DynamoDB's message).
    pub fn index_key_refused(&self, why: impl FnOnce() -> String) {
        add(&self.index_key_refusals, 1);
        let mut example = self.index_key_example.lock();
        if example.is_none() {
            *example = Some(why());
        }
    }

    /// A Query or Scan filter: whether it reaches into documents (`a.b`, `a[0]`), and the
    /// attributes it searches with `contains`.
    pub fn filter_use(&self, nested: bool, contains: &[String]) {
        if nested {
            add(&self.nested_filters, 1);
        }
        if !contains.is_empty() {
            add(&self.contains_filters, 1);
            let mut names = self.contains_attributes.lock();
            for name in contains {
                if names.len() < MAX_CONTAINS {
                    names.insert(name.clone());
                }
            }
        }
    }

    /// An unconditional PutItem or DeleteItem at `now_ms`: counts toward a bulk-load window.
    pub fn single_write(&self, now_ms: i64) {
        let since = self.single_writes_since_ms.load(Ordering::Relaxed);
        if now_ms.saturating_sub(since) > BULK_WINDOW_MS {
            // A new window (racing writers may both start one: the count stays approximate).
            self.single_writes_since_ms.store(now_ms, Ordering::Relaxed);
            self.single_writes_in_window.store(1, Ordering::Relaxed);
            return;
        }
        if self.single_writes_in_window.fetch_add(1, Ordering::Relaxed) + 1 == BULK_WRITES {
            add(&self.bulk_windows, 1);
        }
    }

    pub fn snapshot(&self) -> TrafficSnapshot {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        TrafficSnapshot {
            scans: get(&self.scans),
            scanned_items: get(&self.scanned),
            scan_returned_items: get(&self.scan_returned),
            filtered_reads: get(&self.filtered_reads),
            filter_evaluated_items: get(&self.filter_evaluated),
            filter_kept_items: get(&self.filter_kept),
            filtered_queries: get(&self.filtered_queries),
            query_filter_evaluated_items: get(&self.query_filter_evaluated),
            query_filter_kept_items: get(&self.query_filter_kept),
            reads: get(&self.reads),
            consistent_reads: get(&self.consistent_reads),
            unprojected_queries: get(&self.unprojected_queries),
            unprojected_scans: get(&self.unprojected_scans),
            unprojected_gsi_reads: get(&self.unprojected_gsi_reads),
            pages_with_more: get(&self.pages_with_more),
            pages_continued: get(&self.pages_continued),
            pages_followed: get(&self.pages_followed),
            pages_unfollowed: self
                .cut_waiting
                .lock()
                .values()
                .filter(|(_, at)| at.elapsed() >= IN_FLIGHT)
                .map(|(count, _)| u64::from(*count))
                .sum(),
            pages_untracked: get(&self.pages_untracked),
            unprocessed_returned: get(&self.unprocessed_returned),
            unprocessed_retried: get(&self.unprocessed_retried),
            near_limit_writes: get(&self.near_limit_writes),
            near_limit_example: self.near_limit_example.lock().clone(),
            updates: get(&self.updates),
            unguarded_updates: get(&self.unguarded_updates),
            replacing_puts: get(&self.replacing_puts),
            read_modify_writes: get(&self.read_modify_writes),
            dropping_puts: get(&self.dropping_puts),
            dropped_example: self.dropped_example.lock().clone(),
            creating_puts: get(&self.creating_puts),
            unguarded_creates: get(&self.unguarded_creates),
            conditional_puts: get(&self.conditional_puts),
            index_key_refusals: get(&self.index_key_refusals),
            index_key_example: self.index_key_example.lock().clone(),
            appending_updates: get(&self.appending_updates),
            deletes: get(&self.deletes),
            unchanged_puts: get(&self.unchanged_puts),
            eventual_gets: get(&self.eventual_gets),
            reads_after_write: get(&self.reads_after_write),
            switch_gaps: get(&self.switch_gaps),
            switch_gap_writes: get(&self.switch_gap_writes),
            nested_filters: get(&self.nested_filters),
            contains_filters: get(&self.contains_filters),
            contains_attributes: self.contains_attributes.lock().iter().cloned().collect(),
            bulk_windows: get(&self.bulk_windows),
            replica_conflicts: get(&self.replica_conflicts),
            replica_conflict_example: self.replica_conflict_example.lock().clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unprocessed_key_counts_as_retried_once() {
        let t = Traffic::default();
        t.unprocessed([b"a".to_vec(), b"b".to_vec()]);
        t.batch_key(b"a");
        t.batch_key(b"a");
        t.batch_key(b"c");
        let s = t.snapshot();
        assert_eq!((s.unprocessed_returned, s.unprocessed_retried), (2, 1));
    }

    #[test]
    fn a_hundred_single_writes_in_ten_seconds_make_a_bulk_window() {
        let t = Traffic::default();
        for i in 0..99 {
            t.single_write(1_000_000 + i);
        }
        assert_eq!(t.snapshot().bulk_windows, 0);
        t.single_write(1_000_100);
        assert_eq!(t.snapshot().bulk_windows, 1);
        // Slow writes never fill a window.
        let slow = Traffic::default();
        for i in 0..300 {
            slow.single_write(i * 200);
        }
        assert_eq!(slow.snapshot().bulk_windows, 0);
    }

    #[test]
    fn a_cut_page_is_followed_only_by_a_continuation_from_its_own_key() {
        let key = |order: &str| {
            kura_model::Item::from([(
                "order_id".to_owned(),
                kura_model::AttributeValue::S(order.into()),
            )])
        };
        let t = Traffic::default();
        // A 1 MB page cut at o3 (no Limit), dropped; another client pages with Limit 1
        // through the same keys.
        t.page(Some(page_fingerprint(&key("o3"), None)), None, false);
        for order in ["o0", "o1", "o2", "o3"] {
            t.page(None, Some(page_fingerprint(&key(order), Some(1))), false);
        }
        let s = t.snapshot();
        assert_eq!(
            (s.pages_with_more, s.pages_followed, s.pages_continued),
            (1, 0, 4)
        );
        // Within its first seconds a cut page may still be continued: not yet dropped.
        assert_eq!(s.pages_unfollowed, 0);
        // Its own continuation follows it, once; a Scan's key is not a Query's.
        t.page(None, Some(page_fingerprint(&key("o3"), None)), true);
        t.page(None, Some(page_fingerprint(&key("o3"), None)), false);
        t.page(None, Some(page_fingerprint(&key("o3"), None)), false);
        assert_eq!(t.snapshot().pages_followed, 1);
        // Two clients read the same page: one follows, one drops it; one waits.
        t.page(Some(page_fingerprint(&key("o7"), None)), None, false);
        t.page(Some(page_fingerprint(&key("o7"), None)), None, false);
        t.page(None, Some(page_fingerprint(&key("o7"), None)), false);
        let waiting: u32 = t.cut_waiting.lock().values().map(|(n, _)| *n).sum();
        assert_eq!((t.snapshot().pages_followed, waiting), (2, 1));
    }

    #[test]
    fn puts_are_counted_by_what_they_did() {
        let t = Traffic::default();
        t.put(false, true);
        t.put(true, true);
        t.put(true, false);
        t.dropped(|| "note".into());
        let s = t.snapshot();
        assert_eq!(
            (s.creating_puts, s.unguarded_creates, s.conditional_puts),
            (2, 1, 2)
        );
        assert_eq!(
            (s.dropping_puts, s.dropped_example.as_deref()),
            (1, Some("note"))
        );
    }

    #[test]
    fn only_writes_near_the_limit_count() {
        let t = Traffic::default();
        t.written(1000, || "small".into());
        t.written(NEAR_LIMIT_BYTES, || "big".into());
        t.written(NEAR_LIMIT_BYTES + 1, || "bigger".into());
        let s = t.snapshot();
        assert_eq!(s.near_limit_writes, 2);
        assert_eq!(s.near_limit_example.as_deref(), Some("big"));
    }
}
