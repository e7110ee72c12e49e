//! The projector: reads the command table's stream through the DynamoDB Streams API
//! (so it runs on AWS too), applies every command version to the data table (the previous
//! row going to history), and calls the registered sync handlers.
//!
//! - **Exactly once on the data table.** The data row is written only if its stored
//!   version is lower than the command's (`attribute_not_exists(pk) OR version < :v`), so a
//!   redelivered record, or one already applied by `publish_sync`, changes nothing.
//! - **At least once for handlers,** with the command's version so they can be idempotent.
//! - **Never stalls.** A record that still fails after its retries (with backoff) is parked
//!   in the dead-letter table with its error, and the projector moves on: one bad item
//!   never blocks the others.
//! - **Resumes where it stopped.** After every page it checkpoints, per shard, the last
//!   sequence number it finished, in the projector table; a restart continues after it.
//!   Shards are read parents first, following lineage.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use aws_sdk_dynamodbstreams::Client as StreamsClient;
use aws_sdk_dynamodbstreams::types::{
    AttributeValue as StreamValue, OperationType, Record, Shard, ShardIteratorType,
};

use crate::command::{CommandModel, now_timestamp};
use crate::error::{CqrsError, Result};
use crate::names::{ERROR, FINISHED, PARKED_AT, PK, SEQUENCE, STATUS, VERSION};
use crate::projection::{Projection, project, ttl_kinds};
use crate::rows::{Item, key, n, read_row, s};
use crate::status;
use crate::sync::SyncHandler;
use crate::tables::TableNames;
use crate::ttl::{self, TtlPolicies};

/// How hard the projector tries before parking a record.
#[derive(Debug, Clone)]
pub struct ProjectorOptions {
    pub attempts: u32,
    pub first_backoff: Duration,
    /// Records per GetRecords call.
    pub page: i32,
}

impl Default for ProjectorOptions {
    fn default() -> Self {
        ProjectorOptions {
            attempts: 5,
            first_backoff: Duration::from_millis(50),
            page: 100,
        }
    }
}

/// What the projector has done, for monitoring.
#[derive(Debug, Default)]
pub struct ProjectorStats {
    pub applied: AtomicU64,
    pub dead_lettered: AtomicU64,
    /// Creation time (epoch seconds) of the last record finished: the lag is now minus it.
    pub last_record_time: AtomicU64,
}

impl ProjectorStats {
    /// How far behind the stream the projector is: now minus the creation time of the
    /// last record it finished (`None` before the first).
    pub fn lag(&self) -> Option<Duration> {
        let last = self.last_record_time.load(Ordering::Relaxed);
        if last == 0 {
            return None;
        }
        let now = time::OffsetDateTime::now_utc().unix_timestamp().max(0) as u64;
        Some(Duration::from_secs(now.saturating_sub(last)))
    }
}

pub struct Projector {
    client: Client,
    streams: StreamsClient,
    tables: TableNames,
    ttl: Option<TtlPolicies>,
    handlers: Vec<Arc<dyn SyncHandler>>,
    options: ProjectorOptions,
    stats: Arc<ProjectorStats>,
}

/// A streams attribute value as a DynamoDB one (the two SDKs have separate types).
fn convert(value: &StreamValue) -> AttributeValue {
    match value {
        StreamValue::S(v) => AttributeValue::S(v.clone()),
        StreamValue::N(v) => AttributeValue::N(v.clone()),
        StreamValue::B(v) => AttributeValue::B(v.clone()),
        StreamValue::Bool(v) => AttributeValue::Bool(*v),
        StreamValue::Null(v) => AttributeValue::Null(*v),
        StreamValue::Ss(v) => AttributeValue::Ss(v.clone()),
        StreamValue::Ns(v) => AttributeValue::Ns(v.clone()),
        StreamValue::Bs(v) => AttributeValue::Bs(v.clone()),
        StreamValue::L(v) => AttributeValue::L(v.iter().map(convert).collect()),
        StreamValue::M(v) => AttributeValue::M(convert_item(v)),
        _ => AttributeValue::Null(true),
    }
}

