//! Filling a new replica: the source table's items are copied in pages, each with its
//! last-write time (or the oldest time there is, for items written before the table was
//! global), through the same last-writer-wins step as the changes sent meanwhile, so the
//! copy and the changes may arrive in any order. The cursor is the replication thread's;
//! after a restart the copy starts over, which changes nothing already copied.

use std::ops::Bound;
use std::sync::Arc;

use super::changes::Change;
use super::regions::Regions;
use super::status::{self, ACTIVE, CREATING};
use super::time::ReplicaTime;
use crate::Engine;
use crate::error::Result;
use crate::items::decode_stored;
use crate::keys;
use crate::streams::record::key_attributes;
use kura_store::{Direction, KeyRange, Space};

/// Items copied per step.
const PAGE: usize = 500;

impl Engine {
    /// Up to `limit` items of `table` after storage key `after`, as changes, and the key to
    /// go on from (None: the copy is complete).
    pub fn replica_copy_page(
        &self,
        table: &str,
        after: &[u8],
        limit: usize,
    ) -> Result<(Vec<Change>, Option<Vec<u8>>)> {
        let Some(record) = self.catalog.get(table) else {
            return Ok((Vec::new(), None));
        };
        let region = record
            .replication
            .as_ref()
            .map(|g| g.region.clone())
            .unwrap_or_default();
        let mut range = KeyRange::prefix(&keys::table_prefix(record.id));
        if !after.is_empty() {
            range.start = Bound::Excluded(after.to_vec());
        }
        let snapshot = self.store.snapshot()?;
        let mut changes = Vec::new();
        let mut last = None;
        for row in snapshot.range(Space::Items, range, Direction::Forward) {
            if changes.len() == limit {
                return Ok((changes, last));
            }
            let (key, value) = row?;
            let item = decode_stored(&value)?;
            let time = match snapshot.get(Space::Meta, &keys::replica_time_key(&key))? {
                Some(bytes) => ReplicaTime::decode(&bytes)?,
                None => ReplicaTime {
                    ms: 0,
                    region: region.clone(),
                },
            };
            changes.push(Change {
                keys: key_attributes(&record.key_schema, &item),
                new_image: Some(item),
                time,
            });
            last = Some(key);
        }
        Ok((changes, None))
    }
}

impl Regions {
    /// Copies one page of `table` from `source` into this region's new replica; when the
    /// copy is complete, the replica becomes ACTIVE everywhere. Whether there is more.
    pub(super) async fn fill_step(
        self: &Arc<Self>,
        engine: &Engine,
        table: &str,
        source: &str,
        cursor: &mut Vec<u8>,
    ) -> Result<bool> {
        let from = self.engine(source)?;
        // Not before the source lists this replica: its writes carry a time only since.
        let region = engine
            .catalog
            .get(table)
            .and_then(|t| t.replication.as_ref().map(|g| g.region.clone()))
            .unwrap_or_default();
        let listed = from
            .catalog
            .get(table)
            .is_some_and(|t| status::lists(&t, &region, false));
        if !listed {
            return Ok(false);
        }
        let (changes, next) = from.replica_copy_page(table, cursor, PAGE)?;
        if !changes.is_empty() {
            engine
                .apply_replicated(table, source, changes, None)
                .await?;
        }
        match next {
            Some(next) => {
                *cursor = next;
                Ok(true)
            }
            None => {
                let Some(record) = engine.catalog.get(table) else {
                    return Ok(false);
                };
                let Some(group) = record.replication.clone() else {
                    return Ok(false);
                };
                engine
                    .change_replication(table, |g| {
                        if let Some(g) = g {
                            g.filling_from = None;
                        }
                    })
                    .await?;
                // Every other replica now lists this one as ACTIVE.
                for other in &group.replicas {
                    let other_engine = self.engine(&other.region)?;
                    let region = group.region.clone();
                    other_engine
                        .change_replication(table, move |g| {
                            if let Some(g) = g {
                                for r in g.replicas.iter_mut().filter(|r| r.region == region) {
                                    if r.status == CREATING {
                                        r.status = ACTIVE.into();
                                    }
                                }
                            }
                        })
                        .await?;
                }
                cursor.clear();
                tracing::info!(table, region = group.region, source, "replica filled");
                Ok(true)
            }
        }
    }
}
