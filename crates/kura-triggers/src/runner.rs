//! One trigger at work: what Lambda's event source mapping does for a DynamoDB stream or
//! a Kinesis stream (the differences between the two live in [`crate::source`]).
//!
//! - **Shards in parallel, parents first.** Every open shard has a reader of its own; a
//!   child is read once its parent is finished (closed and every record done), so the
//!   records of one item — always in one shard at a time — reach the function in order.
//! - **Batches** of at most `BatchSize` records (and 6 MB), after waiting up to
//!   `MaximumBatchingWindowInSeconds` for a batch to fill; records the filter drops are done
//!   without an invocation.
//! - **ParallelizationFactor** lanes per shard: records go to lanes by partition key hash,
//!   lanes run at once, each in order.
//! - **Errors**: a failed batch is retried (with backoff) up to `MaximumRetryAttempts`,
//!   split in two first with `BisectBatchOnFunctionError`, retried from the first failed
//!   record with `ReportBatchItemFailures`; records older than `MaximumRecordAgeInSeconds`
//!   and batches out of retries go to the on-failure destination, and the shard goes on.
//! - **Checkpoints** ([`crate::state`]) are written after every batch, before the next is
//!   read: a `kill -9` redelivers at most the batches in flight, in order.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{Mutex, watch};

use crate::config::{StartingPosition, Trigger};
use crate::deliver::Invoker;
use crate::error::TriggerError;
use crate::event::{Outcome, batches, judge, lambda_event};
use crate::failure::{self, Condition, FailedBatch};
use crate::source::{ShardInfo, Start, StreamSource, sequence_value};
use crate::state::{SavedState, ShardCheckpoint, StateStore};

/// How often an idle trigger looks for records and shards, and how it backs off.
#[derive(Debug, Clone, Copy)]
pub struct RunnerOptions {
    pub poll: Duration,
    pub first_backoff: Duration,
    pub max_backoff: Duration,
    /// Time a function has to answer one invocation.
    pub timeout: Duration,
}

impl Default for RunnerOptions {
    fn default() -> Self {
        RunnerOptions {
            poll: Duration::from_millis(100),
            first_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            timeout: Duration::from_secs(30),
        }
    }
}

/// What a trigger has done, for the admin endpoint and `/metrics`.
#[derive(Debug, Default)]
pub struct TriggerStats {
    pub invocations: AtomicU64,
    pub records_delivered: AtomicU64,
    pub records_filtered: AtomicU64,
    pub function_errors: AtomicU64,
    pub retries: AtomicU64,
    pub records_failed: AtomicU64,
    /// Age of the last record of the last batch the function took, when it took it
    /// (Lambda's IteratorAge); 0 once a reader has caught up.
    pub iterator_age_ms: AtomicI64,
    pub last_error: parking_lot::Mutex<Option<String>>,
}

impl TriggerStats {
    fn error(&self, error: &TriggerError) {
        *self.last_error.lock() = Some(error.to_string());
    }
}

/// A record on its way: its sequence number, age, key hash and Lambda-shaped JSON.
#[derive(Clone)]
struct Pending {
    seq: u128,
    created_ms: i64,
    lane_hash: u64,
    record: Value,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn seq_text(seq: u128) -> String {
    format!("{seq:021}")
}

/// One trigger's readers and state.
pub struct Runner {
    pub trigger: Trigger,
    source: StreamSource,
    invoker: Invoker,
    store: StateStore,
    state: Mutex<SavedState>,
    /// The state as last saved, for status reads that must not wait on a save.
    published: parking_lot::Mutex<SavedState>,
    pub stats: Arc<TriggerStats>,
    options: RunnerOptions,
    stopped: AtomicBool,
}

impl Runner {
    pub fn new(
        trigger: Trigger,
        source: StreamSource,
        store: StateStore,
        state: SavedState,
        options: RunnerOptions,
    ) -> Runner {
        Runner {
            trigger,
            source,
            invoker: Invoker::new(options.timeout),
            store,
            published: parking_lot::Mutex::new(state.clone()),
            state: Mutex::new(state),
            stats: Arc::new(TriggerStats::default()),
            options,
            stopped: AtomicBool::new(false),
        }
    }

    /// The state as last saved.
    pub fn state_now(&self) -> SavedState {
        self.published.lock().clone()
    }

