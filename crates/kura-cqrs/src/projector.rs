//! The projector: reads the command table's stream through the DynamoDB Streams API
//! (so it runs on AWS too), applies every command version to the data table (the previous
//! row going to history), and calls the registered sync handlers.
//!
//! - **Exactly once on the data table.** The data row is written only while it is at the
//!   version read, and only when that is lower than the command's, so a redelivered
//!   record, or one already applied by `publish_sync`, changes nothing.
//! - **At least once for handlers,** with the command's version so they can be idempotent.
//!   Every handler of the projector sees every version: for one published in sync, the
//!   ones its publisher lacked (the `sync_handoff` module).
//! - **Never stalls.** A record that still fails after its retries (with backoff) is parked
//!   in the dead-letter table with its error, and the projector moves on: one bad item
//!   never blocks the others.
//! - **One projector per shard** (the lease module): a shard is read only under its lease,
//!   so several projectors of one module share the shards without applying a version
//!   twice, and take over the shards of one that died.
//! - **Resumes where it stopped.** After every page it checkpoints, per shard, the last
//!   sequence number it finished, in the projector table; a restart continues after it.
//!   Shards are read parents first, following lineage.
//! - **Reads the stream as AWS serves it**: only a missing
//!   `NextShardIterator` ends a shard, never an empty page; it keeps its shard iterators
//!   between rounds and the shard list between refreshes, so the steady state makes no
//!   DescribeStream calls.
//! - **Reads a cancelled transaction by its reasons**: a
//!   version condition that failed means the version is applied or superseded;
//!   contention and throttling are retried; a refused request is parked at once.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodbstreams::Client as StreamsClient;
use aws_sdk_dynamodbstreams::operation::get_records::GetRecordsOutput;
use aws_sdk_dynamodbstreams::types::Record;

use crate::cancellation::classify;
use crate::command::CommandModel;
use crate::command_record::{CommandRecord, Publishing};
use crate::command_status::{mark, read_status};
use crate::error::{CqrsError, Result};
use crate::large::{LargeAttributes, resolve};
use crate::lease::Checkpoints;
use crate::names::{PK, VERSION};
use crate::notifications::{Notification, Notifier};
use crate::projection::{Projection, project, ttl_kinds};
use crate::projection_failure::{Failure, failure};
use crate::rows::{conditional_put, key, read_row};
use crate::shards::{ShardInfo, Step, after_page, empty_limit, needs_refresh, parents_first};
use crate::status;
use crate::stream_calls::{list_shards, shard_iterator, stream_arn};
use crate::sync::SyncHandler;
use crate::sync_handoff::{Handled, Published};
use crate::tables::{TableKind, TableNames};
use crate::ttl::{self, TtlPolicies};

pub use crate::projector_options::{ProjectorOptions, ProjectorStats};

/// The longest pause [`Projector::run`] makes after failed rounds in a row.
pub const MAX_ROUND_PAUSE: Duration = Duration::from_secs(5);

pub struct Projector {
    client: Client,
    streams: StreamsClient,
    tables: TableNames,
    ttl: Option<TtlPolicies>,
    handlers: Vec<Arc<dyn SyncHandler>>,
    options: ProjectorOptions,
    stats: Arc<ProjectorStats>,
    notifier: Option<Notifier>,
    large: Option<LargeAttributes>,
    /// Where the projector is in the stream; one round at a time holds it.
    reading: tokio::sync::Mutex<Reading>,
    checkpoints: Checkpoints,
}

/// The projector's place in the stream, kept between rounds: the shard list from the last
/// DescribeStream, and per shard what the checkpoint says plus the iterator to go on
/// with. Only a cache: the checkpoints in the projector table are the truth, and a
/// shard's entry is dropped (read again from its checkpoint) whenever reading it fails.
#[derive(Debug, Default)]
struct Reading {
    arn: Option<String>,
    /// Parents first.
    shards: Vec<ShardInfo>,
    read_at: Option<Instant>,
    /// Read the shard list again before the next round (a shard ended, or a round failed).
    stale: bool,
    cursors: HashMap<String, Cursor>,
}

/// Where the projector is in one shard.
#[derive(Debug, Clone, Default)]
struct Cursor {
    /// The last sequence number finished (and checkpointed) in the shard.
    sequence: Option<String>,
    /// The shard is closed and read to its end (checkpointed).
    finished: bool,
    /// The iterator after the last page read, to go on with next round.
    iterator: Option<String>,
    /// Until when this projector holds the shard's lease (measured here, from when it
    /// was last taken or renewed).
    leased_until: Option<Instant>,
}

