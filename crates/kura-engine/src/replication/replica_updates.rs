//! UpdateTable's `ReplicaUpdates`: adding a replica (a table of the same definition in the
//! other region, filled from this one, every member told of it) and removing one (its
//! table deleted, every member told). An Update changes nothing Kura keeps.

use std::sync::Arc;

use kura_model::messages::{self, replicas as texts};

use super::regions::Regions;
use super::replica_actions::{self, Action, check_overrides, ensure_stream};
use super::status::{self, ACTIVE, CREATING};
use crate::api::{TableNameInput, UpdateTableInput};
use crate::catalog::{ReplicaOverrides, ReplicaRecord, ReplicationRecord, TableRecord};
use crate::clock::now_ms;
use crate::error::{EngineError, Result};
use crate::streams::meta::ViewType;
use crate::streams::specification::{self as stream_spec, StreamChange};
use crate::tables::allocate_table_id;
use crate::{Engine, RequestContext};

impl Regions {
    /// UpdateTable on `engine`, this directory's engine of `ctx.region`: its settings, then
    /// its `ReplicaUpdates` in order.
    pub async fn update_table(
        self: &Arc<Self>,
        engine: &Engine,
        ctx: &RequestContext,
        mut input: UpdateTableInput,
    ) -> Result<crate::api::UpdateTableOutput> {
        let updates = input.replica_updates.take().unwrap_or_default();
        let witness_updates = input
            .global_table_witness_updates
            .take()
            .unwrap_or_default();
        let consistency = input.multi_region_consistency.take();
        if updates.is_empty() && witness_updates.is_empty() {
            return self.update_settings(engine, ctx, input).await;
        }
        crate::tables::check_table_name(input.table_name.as_deref())?;
        if crate::tables::has_settings(&input) {
            return Err(EngineError::validation(texts::REPLICAS_WITH_OTHER_FIELDS));
        }
        let name = input.table_name.clone().unwrap_or_default();
        let actions = updates
            .iter()
            .map(Action::parse)
            .collect::<Result<Vec<_>>>()?;
        let witness = replica_actions::parse_witness(&witness_updates)?;
        let strong = replica_actions::parse_consistency(consistency.as_deref())?;
        if actions.iter().any(|a| a.region() == ctx.region) {
            return Err(EngineError::validation(texts::LOCAL_REGION));
        }
        let record = engine
            .catalog
            .ready(&name)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::table_not_found(&name)))?;
        // A version 2017.11.29 global table is managed by UpdateGlobalTable.
        if status::legacy(&record).is_some() {
            return Err(EngineError::validation(texts::legacy_table(&name)));
        }
        if strong.is_some() && record.replication.is_some() {
            return Err(EngineError::validation(texts::CONSISTENCY_ON_EXISTING));
        }
        if status::strong(&record).is_some() {
            self.change_strong(engine, &record, &actions, witness)
                .await?;
        } else if strong == Some(true) {
            self.make_strong(engine, ctx, &record, &actions, witness)
                .await?;
        } else if witness.is_some() {
            return Err(EngineError::validation(texts::WITNESS_NEEDS_STRONG));
        } else {
            self.change_eventual(engine, ctx, &name, actions).await?;
        }
        engine
            .describe_table(
                ctx,
                TableNameInput {
                    table_name: Some(name),
                },
            )
            .await
            .map(|d| crate::api::UpdateTableOutput {
                table_description: d.table,
            })
    }

    /// `ReplicaUpdates` of an MREC (or not yet global) table: one Create or Delete, and
    /// any Updates.
    async fn change_eventual(
        self: &Arc<Self>,
        engine: &Engine,
        ctx: &RequestContext,
        name: &str,
        actions: Vec<Action>,
    ) -> Result<()> {
        if actions
            .iter()
            .filter(|a| !matches!(a, Action::Update(..)))
            .count()
            > 1
        {
            return Err(EngineError::validation(texts::ONE_REPLICA_ACTION));
        }
        let ready = || {
            engine
                .catalog
                .ready(name)
                .ok_or_else(|| EngineError::ResourceNotFound(messages::table_not_found(name)))
        };
        // Every action is checked before any runs.
        let record = ready()?;
        for action in &actions {
            match action {
                Action::Update(region, _) if !status::lists(&record, region, false) => {
                    return Err(EngineError::validation(texts::no_replica(name, region)));
                }
                Action::Create(_, overrides) | Action::Update(_, overrides) => {
                    check_overrides(&record, overrides)?;
                }
                Action::Delete(_) => {}
            }
        }
        for action in actions {
            let record = ready()?;
            match action {
                Action::Create(region, overrides) => {
                    self.add_replica(engine, ctx, record, &region, overrides)
                        .await?
                }
                Action::Update(region, overrides) => {
                    self.update_replica(&record, &region, overrides).await?
                }
                Action::Delete(region) => self.remove_replica(record, &region).await?,
            }
        }
        Ok(())
    }

    async fn add_replica(
        self: &Arc<Self>,
        engine: &Engine,
        ctx: &RequestContext,
        record: Arc<TableRecord>,
        region: &str,
        overrides: ReplicaOverrides,
    ) -> Result<()> {
        let table = record.name.clone();
        if status::lists(&record, region, false) {
            return Err(EngineError::validation(texts::replica_exists(
                &table, region,
            )));
        }
        if status::adding_replica(&record) {
            return Err(EngineError::ResourceInUse(texts::replica_creating(&table)));
        }
        ensure_stream(engine, ctx, &record).await?;
        let target = self.engine(region)?;
        if target.catalog.get(&table).is_some() {
            return Err(EngineError::validation(texts::table_in_region(
                &table, region,
            )));
        }
        let known: Vec<ReplicaRecord> = record
            .replication
            .iter()
            .flat_map(|g| g.replicas.iter().cloned())
            .collect();
        let members: Vec<String> = known.iter().map(|r| r.region.clone()).collect();
        let replicas = std::iter::once(ReplicaRecord {
            region: ctx.region.clone(),
            status: ACTIVE.into(),
            overrides: record
                .replication
                .as_ref()
                .map(|g| g.overrides.clone())
                .unwrap_or_default(),
        })
        .chain(known.into_iter().map(|r| ReplicaRecord {
            status: ACTIVE.into(),
            ..r
        }))
        .collect();
        let current = engine
            .catalog
            .get(&table)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::table_not_found(&table)))?;
        // The replica first, then every member lists it: from then on their writes carry a
        // time and reach it. Its copy starts once this table lists it (`fill`), so the
        // writes before are in the copy.
        target
            .create_replica_table(
                &current,
                ReplicationRecord {
                    region: region.to_owned(),
                    replicas,
                    filling_from: Some(ctx.region.clone()),
                    legacy_since_ms: None,
                    strong: false,
                    witness: None,
                    overrides: overrides.clone(),
                },
                &overrides,
            )
            .await?;
        self.list_new_replica(engine, &ctx.region, &table, &members, region, &overrides)
            .await?;
        tracing::info!(table, from = ctx.region, to = region, "creating replica");
        Ok(())
    }

    /// Every member of `table`'s group (this one, in `own`, and `members`) lists the new
    /// replica in `region`: from then on their writes carry a time and reach it.
    async fn list_new_replica(
        self: &Arc<Self>,
        engine: &Engine,
        own: &str,
        table: &str,
        members: &[String],
        region: &str,
        overrides: &ReplicaOverrides,
    ) -> Result<()> {
        let own = own.to_owned();
        let new_region = region.to_owned();
        let theirs = overrides.clone();
        engine
            .change_replication(table, move |g| {
                let group = g.get_or_insert_with(|| ReplicationRecord {
                    region: own,
                    replicas: Vec::new(),
                    filling_from: None,
                    legacy_since_ms: None,
                    strong: false,
                    witness: None,
                    overrides: Default::default(),
                });
                group.replicas.push(ReplicaRecord {
                    region: new_region,
                    status: CREATING.into(),
                    overrides: theirs,
                });
            })
            .await?;
        for member in members {
            let new_region = region.to_owned();
            let theirs = overrides.clone();
            self.engine(member)?
                .change_replication(table, move |g| {
                    if let Some(g) = g {
                        g.replicas.push(ReplicaRecord {
                            region: new_region,
                            status: CREATING.into(),
                            overrides: theirs,
                        });
                    }
                })
                .await?;
        }
        Ok(())
    }

    async fn remove_replica(
        self: &Arc<Self>,
        record: Arc<TableRecord>,
        region: &str,
    ) -> Result<()> {
        let table = record.name.clone();
        let Some(group) = record
            .replication
            .as_ref()
            .filter(|_| status::lists(&record, region, false))
        else {
            return Err(EngineError::validation(texts::no_replica(&table, region)));
        };
        let target = self.engine(region)?;
        if target.catalog.get(&table).is_some() {
            let ctx = RequestContext {
                region: region.to_owned(),
            };
            let input = TableNameInput {
                table_name: Some(table.clone()),
            };
            target.delete_table(&ctx, input).await?;
        }
        let own = group.region.clone();
        for member in group
            .replicas
            .iter()
            .map(|r| r.region.as_str())
            .chain([own.as_str()])
        {
            if member == region {
                continue;
            }
            let gone = region.to_owned();
            self.engine(member)?
                .change_replication(&table, move |g| status::forget_replica(g, &gone))
                .await?;
        }
        tracing::info!(table, region, "deleted replica");
        Ok(())
    }
}