    /// Saves `state` durably (the caller holds the state lock, so saves are in order),
    /// off the async workers' backs where the runtime allows, and publishes it.
    fn save(&self, state: &SavedState) -> Result<(), TriggerError> {
        let write = || self.store.save(&self.trigger.name, state);
        let multi_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if multi_thread {
            tokio::task::block_in_place(write)?;
        } else {
            write()?;
        }
        *self.published.lock() = state.clone();
        Ok(())
    }

    /// Runs until `stop` turns true.
    pub async fn run(self: Arc<Self>, mut stop: watch::Receiver<bool>) {
        let mut readers: BTreeMap<String, tokio::task::JoinHandle<()>> = BTreeMap::new();
        loop {
            if *stop.borrow() {
                break;
            }
            if let Err(e) = self.schedule(&mut readers, &stop).await {
                tracing::warn!(trigger = %self.trigger.name, error = %e, "trigger cannot read its stream");
                self.stats.error(&e);
            }
            tokio::select! {
                _ = stop.changed() => {}
                () = tokio::time::sleep(self.options.poll.max(Duration::from_millis(50)) * 5) => {}
            }
        }
        self.stopped.store(true, Ordering::SeqCst);
        for (_, reader) in readers {
            let _ = reader.await;
        }
    }

    /// Starts a reader for every shard that is ready (not finished, parent finished or
    /// gone) and has none.
    async fn schedule(
        self: &Arc<Self>,
        readers: &mut BTreeMap<String, tokio::task::JoinHandle<()>>,
        stop: &watch::Receiver<bool>,
    ) -> Result<(), TriggerError> {
        readers.retain(|_, r| !r.is_finished());
        let Some(arn) = self.source.stream_arn(self.trigger.source.name())? else {
            return Ok(());
        };
        {
            let mut state = self.state.lock().await;
            if state.stream_arn.as_deref() != Some(arn.as_str()) {
                // A new stream (or a new trigger): checkpoints start afresh. The floor is
                // taken before the shards are listed, so a shard closed in between is
                // listed closed, with its end at or after the floor.
                let floor = match self.trigger.starting_position {
                    StartingPosition::Latest => Some(seq_text(self.source.newest_sequence(&arn)?)),
                    _ => None,
                };
                state.stream_arn = Some(arn.clone());
                state.shards.clear();
                state.floor = floor;
                self.save(&state)?;
            }
        }
        let shards = self.source.shards(&arn)?;
        {
            let mut state = self.state.lock().await;
            // Shards trimmed away are forgotten.
            let listed: Vec<&str> = shards.iter().map(|s| s.id.as_str()).collect();
            let before = state.shards.len();
            state.shards.retain(|id, _| listed.contains(&id.as_str()));
            if state.shards.len() != before {
                self.save(&state)?;
            }
        }
        let state = self.state.lock().await.clone();
        let finished = |id: &str| state.shards.get(id).is_some_and(|c| c.finished);
        for shard in &shards {
            // Both parents of a merged shard come first.
            let parent_pending = shard
                .parent
                .iter()
                .chain(&shard.adjacent_parent)
                .any(|p| listed_and_unfinished(&shards, p, &finished));
            if finished(&shard.id) || parent_pending || readers.contains_key(&shard.id) {
                continue;
            }
            let runner = self.clone();
            let shard = shard.clone();
            let arn = arn.clone();
            let stop = stop.clone();
            let id = shard.id.clone();
            readers.insert(
                id,
                tokio::spawn(async move { runner.read_shard(arn, shard, stop).await }),
            );
        }
        Ok(())
    }

    /// Reads one shard until it is finished or the trigger stops.
    async fn read_shard(
        self: Arc<Self>,
        arn: String,
        shard: ShardInfo,
        stop: watch::Receiver<bool>,
    ) {
        while !*stop.borrow() {
            match self.follow_shard(&arn, &shard, &stop).await {
                Ok(()) => return,
                Err(e) => {
                    tracing::warn!(trigger = %self.trigger.name, shard = %shard.id, error = %e, "trigger shard reader");
                    self.stats.error(&e);
                    tokio::time::sleep(self.options.max_backoff.min(Duration::from_secs(1))).await;
                }
            }
        }
    }

    /// Where a shard's reading resumes: after its checkpoint, or after the floor a new
    /// trigger starting at LATEST set.
    async fn start_of(&self, shard: &ShardInfo) -> (Start, u128) {
        let state = self.state.lock().await;
        let floor = state.floor.as_deref().and_then(sequence_value).unwrap_or(0);
        let after = state
            .shards
            .get(&shard.id)
            .and_then(|c| c.after.as_deref())
            .and_then(sequence_value);
        match after {
            Some(after) => (Start::After(after), after.max(floor)),
            None if floor > 0 => (Start::After(floor), floor),
            None => (Start::TrimHorizon, 0),
        }
    }

