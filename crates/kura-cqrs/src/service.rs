//! Publishing commands and reading them back, over aws-sdk-dynamodb only.
//!
//! - `publish_async` writes the next version to the command table; the projector applies
//!   it to the data table from the stream.
//! - `publish_sync` writes the command, the previous data row to history and the new data
//!   row in one transaction, then runs its sync handlers; the projector finds the data row
//!   already at that version and runs only the handlers of its own the publisher lacked
//!   (or all of them, when the publisher died before its handlers were done).

use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::cancellation::classify;
use crate::command::{CommandInput, CommandModel, Decision, Invoker, decide, now_timestamp};
use crate::error::{CqrsError, Result};
use crate::indexes::Indexes;
use crate::keys::{add_sort_key_version, check_base_sk};
use crate::large::{LargeAttributes, resolve_some};
use crate::names::{ERROR, HANDLED_BY, PK, SK, STATUS, TTL, TTL_POLICY, VERSION, not_exists};
use crate::notifications::{Notification, Notifier};
use crate::partial::PartialUpdate;
use crate::projection::{Projection, command_row, project, ttl_kinds};
use crate::rows::{Item, conditional_put, key, n, read_row, s};
use crate::sessions::Sessions;
use crate::status;
use crate::sync::SyncHandler;
use crate::tables::{TableKind, TableNames};
use crate::ttl::{self, TtlPolicies};
use crate::version::Version;

/// Publishes and reads the commands of one module.
#[derive(Debug, Clone)]
pub struct CommandService {
    client: Client,
    tables: TableNames,
    ttl: Option<TtlPolicies>,
    indexes: Indexes,
    sessions: Option<Sessions>,
    notifier: Option<Notifier>,
    large: Option<LargeAttributes>,
    handlers: Handlers,
}

/// The sync handlers `publish_sync` runs before it returns.
#[derive(Clone, Default)]
struct Handlers(Vec<Arc<dyn SyncHandler>>);

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|h| h.id()))
            .finish()
    }
}

fn is_conditional_failure<E: aws_sdk_dynamodb::error::ProvideErrorMetadata>(e: &E) -> bool {
    e.code() == Some("ConditionalCheckFailedException")
}

impl CommandService {
    pub fn new(client: Client, tables: TableNames) -> CommandService {
        CommandService {
            client,
            tables,
            ttl: None,
            indexes: Indexes::default(),
            sessions: None,
            notifier: None,
            large: None,
            handlers: Handlers::default(),
        }
    }

    /// Writes the key attributes of the module's secondary indexes on every command
    /// version it publishes (the projector carries them to the data row); create the
    /// indexes with [`crate::ensure_tables_with`].
    pub fn with_indexes(mut self, indexes: Indexes) -> CommandService {
        self.indexes = indexes;
        self
    }

    /// Records every version published asynchronously under its invoker's user id, for
    /// that user's reads through [`crate::DataService::with_sessions`].
    pub fn with_sessions(mut self, sessions: Sessions) -> CommandService {
        self.sessions = Some(sessions);
        self
    }

    /// Tells `notifier` when a command published in sync finishes or fails (the
    /// projector tells it for async ones, [`crate::Projector::with_notifications`]).
    pub fn with_notifications(mut self, notifier: Notifier) -> CommandService {
        self.notifier = Some(notifier);
        self
    }

    /// Keeps the attributes of versions too large for a DynamoDB item in `large`'s
    /// bucket, and reads them back (give the projector and the data service the same).
    pub fn with_large_attributes(mut self, large: LargeAttributes) -> CommandService {
        self.large = Some(large);
        self
    }

    fn notify(&self, model: &CommandModel, status: &str, error: Option<&str>) {
        if let Some(notifier) = &self.notifier {
            notifier.send(Notification::of(&self.tables.command, model, status, error));
        }
    }

    pub fn indexes(&self) -> &Indexes {
        &self.indexes
    }

    /// The version publishing `input` writes, or `None` when it writes nothing: the
    /// "not dirty" rule, except that an entity whose index keys are not what the
    /// declared indexes compute (an index added since, a declaration changed) is written
    /// again, so that publishing it again puts it in the index.
    fn decide(
        &self,
        input: &CommandInput,
        latest: Option<&CommandModel>,
    ) -> Result<Option<Version>> {
        match decide(input, latest)? {
            Decision::Write { version } => Ok(Some(version)),
            Decision::NotDirty => Ok(latest
                .filter(|l| !self.indexes.is_empty() && self.indexes.keys_of(l) != l.index_keys)
                .map(|l| l.version.next())),
        }
    }

