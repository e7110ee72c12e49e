//! A table's design as tools outside the engine read it (the design advisor, the console):
//! its keys, indexes, settings and size, copied out of the catalog, so that no caller
//! depends on how a table record is stored, and none can change one.

use kura_model::keycode::ScalarType;
use kura_model::{Item, KeySchema};

use crate::catalog::TableRecord;
pub use crate::catalog::{BillingMode, IndexKind, IndexProjection};
use crate::error::Result;
use crate::storage::{Direction, KeyRange, Space};
use crate::tables::TableSize;
use crate::{Engine, keys};

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
            size,
            id: record.id,
        }
    }
}

impl Engine {
    /// Every table's design, in name order.
    pub fn table_designs(&self) -> Vec<TableDesign> {
        let sizes = self.table_sizes().unwrap_or_default();
        self.catalog
            .all()
            .values()
            .map(|record| {
                let size = sizes.iter().find(|s| s.table == record.name).cloned();
                TableDesign::of(record, size)
            })
            .collect()
    }

    /// Up to `limit` of a table's items in storage order, and at most `max_bytes` of them,
    /// read without counting as traffic (the design advisor's sample).
    pub fn sample_items(
        &self,
        table: &TableDesign,
        limit: usize,
        max_bytes: usize,
    ) -> Result<Vec<Item>> {
        let snapshot = self.store.snapshot()?;
        let prefix = keys::table_prefix(table.id);
        let rows = snapshot.range(Space::Items, KeyRange::prefix(&prefix), Direction::Forward);
        let mut items = Vec::new();
        let mut bytes = 0;
        for row in rows.take(limit) {
            let (_, value) = row?;
            let item = crate::items::decode_stored(&value)?;
            bytes += kura_model::size::item_size(&item);
            items.push(item);
            if bytes >= max_bytes {
                break;
            }
        }
        Ok(items)
    }
}
