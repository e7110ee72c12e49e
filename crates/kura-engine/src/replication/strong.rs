//! Multi-region strong consistency (MRSC) on the request path: a write to an MRSC table
//! holds its items against writes from the other regions (a second region's write to one
//! of them is a `ReplicatedWriteConflictException`), runs, and is acknowledged once it is
//! in a majority of the table's three regions — sent at once to every reachable replica,
//! the witness counting as one. A region that cannot reach a majority serves only
//! eventually consistent reads. ADR 0035.

use std::sync::Arc;

use kura_model::Item;
use kura_model::messages::replicas as texts;
use kura_model::wire::ItemJson;

use super::regions::Regions;
use super::status;
use crate::Engine;
use crate::catalog::ReplicationRecord;
use crate::error::{EngineError, Result};
use crate::keys;

/// Pages sent to one replica before a write is acknowledged, at most: a page holds every
/// change written before it was read (up to 500), so one is the rule and more only when
/// many writers share the table.
const PAGES: usize = 64;

/// What a write to an MRSC table holds until it is acknowledged ([`Regions::acknowledge`])
/// or found not to have written ([`StrongWrite::release`]).
pub struct StrongWrite {
    regions: Arc<Regions>,
    table: String,
    region: String,
    /// The held items (None: the whole table); taken when released.
    hold: Option<Option<Vec<Vec<u8>>>>,
    replicas: Vec<String>,
    witness: Option<String>,
    /// Acknowledged or released: nothing is left to send.
    settled: bool,
}

impl StrongWrite {
    /// The write did not run (refused, or its condition failed): nothing to send.
    pub fn release(mut self) {
        self.settled = true;
    }
}

impl Drop for StrongWrite {
    fn drop(&mut self) {
        let Some(items) = self.hold.take() else {
            return;
        };
        // Dropped unsettled (the request was cancelled after its write may have run): the
        // items stay held until the write was sent, so no other region writes over it
        // unseen.
        if !self.settled
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let pending = StrongWrite {
                regions: self.regions.clone(),
                table: std::mem::take(&mut self.table),
                region: std::mem::take(&mut self.region),
                hold: Some(items),
                replicas: std::mem::take(&mut self.replicas),
                witness: self.witness.take(),
                settled: true,
            };
            runtime.spawn(async move {
                if let Ok(engine) = pending.regions.engine(&pending.region) {
                    let regions = pending.regions.clone();
                    regions.send_everywhere(&engine, &pending).await;
                }
            });
            return;
        }
        self.regions
            .flights
            .lock()
            .release(&self.table, items.as_deref());
    }
}

impl Regions {
    /// Before a write to `table` in `region`: None if it is no MRSC table there; else its
    /// `items` (None: every item) held against the other regions' writes, once a majority
    /// of the table's regions is reachable.
    pub fn strong_write(
        self: &Arc<Self>,
        engine: &Engine,
        region: &str,
        table: &str,
        items: Option<&[&ItemJson]>,
    ) -> Result<Option<StrongWrite>> {
        let Some(record) = engine.catalog.get(table) else {
            return Ok(None);
        };
        let Some(group) = status::strong(&record) else {
            return Ok(None);
        };
        self.quorum(region, table, group)?;
        let replicas: Vec<String> = group.replicas.iter().map(|r| r.region.clone()).collect();
        // Items are held by their key alone: the table's id differs from region to region.
        let items = items.map(|items| {
            items
                .iter()
                .filter_map(|item| {
                    // A key that does not parse is the write's own error to give.
                    let mut key = Item::new();
                    for attr in record.key_schema.attributes() {
                        let value = item.get(&attr.name)?.clone().into_value().ok()?;
                        key.insert(attr.name.clone(), value);
                    }
                    let key = record.key_schema.key_of_item(&key).ok()?;
                    keys::item_key(0, &key).ok()
                })
                .collect::<Vec<_>>()
        });
        if !self.flights.lock().hold(table, region, items.as_deref()) {
            return Err(EngineError::ReplicatedWriteConflict(
                texts::REPLICATED_WRITE_CONFLICT.into(),
            ));
        }
        Ok(Some(StrongWrite {
            regions: self.clone(),
            table: table.to_owned(),
            region: region.to_owned(),
            hold: Some(items),
            replicas,
            witness: group.witness.clone(),
            settled: false,
        }))
    }