    /// The stored command for `version` of `input`, its index keys computed, its
    /// attributes offloaded when too large for the row.
    async fn model(
        &self,
        input: &CommandInput,
        version: Version,
        invoker: &Invoker,
        created: Option<&crate::command::Audit>,
        now: &str,
    ) -> Result<CommandModel> {
        let mut model = CommandModel::from_input(input, version, invoker, created, now);
        model.index_keys = self.indexes.keys_of(&model);
        if let Some(large) = &self.large {
            large.offload(&self.tables.command, &mut model).await?;
        }
        Ok(model)
    }

    /// A handler `publish_sync` runs before it returns (register the same ones with the
    /// projector: it leaves commands published in sync to them).
    pub fn with_sync_handler(mut self, handler: Arc<dyn SyncHandler>) -> CommandService {
        self.handlers.0.push(handler);
        self
    }

    /// Applies TTL retention policies to the command, data and history rows it writes.
    pub fn with_ttl_policies(mut self, policies: TtlPolicies) -> CommandService {
        self.ttl = Some(policies);
        self
    }

    pub fn tables(&self) -> &TableNames {
        &self.tables
    }

    /// Writes the next version of the entity to the command table. Returns the stored
    /// command, or `None` when the input equals the latest version (nothing is written).
    pub async fn publish_async(
        &self,
        input: &CommandInput,
        invoker: &Invoker,
    ) -> Result<Option<CommandModel>> {
        check_base_sk(&input.sk)?;
        let latest = self.latest_command(&input.pk, &input.sk).await?;
        self.publish_async_over(input, latest, invoker).await
    }

    /// [`Self::publish_async`] on top of `latest`, the entity's latest version as the
    /// caller read it: the version written is decided on that read and no other, so a
    /// writer that merged onto `latest` cannot land on top of a newer one.
    async fn publish_async_over(
        &self,
        input: &CommandInput,
        latest: Option<CommandModel>,
        invoker: &Invoker,
    ) -> Result<Option<CommandModel>> {
        let version = match self.decide(input, latest.as_ref())? {
            Some(version) => version,
            None => return Ok(None),
        };
        // Every version carries created* from the first, so the latest has them (and
        // still does when the first version's row has expired by a retention policy).
        let model = self
            .model(
                input,
                version,
                invoker,
                latest.as_ref().map(|l| &l.audit),
                &now_timestamp(),
            )
            .await?;
        self.put_command(&model).await?;
        self.retire(&model).await;
        self.record(invoker, &model).await?;
        Ok(Some(model))
    }

    /// Validates against the data table, then writes the command, the previous data row
    /// to history and the new data row in one transaction. A cancelled transaction is a
    /// `VersionConflict` only when a version condition failed; contention and throttling
    /// give a retryable `TransactionCanceled`, a refused request a non-retryable one.
    pub async fn publish_sync(
        &self,
        input: &CommandInput,
        invoker: &Invoker,
    ) -> Result<Option<CommandModel>> {
        check_base_sk(&input.sk)?;
        let current = self.data_row(&input.pk, &input.sk).await?;
        self.publish_sync_over(input, current, invoker).await
    }

