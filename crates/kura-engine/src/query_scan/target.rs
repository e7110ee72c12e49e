//! What a Query or Scan reads (a table or one of its indexes) and what it returns.

use std::sync::Arc;

use kura_expr::Projection;
use kura_model::wire::ItemJson;
use kura_model::{Item, KeyAttribute, messages};

use crate::api::*;
use crate::catalog::{IndexKind, IndexRecord, TableRecord};
use crate::error::{EngineError, Result};
use crate::indexes::entries::{IndexKey, index_key};
use crate::keys;
use kura_store::Space;

/// What to return for the items that pass the filter.
pub(super) enum Output {
    /// The items, projected when a projection is given.
    Items {
        projection: Option<Projection>,
    },
    Count,
}

/// What a Query or Scan reads: a table, or one of its secondary indexes.
pub(super) struct Target {
    pub(super) table: Arc<TableRecord>,
    pub(super) index: Option<IndexRecord>,
}

impl Target {
    /// The partition key attributes the request's keys and conditions refer to.
    pub(super) fn hash_attributes(&self) -> Vec<&KeyAttribute> {
        match &self.index {
            Some(index) => index.hash_attributes().collect(),
            None => vec![&self.table.key_schema.hash],
        }
    }

    /// The sort key attributes the request's keys and conditions refer to.
    pub(super) fn range_attributes(&self) -> Vec<&KeyAttribute> {
        match &self.index {
            Some(index) => index.range_attributes().collect(),
            None => self.table.key_schema.range.iter().collect(),
        }
    }

    pub(super) fn space(&self) -> Space {
        if self.index.is_some() {
            Space::Indexes
        } else {
            Space::Items
        }
    }

    /// The prefix of every key the target holds.
    pub(super) fn prefix(&self) -> Vec<u8> {
        match &self.index {
            Some(index) => keys::index_prefix(self.table.id, index.number).to_vec(),
            None => keys::table_prefix(self.table.id).to_vec(),
        }
    }

    /// Whose Contributor Insights an item read here counts for (a GSI, or the table), and
    /// the partition and sort key attributes it is counted by.
    pub(super) fn insights_key(&self) -> (Option<&str>, (&str, Option<&str>)) {
        match &self.index {
            Some(index) if index.kind == IndexKind::Global => {
                let hash = index
                    .hash_attributes()
                    .next()
                    .map_or("", |a| a.name.as_str());
                let range = index.range_attributes().next().map(|a| a.name.as_str());
                (Some(index.name.as_str()), (hash, range))
            }
            _ => {
                let schema = &self.table.key_schema;
                let range = schema.range.as_ref().map(|a| a.name.as_str());
                (None, (schema.hash.name.as_str(), range))
            }
        }
    }

    /// The attributes a LastEvaluatedKey carries: the index keys, then the table keys.
    pub(super) fn page_key_attributes(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        let index = self.index.iter().flat_map(|i| i.key_attributes());
        for attr in index.chain(self.table.key_schema.attributes()) {
            if !names.contains(&attr.name.as_str()) {
                names.push(&attr.name);
            }
        }
        names
    }

    /// Where to continue after `ExclusiveStartKey`: its key in the target's schema and the
    /// storage key of the row to continue after.
    pub(super) fn start_key(&self, start: Option<ItemJson>) -> Result<Option<(IndexKey, Vec<u8>)>> {
        let Some(raw) = start else { return Ok(None) };
        let key = kura_model::wire::item_from_json(raw)?;
        let table = &self.table;
        let Some(index) = &self.index else {
            let primary = table.key_schema.key_of_key_map(&key).map_err(|e| {
                EngineError::validation(messages::invalid_start_key(&e.to_string()))
            })?;
            let storage_key = keys::item_key(table.id, &primary)?;
            let key = IndexKey {
                hash: vec![primary.hash],
                range: primary.range.into_iter().collect(),
            };
            return Ok(Some((key, storage_key)));
        };
        let names = self.page_key_attributes();
        if key.len() != names.len() || names.iter().any(|n| !key.contains_key(*n)) {
            return Err(EngineError::validation(messages::INVALID_START_KEY));
        }
        let mismatch = || EngineError::validation(messages::KEY_SCHEMA_MISMATCH);
        let table_part: Item = table
            .key_schema
            .attributes()
            .filter_map(|a| key.get_key_value(&a.name))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let table_key = table
            .key_schema
            .key_of_key_map(&table_part)
            .map_err(|e| EngineError::validation(messages::invalid_start_key(&e.to_string())))?;
        let index_key = index_key(index, &key)
            .map_err(|_| mismatch())?
            .ok_or_else(mismatch)?;
        let storage_key = index_key.entry_key(table.id, index, &table_key)?;
        Ok(Some((index_key, storage_key)))
    }

    /// The capacity of one page: `index_units` on the index (or the table), plus the
    /// table reads of LSI fetches.
    pub(super) fn consumed(&self, units: f64, fetched_units: f64) -> Consumed {
        match &self.index {
            None => Consumed::table(units + fetched_units),
            Some(index) => {
                let mut consumed = Consumed::table(fetched_units);
                consumed.add_index(index.kind, &index.name, units);
                consumed
            }
        }
    }
}
