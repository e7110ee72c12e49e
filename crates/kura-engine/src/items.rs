//! Item operations: PutItem, GetItem, DeleteItem, UpdateItem.
//!
//! Every item write goes through [`write_item`], the single place that applies an item
//! change. Its side effects, all in the same atomic batch as the item:
//! - the item itself in `Items`;
//! - the table statistics (ItemCount, TableSizeBytes) in `Meta`.
//!
//! Later issues add index entries, the stream record and the TTL index entry here.

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::item_codec::{decode_item, encode_item};
use kura_model::size::item_size;
use kura_model::wire::{ItemJson, item_from_json};
use kura_model::{Item, PrimaryKey, limits, messages};

use crate::Engine;
use crate::api::*;
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::keys::{self, TableStats};
use crate::storage::Space;
use crate::writer::WriteContext;

const RETURN_VALUES: [&str; 5] = ["NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"];
const RETURN_ITEM_COLLECTION_METRICS: [&str; 2] = ["SIZE", "NONE"];

/// The checks every item operation starts with, in DynamoDB's order.
fn common_constraints(
    c: &mut Constraints,
    table_name: Option<&str>,
    return_consumed_capacity: Option<&str>,
) {
    c.name("tableName", table_name);
    c.one_of(
        "returnConsumedCapacity",
        return_consumed_capacity,
        &ReturnConsumedCapacity::VALUES,
    );
}

/// The checks PutItem, DeleteItem and UpdateItem add for their return options.
fn write_constraints(c: &mut Constraints, return_values: Option<&str>, metrics: Option<&str>) {
    c.one_of("returnValues", return_values, &RETURN_VALUES);
    c.one_of(
        "returnItemCollectionMetrics",
        metrics,
        &RETURN_ITEM_COLLECTION_METRICS,
    );
}

/// PutItem and DeleteItem return the old item or nothing.
fn returns_all_old(return_values: Option<&str>) -> Result<bool> {
    match return_values {
        None | Some("NONE") => Ok(false),
        Some("ALL_OLD") => Ok(true),
        Some(_) => Err(EngineError::validation(
            messages::RETURN_VALUES_ALL_OLD_OR_NONE,
        )),
    }
}

fn refuse_expressions(members: &ExpressionMembers) -> Result<()> {
    match members.first_present() {
        Some(name) => Err(EngineError::validation(messages::not_supported_yet(name))),
        None => Ok(()),
    }
}

fn validated(json: Option<ItemJson>) -> Result<Item> {
    Ok(item_from_json(json.unwrap_or_default())?)
}

