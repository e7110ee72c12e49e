//! A table's design as tools outside the engine read it (the design advisor, the console):
//! its keys, indexes, settings and size, copied out of the catalog, so that no caller
//! depends on how a table record is stored, and none can change one.

use std::ops::Bound;

use kura_model::keycode::ScalarType;
use kura_model::{Item, KeySchema};

use crate::catalog::TableRecord;
pub use crate::catalog::{BillingMode, IndexKind, IndexProjection};
use crate::error::Result;
use crate::tables::TableSize;
use crate::{Engine, keys};
use kura_store::{Direction, KeyRange, Space};

/// One table's design, read-only.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDesign {
    pub name: String,
    pub key_schema: KeySchema,
    /// `AttributeDefinitions`: every key attribute of the table and its indexes.
    pub attribute_definitions: Vec<(String, ScalarType)>,
    pub indexes: Vec<IndexDesign>,
    pub vector_indexes: Vec<VectorIndexDesign>,
    pub billing_mode: BillingMode,
    /// The TTL attribute, while TTL is enabled.
    pub ttl_attribute: Option<String>,
    /// The enabled stream's `StreamViewType` (`NEW_AND_OLD_IMAGES`, ...).
    pub stream_view_type: Option<&'static str>,
    /// Point-in-time recovery's `RecoveryPeriodInDays`, while it is on.
    pub pitr_recovery_days: Option<u32>,
    pub deletion_protection: bool,
    /// The resource-based policy document, as stored.
    pub resource_policy: Option<String>,
    /// The KMS key's ARN when the table is encrypted with a KMS key (the AWS managed key or
    /// a customer managed one); None for the AWS owned key.
    pub sse_kms_key: Option<String>,
    /// The Kinesis streams its changes are written to now (active destinations' ARNs).
    pub kinesis_destinations: Vec<String>,
    /// Items and bytes, as DescribeTable reports them (None when they cannot be read).
    pub size: Option<TableSize>,
    /// Where the table's items are stored (for [`Engine::sample_items`]).
    id: u64,
}

/// One secondary index's design.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexDesign {
    pub name: String,
    pub kind: IndexKind,
    pub key_schema: KeySchema,
    pub projection: IndexProjection,
}

/// One vector index's design.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorIndexDesign {
    pub name: String,
    /// The attribute holding each item's vector (a list of numbers).
    pub attribute: String,
    pub dimensions: u32,
    pub projection: IndexProjection,
}

impl TableDesign {
    fn of(record: &TableRecord, size: Option<TableSize>) -> TableDesign {
        TableDesign {
            name: record.name.clone(),
            key_schema: record.key_schema.clone(),
            attribute_definitions: record.attribute_definitions.clone(),
            indexes: record
                .indexes
                .iter()
                .map(|index| IndexDesign {
                    name: index.name.clone(),
                    kind: index.kind,
                    key_schema: index.key_schema.clone(),
                    projection: index.projection.clone(),
                })
                .collect(),
            vector_indexes: record
                .vector_indexes
                .iter()
                .map(|index| VectorIndexDesign {
                    name: index.name.clone(),
                    attribute: index.attribute.clone(),
                    dimensions: index.dimensions,
                    projection: index.projection.clone(),
                })
                .collect(),
            billing_mode: record.billing_mode,
            ttl_attribute: record
                .ttl
                .as_ref()
                .and_then(|t| t.active_attribute())
                .map(str::to_owned),
            stream_view_type: record
                .stream
                .as_ref()
                .filter(|s| s.enabled)
                .map(|s| s.view_type.wire()),
            pitr_recovery_days: record.pitr.as_ref().map(|p| p.recovery_days),
            deletion_protection: record.deletion_protection,
            resource_policy: record.resource_policy.as_ref().map(|p| p.policy.clone()),
            sse_kms_key: record.sse.as_ref().map(|s| s.kms_master_key_arn.clone()),
            kinesis_destinations: record
                .kinesis_destinations
                .iter()
                .filter(|d| d.active)
                .map(|d| d.stream_arn.clone())
                .collect(),
            size,
            id: record.id,
        }
    }
}

/// The slices of the partition-hash space the advisor's sample is taken from in turns.
pub const SAMPLE_SLICES: u64 = 16;

pub use crate::catalog::PublishedTable;

/// What the design advisor, the audit log and authorization read about tables:
/// [`Engine::design`].
pub struct Design<'a> {
    pub(crate) engine: &'a Engine,
}

