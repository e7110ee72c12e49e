//! The disaster-recovery drill: a region can be isolated (its requests refused as an
//! unreachable region's are, replication to and from it stopped) and healed; meanwhile
//! the backlog says which changes are not yet in the other replicas — the writes a team
//! would lose if the region did not come back (its RPO), and for how long it was out.

use std::sync::Arc;

use serde::Serialize;

use super::changes::Checkpoint;
use super::regions::Regions;
use super::status::Outage;
use crate::error::Result;

/// One direction of a global table's replication that has changes not yet sent.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Backlog {
    pub table: String,
    pub from: String,
    pub to: String,
    /// Changes made in `from` that `to` does not have yet.
    pub changes: usize,
    /// How long ago the oldest of them was made (ms).
    pub oldest_ms: Option<i64>,
}

impl Regions {
    /// Isolates `region`: its requests are refused and nothing is replicated to or from it
    /// until [`Regions::heal`].
    pub fn isolate(self: &Arc<Self>, region: &str) -> Result<Outage> {
        let now = self.engine(region)?.now_ms();
        let mut outages = self.outages.lock();
        if let Some(running) = outages
            .iter()
            .find(|o| o.region == region && o.healed_ms.is_none())
        {
            return Ok(running.clone());
        }
        tracing::warn!(region, "region isolated (test controls)");
        let outage = Outage {
            region: region.to_owned(),
            since_ms: now,
            healed_ms: None,
            duration_ms: 0,
        };
        outages.push(outage.clone());
        Ok(outage)
    }

    /// Ends `region`'s isolation (a region already healed is caught up again); its outage,
    /// if it had one. Replication to and from it resumes at once, but its own requests are
    /// refused until its MRSC tables have
    /// received what was written elsewhere meanwhile: from then on every write elsewhere
    /// reaches it before it is acknowledged, so a strongly consistent read there never
    /// misses an acknowledged write.
    pub async fn heal(self: &Arc<Self>, region: &str) -> Result<Option<Outage>> {
        self.healing.lock().push(region.to_owned());
        let healed = self.end_outage(region)?;
        // A region that could not catch up keeps refusing; healing it again retries.
        self.catch_up(region).await?;
        self.healing.lock().retain(|r| r != region);
        Ok(healed)
    }

    /// Whether `region`'s requests are refused: isolated, or healed and still catching up.
    pub fn refuses_requests(&self, region: &str) -> bool {
        self.is_isolated(region) || self.healing.lock().iter().any(|r| r == region)
    }

    fn end_outage(self: &Arc<Self>, region: &str) -> Result<Option<Outage>> {
        let now = self.engine(region)?.now_ms();
        let mut outages = self.outages.lock();
        let Some(outage) = outages
            .iter_mut()
            .find(|o| o.region == region && o.healed_ms.is_none())
        else {
            return Ok(None);
        };
        outage.healed_ms = Some(now);
        outage.duration_ms = now - outage.since_ms;
        tracing::warn!(region, out_ms = outage.duration_ms, "region healed");
        Ok(Some(outage.clone()))
    }

    /// Whether `region` is isolated now.
    pub fn is_isolated(&self, region: &str) -> bool {
        self.outages
            .lock()
            .iter()
            .any(|o| o.region == region && o.healed_ms.is_none())
    }

    /// Every outage so far, the running ones with their duration until now.
    pub fn outages(self: &Arc<Self>) -> Vec<Outage> {
        let now = self
            .engine(self.home())
            .map(|e| e.now_ms())
            .unwrap_or_default();
        self.outages
            .lock()
            .iter()
            .map(|o| Outage {
                duration_ms: o.healed_ms.unwrap_or(now) - o.since_ms,
                ..o.clone()
            })
            .collect()
    }

    /// Every direction of every global table with changes not yet replicated.
    pub fn backlog(self: &Arc<Self>) -> Result<Vec<Backlog>> {
        let mut out = Vec::new();
        for region in self.open_regions() {
            let engine = self.engine(&region)?;
            for table in engine.catalog.all().values() {
                let Some(group) = &table.replication else {
                    continue;
                };
                for replica in &group.replicas {
                    let checkpoint = match self.engine(&replica.region) {
                        Ok(to) => to.replication_checkpoint(&table.name, &region)?,
                        Err(_) => Checkpoint::default(),
                    };
                    let Some((changes, oldest_ms)) =
                        engine.replication_backlog(&table.name, checkpoint)?
                    else {
                        continue;
                    };
                    if changes == 0 {
                        continue;
                    }
                    out.push(Backlog {
                        table: table.name.clone(),
                        from: region.clone(),
                        to: replica.region.clone(),
                        changes,
                        oldest_ms,
                    });
                }
            }
        }
        Ok(out)
    }
}