fn convert_item(item: &HashMap<String, StreamValue>) -> Item {
    item.iter().map(|(k, v)| (k.clone(), convert(v))).collect()
}

impl Projector {
    pub fn new(
        client: Client,
        streams: StreamsClient,
        tables: TableNames,
        options: ProjectorOptions,
    ) -> Projector {
        Projector {
            client,
            streams,
            tables,
            ttl: None,
            handlers: Vec::new(),
            options,
            stats: Arc::new(ProjectorStats::default()),
        }
    }

    /// Applies TTL retention policies to the data and history rows it writes.
    pub fn with_ttl_policies(mut self, policies: TtlPolicies) -> Projector {
        self.ttl = Some(policies);
        self
    }

    pub fn register(&mut self, handler: Arc<dyn SyncHandler>) {
        self.handlers.push(handler);
    }

    pub fn stats(&self) -> Arc<ProjectorStats> {
        self.stats.clone()
    }

    /// Reads everything the stream has now, applies it, and returns how many records
    /// were finished (applied, skipped as already applied, or parked).
    pub async fn run_once(&self) -> Result<u64> {
        let Some(arn) = self.stream_arn().await? else {
            return Ok(0);
        };
        let shards = self.shards(&arn).await?;
        let mut done = 0;
        for shard in &shards {
            let Some(id) = shard.shard_id() else { continue };
            let checkpoint = self.checkpoint(id).await?;
            if checkpoint.finished {
                continue;
            }
            // Parents first: a child waits until its parent is read to the end.
            if let Some(parent) = shard.parent_shard_id()
                && shards.iter().any(|s| s.shard_id() == Some(parent))
                && !self.checkpoint(parent).await?.finished
            {
                continue;
            }
            done += self.read_shard(&arn, shard, checkpoint).await?;
        }
        Ok(done)
    }

    /// Runs until `stop` resolves, polling every `idle` when there is nothing to do.
    pub async fn run(&self, idle: Duration, stop: impl Future<Output = ()>) -> Result<()> {
        tokio::pin!(stop);
        loop {
            let done = self.run_once().await?;
            if done == 0 {
                tokio::select! {
                    () = &mut stop => return Ok(()),
                    () = tokio::time::sleep(idle) => {}
                }
            }
        }
    }

    async fn stream_arn(&self) -> Result<Option<String>> {
        let table = self
            .client
            .describe_table()
            .table_name(&self.tables.command)
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        Ok(table
            .table()
            .and_then(|t| t.latest_stream_arn())
            .map(str::to_owned))
    }

    async fn shards(&self, arn: &str) -> Result<Vec<Shard>> {
        let mut shards = Vec::new();
        let mut start: Option<String> = None;
        loop {
            let page = self
                .streams
                .describe_stream()
                .stream_arn(arn)
                .set_exclusive_start_shard_id(start.take())
                .send()
                .await
                .map_err(CqrsError::dynamo)?;
            let Some(description) = page.stream_description() else {
                break;
            };
            shards.extend(description.shards().iter().cloned());
            match description.last_evaluated_shard_id() {
                Some(last) => start = Some(last.to_owned()),
                None => break,
            }
        }
        Ok(shards)
    }

