//! The sweeper: a background thread that, every sweep interval (and when woken),
//! - indexes the items of a table whose TTL was just enabled,
//! - deletes expired items, found through the TTL index, through the write path (indexes
//!   and streams follow; the stream record says the TTL service made it),
//! - trims stream records older than 24 hours, and forgets disabled streams once empty,
//! - forgets transactions' `ClientRequestToken`s older than 10 minutes,
//! - once a minute runs the backups' retention pass (`backups::retention`),
//! - and lets the store give back the memory it holds for writes once they stop.
//!
//! Every change goes through the writer in small jobs that re-read what they change, so
//! the sweeper never races a client write.

use std::ops::Bound;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::catalog::{Catalog, TableRecord};
use crate::clock::Clock;
use crate::error::Result;
use crate::items::{apply_item_change, read_current};
use crate::keys;
use crate::purge::Purger;
use crate::streams::meta::StreamMeta;
use crate::streams::record::{Origin, StoredRecord};
use crate::transactions::tokens;
use crate::ttl::{expiry_of, is_due};
use crate::writer::Writer;
use kura_store::{Direction, KeyRange, Space, Store};

mod state;

pub use state::Sweeper;
use state::{Passes, Shared};

/// When the sweeper runs, and what it calls when the store goes quiet.
pub struct Pace {
    pub interval: Duration,
    /// See `EngineOptions::on_idle`.
    pub on_idle: Option<Arc<dyn Fn() + Send + Sync>>,
}

/// Keys handled per writer job.
const CHUNK: usize = 256;

impl Sweeper {
    pub fn start(
        store: Arc<dyn Store>,
        writer: Arc<Writer>,
        catalog: Arc<Catalog>,
        purger: Arc<Purger>,
        clock: Arc<dyn Clock>,
        counters: Arc<crate::counters::Counters>,
        pace: Pace,
    ) -> Sweeper {
        let Pace { interval, on_idle } = pace;
        let shared = Arc::new(Shared {
            store,
            writer,
            catalog,
            purger,
            clock,
            counters,
            stop: AtomicBool::new(false),
            last_retention: Mutex::new(None),
            pruned: Mutex::new(std::collections::BTreeMap::new()),
            wake: Mutex::new(false),
            signal: Condvar::new(),
            passes: Mutex::new(Passes::default()),
            finished: Condvar::new(),
        });
        let worker = shared.clone();
        let thread = std::thread::Builder::new()
            .name("kura-sweeper".into())
            .spawn(move || {
                while !worker.stop.load(Ordering::SeqCst) {
                    worker.passes.lock().started += 1;
                    if let Err(e) = sweep(&worker) {
                        tracing::warn!(error = %e, "sweep failed; retrying at the next interval");
                    }
                    match worker.store.release_when_idle() {
                        Ok(true) => on_idle.iter().for_each(|give_back| give_back()),
                        Ok(false) => {}
                        Err(e) => tracing::warn!(error = %e, "writing out idle memtables failed"),
                    }
                    worker.passes.lock().finished += 1;
                    worker.finished.notify_all();
                    let mut woken = worker.wake.lock();
                    if !*woken && !worker.stop.load(Ordering::SeqCst) {
                        worker.signal.wait_for(&mut woken, interval);
                    }
                    *woken = false;
                }
            })
            .inspect_err(|e| {
                tracing::error!(error = %e, "cannot start the sweeper; items do not expire and streams are not trimmed");
            })
            .ok();
        Sweeper {
            shared,
            thread: Mutex::new(thread),
        }
    }

    /// Runs a sweep now rather than at the next interval.
    pub fn wake(&self) {
        *self.shared.wake.lock() = true;
        self.shared.signal.notify_one();
    }