    /// After the write ran in its region: sends it to every reachable replica and releases
    /// its items. An error if fewer than two regions have it (the witness counting as one),
    /// or if its own region was isolated meanwhile.
    pub async fn acknowledge(
        self: &Arc<Self>,
        engine: &Engine,
        mut write: StrongWrite,
    ) -> Result<()> {
        // A replication delay set for tests stands for the round trip to the other
        // regions, which an MRSC write waits for with its items held.
        let delay = self.delay_ms.load(std::sync::atomic::Ordering::Relaxed);
        if delay > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(delay as u64)).await;
        }
        let sent = self.send_everywhere(engine, &write).await;
        write.settled = true;
        let witness = write
            .witness
            .as_deref()
            .is_some_and(|w| !self.is_isolated(w));
        if self.is_isolated(&write.region) || 1 + sent + usize::from(witness) < 2 {
            return Err(EngineError::Unavailable(texts::no_quorum(
                &write.table,
                &write.region,
            )));
        }
        Ok(())
    }

    /// Sends `write`'s table's changes to every reachable replica; how many received all
    /// of them (a replica isolated meanwhile does not count).
    async fn send_everywhere(self: &Arc<Self>, engine: &Engine, write: &StrongWrite) -> usize {
        let mut sent = 0;
        for replica in &write.replicas {
            if self.is_isolated(replica) {
                continue;
            }
            match self
                .send_pages(&write.region, engine, &write.table, replica)
                .await
            {
                Ok(true) if !self.is_isolated(replica) => sent += 1,
                Ok(_) => {}
                Err(e) => tracing::warn!(table = write.table, replica, "MRSC write not sent: {e}"),
            }
        }
        sent
    }

    /// Sends `table`'s changes from `from_region` to `to_region` until none is left;
    /// false if pages were still left at the bound.
    async fn send_pages(
        self: &Arc<Self>,
        from_region: &str,
        from: &Engine,
        table: &str,
        to_region: &str,
    ) -> Result<bool> {
        for _ in 0..PAGES {
            if !self.send(from_region, from, table, to_region, true).await? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Before a strongly consistent read of `table` in `region`: refused unless a majority
    /// of an MRSC table's regions is reachable (eventually consistent reads always run).
    pub fn strong_read(&self, engine: &Engine, region: &str, table: &str) -> Result<()> {
        let Some(record) = engine.catalog.get(table) else {
            return Ok(());
        };
        let Some(group) = status::strong(&record) else {
            return Ok(());
        };
        self.quorum(region, table, group)
    }

    /// MRSC replicas refuse transactions: `operation` naming any of `tables`.
    pub fn refuse_transaction<'t>(
        &self,
        engine: &Engine,
        operation: &str,
        tables: impl IntoIterator<Item = &'t str>,
    ) -> Result<()> {
        for table in tables {
            if engine
                .catalog
                .get(table)
                .is_some_and(|r| status::strong(&r).is_some())
            {
                return Err(EngineError::validation(texts::strong_transaction(
                    operation, table,
                )));
            }
        }
        Ok(())
    }

    /// Refused (503) unless `region` and at least one more of the table's regions (a
    /// replica or the witness) are reachable.
    fn quorum(&self, region: &str, table: &str, group: &ReplicationRecord) -> Result<()> {
        let others = group
            .replicas
            .iter()
            .map(|r| r.region.as_str())
            .chain(group.witness.as_deref());
        if !self.is_isolated(region) && others.into_iter().any(|r| !self.is_isolated(r)) {
            return Ok(());
        }
        Err(EngineError::Unavailable(texts::no_quorum(table, region)))
    }

    /// Before `region` serves again after an outage (its requests still refused): every
    /// MRSC table it holds receives what the other replicas wrote meanwhile.
    pub(super) async fn catch_up(self: &Arc<Self>, region: &str) -> Result<()> {
        let engine = self.engine(region)?;
        for table in engine.catalog.all().values() {
            let Some(group) = status::strong(table) else {
                continue;
            };
            // Isolated or not: what a replica acknowledged was in a majority, which an
            // isolated region's data stands for here (the witness keeps no copy).
            for replica in &group.replicas {
                let from = self.engine(&replica.region)?;
                for _ in 0..PAGES {
                    if !self
                        .deliver(&replica.region, &from, &table.name, region, &engine, false)
                        .await?
                    {
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}