    async fn read_shard(&self, arn: &str, shard: &Shard, checkpoint: Checkpoint) -> Result<u64> {
        let id = shard.shard_id().unwrap_or_default();
        let request = self
            .streams
            .get_shard_iterator()
            .stream_arn(arn)
            .shard_id(id);
        let request = match &checkpoint.sequence {
            Some(seq) => request
                .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
                .sequence_number(seq),
            None => request.shard_iterator_type(ShardIteratorType::TrimHorizon),
        };
        let mut iterator = request
            .send()
            .await
            .map_err(CqrsError::dynamo)?
            .shard_iterator()
            .map(str::to_owned);
        let mut done = 0;
        while let Some(current) = iterator.take() {
            let page = self
                .streams
                .get_records()
                .shard_iterator(current)
                .limit(self.options.page)
                .send()
                .await
                .map_err(CqrsError::dynamo)?;
            let records = page.records();
            for record in records {
                if self.finish(record).await? {
                    done += 1;
                }
            }
            let next = page.next_shard_iterator().map(str::to_owned);
            let last = records
                .last()
                .and_then(|r| r.dynamodb())
                .and_then(|d| d.sequence_number())
                .map(str::to_owned);
            if last.is_some() || next.is_none() {
                self.save_checkpoint(id, last.or(checkpoint.sequence.clone()), next.is_none())
                    .await?;
            }
            // An open shard is read up to the present, then left for the next round.
            if records.is_empty() {
                break;
            }
            iterator = next;
        }
        Ok(done)
    }

    /// Applies one record with retries; parks it in the dead-letter table when they run
    /// out. Returns whether the record was a command (status updates are not).
    async fn finish(&self, record: &Record) -> Result<bool> {
        if record.event_name() != Some(&OperationType::Insert) {
            return Ok(false); // commands are only ever inserted
        }
        let Some(image) = record.dynamodb().and_then(|d| d.new_image()) else {
            return Ok(false);
        };
        // Published in sync: data and handlers were applied before the publish returned.
        if matches!(image.get(STATUS), Some(StreamValue::S(status)) if status == status::FINISHED) {
            return Ok(true);
        }
        let command = CommandModel::from_item(&convert_item(image))?;
        let mut backoff = self.options.first_backoff;
        let mut last_error = String::new();
        for attempt in 1..=self.options.attempts.max(1) {
            match self.apply(&command).await {
                Ok(()) => {
                    self.mark(&command, status::FINISHED).await?;
                    self.stats.applied.fetch_add(1, Ordering::Relaxed);
                    self.note_time(record);
                    return Ok(true);
                }
                Err(e) => {
                    tracing::warn!(pk = %command.pk, sk = %command.sk, attempt, error = %e, "projection failed");
                    last_error = e;
                }
            }
            if attempt < self.options.attempts {
                tokio::time::sleep(backoff).await;
                backoff = backoff.saturating_mul(2);
            }
        }
        self.park(&command, &last_error).await?;
        self.mark(&command, status::FAILED).await?;
        self.stats.dead_lettered.fetch_add(1, Ordering::Relaxed);
        self.note_time(record);
        Ok(true)
    }

    fn note_time(&self, record: &Record) {
        if let Some(t) = record
            .dynamodb()
            .and_then(|d| d.approximate_creation_date_time())
        {
            self.stats
                .last_record_time
                .store(t.secs().max(0) as u64, Ordering::Relaxed);
        }
    }

    /// Applies one command version: data table (with history), then every handler.
    async fn apply(&self, command: &CommandModel) -> std::result::Result<(), String> {
        self.apply_data(command).await.map_err(|e| e.to_string())?;
        for handler in &self.handlers {
            handler
                .up(command)
                .await
                .map_err(|e| format!("handler {}: {e}", handler.id()))?;
        }
        Ok(())
    }

