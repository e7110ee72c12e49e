//! UpdateTable making and unmaking an MRSC global table: `MultiRegionConsistency` STRONG
//! with the Creates of an empty table's two other regions (two replicas, or one and a
//! witness in `GlobalTableWitnessUpdates`), and later the Deletes of all of them at once.
//! DynamoDB's rules and words (messages/replicas.rs); ADR 0035.

use std::sync::Arc;

use kura_model::messages::{self, replicas as texts};

use super::regions::Regions;
use super::replica_actions::{Action, Witness, check_overrides, ensure_stream};
use super::status::{self, ACTIVE};
use crate::catalog::{ReplicaRecord, ReplicationRecord, TableRecord};
use crate::error::{EngineError, Result};
use crate::{Engine, RequestContext};

/// The regions an MRSC table may use, as AWS lists them (US, EU and AP sets).
const STRONG_REGIONS: &[&str] = &[
    "us-east-1",
    "us-east-2",
    "us-west-2",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "eu-central-1",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-northeast-3",
];

impl Regions {
    /// Makes `record` an MRSC global table with the regions `actions` create (and the
    /// witness), all of them at once.
    pub(super) async fn make_strong(
        self: &Arc<Self>,
        engine: &Engine,
        ctx: &RequestContext,
        record: &TableRecord,
        actions: &[Action],
        witness: Option<Witness>,
    ) -> Result<()> {
        let table = record.name.as_str();
        let (creates, witness) = strong_members(table, &ctx.region, actions, witness)?;
        check_strong_table(engine, record)?;
        let mut targets = Vec::with_capacity(creates.len());
        for region in &creates {
            let target = self.engine(region)?;
            if target.catalog.get(table).is_some() {
                return Err(EngineError::validation(texts::table_in_region(
                    table, region,
                )));
            }
            targets.push((region.to_string(), target));
        }
        // Each Create's own settings (none for this region's table).
        let overrides_of = |region: &str| {
            actions
                .iter()
                .find_map(|a| match a {
                    Action::Create(r, o) if r == region => Some(o.clone()),
                    _ => None,
                })
                .unwrap_or_default()
        };
        for region in &creates {
            check_overrides(record, &overrides_of(region))?;
        }
        if let Some(w) = &witness {
            // Opened now, so its name is checked as every region's is.
            self.engine(w)?;
        }
        // Replication (and a replica catching up after an outage) reads the stream.
        ensure_stream(engine, ctx, record).await?;
        let current = engine
            .catalog
            .get(table)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::table_not_found(table)))?;
        let members: Vec<String> = std::iter::once(ctx.region.clone())
            .chain(creates.iter().map(|r| r.to_string()))
            .collect();
        let group_of = |region: &str| ReplicationRecord {
            region: region.to_owned(),
            replicas: members
                .iter()
                .filter(|r| *r != region)
                .map(|r| ReplicaRecord {
                    region: r.clone(),
                    status: ACTIVE.into(),
                    overrides: overrides_of(r),
                })
                .collect(),
            filling_from: None,
            legacy_since_ms: None,
            strong: true,
            witness: witness.clone(),
            overrides: overrides_of(region),
        };
        // The table is empty: the replicas start ACTIVE, with nothing to copy. A failure
        // takes back what was made.
        let mut made = Vec::new();
        for (region, target) in &targets {
            let overrides = overrides_of(region);
            let replica = target.create_replica_table(&current, group_of(region), &overrides);
            if let Err(e) = replica.await {
                self.take_back(table, &ctx.region, &made).await;
                return Err(e);
            }
            made.push(region.clone());
        }
        let own = group_of(&ctx.region);
        let listed = engine.change_replication(table, move |g| *g = Some(own));
        // A write that came before the table listed its replicas carries no time and would
        // never reach them: the table must still be empty now.
        let empty = match listed.await {
            Ok(()) => match engine.catalog.get(table) {
                Some(now) => engine.stats(&now).map(|s| s.table.item_count == 0),
                None => Ok(false),
            },
            Err(e) => Err(e),
        };
        if !matches!(empty, Ok(true)) {
            let _ = engine.change_replication(table, |g| *g = None).await;
            self.take_back(table, &ctx.region, &made).await;
            empty?;
            return Err(EngineError::validation(texts::strong_not_empty(table)));
        }
        tracing::info!(table, regions = ?members, witness, "created MRSC global table");
        Ok(())
    }

    /// Deletes the replicas of `table` made in `regions` for the one in `own` (an MRSC
    /// table that could not be made, or whose replicas are deleted). A table there that is
    /// not such a replica is left alone.
    async fn take_back(self: &Arc<Self>, table: &str, own: &str, regions: &[String]) {
        for region in regions {
            if let Err(e) = self.drop_replica(table, own, region).await {
                tracing::warn!(table, region, "an MRSC replica was not deleted: {e}");
            }
        }
    }

    async fn drop_replica(self: &Arc<Self>, table: &str, own: &str, region: &str) -> Result<()> {
        let target = self.engine(region)?;
        let ours = target.catalog.get(table).is_some_and(|t| {
            t.replication
                .as_ref()
                .is_some_and(|g| g.replica(own).is_some())
        });
        if !ours {
            return Ok(());
        }
        // No longer a member first: DeleteTable refuses an MRSC replica.
        target.change_replication(table, |g| *g = None).await?;
        let ctx = RequestContext {
            region: region.to_owned(),
        };
        let input = crate::api::TableNameInput {
            table_name: Some(table.to_owned()),
        };
        target.delete_table(&ctx, input).await?;
        Ok(())
    }

    /// UpdateTable on an MRSC table: its replicas (and witness) can only be deleted, all at
    /// once, which leaves this region's table a table again.
    pub(super) async fn change_strong(
        self: &Arc<Self>,
        engine: &Engine,
        record: &TableRecord,
        actions: &[Action],
        witness: Option<Witness>,
    ) -> Result<()> {
        let table = record.name.as_str();
        let Some(group) = status::strong(record) else {
            return Ok(());
        };
        let mut deletes: Vec<&str> = Vec::new();
        let mut updates = Vec::new();
        for action in actions {
            match action {
                Action::Create(..) => {
                    return Err(EngineError::validation(texts::STRONG_NO_NEW_REPLICAS));
                }
                Action::Update(region, _) | Action::Delete(region)
                    if group.replica(region).is_none() =>
                {
                    return Err(EngineError::validation(texts::no_replica(table, region)));
                }
                Action::Update(region, overrides) => {
                    check_overrides(record, overrides)?;
                    updates.push((region, overrides));
                }
                Action::Delete(region) => deletes.push(region),
            }
        }
        let witness_deleted = match witness {
            Some(Witness::Create(_)) => {
                return Err(EngineError::validation(texts::STRONG_NO_NEW_REPLICAS));
            }
            Some(Witness::Delete(region)) if group.witness.as_deref() != Some(&region) => {
                return Err(EngineError::validation(texts::no_replica(table, &region)));
            }
            Some(Witness::Delete(_)) => true,
            None => false,
        };
        if deletes.is_empty() && !witness_deleted {
            for (region, overrides) in updates {
                self.update_replica(record, region, overrides.clone())
                    .await?;
            }
            return Ok(());
        }
        if group.witness.is_some() && !deletes.is_empty() && !witness_deleted {
            return Err(EngineError::validation(texts::DELETE_ALL_WITNESSES));
        }
        if group
            .replicas
            .iter()
            .any(|r| !deletes.contains(&r.region.as_str()))
        {
            return Err(EngineError::validation(texts::STRONG_DELETE_ONE));
        }
        // Nothing is changed unless every replica can go.
        for region in &deletes {
            if self
                .engine(region)?
                .catalog
                .get(table)
                .is_some_and(|t| t.deletion_protection)
            {
                return Err(EngineError::validation(messages::DELETION_PROTECTED));
            }
        }
        for region in deletes {
            self.drop_replica(table, &group.region, region).await?;
        }
        engine.change_replication(table, |g| *g = None).await?;
        tracing::info!(table, "deleted the replicas of an MRSC global table");
        Ok(())
    }
}