    async fn checkpoint(
        &self,
        shard: &str,
        after: Option<u128>,
        finished: bool,
    ) -> Result<(), TriggerError> {
        let mut state = self.state.lock().await;
        let entry = state
            .shards
            .entry(shard.to_owned())
            .or_insert_with(ShardCheckpoint::default);
        let text = after.map(seq_text);
        if text.is_some() {
            entry.after = text;
        }
        entry.finished |= finished;
        self.save(&state)
    }

    fn admit(
        &self,
        arn: &str,
        shard_id: &str,
        record: &Value,
        skip_through: u128,
    ) -> Option<Pending> {
        let facts = self.source.facts(record)?;
        let (seq, created_ms) = (facts.seq, facts.created_ms);
        if seq <= skip_through {
            return None;
        }
        if let StartingPosition::AtTimestamp(t) = self.trigger.starting_position
            && (created_ms as f64) < t * 1000.0
        {
            return None;
        }
        let record = self.source.lambda_record(record, arn, shard_id);
        if !self
            .trigger
            .filter
            .passes(&self.source.filter_view(&record))
        {
            self.stats.records_filtered.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        facts.order_key.hash(&mut hasher);
        Some(Pending {
            seq,
            created_ms,
            lane_hash: hasher.finish(),
            record,
        })
    }

    async fn follow_shard(
        &self,
        arn: &str,
        shard: &ShardInfo,
        stop: &watch::Receiver<bool>,
    ) -> Result<(), TriggerError> {
        let (start, skip_through) = self.start_of(shard).await;
        let mut iterator = self.source.iterator(arn, shard, start)?;
        let chunk = self.trigger.batch_size * self.trigger.parallelization_factor.max(1);
        let window = Duration::from_secs(self.trigger.batching_window_seconds);
        let mut buffer: Vec<Pending> = Vec::new();
        let mut last_seen: Option<u128> = None;
        let mut saved: Option<u128> = None;
        let mut window_start = Instant::now();
        loop {
            if *stop.borrow() {
                return Ok(());
            }
            let mut got_any = false;
            if buffer.len() < chunk
                && let Some(current) = iterator.take()
            {
                let page = self.source.records(&current, chunk.clamp(1, 1000))?;
                got_any = !page.records.is_empty();
                for record in &page.records {
                    let seq = self.source.facts(record).map(|f| f.seq);
                    last_seen = seq.or(last_seen);
                    if let Some(pending) = self.admit(arn, &shard.id, record, skip_through) {
                        if buffer.is_empty() {
                            window_start = Instant::now();
                        }
                        buffer.push(pending);
                    }
                }
                iterator = page.next;
            }
            let ended = iterator.is_none();
            let ready = buffer.len() >= chunk || window_start.elapsed() >= window || ended;
            if !buffer.is_empty() && ready {
                let take = buffer.len().min(chunk);
                let round: Vec<Pending> = buffer.drain(..take).collect();
                let through = match buffer.first() {
                    // Done up to the last record of the round (records between it and the
                    // next buffered one were filtered out).
                    Some(next) => next.seq - 1,
                    None => last_seen.unwrap_or(0),
                };
                if !self.deliver_round(arn, &shard.id, round, stop).await {
                    return Ok(()); // stopped mid-round: redelivered after a restart
                }
                self.checkpoint(&shard.id, Some(through), false).await?;
                saved = Some(through);
                continue;
            }
            if buffer.is_empty() {
                // Only filtered-out records since the last checkpoint.
                if last_seen.is_some() && last_seen != saved {
                    self.checkpoint(&shard.id, last_seen, false).await?;
                    saved = last_seen;
                }
                if ended {
                    self.checkpoint(&shard.id, None, true).await?;
                    tracing::debug!(trigger = %self.trigger.name, shard = %shard.id, "shard finished");
                    return Ok(());
                }
                self.stats.iterator_age_ms.store(0, Ordering::Relaxed);
            }
            if !got_any {
                let mut stop = stop.clone();
                tokio::select! {
                    _ = stop.changed() => {}
                    () = tokio::time::sleep(self.options.poll) => {}
                }
            }
        }
    }

    /// Delivers one round: its records split into lanes by key hash, lanes at once, each
    /// in batches in order. False when the trigger stopped before the round was done.
    async fn deliver_round(
        &self,
        arn: &str,
        shard_id: &str,
        round: Vec<Pending>,
        stop: &watch::Receiver<bool>,
    ) -> bool {
        let factor = self.trigger.parallelization_factor.max(1);
        let mut lanes: Vec<Vec<Pending>> = vec![Vec::new(); factor];
        for pending in round {
            let lane = (pending.lane_hash % factor as u64) as usize;
            lanes[lane].push(pending);
        }
        let work = lanes
            .into_iter()
            .filter(|lane| !lane.is_empty())
            .map(|lane| self.deliver_lane(arn, shard_id, lane, stop));
        let done = futures_util::future::join_all(work).await;
        done.into_iter().all(|d| d)
    }

    async fn deliver_lane(
        &self,
        arn: &str,
        shard_id: &str,
        lane: Vec<Pending>,
        stop: &watch::Receiver<bool>,
    ) -> bool {
        // Split by BatchSize and the 6 MB event limit, keeping each record's position.
        let sizes: Vec<usize> = batches(
            lane.iter().map(|p| p.record.clone()).collect(),
            self.trigger.batch_size,
        )
        .iter()
        .map(Vec::len)
        .collect();
        let mut rest = lane;
        for size in sizes {
            let batch: Vec<Pending> = rest.drain(..size.min(rest.len())).collect();
            if !self.deliver_batch(arn, shard_id, batch, stop).await {
                return false;
            }
        }
        true
    }

    /// Delivers one batch with Lambda's retry rules; true once every record of it is
    /// done (delivered or sent to the failure destination), false if the trigger stopped.
    async fn deliver_batch(
        &self,
        arn: &str,
        shard_id: &str,
        batch: Vec<Pending>,
        stop: &watch::Receiver<bool>,
    ) -> bool {
        // Lambda's retry rules act on one batch's state: (records, failed invocations so
        // far). The first half of a split goes first.
        let mut work: Vec<(Vec<Pending>, u64)> = vec![(batch, 0)];
        while let Some((mut batch, failures)) = work.pop() {
            if batch.is_empty() {
                continue;
            }
            if *stop.borrow() || self.stopped.load(Ordering::SeqCst) {
                return false;
            }
            match self.expire_old(arn, shard_id, &mut batch, failures).await {
                None => return false,
                Some(true) => {
                    work.push((batch, failures));
                    continue;
                }
                Some(false) => {}
            }
            let records: Vec<Value> = batch.iter().map(|p| p.record.clone()).collect();
            let sequence_numbers: Vec<String> = batch
                .iter()
                .map(|p| self.source.sequence_text(p.seq))
                .collect();
            let numbers: Vec<&str> = sequence_numbers.iter().map(String::as_str).collect();
            self.stats.invocations.fetch_add(1, Ordering::Relaxed);
            let answer = self
                .invoker
                .invoke(&self.trigger.function, &lambda_event(&records))
                .await;
            let (outcome, error) = match answer {
                Ok(bytes) => (
                    judge(&bytes, &numbers, self.trigger.report_batch_item_failures),
                    None,
                ),
                Err(e) => {
                    self.stats.function_errors.fetch_add(1, Ordering::Relaxed);
                    self.stats.error(&e);
                    (Outcome::Failure, Some(e))
                }
            };
            let retry_from = match outcome {
                Outcome::Success => {
                    self.delivered(&batch);
                    continue;
                }
                Outcome::RetryFrom(position) => {
                    self.delivered(&batch[..position]);
                    position
                }
                Outcome::Failure => 0,
            };
            let failed: Vec<Pending> = batch.split_off(retry_from);
            let failures = failures + 1;
            let out_of_retries = self
                .trigger
                .maximum_retry_attempts
                .is_some_and(|max| failures > max);
            if out_of_retries {
                let kind = error.as_ref().map(function_error_kind);
                if !self
                    .give_up(
                        arn,
                        shard_id,
                        &failed,
                        Condition::RetryAttemptsExhausted,
                        failures,
                        kind,
                    )
                    .await
                {
                    return false;
                }
                continue;
            }
            self.stats.retries.fetch_add(1, Ordering::Relaxed);
            let mut stop = stop.clone();
            tokio::select! {
                _ = stop.changed() => return false,
                () = tokio::time::sleep(self.backoff(failures)) => {}
            }
            if self.trigger.bisect_batch_on_function_error && failed.len() > 1 && retry_from == 0 {
                // Each half gets its own retries, so that halving can isolate a bad
                // record however deep it lies.
                let mut first = failed;
                let second = first.split_off(first.len() / 2);
                work.push((second, 0));
                work.push((first, 0));
            } else {
                work.push((failed, failures));
            }
        }
        true
    }

    /// Parks the records at the head of `batch` that are past the trigger's maximum record
    /// age (Lambda's `RecordAgeExceeded`): whether there were any, or None when they could
    /// not be parked.
    async fn expire_old(
        &self,
        arn: &str,
        shard_id: &str,
        batch: &mut Vec<Pending>,
        failures: u64,
    ) -> Option<bool> {
        let Some(max_age) = self.trigger.maximum_record_age_seconds else {
            return Some(false);
        };
        let now = now_ms();
        let too_old = batch
            .iter()
            .take_while(|p| now - p.created_ms > (max_age * 1000) as i64)
            .count();
        if too_old == 0 {
            return Some(false);
        }
        let old: Vec<Pending> = batch.drain(..too_old).collect();
        let condition = Condition::RecordAgeExceeded;
        let parked = self
            .give_up(arn, shard_id, &old, condition, failures, None)
            .await;
        parked.then_some(true)
    }

    /// The wait before the retry after `failures` failed invocations: doubling from the
    /// first backoff, up to the most.
    fn backoff(&self, failures: u64) -> Duration {
        let shift = failures.min(16) as u32 - 1;
        self.options
            .first_backoff
            .saturating_mul(1u32 << shift.min(16))
            .min(self.options.max_backoff)
    }

    fn delivered(&self, records: &[Pending]) {
        self.stats
            .records_delivered
            .fetch_add(records.len() as u64, Ordering::Relaxed);
        if let Some(last) = records.last() {
            self.stats
                .iterator_age_ms
                .store((now_ms() - last.created_ms).max(0), Ordering::Relaxed);
        }
    }

    /// Sends records the function could not take to the failure destination (if any) and
    /// counts them; the shard goes on either way, as Lambda's does.
    async fn give_up(
        &self,
        arn: &str,
        shard_id: &str,
        records: &[Pending],
        condition: Condition,
        invocations: u64,
        function_error: Option<String>,
    ) -> bool {
        if records.is_empty() {
            return true;
        }
        self.stats
            .records_failed
            .fetch_add(records.len() as u64, Ordering::Relaxed);
        tracing::warn!(trigger = %self.trigger.name, shard = %shard_id, records = records.len(), condition = condition.wire(), "records given up");
        let Some(destination) = &self.trigger.on_failure else {
            return true;
        };
        let values: Vec<Value> = records.iter().map(|p| p.record.clone()).collect();
        let mut record = failure::invocation_record(&FailedBatch {
            kinesis: self.source.is_kinesis(),
            trigger: &self.trigger.name,
            region: &self.source.context().region,
            stream_arn: arn,
            shard_id,
            records: &values,
            condition,
            invocations,
            function_error,
            now_ms: now_ms(),
        });
        // A destination that refuses is retried: the records must not be lost silently.
        // After a refusal the record goes without the records themselves (Lambda's own
        // shape), which a table takes whatever their size.
        let mut backoff = self.options.first_backoff;
        while let Err(e) = failure::send(self.source.engine(), destination, &record).await {
            tracing::warn!(trigger = %self.trigger.name, error = %e, "failure destination refused");
            self.stats.error(&e);
            if let Some(map) = record.as_object_mut()
                && map.remove("records").is_some()
            {
                continue;
            }
            if self.stopped.load(Ordering::SeqCst) {
                // Not checkpointed: redelivered after a restart.
                return false;
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(self.options.max_backoff);
        }
        true
    }
}

/// Whether `parent` is listed and not yet finished.
fn listed_and_unfinished(
    shards: &[ShardInfo],
    parent: &str,
    finished: &dyn Fn(&str) -> bool,
) -> bool {
    shards.iter().any(|s| s.id == parent) && !finished(parent)
}

/// How a failure destination names a failed invocation's error (`Unhandled` for the
/// function's own failure, as Lambda does).
fn function_error_kind(error: &TriggerError) -> String {
    match error {
        TriggerError::FunctionFailed(_) => "Unhandled".to_owned(),
        other => other.to_string(),
    }
}