    /// Runs a whole sweep that starts after this call and waits for it to end (at most
    /// `limit`): after a manual clock moved, what expired by then is gone on return.
    /// False when the limit passed first.
    pub fn sweep_now(&self, limit: Duration) -> bool {
        let mut passes = self.shared.passes.lock();
        let target = passes.started + 1;
        self.wake();
        let deadline = Instant::now() + limit;
        while passes.finished < target {
            if self.shared.stop.load(Ordering::SeqCst)
                || self
                    .shared
                    .finished
                    .wait_until(&mut passes, deadline)
                    .timed_out()
            {
                return passes.finished >= target;
            }
        }
        true
    }

    /// Stops after the current job.
    pub fn shutdown(&self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.wake();
        // A `sweep_now` waiting for a pass stops waiting.
        self.shared.finished.notify_all();
        if let Some(handle) = self.thread.lock().take() {
            let _panicked = handle.join();
        }
    }
}

fn sweep(shared: &Shared) -> Result<()> {
    for table in shared.catalog.all().values() {
        if shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let Some(ttl) = table.ttl.as_ref().filter(|t| t.enabled) else {
            continue;
        };
        if !ttl.indexed {
            index_existing_items(shared, table)?;
        }
        expire(shared, table)?;
    }
    trim_streams(shared)?;
    crate::kinesis::trim::trim_all(
        shared.store.as_ref(),
        &shared.writer,
        shared.clock.now_ms(),
        &shared.stop,
    )?;
    forget_tokens(shared)?;
    retention(shared)
}

/// How often history is pruned: each pass reads the history of every table that has one.
const RETENTION_EVERY: Duration = Duration::from_secs(60);

fn retention(shared: &Shared) -> Result<()> {
    {
        let mut last = shared.last_retention.lock();
        if last.is_some_and(|t| t.elapsed() < RETENTION_EVERY) {
            return Ok(());
        }
        *last = Some(Instant::now());
    }
    crate::backups::retention::Retention {
        store: shared.store.as_ref(),
        writer: &shared.writer,
        catalog: &shared.catalog,
        purger: &shared.purger,
        clock: shared.clock.as_ref(),
        pruned: &shared.pruned,
    }
    .run()
}

/// Deletes the records of tokens older than their 10 minutes, a chunk per writer job.
fn forget_tokens(shared: &Shared) -> Result<()> {
    let cutoff = shared.clock.now_ms() - tokens::TOKEN_LIFETIME_MS;
    loop {
        let snapshot = shared.store.snapshot()?;
        let mut expired: Vec<(i64, String)> = Vec::new();
        let range = KeyRange::prefix(keys::token_expiry_prefix());
        for row in snapshot.range(Space::Meta, range, Direction::Forward) {
            let (key, _) = row?;
            let Some((created, token)) = keys::parse_token_expiry_key(&key) else {
                continue;
            };
            if created > cutoff || expired.len() >= CHUNK {
                break;
            }
            expired.push((created, token.to_owned()));
        }
        drop(snapshot);
        if expired.is_empty() || shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let full = expired.len() >= CHUNK;
        shared.writer.submit_blocking(false, move |w| {
            for (created, token) in &expired {
                tokens::forget(w, *created, token)?;
            }
            Ok(())
        })?;
        if !full {
            return Ok(());
        }
    }
}

/// The table as published now, if it is still the same table with TTL enabled on the
/// same attribute.
fn ttl_table(catalog: &Catalog, table: &TableRecord) -> Option<(Arc<TableRecord>, String)> {
    let current = catalog.get(&table.name).filter(|t| t.id == table.id)?;
    let attribute = current.ttl.as_ref()?.active_attribute()?.to_owned();
    let wanted = table.ttl.as_ref()?.active_attribute()?;
    (attribute == wanted).then_some((current, attribute))
}

