//! Control-plane operations, one file per job:
//! - `create`: CreateTable;
//! - `update`: UpdateTable;
//! - `delete`: DeleteTable;
//! - `describe`: DescribeTable, ListTables, DescribeLimits, DescribeEndpoints, and the
//!   `TableDescription` rendering;
//! - `tags`: TagResource, UntagResource, ListTagsOfResource;
//! - `insights`: the Contributor Insights operations;
//! - `policy`: PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy;
//! - `sse`: the server-side encryption setting;
//! - `restored`: the definition of a table a restore creates;
//! - `validate`: the request checks CreateTable and UpdateTable share.
//!
//! Every change of a table record goes through the writer and [`Catalog::stage`], so the
//! published catalog follows the disk.
//!
//! [`Catalog::stage`]: crate::catalog::Catalog::stage

mod create;
pub(crate) use self::create::{allocate_table_id, new_table_record};
mod delete;
mod describe;
pub(crate) mod insights;
mod policy;
pub(crate) mod restored;
mod sse;
mod stats;
mod tags;
mod update;
pub(crate) use self::update::{check_table_name, has_settings};
mod validate;

pub(crate) use self::describe::describe;
use self::describe::describe_deleting;
pub(crate) use self::stats::Stats;
use self::tags::check_tags;
use self::validate::{
    BILLING_MODES, KEY_TYPES, TABLE_CLASSES, check_billing, check_key_schema,
    definitions_constraints, refuse_unsupported,
};

use std::collections::BTreeMap;
use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::messages;

use crate::Engine;
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::keys::{self, TableStats};
use kura_store::Space;

impl Engine {
    /// The table named by a control-plane request, with DescribeTable's not-found message.
    fn table_for_control(&self, name: Option<&str>) -> Result<Arc<TableRecord>> {
        let mut c = Constraints::new();
        c.name("tableName", name);
        c.finish()?;
        let name = name.unwrap_or_default();
        self.catalog
            .get(name)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::table_not_found(name)))
    }

    /// The table's and its indexes' statistics, as of now.
    pub(crate) fn stats(&self, table: &TableRecord) -> Result<Stats> {
        let snapshot = self.store.snapshot()?;
        let mut indexes = BTreeMap::new();
        for index in &table.indexes {
            let key = keys::index_stats_key(table.id, index.number);
            indexes.insert(
                index.number,
                TableStats::read(snapshot.get(Space::Meta, &key)?)?,
            );
        }
        let vectors = table
            .vector_indexes
            .iter()
            .map(|v| (v.name.clone(), self.vectors.stats(table.id, &v.name)))
            .collect();
        Ok(Stats {
            table: TableStats::read(snapshot.get(Space::Meta, &keys::stats_key(table.id))?)?,
            indexes,
            vectors,
        })
    }
}

/// A table's item count and size as the store keeps them (DescribeTable's figures, kept
/// exact rather than refreshed every six hours).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSize {
    pub table: String,
    pub item_count: u64,
    pub size_bytes: u64,
}

/// One vector index's live figures, for `/metrics`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorIndexSize {
    pub table: String,
    pub index: String,
    pub item_count: u64,
    /// The f32 bytes of its vectors (DescribeTable's IndexSizeBytes).
    pub size_bytes: u64,
    /// The memory it takes: vectors, the graph once there is one, keys and maps.
    pub memory_bytes: u64,
    /// Whether searches above the exact threshold walk the graph.
    pub approximate: bool,
}

impl Engine {
    /// Every vector index's item count, size and memory, for `/metrics`.
    pub fn vector_index_sizes(&self) -> Vec<VectorIndexSize> {
        let mut out = Vec::new();
        for table in self.catalog.all().values() {
            for index in &table.vector_indexes {
                let stats = self.vectors.stats(table.id, &index.name);
                out.push(VectorIndexSize {
                    table: table.name.clone(),
                    index: index.name.clone(),
                    item_count: stats.item_count,
                    size_bytes: stats.size_bytes,
                    memory_bytes: stats.memory_bytes,
                    approximate: stats.approximate,
                });
            }
        }
        out
    }

    /// Every table's item count and size, for `/metrics`.
    pub fn table_sizes(&self) -> Result<Vec<TableSize>> {
        let snapshot = self.store.snapshot()?;
        let mut out = Vec::new();
        for table in self.catalog.all().values() {
            let stats = TableStats::read(snapshot.get(Space::Meta, &keys::stats_key(table.id))?)?;
            out.push(TableSize {
                table: table.name.clone(),
                item_count: stats.item_count,
                size_bytes: stats.size_bytes,
            });
        }
        Ok(out)
    }

    /// Drops the counters of tables that no longer exist (a request in flight during a
    /// DeleteTable can bring them back); `/metrics` calls it before reading them.
    pub fn prune_counters(&self) {
        let tables = self.catalog.all();
        self.counters.retain(|name| tables.contains_key(name));
    }

    /// Whether any table exists (a data directory is seeded only while it has none).
    pub fn has_any_table(&self) -> bool {
        !self.catalog.all().is_empty()
    }

    /// Whether a table of that name exists.
    pub fn has_table(&self, name: &str) -> bool {
        self.catalog.get(name).is_some()
    }

    /// The store's use of disk and memory.
    pub fn footprint(&self) -> kura_store::Footprint {
        self.store.footprint()
    }
}