impl Design<'_> {
    /// The table as the catalog publishes it now: what a front end reads once per table and
    /// request (authorization, audit and admission all ask the same copy).
    pub fn table(&self, table: &str) -> Option<PublishedTable> {
        self.engine.catalog.get(table).map(PublishedTable)
    }

    /// The partition key attribute names of a table, or of one of its indexes: what the
    /// server's authorization step reads `dynamodb:LeadingKeys` from. None for an unknown
    /// table or index.
    pub fn partition_key_names(&self, table: &str, index: Option<&str>) -> Option<Vec<String>> {
        self.engine.catalog.get(table)?.partition_key_names(index)
    }

    /// Every table's design, in name order.
    pub fn table_designs(&self) -> Vec<TableDesign> {
        let sizes = self.engine.table_sizes().unwrap_or_default();
        self.engine
            .catalog
            .all()
            .values()
            .map(|record| {
                let size = sizes.iter().find(|s| s.table == record.name).cloned();
                TableDesign::of(record, size)
            })
            .collect()
    }

    /// The largest item collection of a table with LSIs (a partition key's items and their
    /// LSI entries, in bytes, as ItemCollectionMetrics estimates them) and the limit in
    /// force (10 GB unless the engine was built with another); None without LSIs.
    pub fn largest_item_collection(&self, table: &TableDesign) -> Result<Option<(u64, u64)>> {
        if !table.indexes.iter().any(|i| i.kind == IndexKind::Local) {
            return Ok(None);
        }
        let snapshot = self.engine.store.snapshot()?;
        let prefix = keys::collection_prefix(table.id);
        let mut largest = 0;
        for row in snapshot.range(Space::Meta, KeyRange::prefix(&prefix), Direction::Forward) {
            let (_, value) = row?;
            if let Ok(bytes) = <[u8; 8]>::try_from(value.as_ref()) {
                largest = largest.max(u64::from_be_bytes(bytes));
            }
        }
        Ok(Some((
            largest,
            self.engine.limits.max_item_collection_bytes,
        )))
    }

    /// How many distinct partition key values the table (`index` None) or one of its GSIs
    /// holds, counted exactly up to `bound` by skipping from one partition to the next (one
    /// seek a partition, whatever its size); `(bound, false)` when there are more. Read
    /// without counting as traffic: the advisor's cardinality, which a sample of items
    /// cannot give (a few large partitions fill it).
    pub fn distinct_partitions(
        &self,
        table: &TableDesign,
        index: Option<&str>,
        bound: usize,
    ) -> Result<(usize, bool)> {
        let Some(record) = self.engine.catalog.get(&table.name) else {
            return Ok((0, true));
        };
        let (space, prefix) = match index {
            None => (Space::Items, keys::table_prefix(record.id).to_vec()),
            Some(name) => match record.indexes.iter().find(|i| i.name == name) {
                Some(i) if i.kind == IndexKind::Global => (
                    Space::Indexes,
                    keys::index_prefix(record.id, i.number).to_vec(),
                ),
                _ => return Ok((0, true)),
            },
        };
        let snapshot = self.engine.store.snapshot()?;
        let whole = KeyRange::prefix(&prefix);
        let mut start = whole.start.clone();
        let mut distinct = 0;
        while distinct < bound {
            let range = KeyRange {
                start,
                end: whole.end.clone(),
            };
            let Some(row) = snapshot.range(space, range, Direction::Forward).next() else {
                return Ok((distinct, true));
            };
            let (_, value) = row?;
            let item = crate::items::decode_stored(&value)?;
            let encoded = match index.and_then(|n| record.indexes.iter().find(|i| i.name == n)) {
                None => {
                    let Some(hash) = item.get(&record.key_schema.hash.name) else {
                        return Ok((distinct, false));
                    };
                    kura_model::PrimaryKey {
                        hash: hash.clone(),
                        range: None,
                    }
                    .encode_hash()?
                }
                Some(gsi) => {
                    let values: Option<Vec<&kura_model::AttributeValue>> =
                        gsi.hash_attributes().map(|a| item.get(&a.name)).collect();
                    let Some(values) = values else {
                        return Ok((distinct, false));
                    };
                    crate::indexes::entries::encode_values(values)?
                }
            };
            distinct += 1;
            match KeyRange::prefix(&keys::partition_prefix(&prefix, &encoded)).end {
                Bound::Excluded(next) => start = Bound::Included(next),
                _ => return Ok((distinct, true)),
            }
        }
        Ok((distinct, false))
    }

    /// Up to `limit` of a table's items, and at most `max_bytes` of them, read without
    /// counting as traffic (the design advisor's sample). Spread across the key space:
    /// the partition-hash space is cut in [`SAMPLE_SLICES`] slices read in turns, a few
    /// items each, so a large table's sample comes from everywhere, not from the first
    /// partitions in storage order; a table with fewer items than `limit` is read whole.
    /// A first pass takes at most a few items of each partition before it moves to the
    /// next (so a slice whose first partition is large still shows the ones after it),
    /// and a second pass fills the sample with the rest.
    pub fn sample_items(
        &self,
        table: &TableDesign,
        limit: usize,
        max_bytes: usize,
    ) -> Result<Vec<Item>> {
        let snapshot = self.engine.store.snapshot()?;
        let mut sample = Sample {
            limit,
            max_bytes,
            items: Vec::new(),
            taken: std::collections::HashSet::new(),
            bytes: 0,
        };
        let per_partition = (limit / (4 * SAMPLE_SLICES as usize)).max(1);
        for cap in [Some(per_partition), None] {
            self.sample_pass(snapshot.as_ref(), table, cap, &mut sample)?;
            if sample.full() {
                break;
            }
        }
        Ok(sample.items)
    }

    /// One pass over the slices in turns; with `cap`, at most that many items of one
    /// partition before the slice moves on to its next partition.
    fn sample_pass(
        &self,
        snapshot: &dyn kura_store::Snapshot,
        table: &TableDesign,
        cap: Option<usize>,
        sample: &mut Sample,
    ) -> Result<()> {
        let prefix = keys::table_prefix(table.id);
        let table_end = KeyRange::prefix(&prefix).end;
        let start_of = |slice: u64| -> Vec<u8> {
            let hash = (slice << 32) / SAMPLE_SLICES;
            let mut key = prefix.to_vec();
            key.extend_from_slice(&(hash as u32).to_be_bytes());
            key
        };
        // Each slice's next key to read from (None once it is read to its end).
        let mut next: Vec<Option<Bound<Vec<u8>>>> = (0..SAMPLE_SLICES)
            .map(|slice| Some(Bound::Included(start_of(slice))))
            .collect();
        let turn = sample.limit.div_ceil(SAMPLE_SLICES as usize).max(1);
        while !sample.full() && next.iter().any(Option::is_some) {
            for (slice, from) in next.iter_mut().enumerate() {
                let Some(start) = from.take() else { continue };
                let end = match slice as u64 + 1 {
                    last if last == SAMPLE_SLICES => table_end.clone(),
                    following => Bound::Excluded(start_of(following)),
                };
                let range = KeyRange { start, end };
                let mut read = 0;
                // The partition being read (its key prefix) and the items taken of it.
                let mut partition: Option<(Vec<u8>, usize)> = None;
                for row in snapshot.range(Space::Items, range, Direction::Forward) {
                    let (key, value) = row?;
                    let item = crate::items::decode_stored(&value)?;
                    if let Some(cap) = cap {
                        let same = partition.as_ref().is_some_and(|(p, _)| key.starts_with(p));
                        if !same {
                            let hash = item.get(&table.key_schema.hash.name).cloned();
                            let encoded = hash
                                .map(|hash| {
                                    kura_model::PrimaryKey { hash, range: None }.encode_hash()
                                })
                                .transpose()?
                                .unwrap_or_default();
                            partition = Some((keys::partition_prefix(&prefix, &encoded), 0));
                        }
                        if let Some((p, taken)) = partition.as_mut() {
                            *taken += 1;
                            if *taken > cap {
                                // On to the slice's next partition, next turn.
                                *from = match KeyRange::prefix(p).end {
                                    Bound::Excluded(after) => Some(Bound::Included(after)),
                                    _ => None,
                                };
                                break;
                            }
                        }
                    }
                    if sample.taken.insert(key.to_vec()) {
                        sample.bytes += kura_model::size::item_size(&item);
                        sample.items.push(item);
                        read += 1;
                    }
                    if read == turn || sample.full() {
                        *from = Some(Bound::Excluded(key.to_vec()));
                        break;
                    }
                }
                if sample.full() {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// The advisor's sample being taken: the items, their storage keys (a second pass skips
/// what the first took) and bytes, and its bounds.
struct Sample {
    limit: usize,
    max_bytes: usize,
    items: Vec<Item>,
    taken: std::collections::HashSet<Vec<u8>>,
    bytes: usize,
}

impl Sample {
    fn full(&self) -> bool {
        self.items.len() >= self.limit || self.bytes >= self.max_bytes
    }
}
