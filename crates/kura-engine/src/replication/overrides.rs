//! A replica's own settings (UpdateTable's `ReplicaUpdates` Create and Update overrides):
//! its read capacity, its GSIs' read capacity and its table class are its table's, so
//! capacity emulation throttles that replica's reads at them; the KMS key and the
//! on-demand maximum are described, not enforced. Every member lists them for DescribeTable.

use std::sync::Arc;

use super::regions::Regions;
use crate::Engine;
use crate::api::UpdateTableInput;
use crate::catalog::{BillingMode, ReplicaOverrides, TableRecord};
use crate::error::{EngineError, Result};

/// Applies `o` to a replica's table record.
pub(super) fn apply(record: &mut TableRecord, o: &ReplicaOverrides) {
    if let Some(class) = &o.table_class {
        record.table_class = Some(class.clone());
    }
    if record.billing_mode != BillingMode::Provisioned {
        return;
    }
    if let Some(read) = o.read_capacity_units {
        record.throughput.read = read;
    }
    for wanted in &o.indexes {
        let index = record
            .indexes
            .iter_mut()
            .find(|i| i.name == wanted.index_name);
        if let (Some(read), Some(throughput)) = (
            wanted.read_capacity_units,
            index.and_then(|i| i.throughput.as_mut()),
        ) {
            throughput.read = read;
        }
    }
}

impl Regions {
    /// An Update of the replica in `region`: its overrides merged into what it had (its own
    /// record decides), in its table and in every member's list.
    pub(super) async fn update_replica(
        self: &Arc<Self>,
        record: &TableRecord,
        region: &str,
        overrides: ReplicaOverrides,
    ) -> Result<()> {
        let Some(group) = record.replication.as_ref() else {
            return Ok(());
        };
        let table = record.name.as_str();
        let target = self.engine(region)?;
        let mut merged = target
            .catalog
            .get(table)
            .and_then(|t| t.replication.as_ref().map(|g| g.overrides.clone()))
            .unwrap_or_default();
        merged.merge(overrides);
        let own = merged.clone();
        target
            .change_replica_table(table, move |t| {
                apply(t, &own);
                if let Some(g) = t.replication.as_mut() {
                    g.overrides = own;
                }
            })
            .await?;
        let members = group
            .replicas
            .iter()
            .map(|r| r.region.as_str())
            .chain([group.region.as_str()])
            .filter(|m| *m != region);
        for member in members {
            let (region, merged) = (region.to_owned(), merged.clone());
            self.engine(member)?
                .change_replication(table, move |g| {
                    if let Some(r) = g
                        .as_mut()
                        .and_then(|g| g.replicas.iter_mut().find(|r| r.region == region))
                    {
                        r.overrides = merged;
                    }
                })
                .await?;
        }
        Ok(())
    }

    /// The overrides of `region`'s replica of `table`, as its own record keeps them: what
    /// a settings change made elsewhere leaves as it is.
    pub(super) fn own_overrides(self: &Arc<Self>, table: &str, region: &str) -> ReplicaOverrides {
        self.engine(region)
            .ok()
            .and_then(|e| e.catalog.get(table))
            .and_then(|t| t.replication.as_ref().map(|g| g.overrides.clone()))
            .unwrap_or_default()
    }
}

/// `input` as it applies to a replica with `own` overrides: its reads, table's and GSIs',
/// stay its own.
pub(super) fn keep_own_reads(input: &mut UpdateTableInput, own: &ReplicaOverrides) {
    if let (Some(read), Some(pt)) = (
        own.read_capacity_units,
        input.provisioned_throughput.as_mut(),
    ) {
        pt.read_capacity_units = Some(read);
    }
    for update in input.global_secondary_index_updates.iter_mut().flatten() {
        let Some(gsi) = update.update.as_mut() else {
            continue;
        };
        let held = own
            .indexes
            .iter()
            .find(|i| Some(&i.index_name) == gsi.index_name.as_ref())
            .and_then(|i| i.read_capacity_units);
        if let (Some(read), Some(pt)) = (held, gsi.provisioned_throughput.as_mut()) {
            pt.read_capacity_units = Some(read);
        }
    }
}

impl Engine {
    /// Changes this region's replica table in one catalog write.
    pub(crate) async fn change_replica_table(
        &self,
        table: &str,
        change: impl FnOnce(&mut TableRecord) + Send + 'static,
    ) -> Result<()> {
        let catalog = self.catalog.clone();
        let table = table.to_owned();
        self.writer
            .submit(true, move |w| {
                let current = catalog.get(&table).ok_or_else(|| {
                    EngineError::ResourceNotFound(kura_model::messages::table_not_found(&table))
                })?;
                let mut next = current.as_ref().clone();
                change(&mut next);
                if next != *current {
                    catalog.stage(w, Arc::new(next))?;
                }
                Ok(())
            })
            .await
    }
}