impl Engine {
    /// The table an item operation names, with the item operations' not-found message.
    fn table_for_items(&self, name: &str) -> Result<Arc<TableRecord>> {
        self.catalog
            .get(name)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::RESOURCE_NOT_FOUND.into()))
    }

    pub async fn put_item(&self, input: PutItemInput) -> Result<PutItemOutput> {
        let mut c = Constraints::new();
        common_constraints(
            &mut c,
            input.table_name.as_deref(),
            input.return_consumed_capacity.as_deref(),
        );
        c.not_null("item", input.item.as_ref());
        write_constraints(
            &mut c,
            input.return_values.as_deref(),
            input.return_item_collection_metrics.as_deref(),
        );
        c.finish()?;
        refuse_expressions(&input.expressions)?;
        let return_old = returns_all_old(input.return_values.as_deref())?;
        let item = validated(input.item)?;
        let table_name = input.table_name.unwrap_or_default();
        let table = self.table_for_items(&table_name)?;
        let key = table.key_schema.key_of_item(&item)?;
        let size = item_size(&item);
        if size > limits::MAX_ITEM_SIZE {
            return Err(EngineError::validation(messages::ITEM_TOO_LARGE));
        }
        let storage_key = keys::item_key(table.id, &key)?;
        let catalog = self.catalog.clone();
        let old = self
            .writer
            .submit(false, move |w| {
                check_table_still_there(&catalog, &table)?;
                write_item(w, table.id, storage_key, Some(item))
            })
            .await?;
        let capacity = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        let units = write_units(old.as_ref().map_or(0, item_size).max(size));
        Ok(PutItemOutput {
            attributes: if return_old { old } else { None },
            consumed_capacity: ConsumedCapacity::report(capacity, &table_name, units, true),
        })
    }

    pub fn get_item(&self, input: GetItemInput) -> Result<GetItemOutput> {
        let mut c = Constraints::new();
        common_constraints(
            &mut c,
            input.table_name.as_deref(),
            input.return_consumed_capacity.as_deref(),
        );
        c.not_null("key", input.key.as_ref());
        if let Some(names) = &input.attributes_to_get {
            c.length(
                "attributesToGet",
                &format!("[{}]", names.join(", ")),
                names.len(),
                1,
                usize::MAX,
            );
        }
        c.finish()?;
        refuse_expressions(&input.expressions)?;
        let key = validated(input.key)?;
        let table_name = input.table_name.unwrap_or_default();
        let table = self.table_for_items(&table_name)?;
        let key = table.key_schema.key_of_key_map(&key)?;
        let storage_key = keys::item_key(table.id, &key)?;
        let snapshot = self.store.snapshot()?;
        let item = match snapshot.get(Space::Items, &storage_key)? {
            Some(bytes) => Some(decode_stored(&bytes)?),
            None => None,
        };
        let consistent = input.consistent_read.unwrap_or(false);
        let units = read_units(item.as_ref().map_or(0, item_size), consistent);
        let item = match (item, &input.attributes_to_get) {
            (Some(item), Some(names)) => Some(
                item.into_iter()
                    .filter(|(k, _)| names.contains(k))
                    .collect(),
            ),
            (item, _) => item,
        };
        let capacity = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        Ok(GetItemOutput {
            item,
            consumed_capacity: ConsumedCapacity::report(capacity, &table_name, units, false),
        })
    }

    pub async fn delete_item(&self, input: DeleteItemInput) -> Result<DeleteItemOutput> {
        let mut c = Constraints::new();
        common_constraints(
            &mut c,
            input.table_name.as_deref(),
            input.return_consumed_capacity.as_deref(),
        );
        c.not_null("key", input.key.as_ref());
        write_constraints(
            &mut c,
            input.return_values.as_deref(),
            input.return_item_collection_metrics.as_deref(),
        );
        c.finish()?;
        refuse_expressions(&input.expressions)?;
        let return_old = returns_all_old(input.return_values.as_deref())?;
        let key = validated(input.key)?;
        let table_name = input.table_name.unwrap_or_default();
        let table = self.table_for_items(&table_name)?;
        let key = table.key_schema.key_of_key_map(&key)?;
        let storage_key = keys::item_key(table.id, &key)?;
        let catalog = self.catalog.clone();
        let old = self
            .writer
            .submit(false, move |w| {
                check_table_still_there(&catalog, &table)?;
                write_item(w, table.id, storage_key, None)
            })
            .await?;
        let capacity = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        let units = write_units(old.as_ref().map_or(0, item_size));
        Ok(DeleteItemOutput {
            attributes: if return_old { old } else { None },
            consumed_capacity: ConsumedCapacity::report(capacity, &table_name, units, true),
        })
    }

    /// UpdateItem without update expressions: DynamoDB creates the item with just its key
    /// when it does not exist, and otherwise leaves it as it is.
    pub async fn update_item(&self, input: UpdateItemInput) -> Result<UpdateItemOutput> {
        let mut c = Constraints::new();
        common_constraints(
            &mut c,
            input.table_name.as_deref(),
            input.return_consumed_capacity.as_deref(),
        );
        c.not_null("key", input.key.as_ref());
        write_constraints(
            &mut c,
            input.return_values.as_deref(),
            input.return_item_collection_metrics.as_deref(),
        );
        c.finish()?;
        refuse_expressions(&input.expressions)?;
        let key = validated(input.key)?;
        let table_name = input.table_name.unwrap_or_default();
        let table = self.table_for_items(&table_name)?;
        let key: PrimaryKey = table.key_schema.key_of_key_map(&key)?;
        let key_item = table.key_schema.key_item(&key);
        let storage_key = keys::item_key(table.id, &key)?;
        let catalog = self.catalog.clone();
        let (old, new) = self
            .writer
            .submit(false, move |w| {
                check_table_still_there(&catalog, &table)?;
                let old = match w.get(Space::Items, &storage_key)? {
                    Some(bytes) => Some(decode_stored(&bytes)?),
                    None => None,
                };
                match old {
                    Some(old) => Ok((Some(old.clone()), old)),
                    None => {
                        write_item(w, table.id, storage_key, Some(key_item.clone()))?;
                        Ok((None, key_item))
                    }
                }
            })
            .await?;
        let capacity = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        let units = write_units(old.as_ref().map_or(0, item_size).max(item_size(&new)));
        // With no update actions no attribute is "updated", so UPDATED_* return nothing.
        let attributes = match input.return_values.as_deref() {
            Some("ALL_OLD") => old,
            Some("ALL_NEW") => Some(new),
            _ => None,
        };
        Ok(UpdateItemOutput {
            attributes,
            consumed_capacity: ConsumedCapacity::report(capacity, &table_name, units, true),
        })
    }
}

/// A write raced a DeleteTable (or delete and re-create): it must not land in a table
/// that no longer exists.
fn check_table_still_there(catalog: &crate::catalog::Catalog, table: &TableRecord) -> Result<()> {
    match catalog.get(&table.name) {
        Some(current) if current.id == table.id => Ok(()),
        _ => Err(EngineError::ResourceNotFound(
            messages::RESOURCE_NOT_FOUND.into(),
        )),
    }
}

pub(crate) fn decode_stored(bytes: &[u8]) -> Result<Item> {
    decode_item(bytes).map_err(|e| EngineError::Internal(format!("corrupt stored item: {e}")))
}

/// Applies one item change (`new` = None deletes) and every side effect of it, and returns
/// the item it replaced.
pub(crate) fn write_item(
    w: &mut WriteContext<'_>,
    table_id: u64,
    storage_key: Vec<u8>,
    new: Option<Item>,
) -> Result<Option<Item>> {
    let old = match w.get(Space::Items, &storage_key)? {
        Some(bytes) => Some(decode_stored(&bytes)?),
        None => None,
    };
    let stats_key = keys::stats_key(table_id);
    let mut stats = TableStats::read(w.get(Space::Meta, &stats_key)?)?;
    stats.apply(old.as_ref().map(item_size), new.as_ref().map(item_size));
    match &new {
        Some(item) => w.put(Space::Items, storage_key, encode_item(item)),
        None if old.is_some() => w.delete(Space::Items, storage_key),
        None => return Ok(None), // deleting nothing changes nothing
    }
    w.put(Space::Meta, stats_key, stats.encode());
    Ok(old)
}