impl Projector {
    pub fn new(
        client: Client,
        streams: StreamsClient,
        tables: TableNames,
        options: ProjectorOptions,
    ) -> Projector {
        let checkpoints = Checkpoints::new(
            client.clone(),
            tables.projector.clone(),
            options
                .owner
                .clone()
                .unwrap_or_else(|| ulid::Ulid::new().to_string()),
            options.lease,
        );
        Projector {
            client,
            streams,
            tables,
            ttl: None,
            handlers: Vec::new(),
            options,
            stats: Arc::new(ProjectorStats::default()),
            notifier: None,
            large: None,
            reading: tokio::sync::Mutex::new(Reading::default()),
            checkpoints,
        }
    }

    /// Applies TTL retention policies to the data and history rows it writes.
    pub fn with_ttl_policies(mut self, policies: TtlPolicies) -> Projector {
        self.ttl = Some(policies);
        self
    }

    /// Tells `notifier` when a command version finishes or fails.
    pub fn with_notifications(mut self, notifier: Notifier) -> Projector {
        self.notifier = Some(notifier);
        self
    }

    /// Reads attributes kept in an object store back for the sync handlers (the data
    /// and history rows carry the reference as it is).
    pub fn with_large_attributes(mut self, large: LargeAttributes) -> Projector {
        self.large = Some(large);
        self
    }

    fn notify(&self, command: &CommandModel, status: &str, error: Option<&str>) {
        if let Some(notifier) = &self.notifier {
            notifier.send(Notification::of(
                &self.tables.command,
                command,
                status,
                error,
            ));
        }
    }

    pub fn register(&mut self, handler: Arc<dyn SyncHandler>) {
        self.handlers.push(handler);
    }

    pub fn stats(&self) -> Arc<ProjectorStats> {
        self.stats.clone()
    }

    /// Reads everything the stream has now, applies it, and returns how many records
    /// were finished (applied, skipped as already applied, or parked). Rounds on one
    /// projector run one at a time.
    pub async fn run_once(&self) -> Result<u64> {
        let mut reading = self.reading.lock().await;
        let round = self.round(&mut reading).await;
        if round.is_err() {
            // The shard list may be what went wrong (a shard trimmed, a stream replaced).
            reading.stale = true;
        }
        round
    }

    async fn round(&self, reading: &mut Reading) -> Result<u64> {
        if needs_refresh(
            reading.read_at,
            Instant::now(),
            self.options.shard_refresh,
            reading.stale,
        ) {
            self.refresh(reading).await?;
        }
        let mut done = self.read_shards(reading).await?;
        // A shard ended: its children are read in this round too.
        if reading.stale {
            self.refresh(reading).await?;
            done += self.read_shards(reading).await?;
        }
        Ok(done)
    }