impl Engine {
    /// Creates this region's replica of `source` (another region's table): the same keys,
    /// attributes, indexes, billing and time to live, a stream with both images, and
    /// `replication`, which keeps it CREATING until it is filled.
    pub(crate) async fn create_replica_table(
        &self,
        source: &TableRecord,
        replication: ReplicationRecord,
        overrides: &ReplicaOverrides,
    ) -> Result<()> {
        let mut record = source.clone();
        let now = now_ms();
        record.uuid = uuid::Uuid::new_v4().to_string();
        record.created_ms = now;
        record.stream = None;
        record.sse = None;
        record.resource_policy = None;
        record.pitr = None;
        record.history_from = None;
        record.restore = None;
        record.importing = None;
        record.insights = Vec::new();
        record.vector_indexes = Vec::new();
        record.kinesis_destinations = Vec::new();
        record.tags = Vec::new();
        record.deletion_protection = false;
        for index in &mut record.indexes {
            index.backfilling = false;
        }
        record.replication = Some(replication);
        super::overrides::apply(&mut record, overrides);
        let catalog = self.catalog.clone();
        self.writer
            .submit(true, move |w| {
                if catalog.get(&record.name).is_some() {
                    return Err(EngineError::validation(texts::table_in_region(
                        &record.name,
                        record
                            .replication
                            .as_ref()
                            .map_or("", |g| g.region.as_str()),
                    )));
                }
                record.id = allocate_table_id(w, &catalog)?;
                stream_spec::apply(
                    w,
                    &mut record,
                    StreamChange::Enable(ViewType::NewAndOldImages),
                )?;
                catalog.stage(w, Arc::new(record))?;
                Ok(())
            })
            .await
    }

    /// Changes what `table` knows of its global table, in one catalog write.
    pub(crate) async fn change_replication(
        &self,
        table: &str,
        change: impl FnOnce(&mut Option<ReplicationRecord>) + Send + 'static,
    ) -> Result<()> {
        self.change_replica_table(table, move |next| {
            change(&mut next.replication);
            // A current global table of one region is a table again; a legacy one
            // stays one (CreateGlobalTable may name a single region).
            if next
                .replication
                .as_ref()
                .is_some_and(|g| g.replicas.is_empty() && g.legacy_since_ms.is_none())
            {
                next.replication = None;
            }
        })
        .await
    }
}