/// Adds TTL entries for the items a table held when TTL was enabled (later writes add
/// their own), then marks the table indexed.
fn index_existing_items(shared: &Shared, table: &Arc<TableRecord>) -> Result<()> {
    let mut range = KeyRange::prefix(&keys::table_prefix(table.id));
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let snapshot = shared.store.snapshot()?;
        let chunk: Vec<Vec<u8>> = snapshot
            .range(Space::Items, range.clone(), Direction::Forward)
            .take(CHUNK)
            .map(|row| row.map(|(k, _)| k))
            .collect::<std::result::Result<_, _>>()?;
        drop(snapshot);
        let Some(last) = chunk.last().cloned() else {
            break;
        };
        let catalog = shared.catalog.clone();
        let table_then = table.clone();
        let gone = shared.writer.submit_blocking(false, move |w| {
            let Some((table, attribute)) = ttl_table(&catalog, &table_then) else {
                return Ok(true);
            };
            for storage_key in chunk {
                let Some(item) = read_current(w, &storage_key)? else {
                    continue;
                };
                if let Some(expiry) = expiry_of(&item, &attribute) {
                    w.put(
                        Space::Ttl,
                        keys::ttl_key(table.id, expiry, &storage_key),
                        Vec::new(),
                    );
                }
            }
            Ok(false)
        })?;
        if gone {
            return Ok(());
        }
        range.start = Bound::Excluded(last);
    }
    let catalog = shared.catalog.clone();
    let table_then = table.clone();
    shared.writer.submit_blocking(true, move |w| {
        let Some((table, _)) = ttl_table(&catalog, &table_then) else {
            return Ok(());
        };
        let mut next = table.as_ref().clone();
        if let Some(ttl) = next.ttl.as_mut() {
            ttl.indexed = true;
        }
        catalog.stage(w, Arc::new(next))
    })?;
    tracing::debug!(table = %table.name, "TTL index filled");
    Ok(())
}

/// Deletes the table's items whose TTL is due, oldest expiry first.
fn expire(shared: &Shared, table: &Arc<TableRecord>) -> Result<()> {
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let now = shared.clock.now_ms();
        let now_s = now.div_euclid(1000);
        let oldest = now_s
            .saturating_sub(kura_model::limits::TTL_IGNORE_OLDER_THAN_S)
            .max(0) as u64;
        let range = KeyRange {
            start: Bound::Included(keys::ttl_key(table.id, oldest, &[])),
            end: Bound::Excluded(keys::ttl_key(table.id, now_s.max(0) as u64, &[])),
        };
        if range.is_empty() {
            return Ok(());
        }
        let snapshot = shared.store.snapshot()?;
        let due: Vec<Vec<u8>> = snapshot
            .range(Space::Ttl, range, Direction::Forward)
            .take(CHUNK)
            .map(|row| row.map(|(k, _)| k))
            .collect::<std::result::Result<_, _>>()?;
        drop(snapshot);
        if due.is_empty() {
            return Ok(());
        }
        let catalog = shared.catalog.clone();
        let table_then = table.clone();
        let gone = shared.writer.submit_blocking(false, move |w| {
            let Some((table, attribute)) = ttl_table(&catalog, &table_then) else {
                return Ok((true, 0));
            };
            let now = w.now_ms();
            let mut deleted = 0u64;
            for entry in due {
                let Some((expiry, storage_key)) = keys::parse_ttl_key(&entry) else {
                    continue;
                };
                let item = read_current(w, storage_key)?;
                let current_expiry = item.as_ref().and_then(|i| expiry_of(i, &attribute));
                match item {
                    Some(item) if current_expiry == Some(expiry) && is_due(expiry, now) => {
                        // Deleting the item removes its TTL entry too.
                        apply_item_change(
                            w,
                            &table,
                            storage_key.to_vec(),
                            Some(&item),
                            None,
                            Origin::Ttl,
                        )?;
                        deleted += 1;
                    }
                    // The item is gone or now expires at another time: a stale entry.
                    _ if current_expiry != Some(expiry) => w.delete(Space::Ttl, entry.clone()),
                    _ => {}
                }
            }
            Ok((false, deleted))
        })?;
        let (gone, deleted) = gone;
        if deleted > 0 {
            let counters = shared.counters.table(&table.name);
            counters.ttl_deleted.fetch_add(deleted, Ordering::Relaxed);
        }
        if gone {
            return Ok(());
        }
    }
}