/// The regions an MRSC table is made with: the Creates and the witness, checked as
/// DynamoDB checks them (three regions, all supported, the witness apart).
fn strong_members<'a>(
    table: &str,
    own: &str,
    actions: &'a [Action],
    witness: Option<Witness>,
) -> Result<(Vec<&'a str>, Option<String>)> {
    let mut creates: Vec<&str> = Vec::new();
    for action in actions {
        match action {
            Action::Create(region, _) if creates.contains(&region.as_str()) => {
                return Err(EngineError::validation(texts::replica_exists(
                    table, region,
                )));
            }
            Action::Create(region, _) => creates.push(region),
            _ => return Err(EngineError::validation(texts::STRONG_CREATES_ONLY)),
        }
    }
    let witness = match witness {
        Some(Witness::Create(region)) => Some(region),
        Some(Witness::Delete(_)) => {
            return Err(EngineError::validation(texts::STRONG_CREATES_ONLY));
        }
        None => None,
    };
    if 1 + creates.len() + usize::from(witness.is_some()) != 3 {
        return Err(EngineError::validation(texts::STRONG_REPLICA_COUNT));
    }
    if witness
        .as_deref()
        .is_some_and(|w| w == own || creates.contains(&w))
    {
        return Err(EngineError::validation(texts::WITNESS_WITH_REPLICA));
    }
    let unsupported: Vec<&str> = std::iter::once(own)
        .chain(creates.iter().copied())
        .chain(witness.as_deref())
        .filter(|r| !STRONG_REGIONS.contains(r))
        .collect();
    if !unsupported.is_empty() {
        return Err(EngineError::validation(texts::strong_regions(&unsupported)));
    }
    Ok((creates, witness))
}

/// What an MRSC table may not have when it is made: LSIs, TTL, items.
fn check_strong_table(engine: &Engine, record: &TableRecord) -> Result<()> {
    let table = record.name.as_str();
    if record.has_local_indexes() {
        return Err(EngineError::validation(texts::strong_unsupported(
            table,
            "Local secondary indexes",
        )));
    }
    if record.ttl.as_ref().is_some_and(|t| t.enabled) {
        return Err(EngineError::validation(texts::strong_unsupported(
            table,
            "Time to Live",
        )));
    }
    if engine.stats(record)?.table.item_count > 0 {
        return Err(EngineError::validation(texts::strong_not_empty(table)));
    }
    Ok(())
}