    /// Runs until `stop` resolves, polling every `idle` when there is nothing to do. A
    /// round that fails (a throttled GetRecords, a table being recreated, the endpoint
    /// down) is logged and tried again after a pause that doubles up to
    /// [`MAX_ROUND_PAUSE`]: the projector never gives up on its own, and resumes from its
    /// checkpoints.
    pub async fn run(&self, idle: Duration, stop: impl Future<Output = ()>) {
        tokio::pin!(stop);
        let mut pause = Duration::ZERO;
        loop {
            let wait = match self.run_once().await {
                Ok(0) => {
                    pause = Duration::ZERO;
                    idle
                }
                Ok(_) => {
                    pause = Duration::ZERO;
                    Duration::ZERO
                }
                Err(e) => {
                    pause = (pause * 2).clamp(idle.max(Duration::from_millis(10)), MAX_ROUND_PAUSE);
                    self.stats.failed_rounds.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(table = %self.tables.command, error = %e, retry_in = ?pause, "projector round failed");
                    pause
                }
            };
            if wait.is_zero() {
                // Still yield to `stop` between busy rounds.
                if futures_util::FutureExt::now_or_never(&mut stop).is_some() {
                    return;
                }
                continue;
            }
            tokio::select! {
                () = &mut stop => return,
                () = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// Reads the stream's ARN and shard list again; forgets what it knew of shards no
    /// longer listed.
    async fn refresh(&self, reading: &mut Reading) -> Result<()> {
        reading.arn = stream_arn(&self.client, &self.tables.command).await?;
        reading.shards = match &reading.arn {
            Some(arn) => parents_first(list_shards(&self.streams, arn, &self.stats).await?),
            None => Vec::new(),
        };
        let listed: std::collections::HashSet<&str> =
            reading.shards.iter().map(|s| s.id.as_str()).collect();
        reading.cursors.retain(|id, _| listed.contains(id.as_str()));
        reading.read_at = Some(Instant::now());
        reading.stale = false;
        Ok(())
    }

    /// One pass over the listed shards, parents first.
    async fn read_shards(&self, reading: &mut Reading) -> Result<u64> {
        let Some(arn) = reading.arn.clone() else {
            return Ok(0);
        };
        let mut done = 0;
        for shard in reading.shards.clone() {
            // Taken out while the shard is read: if reading fails, the next round starts
            // again from the checkpoint.
            let mut cursor = reading.cursors.remove(&shard.id).unwrap_or_default();
            // Parents first: a child waits until its parent is read to the end.
            let parent_open = shard.parent.as_ref().is_some_and(|parent| {
                reading.shards.iter().any(|s| &s.id == parent)
                    && !reading.cursors.get(parent).is_some_and(|c| c.finished)
            });
            if cursor.finished || parent_open {
                reading.cursors.insert(shard.id.clone(), cursor);
                continue;
            }
            // Another projector of the module reads this shard: leave it to that one.
            if !self.keep_lease(&shard.id, &mut cursor).await? {
                continue;
            }
            if cursor.finished {
                reading.cursors.insert(shard.id.clone(), cursor);
                continue;
            }
            let (finished, kept) = self.read_shard(&arn, &shard, cursor).await?;
            done += finished;
            // A cursor whose lease was lost mid-shard is dropped.
            if let Some(cursor) = kept {
                if cursor.finished {
                    reading.stale = true; // its children are not listed yet
                }
                reading.cursors.insert(shard.id.clone(), cursor);
            }
        }
        Ok(done)
    }

    /// Holds `shard` for a while more ([`Self::keep_lease`]); records delivered by a
    /// Lambda event source mapping (`None`) have the mapping's hold on their shard.
    async fn hold(&self, shard: Option<&str>, cursor: &mut Cursor) -> Result<bool> {
        match shard {
            Some(shard) => self.keep_lease(shard, cursor).await,
            None => Ok(true),
        }
    }

    /// Applies records delivered in order by someone else, a Lambda event source
    /// mapping (`crate::lambda`): each as the projector applies what it reads itself,
    /// with the same retries, parking and handoff from `publish_sync`. Returns the
    /// sequence number of the first record it could not finish (a failure that is not
    /// the record's own: the data table unavailable past `retry_for`, ...): the caller
    /// reports it, and the mapping delivers it again with the ones after it.
    pub async fn apply_records(&self, records: &[Record]) -> Option<String> {
        let mut unleased = Cursor::default();
        for record in records {
            if let Err(e) = self.finish(record, None, &mut unleased).await {
                let sequence = record.dynamodb().and_then(|d| d.sequence_number());
                tracing::warn!(?sequence, error = %e, "a delivered record is not finished");
                return Some(sequence.unwrap_or_default().to_owned());
            }
        }
        None
    }

    /// Holds the lease on `shard` for a while more: taken, or renewed once less than half
    /// of it is left. A lease taken anew (first, or after this projector's ran out)
    /// starts `cursor` again from the stored checkpoint, which another projector may have
    /// moved on. `false` when another projector holds the shard.
    async fn keep_lease(&self, shard: &str, cursor: &mut Cursor) -> Result<bool> {
        let now = Instant::now();
        let lease = self.options.lease;
        if cursor
            .leased_until
            .is_some_and(|until| until > now + lease / 2)
        {
            return Ok(true);
        }
        let held = cursor.leased_until.is_some_and(|until| until > now);
        let Some(saved) = self.checkpoints.lease(shard).await? else {
            return Ok(false);
        };
        if !held {
            *cursor = Cursor {
                sequence: saved.sequence,
                finished: saved.finished,
                ..Cursor::default()
            };
        }
        cursor.leased_until = Some(now + lease);
        Ok(true)
    }

    /// Waits, holding the shard, for the publisher of a version published in sync to
    /// finish its handlers, for at most [`ProjectorOptions::sync_grace`].
    async fn after_publisher(
        &self,
        command: &CommandModel,
        published: Published,
        shard: Option<&str>,
        cursor: &mut Cursor,
    ) -> Result<Handled> {
        if published.finished {
            return Ok(Handled::ByPublisher(published.handled_by));
        }
        let waiting = Instant::now();
        let mut pause = Duration::from_millis(10);
        loop {
            let now = read_status(&self.client, &self.tables.command, &command.pk, &command.sk);
            match now.await?.as_deref() {
                Some(status::FINISHED) => return Ok(Handled::ByPublisher(published.handled_by)),
                Some(status::FAILED) => return Ok(Handled::Failed),
                Some(status::HANDLING) if waiting.elapsed() < self.options.sync_grace => {}
                _ => {
                    tracing::warn!(pk = %command.pk, sk = %command.sk, "published in sync, its handlers not finished: the projector runs them");
                    return Ok(Handled::Abandoned);
                }
            }
            if !self.hold(shard, cursor).await? {
                return Ok(Handled::LeaseLost);
            }
            tokio::time::sleep(pause).await;
            pause = pause.saturating_mul(2).min(Duration::from_secs(1));
        }
    }

    /// This projector's handlers not among `handled`.
    fn lacks(&self, handled: &[String]) -> Vec<&str> {
        self.handler_ids()
            .into_iter()
            .filter(|id| !handled.iter().any(|h| h == id))
            .collect()
    }

    /// One page of a shard. An iterator kept from an earlier round may have expired (15
    /// minutes on AWS); then a new one is taken from the checkpoint, once.
    async fn page(
        &self,
        arn: &str,
        shard: &str,
        iterator: String,
        cursor: &Cursor,
    ) -> Result<GetRecordsOutput> {
        let mut iterator = iterator;
        let mut renewed = false;
        loop {
            self.stats.get_records_calls.fetch_add(1, Ordering::Relaxed);
            match self
                .streams
                .get_records()
                .shard_iterator(iterator)
                .limit(self.options.page)
                .send()
                .await
            {
                Ok(page) => return Ok(page),
                Err(e)
                    if !renewed
                        && e.as_service_error()
                            .is_some_and(|s| s.is_expired_iterator_exception()) =>
                {
                    renewed = true;
                    match shard_iterator(&self.streams, arn, shard, cursor.sequence.as_deref())
                        .await?
                    {
                        Some(fresh) => iterator = fresh,
                        None => return Err(CqrsError::dynamo(e)),
                    }
                }
                Err(e) => return Err(CqrsError::dynamo(e)),
            }
        }
    }

    /// Reads a shard from where the cursor is: follows pages while they hold records (and
    /// a bounded number of empty ones), checkpointing after every page with records, and
    /// ends the shard only when GetRecords gives no next iterator. Returns the records
    /// finished and the cursor to keep (`None`: another projector took the shard over).
    async fn read_shard(
        &self,
        arn: &str,
        shard: &ShardInfo,
        mut cursor: Cursor,
    ) -> Result<(u64, Option<Cursor>)> {
        let id = shard.id.as_str();
        let iterator = match cursor.iterator.take() {
            Some(kept) => Some(kept),
            None => shard_iterator(&self.streams, arn, id, cursor.sequence.as_deref()).await?,
        };
        let Some(mut iterator) = iterator else {
            return Ok((0, Some(cursor)));
        };
        let limit = empty_limit(shard, self.options.empty_pages);
        let mut done = 0;
        let mut empty_run = 0;
        loop {
            if !self.keep_lease(id, &mut cursor).await? {
                return Ok((done, None));
            }
            let page = self.page(arn, id, iterator, &cursor).await?;
            let records = page.records();
            for record in records {
                match self.finish(record, Some(id), &mut cursor).await? {
                    Some(true) => done += 1,
                    Some(false) => {}
                    None => return Ok((done, None)),
                }
            }
            let last = records
                .last()
                .and_then(|r| r.dynamodb())
                .and_then(|d| d.sequence_number())
                .map(str::to_owned);
            empty_run = if records.is_empty() { empty_run + 1 } else { 0 };
            let next = page.next_shard_iterator().map(str::to_owned);
            let step = after_page(records.len(), next.is_some(), empty_run, limit);
            if last.is_some() {
                cursor.sequence = last;
            }
            if !records.is_empty() || step == Step::End {
                let saved_at = Instant::now();
                let saved = self
                    .checkpoints
                    .save(id, cursor.sequence.as_deref(), step == Step::End)
                    .await?;
                if !saved {
                    return Ok((done, None));
                }
                cursor.leased_until = Some(saved_at + self.options.lease);
            }
            match (step, next) {
                (Step::Follow, Some(next)) => iterator = next,
                (Step::End, _) | (_, None) => {
                    cursor.finished = true;
                    return Ok((done, Some(cursor)));
                }
                (Step::Pause, Some(next)) => {
                    cursor.iterator = Some(next);
                    return Ok((done, Some(cursor)));
                }
            }
        }
    }

    /// Applies one record of `shard` with retries (holding the shard's lease meanwhile);
    /// parks it in the dead-letter table when they run out. Returns whether the record
    /// was a command (status updates are not), or `None` when another projector took
    /// the shard over while this one retried.
    async fn finish(
        &self,
        record: &Record,
        shard: Option<&str>,
        cursor: &mut Cursor,
    ) -> Result<Option<bool>> {
        let Some(CommandRecord {
            command,
            publishing,
            created_at,
            ..
        }) = CommandRecord::from_stream(record)?
        else {
            return Ok(Some(false)); // commands are only ever inserted
        };
        // Published in sync: the data is applied, and the handlers the publisher ran are
        // its to finish; this projector runs the ones it lacked.
        let handled = match publishing {
            Publishing::Async => Vec::new(),
            Publishing::Sync {
                finished,
                handled_by,
            } => match self
                .after_publisher(
                    &command,
                    Published {
                        finished,
                        handled_by,
                    },
                    shard,
                    cursor,
                )
                .await?
            {
                Handled::ByPublisher(ids) if self.lacks(&ids).is_empty() => return Ok(Some(true)),
                Handled::ByPublisher(ids) => ids,
                Handled::Failed => return Ok(Some(true)), // parked by its publisher
                Handled::Abandoned => Vec::new(),
                Handled::LeaseLost => return Ok(None),
            },
        };
        let mut backoff = self.options.first_backoff;
        let first_try = Instant::now();
        let mut attempt = 0;
        let failure = loop {
            attempt += 1;
            let failure = match self.apply(&command, &handled).await {
                Ok(()) => {
                    mark(
                        &self.client,
                        &self.tables.command,
                        &command,
                        status::FINISHED,
                    )
                    .await?;
                    self.notify(&command, status::FINISHED, None);
                    self.stats.applied.fetch_add(1, Ordering::Relaxed);
                    self.note_time(created_at);
                    return Ok(Some(true));
                }
                // Refused by DynamoDB: no retry can change that.
                Err(poison @ Failure::Poison(_)) => break poison,
                Err(failure) => failure,
            };
            tracing::warn!(pk = %command.pk, sk = %command.sk, attempt, error = %failure.message(), "projection failed");
            if first_try.elapsed() + backoff > self.options.retry_for {
                break failure;
            }
            if !self.hold(shard, cursor).await? {
                return Ok(None);
            }
            self.stats.retried.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(backoff).await;
            backoff = backoff.saturating_mul(2).min(self.options.max_backoff);
        };
        self.give_up(&command, &failure).await?;
        self.note_time(created_at);
        Ok(Some(true))
    }

    /// Parks a command whose projection failed for good: in the dead-letter table, in
    /// history too when the data table never got its version, and marks it FAILED.
    async fn give_up(&self, command: &CommandModel, failure: &Failure) -> Result<()> {
        let last_error = failure.message();
        let handler = match failure {
            Failure::Handler { handler, .. } => Some(handler.as_str()),
            _ => None,
        };
        crate::dead_letters::park(
            &self.client,
            &self.tables.dead_letter,
            command,
            &last_error,
            handler,
        )
        .await?;
        if handler.is_none() {
            // The data table never got this version: history keeps it, marked failed.
            let ttl = ttl::resolve(
                self.ttl.as_ref(),
                &command.tenant_code,
                &[TableKind::History],
            );
            crate::dead_letters::park_in_history(
                &self.client,
                &self.tables.history,
                command,
                &last_error,
                &ttl.await?,
            )
            .await?;
        }
        mark(&self.client, &self.tables.command, command, status::FAILED).await?;
        self.notify(command, status::FAILED, Some(&last_error));
        self.stats.dead_lettered.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn note_time(&self, created_at: Option<i64>) {
        if let Some(secs) = created_at {
            self.stats
                .last_record_time
                .store(secs.max(0) as u64, Ordering::Relaxed);
        }
    }

    /// Applies one command version again, once: the data table (unless it is there
    /// already), then every handler. On success the command is marked finished and its
    /// dead-letter row, if any, removed; on failure nothing changes and the error says why.
    pub async fn replay(&self, command: &CommandModel) -> Result<()> {
        match self.apply(command, &[]).await {
            Ok(()) => {
                mark(
                    &self.client,
                    &self.tables.command,
                    command,
                    status::FINISHED,
                )
                .await?;
                self.client
                    .delete_item()
                    .table_name(&self.tables.dead_letter)
                    .set_key(Some(key(&command.pk, &command.sk)))
                    .send()
                    .await
                    .map_err(CqrsError::dynamo)?;
                self.notify(command, status::FINISHED, None);
                tracing::info!(pk = %command.pk, sk = %command.sk, "replayed");
                Ok(())
            }
            Err(failure) => Err(CqrsError::Replay {
                command: format!("{} {}", command.pk, command.sk),
                message: failure.message(),
            }),
        }
    }

    pub fn tables(&self) -> &TableNames {
        &self.tables
    }

    /// The ids of the registered sync handlers.
    pub fn handler_ids(&self) -> Vec<&str> {
        self.handlers.iter().map(|h| h.id()).collect()
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Applies one command version: data table (with history), then every handler but
    /// those in `handled` (applied by the version's publisher).
    async fn apply(
        &self,
        command: &CommandModel,
        handled: &[String],
    ) -> std::result::Result<(), Failure> {
        self.apply_data(command).await.map_err(failure)?;
        // Handlers see the attributes even when the row only refers to them.
        let loaded;
        let command = match &command.attributes_ref {
            Some(_) if !self.handlers.is_empty() => {
                loaded = resolve(self.large.as_ref(), command.clone())
                    .await
                    .map_err(failure)?;
                &loaded
            }
            _ => command,
        };
        for handler in self
            .handlers
            .iter()
            .filter(|h| !handled.iter().any(|id| id == h.id()))
        {
            handler.up(command).await.map_err(|e| Failure::Handler {
                handler: handler.id().to_owned(),
                error: e.to_string(),
            })?;
        }
        Ok(())
    }

    /// The data row is written only while it is still the row read (its version, or
    /// its absence), so a redelivered or already applied version changes nothing and the
    /// row it replaces is the one that goes to history: when another writer moves the
    /// row on between the read and the write, the write is refused and the row read
    /// again, so no intermediate version misses its history row.
    async fn apply_data(&self, command: &CommandModel) -> Result<()> {
        loop {
            if self.apply_data_once(command).await? {
                return Ok(());
            }
        }
    }

    /// One attempt of [`Self::apply_data`]: `false` when the data row moved between the
    /// read and the write (read it again).
    async fn apply_data_once(&self, command: &CommandModel) -> Result<bool> {
        let current = read_row(
            &self.client,
            &self.tables.data,
            &command.pk,
            command.base_sk(),
        )
        .await?;
        if current
            .as_ref()
            .is_some_and(|c| c.version >= command.version)
        {
            return Ok(true); // applied already (redelivery, or publish_sync)
        }
        let kinds = ttl_kinds(current.as_ref(), command);
        let ttl = ttl::resolve(self.ttl.as_ref(), &command.tenant_code, &kinds).await?;
        let Projection {
            history_row,
            data_row,
        } = project(current.as_ref(), command, &ttl);
        let mut actions = Vec::new();
        if let Some(history) = history_row {
            // Unconditional: the data row's condition decides for both.
            actions.push(conditional_put(&self.tables.history, history, None, None)?);
        }
        let read = match &current {
            Some(row) => (format!("{VERSION} = :v"), Some(row.version)),
            None => (format!("attribute_not_exists({PK})"), None),
        };
        actions.push(conditional_put(
            &self.tables.data,
            data_row,
            Some(&read.0),
            read.1,
        )?);
        match self
            .client
            .transact_write_items()
            .set_transact_items(Some(actions))
            .send()
            .await
        {
            Ok(_) => Ok(true),
            Err(e) => match e.as_service_error() {
                Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) => {
                    // The row moved on since it was read: read it again. Contention or
                    // throttling is a failure, retried by the caller.
                    match classify(cancelled.cancellation_reasons()).failure() {
                        None => Ok(false),
                        Some(failure) => Err(failure),
                    }
                }
                _ => Err(CqrsError::dynamo(e)),
            },
        }
    }
}