    /// [`Self::publish_sync`] on top of `current`, the data row as the caller read it;
    /// the transaction holds only while the data row is still at that version.
    async fn publish_sync_over(
        &self,
        input: &CommandInput,
        current: Option<CommandModel>,
        invoker: &Invoker,
    ) -> Result<Option<CommandModel>> {
        let version = match self.decide(input, current.as_ref())? {
            Some(version) => version,
            None => return Ok(None),
        };
        let now = now_timestamp();
        let model = self
            .model(
                input,
                version,
                invoker,
                current.as_ref().map(|c| &c.audit),
                &now,
            )
            .await?;
        // Applied here and now: the command is finished when the transaction commits.
        let kinds = ttl_kinds(current.as_ref(), &model);
        let ttl = ttl::resolve(self.ttl.as_ref(), &model.tenant_code, &kinds).await?;
        let Projection {
            history_row,
            data_row,
        } = project(current.as_ref(), &model, &ttl);
        // The command version must be new; history at the previous version must be new;
        // the data row must still be at the version `decide` saw.
        let mut actions = vec![conditional_put(
            &self.tables.command,
            self.sync_command_row(&model, &ttl),
            Some(&not_exists()),
            None,
        )?];
        if let Some(history) = history_row {
            actions.push(conditional_put(
                &self.tables.history,
                history,
                Some(&not_exists()),
                None,
            )?);
        }
        let data_condition = match &current {
            Some(old) => (format!("{VERSION} = :v"), Some(old.version)),
            None => (format!("attribute_not_exists({PK})"), None),
        };
        actions.push(conditional_put(
            &self.tables.data,
            data_row,
            Some(&data_condition.0),
            data_condition.1,
        )?);
        let sent = self
            .client
            .transact_write_items()
            .set_transact_items(Some(actions))
            .send()
            .await;
        match sent {
            Ok(_) => {
                self.retire(&model).await;
                for handler in &self.handlers.0 {
                    if let Err(source) = handler.up(&model).await {
                        let error = format!("handler {}: {source}", handler.id());
                        self.record_failure(&model, &error, handler.id()).await;
                        self.notify(&model, status::FAILED, Some(&error));
                        return Err(CqrsError::Handler {
                            handler: handler.id().to_owned(),
                            source,
                        });
                    }
                }
                if !self.handlers.0.is_empty() {
                    self.set_finished(&model).await;
                }
                self.notify(&model, status::FINISHED, None);
                Ok(Some(model))
            }
            Err(e) => match e.as_service_error() {
                Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) => {
                    match classify(cancelled.cancellation_reasons()).failure() {
                        // Another writer took this version, or moved the data row on.
                        None => {
                            let actual = self.data_version(&input.pk, &input.sk).await?;
                            Err(CqrsError::VersionConflict {
                                expected: version.previous(),
                                actual: Version::new(actual),
                            })
                        }
                        Some(failure) => Err(failure),
                    }
                }
                _ => Err(CqrsError::dynamo(e)),
            },
        }
    }

    /// Merges `patch` onto the latest command and publishes the result asynchronously,
    /// as the version after the one it merged onto: a concurrent writer that got there
    /// first makes this a [`CqrsError::VersionConflict`] (read again and retry), never a
    /// version that silently drops the other writer's change.
    pub async fn publish_partial_update_async(
        &self,
        patch: &PartialUpdate,
        invoker: &Invoker,
    ) -> Result<Option<CommandModel>> {
        check_base_sk(&patch.sk)?;
        let latest = self
            .latest_command(&patch.pk, &patch.sk)
            .await?
            .ok_or_else(|| CqrsError::NotFound(format!("{} {}", patch.pk, patch.sk)))?;
        let input = patch.apply_to(&latest)?;
        self.publish_async_over(&input, Some(latest), invoker).await
    }

    /// Merges `patch` onto the data row and publishes the result in sync, on top of the
    /// data row it merged onto (a concurrent writer makes this a
    /// [`CqrsError::VersionConflict`]).
    pub async fn publish_partial_update_sync(
        &self,
        patch: &PartialUpdate,
        invoker: &Invoker,
    ) -> Result<Option<CommandModel>> {
        check_base_sk(&patch.sk)?;
        let current = self
            .data_row(&patch.pk, &patch.sk)
            .await?
            .ok_or_else(|| CqrsError::NotFound(format!("{} {}", patch.pk, patch.sk)))?;
        let input = patch.apply_to(&current)?;
        self.publish_sync_over(&input, Some(current), invoker).await
    }

    /// Publishes the latest command again as a new version, unchanged (to replay its
    /// projection); the "not dirty" rule does not apply.
    pub async fn duplicate(
        &self,
        pk: &str,
        base_sk: &str,
        invoker: &Invoker,
    ) -> Result<CommandModel> {
        let latest = self
            .latest_command(pk, base_sk)
            .await?
            .ok_or_else(|| CqrsError::NotFound(format!("{pk} {base_sk}")))?;
        let model = self
            .model(
                &latest.to_input(latest.version)?,
                latest.version.next(),
                invoker,
                Some(&latest.audit),
                &now_timestamp(),
            )
            .await?;
        self.put_command(&model).await?;
        self.retire(&model).await;
        self.record(invoker, &model).await?;
        Ok(model)
    }

    /// Records an async publish for its user's reads (when sessions are on). The command
    /// is stored by then: a failure here is logged, not returned (a caller retrying the
    /// publish would meet its own version as a conflict).
    async fn record(&self, invoker: &Invoker, model: &CommandModel) -> Result<()> {
        if let Some(sessions) = &self.sessions
            && let Err(e) = sessions.record(&invoker.user_id, model).await
        {
            tracing::warn!(pk = %model.pk, sk = %model.sk, error = %e, "read-your-writes: not recorded");
        }
        Ok(())
    }

    /// Writes a command version that must not exist yet; the projector will finish it.
    /// As the latest version it is kept as long as a data row ([`command_row`]).
    async fn put_command(&self, model: &CommandModel) -> Result<()> {
        let kinds: &[TableKind] = match model.ttl {
            Some(_) => &[],
            None => &[TableKind::Data],
        };
        let ttl = ttl::resolve(self.ttl.as_ref(), &model.tenant_code, kinds).await?;
        let put = self
            .client
            .put_item()
            .table_name(&self.tables.command)
            .set_item(Some(command_row(model, status::STARTED, &ttl)))
            .condition_expression(not_exists())
            .send()
            .await;
        match put {
            Ok(_) => Ok(()),
            Err(e) if e.as_service_error().is_some_and(is_conditional_failure) => {
                // Another writer took this version first.
                let actual = self
                    .latest_version(&model.pk, model.base_sk())
                    .await?
                    .unwrap_or(Version::FIRST);
                Err(CqrsError::VersionConflict {
                    expected: model.version.previous(),
                    actual,
                })
            }
            Err(e) => Err(CqrsError::dynamo(e)),
        }
    }

    /// The command row `publish_sync` writes: finished at once when it has no handlers
    /// to run, else [`status::HANDLING`] until they have all applied it; either way with
    /// the ids of the handlers it runs, so that a projector runs the ones it lacks.
    fn sync_command_row(&self, model: &CommandModel, ttl: &crate::ttl::RowTtl) -> Item {
        let ids: Vec<AttributeValue> = self.handlers.0.iter().map(|h| s(h.id())).collect();
        if ids.is_empty() {
            return command_row(model, status::FINISHED, ttl);
        }
        let mut row = command_row(model, status::HANDLING, ttl);
        row.insert(HANDLED_BY.into(), AttributeValue::L(ids));
        row
    }

    /// Marks a version published in sync finished once its handlers have all applied
    /// it. Best effort: the handlers are done either way, so a failure here is logged,
    /// and a projector finding the version still handling after its grace runs the
    /// handlers again (they are idempotent) and marks it.
    async fn set_finished(&self, model: &CommandModel) {
        let marked = self
            .client
            .update_item()
            .table_name(&self.tables.command)
            .set_key(Some(key(&model.pk, &model.sk)))
            .update_expression("SET #status = :finished")
            .condition_expression("#status = :handling")
            .expression_attribute_names("#status", STATUS)
            .expression_attribute_values(":finished", s(status::FINISHED))
            .expression_attribute_values(":handling", s(status::HANDLING))
            .send()
            .await;
        match marked {
            Ok(_) => {}
            // Expired, or a projector that took the version over marked it already.
            Err(e) if e.as_service_error().is_some_and(is_conditional_failure) => {}
            Err(e) => {
                tracing::warn!(pk = %model.pk, sk = %model.sk, error = %CqrsError::dynamo(e), "a version published in sync was not marked finished");
            }
        }
    }

    /// Records a sync handler's failure: the command parked in the dead-letter table with
    /// the handler's id (for [`crate::redrive`]) and marked failed. The caller returns the
    /// handler's error whatever happens here: a failure to record it is logged, and
    /// never takes the handler's error's place.
    async fn record_failure(&self, model: &CommandModel, error: &str, handler: &str) {
        let parked = crate::dead_letters::park(
            &self.client,
            &self.tables.dead_letter,
            model,
            error,
            Some(handler),
        )
        .await;
        let marked = self.set_failed(model, error).await;
        for recorded in [parked, marked] {
            if let Err(e) = recorded {
                tracing::error!(pk = %model.pk, sk = %model.sk, handler, error = %e, "a sync handler's failure was not recorded");
            }
        }
    }

    /// Marks a command failed by a sync handler, with the handler's error.
    async fn set_failed(&self, model: &CommandModel, error: &str) -> Result<()> {
        self.client
            .update_item()
            .table_name(&self.tables.command)
            .set_key(Some(key(&model.pk, &model.sk)))
            .update_expression("SET #status = :status, #error = :error")
            .expression_attribute_names("#status", STATUS)
            .expression_attribute_names("#error", ERROR)
            .expression_attribute_values(":status", s(status::FAILED))
            .expression_attribute_values(":error", s(error))
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        Ok(())
    }

    /// The status of one command version (`projection:STARTED`, `finish:FINISHED`,
    /// `finish:FAILED`), if the version exists.
    pub async fn status(
        &self,
        pk: &str,
        base_sk: &str,
        version: impl Into<Version>,
    ) -> Result<Option<String>> {
        let version = version.into();
        crate::command_status::read_status(
            &self.client,
            &self.tables.command,
            pk,
            &add_sort_key_version(base_sk, version),
        )
        .await
    }

    /// [`Self::status`], typed (`None` also for a status the framework does not write).
    pub async fn command_status(
        &self,
        pk: &str,
        base_sk: &str,
        version: impl Into<Version>,
    ) -> Result<Option<status::CommandStatus>> {
        let version = version.into();
        let text = self.status(pk, base_sk, version).await?;
        Ok(text.as_deref().and_then(status::CommandStatus::parse))
    }

    /// Waits until the projector has finished a command version (or parked it), polling
    /// every `every` for at most `timeout`; returns the final status.
    pub async fn wait_finished(
        &self,
        pk: &str,
        base_sk: &str,
        version: impl Into<Version>,
        every: std::time::Duration,
        timeout: std::time::Duration,
    ) -> Result<String> {
        let version = version.into();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(status) = self.status(pk, base_sk, version).await?
                && status::is_final(&status)
            {
                return Ok(status);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(CqrsError::Timeout(format!(
                    "{pk} {base_sk}@{version} did not finish within {timeout:?}"
                )));
            }
            tokio::time::sleep(every).await;
        }
    }

    /// One version of a command.
    pub async fn command(
        &self,
        pk: &str,
        base_sk: &str,
        version: impl Into<Version>,
    ) -> Result<Option<CommandModel>> {
        let version = version.into();
        let row = read_row(
            &self.client,
            &self.tables.command,
            pk,
            &add_sort_key_version(base_sk, version),
        )
        .await?;
        resolve_some(self.large.as_ref(), row).await
    }

    /// Gives the version before `model` (now superseded) the command table's retention:
    /// the latest version of an entity is kept as long as its data row, so that its
    /// number is never lost to the command table's TTL while the entity lives. A row with
    /// a `ttl` of its own keeps it. Best effort: a failure leaves the older row with the
    /// latest's retention, and is logged.
    async fn retire(&self, model: &CommandModel) {
        let Some(policies) = &self.ttl else {
            return;
        };
        if model.version <= 1 {
            return;
        }
        let retired = async {
            let ttl = policies
                .resolve(&model.tenant_code, &[TableKind::Command])
                .await?;
            let mut update = self
                .client
                .update_item()
                .table_name(&self.tables.command)
                .set_key(Some(key(
                    &model.pk,
                    &add_sort_key_version(model.base_sk(), model.version.previous()),
                )))
                // `ttl` is one of DynamoDB's reserved words.
                .condition_expression(format!(
                    "attribute_exists({PK}) AND (attribute_not_exists(#ttl) OR #policy = :policy)"
                ))
                .expression_attribute_names("#ttl", TTL)
                .expression_attribute_names("#policy", TTL_POLICY)
                .expression_attribute_values(":policy", AttributeValue::Bool(true));
            update = match ttl.command {
                Some(expiry) => update
                    .update_expression("SET #ttl = :ttl, #policy = :policy")
                    .expression_attribute_values(":ttl", n(expiry)),
                None => update.update_expression("REMOVE #ttl, #policy"),
            };
            match update.send().await {
                Ok(_) => Ok(()),
                // Gone already, or its expiry is the entity's own.
                Err(e) if e.as_service_error().is_some_and(is_conditional_failure) => Ok(()),
                Err(e) => Err(CqrsError::dynamo(e)),
            }
        };
        if let Err(e) = retired.await {
            tracing::warn!(pk = %model.pk, sk = %model.sk, error = %e, "the superseded version keeps the latest's retention");
        }
    }

    /// The latest version of an entity: the command row of the latest version, or the
    /// data row when no command was published after the version it applied (its command
    /// row may have expired; the data row holds the same entity).
    pub async fn latest_command(&self, pk: &str, base_sk: &str) -> Result<Option<CommandModel>> {
        let data = self.data_row(pk, base_sk).await?;
        let applied = data.as_ref().map_or(0, |d| d.version.get());
        let latest = self.last_command_from(pk, base_sk, applied).await?;
        if latest > applied {
            return self.command(pk, base_sk, Version::new(latest)).await;
        }
        Ok(data.map(|mut row| {
            row.sk = add_sort_key_version(base_sk, row.version);
            row
        }))
    }

    /// The number of the latest version of an entity (`None` when it has none).
    async fn latest_version(&self, pk: &str, base_sk: &str) -> Result<Option<Version>> {
        let applied = self.data_version(pk, base_sk).await?;
        let latest = self.last_command_from(pk, base_sk, applied).await?;
        Ok((latest > 0).then_some(Version::new(latest)))
    }

    /// The last version published from `applied` on (the data row's version, 0 for
    /// none): versions are written one after another, so the ones not yet projected
    /// follow `applied` without a gap. They are found by doubling steps, then halving:
    /// one read when there are none, about 2·log2(k) for k, never a read of the
    /// entity's history.
    async fn last_command_from(&self, pk: &str, base_sk: &str, applied: i64) -> Result<i64> {
        let mut found = applied;
        let mut step = 1;
        let mut missing = loop {
            let probe = found.saturating_add(step);
            if !self
                .command_exists(pk, base_sk, Version::new(probe))
                .await?
            {
                break probe;
            }
            found = probe;
            step = step.saturating_mul(2);
        };
        while missing - found > 1 {
            let middle = found + (missing - found) / 2;
            if self
                .command_exists(pk, base_sk, Version::new(middle))
                .await?
            {
                found = middle;
            } else {
                missing = middle;
            }
        }
        Ok(found)
    }

    /// Whether the command row of one version exists (its key only is read back).
    async fn command_exists(&self, pk: &str, base_sk: &str, version: Version) -> Result<bool> {
        let got = self
            .client
            .get_item()
            .table_name(&self.tables.command)
            .set_key(Some(key(pk, &add_sort_key_version(base_sk, version))))
            .projection_expression(SK)
            .consistent_read(true)
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        Ok(got.item().is_some())
    }

    /// The version the next publish on top of the latest would get.
    pub async fn next_version(&self, pk: &str, base_sk: &str) -> Result<Version> {
        Ok(self
            .latest_version(pk, base_sk)
            .await?
            .map_or(Version::FIRST.next(), Version::next))
    }

    /// The version the data row of an entity is at (0 when there is none), without its
    /// attributes.
    async fn data_version(&self, pk: &str, sk: &str) -> Result<i64> {
        let got = self
            .client
            .get_item()
            .table_name(&self.tables.data)
            .set_key(Some(key(pk, sk)))
            .projection_expression("#v")
            .expression_attribute_names("#v", VERSION)
            .consistent_read(true)
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        Ok(match got.item().and_then(|i| i.get(VERSION)) {
            Some(AttributeValue::N(n)) => n.parse().unwrap_or(0),
            _ => 0,
        })
    }

    /// The data row of an entity as it was at `version`, from the history table (the
    /// latest version is in the data table, not here).
    pub async fn history_row(
        &self,
        pk: &str,
        base_sk: &str,
        version: impl Into<Version>,
    ) -> Result<Option<CommandModel>> {
        let version = version.into();
        let row = read_row(
            &self.client,
            &self.tables.history,
            pk,
            &add_sort_key_version(base_sk, version),
        )
        .await?;
        resolve_some(self.large.as_ref(), row).await
    }

    /// The data row (latest applied state) of an entity.
    pub async fn data_row(&self, pk: &str, sk: &str) -> Result<Option<CommandModel>> {
        let row = read_row(&self.client, &self.tables.data, pk, sk).await?;
        resolve_some(self.large.as_ref(), row).await
    }
}