/// Trims every stream's records older than 24 hours; forgets disabled streams whose
/// records are all gone.
fn trim_streams(shared: &Shared) -> Result<()> {
    let cutoff = shared
        .clock
        .now_ms()
        .saturating_sub(kura_model::limits::STREAM_RETENTION_MS);
    let snapshot = shared.store.snapshot()?;
    let metas: Vec<StreamMeta> = snapshot
        .range(
            Space::Meta,
            KeyRange::prefix(keys::stream_meta_prefix()),
            Direction::Forward,
        )
        .map(|row| {
            row.map_err(Into::into)
                .and_then(|(_, v)| StreamMeta::decode(&v))
        })
        .collect::<Result<_>>()?;
    drop(snapshot);
    for meta in metas {
        if shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        trim_stream(shared, meta.id, cutoff)?;
    }
    Ok(())
}

/// Trims one stream's records created before `cutoff`, shard by shard, a chunk per writer
/// job, until none is left. A closed shard with nothing left is forgotten; a disabled
/// stream is forgotten once it has no shard left and was disabled before `cutoff`.
fn trim_stream(shared: &Shared, id: u64, cutoff: i64) -> Result<()> {
    let budget = CHUNK * 4;
    loop {
        let snapshot = shared.store.snapshot()?;
        let Some(bytes) = snapshot.get(Space::Meta, &keys::stream_meta_key(id))? else {
            return Ok(());
        };
        let meta = StreamMeta::decode(&bytes)?;
        // (shard number, record key, sequence number) of each expired record.
        let mut old: Vec<(u32, Vec<u8>, u64)> = Vec::new();
        let mut emptied: Vec<u32> = Vec::new();
        'shards: for shard in meta.live_shards() {
            let mut left = false;
            let mut deleted = false;
            let range = meta.shard_records(shard, shard.trim_seq);
            if !range.is_empty() {
                for row in snapshot.range(Space::Streams, range, Direction::Forward) {
                    let (key, value) = row?;
                    let expired = StoredRecord::created_ms_of(&value).is_some_and(|t| t < cutoff);
                    let Some(seq) = keys::seq_of_record_key(&key).filter(|_| expired) else {
                        left = true;
                        break;
                    };
                    old.push((shard.number, key, seq));
                    deleted = true;
                    if old.len() >= budget {
                        break 'shards;
                    }
                }
            }
            // Records once held and all expired, or none held since before the cutoff.
            let had_records = deleted || shard.trim_seq > shard.first_seq;
            if !left && !shard.is_open() && (had_records || shard.created_ms < cutoff) {
                emptied.push(shard.number);
            }
        }
        drop(snapshot);
        let retired = meta.disabled_ms.is_some_and(|d| d < cutoff);
        if old.is_empty() && emptied.is_empty() && !retired {
            return Ok(());
        }
        let more = old.len() >= budget;
        shared.writer.submit_blocking(false, move |w| {
            let key = keys::stream_meta_key(id);
            let Some(bytes) = w.get(Space::Meta, &key)? else {
                return Ok(());
            };
            let mut meta = StreamMeta::decode(&bytes)?;
            for (number, record, seq) in &old {
                w.delete(Space::Streams, record.clone());
                if let Some(shard) = meta.shards.iter_mut().find(|s| s.number == *number) {
                    shard.trim_seq = shard.trim_seq.max(seq + 1);
                }
            }
            for shard in meta.shards.iter_mut() {
                if emptied.contains(&shard.number) {
                    shard.trim_seq = u64::MAX;
                }
            }
            meta.forget_trimmed_shards();
            if retired && meta.live_shards().next().is_none() {
                w.delete(Space::Meta, key);
            } else {
                w.put(Space::Meta, key, meta.encode()?);
            }
            Ok(())
        })?;
        if !more {
            return Ok(());
        }
    }
}