    /// The data row is written only while its version is lower than the command's, so a
    /// redelivered or already applied version changes nothing; history is overwritten
    /// with the same row when that happens.
    async fn apply_data(&self, command: &CommandModel) -> Result<()> {
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
            return Ok(()); // applied already (redelivery, or publish_sync)
        }
        let kinds = ttl_kinds(current.as_ref(), command, false);
        let ttl = ttl::resolve(self.ttl.as_ref(), &command.tenant_code, &kinds).await?;
        let Projection {
            history_row,
            data_row,
        } = project(current.as_ref(), command, &ttl);
        let mut actions = Vec::new();
        if let Some(history) = history_row {
            actions.push(put(&self.tables.history, history, None)?);
        }
        actions.push(put(
            &self.tables.data,
            data_row,
            Some((
                &format!("attribute_not_exists({PK}) OR {VERSION} < :v"),
                command.version,
            )),
        )?);
        match self
            .client
            .transact_write_items()
            .set_transact_items(Some(actions))
            .send()
            .await
        {
            Ok(_) => Ok(()),
            // Someone applied this or a later version meanwhile: nothing left to do.
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_transaction_canceled_exception()) =>
            {
                Ok(())
            }
            Err(e) => Err(CqrsError::dynamo(e)),
        }
    }

    /// Records how a command ended on its row in the command table (clients wait on it).
    async fn mark(&self, command: &CommandModel, status: &str) -> Result<()> {
        let update = self
            .client
            .update_item()
            .table_name(&self.tables.command)
            .set_key(Some(key(&command.pk, &command.sk)))
            .update_expression("SET #status = :status")
            .condition_expression(format!("attribute_exists({PK})"))
            .expression_attribute_names("#status", STATUS)
            .expression_attribute_values(":status", s(status))
            .send()
            .await;
        match update {
            Ok(_) => Ok(()),
            // The command row expired or was removed meanwhile: nothing to mark.
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_conditional_check_failed_exception()) =>
            {
                Ok(())
            }
            Err(e) => Err(CqrsError::dynamo(e)),
        }
    }

    async fn park(&self, command: &CommandModel, error: &str) -> Result<()> {
        let mut item = command.to_item();
        item.insert(ERROR.into(), s(error));
        item.insert(PARKED_AT.into(), s(&now_timestamp()));
        self.client
            .put_item()
            .table_name(&self.tables.dead_letter)
            .set_item(Some(item))
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        tracing::error!(pk = %command.pk, sk = %command.sk, error, "record parked in the dead-letter table");
        Ok(())
    }

    async fn checkpoint(&self, shard: &str) -> Result<Checkpoint> {
        let got = self
            .client
            .get_item()
            .table_name(&self.tables.projector)
            .set_key(Some(key(CHECKPOINT_PK, shard)))
            .consistent_read(true)
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        let item = got.item();
        Ok(Checkpoint {
            sequence: match item.and_then(|i| i.get(SEQUENCE)) {
                Some(AttributeValue::S(seq)) => Some(seq.clone()),
                _ => None,
            },
            finished: matches!(
                item.and_then(|i| i.get(FINISHED)),
                Some(AttributeValue::Bool(true))
            ),
        })
    }

    async fn save_checkpoint(
        &self,
        shard: &str,
        sequence: Option<String>,
        finished: bool,
    ) -> Result<()> {
        let mut request = self
            .client
            .put_item()
            .table_name(&self.tables.projector)
            .set_item(Some(key(CHECKPOINT_PK, shard)))
            .item(FINISHED, AttributeValue::Bool(finished));
        if let Some(seq) = sequence {
            request = request.item(SEQUENCE, s(&seq));
        }
        request.send().await.map_err(CqrsError::dynamo)?;
        Ok(())
    }
}

const CHECKPOINT_PK: &str = "CHECKPOINT";

#[derive(Debug, Clone, Default)]
struct Checkpoint {
    /// The last sequence number finished in the shard.
    sequence: Option<String>,
    /// The shard is closed and read to its end.
    finished: bool,
}

fn put(table: &str, item: Item, condition: Option<(&str, i64)>) -> Result<TransactWriteItem> {
    let mut put = Put::builder().table_name(table).set_item(Some(item));
    if let Some((expression, version)) = condition {
        put = put
            .condition_expression(expression)
            .expression_attribute_values(":v", n(version));
    }
    let put = put
        .build()
        .map_err(|e| CqrsError::InvalidKey(e.to_string()))?;
    Ok(TransactWriteItem::builder().put(put).build())
}
