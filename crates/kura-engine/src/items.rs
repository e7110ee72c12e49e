//! Item operations: PutItem, GetItem, DeleteItem, UpdateItem.
//!
//! Every item write goes through [`write_item`], the single place that applies an item
//! change. Its side effects, all in the same atomic batch as the item:
//! - the item itself in `Items`;
//! - the table statistics (ItemCount, TableSizeBytes) in `Meta`;
//! - the entries of every secondary index and their statistics;
//! - the stream record, when the table has an enabled stream;
//! - the TTL index entry, when the table has TTL enabled;
//! - the item's pre-image in the history, while the table has point-in-time recovery or
//!   backups (`backups::history`).

use std::sync::Arc;

use kura_expr::eval::compare::items_equal;
use kura_expr::eval::condition::evaluate;
use kura_expr::eval::projection::project;
use kura_expr::eval::update::apply;
use kura_expr::request::{Compiled, Operation, compile, compile_item_write};
use kura_expr::{Condition, Path};
use kura_model::constraint::Constraints;
use kura_model::item_codec::{CodecError, decode_item, decode_item_where, encode_item};
use kura_model::size::item_size;
use kura_model::wire::{ItemJson, item_from_json};
use kura_model::{AttributeValue, Item, PrimaryKey, limits, messages};

use crate::Engine;
use crate::api::*;
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::indexes::entries::{check_index_keys, check_updated_index_keys, update_indexes};
use crate::keys::{self, TableStats};
use crate::replication::time::{self as replica_time, ReplicaTime};
use crate::streams::record::Origin;
use crate::write_evidence::PutEvidence;
use crate::writer::WriteContext;
use crate::{streams, ttl};
use kura_store::{Snapshot, Space};

/// In the order DynamoDB lists them in its enum constraint message (dynalite
/// `validations/putItem.js`).
const RETURN_VALUES: [&str; 5] = ["ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"];
const RETURN_ITEM_COLLECTION_METRICS: [&str; 2] = ["SIZE", "NONE"];
const RETURN_ON_CONDITION_FAILURE: [&str; 2] = ["ALL_OLD", "NONE"];

// Framework constraints are reported in a fixed order per operation, which is not the
// order of the members in the API Reference. Source: dynalite `validations/getItem.js`,
// `putItem.js`, `updateItem.js`, `deleteItem.js` (the order of `types`) and their tests,
// recorded against DynamoDB. ReturnValuesOnConditionCheckFailure, newer than those
// recordings, comes last.

fn return_consumed_capacity(c: &mut Constraints, value: Option<&str>) {
    c.one_of(
        "returnConsumedCapacity",
        value,
        &ReturnConsumedCapacity::VALUES,
    );
}

fn return_values(c: &mut Constraints, value: Option<&str>) {
    c.one_of("returnValues", value, &RETURN_VALUES);
}

fn return_item_collection_metrics(c: &mut Constraints, value: Option<&str>) {
    c.one_of(
        "returnItemCollectionMetrics",
        value,
        &RETURN_ITEM_COLLECTION_METRICS,
    );
}

fn return_on_condition_failure(c: &mut Constraints, value: Option<&str>) {
    c.one_of(
        "returnValuesOnConditionCheckFailure",
        value,
        &RETURN_ON_CONDITION_FAILURE,
    );
}

/// Refuses the write unless `condition` holds for the current item (absent = empty). The
/// failure carries the item when `ReturnValuesOnConditionCheckFailure` is `ALL_OLD`.
fn check_condition(
    condition: Option<&Condition>,
    current: Option<&Item>,
    return_item: bool,
) -> Result<()> {
    let Some(condition) = condition else {
        return Ok(());
    };
    let empty = Item::new();
    if evaluate(condition, current.unwrap_or(&empty)) {
        Ok(())
    } else {
        Err(EngineError::ConditionalCheckFailed {
            item: if return_item { current.cloned() } else { None },
        })
    }
}

/// The item's state as the writer sees it.
pub(crate) fn read_current(w: &mut WriteContext<'_>, storage_key: &[u8]) -> Result<Option<Item>> {
    match w.get(Space::Items, storage_key)? {
        Some(bytes) => Ok(Some(decode_stored(&bytes)?)),
        None => Ok(None),
    }
}

/// The item as of `snapshot`.
pub(crate) fn read_snapshot(snapshot: &dyn Snapshot, storage_key: &[u8]) -> Result<Option<Item>> {
    match snapshot.get(Space::Items, storage_key)? {
        Some(bytes) => Ok(Some(decode_stored(&bytes)?)),
        None => Ok(None),
    }
}

/// UpdateItem may not touch the key: DynamoDB refuses any action on a key attribute.
pub(crate) fn refuse_key_updates(update: &kura_expr::Update, table: &TableRecord) -> Result<()> {
    for path in update.target_paths() {
        if table.key_schema.attributes().any(|k| k.name == path.top()) {
            return Err(EngineError::validation(messages::update_key_attribute(
                path.top(),
            )));
        }
    }
    Ok(())
}

/// The part of `item` that the update's actions touched, for UPDATED_OLD / UPDATED_NEW.
fn updated_part(item: Option<&Item>, paths: &[Path]) -> Option<Item> {
    let part = project(item?, paths);
    (!part.is_empty()).then_some(part)
}

/// PutItem and DeleteItem return the old item or nothing.
fn returns_all_old(return_values: Option<&str>) -> Result<bool> {
    match return_values {
        None | Some("NONE") => Ok(false),
        Some("ALL_OLD") => Ok(true),
        Some(_) => Err(EngineError::validation(messages::one_validation_error(
            messages::RETURN_VALUES_ALL_OLD_OR_NONE,
        ))),
    }
}

/// The GSI of `table` whose number's low byte is `tag` (how a GSI page marks its keys).
pub(crate) fn gsi_of_tag(table: &TableRecord, tag: u8) -> Option<String> {
    table
        .indexes
        .iter()
        .find(|i| i.kind == crate::catalog::IndexKind::Global && (i.number & 0xff) as u8 == tag)
        .map(|i| i.name.clone())
}

/// Whether an UpdateItem's condition tests its partition key with `attribute_exists` or
/// `attribute_not_exists` (directly or through a `#name`), or its legacy `Expected` names the
/// key: the guard docs/advisor.md's `api.update-existence-condition` looks for. Judged on the
/// text, for the advisor's counts only.
/// Counts a refused write for `index.key-value-refused` when an index key value was NULL,
/// empty or of another type (not when it was too long: that has another fix).
fn index_key_refused(counters: &crate::counters::TableCounters, refused: &EngineError) {
    if let EngineError::Validation(message) = refused
        && (message.contains("Type mismatch") || message.contains("empty"))
    {
        counters.traffic.index_key_refused(|| message.clone());
    }
}

/// Whether an UpdateItem appends to a list (`list_append`) or adds a set's elements
/// (`ADD` with a set value, or the legacy `AttributeUpdates` action ADD of a set): how
/// history piles up in one item (docs/advisor.md, `types.collection-append`). An ADD of a
/// number is an atomic counter, which the guideline recommends. Judged on the text, for
/// the advisor's counts only.
fn appends_to_collection(expressions: &kura_expr::request::ExpressionParams) -> bool {
    let is_set = |value: &kura_model::wire::AttributeValueJson| {
        serde_json::to_value(value)
            .is_ok_and(|v| ["SS", "NS", "BS"].iter().any(|kind| v.get(kind).is_some()))
    };
    if let Some(updates) = &expressions.attribute_updates {
        return updates
            .values()
            .any(|u| u.action.as_deref() == Some("ADD") && u.value.as_ref().is_some_and(is_set));
    }
    expressions
        .update_expression
        .as_deref()
        .is_some_and(|text| {
            text.contains("list_append")
                || (text
                    .split_whitespace()
                    .any(|word| word.eq_ignore_ascii_case("ADD"))
                    && expressions
                        .expression_attribute_values
                        .as_ref()
                        .is_some_and(|values| values.values().any(is_set)))
        })
}

fn guards_existence(
    expressions: &kura_expr::request::ExpressionParams,
    key: Option<&ItemJson>,
) -> bool {
    // The key attributes the request names: testing either one's existence tests the item's.
    let names: Vec<&String> = key.map(|k| k.keys().collect()).unwrap_or_default();
    if let Some(expected) = &expressions.expected {
        return names.iter().any(|n| expected.contains_key(*n));
    }
    let Some(text) = &expressions.condition_expression else {
        return false;
    };
    let aliases = expressions.expression_attribute_names.as_ref();
    ["attribute_exists", "attribute_not_exists"]
        .iter()
        .any(|function| {
            text.match_indices(function).any(|(at, _)| {
                let rest = text[at + function.len()..].trim_start();
                let Some(rest) = rest.strip_prefix('(') else {
                    return false;
                };
                let operand: String = rest
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '#' || *c == '-')
                    .collect();
                let name = match operand.strip_prefix('#') {
                    Some(_) => aliases.and_then(|a| a.get(&operand)).cloned(),
                    None => Some(operand),
                };
                name.is_some_and(|n| names.contains(&&n))
            })
        })
}

fn validated(json: Option<ItemJson>) -> Result<Item> {
    Ok(item_from_json(json.unwrap_or_default())?)
}

impl Engine {
    /// Counts one single-item request: the capacity it consumed, and its key for
    /// Contributor Insights when the table has it enabled.
    fn count_item_request(
        &self,
        table: &TableRecord,
        consumed: &Consumed,
        written_size: Option<usize>,
        key: &PrimaryKey,
    ) -> Arc<crate::counters::TableCounters> {
        let stats = self.counters.table(&table.name);
        stats.consume(consumed, written_size.is_some());
        self.counters
            .charge_table(table, consumed, written_size.is_some(), Some(&key.hash));
        if let Some(size) = written_size {
            stats
                .traffic
                .written(size, || crate::counters::key_label(key));
        }
        stats.hot.accessed(None, std::slice::from_ref(&key.hash));
        if stats.insights.active() {
            crate::counters::note_key(&stats, None, key, self.clock.now_ms());
        }
        stats
    }

    /// A write refused for an index key value (NULL, empty, wrong type): counted for the
    /// advisor, which no other record of the request keeps.
    pub(crate) fn count_index_key_refusal(&self, table: &str, refused: &EngineError) {
        index_key_refused(&self.counters.table(table), refused);
    }

    /// The table a data-plane operation names, with its not-found message.
    pub(crate) fn table_for_items(&self, name: &str) -> Result<Arc<TableRecord>> {
        // A table being restored is CREATING, and DynamoDB does not find those.
        self.catalog
            .ready(name)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::RESOURCE_NOT_FOUND.into()))
    }

    pub async fn put_item(&self, input: PutItemInput) -> Result<PutItemOutput> {
        let mut c = Constraints::new();
        return_consumed_capacity(&mut c, input.return_consumed_capacity.as_deref());
        c.item_table_name("tableName", input.table_name.as_deref());
        c.not_null("item", input.item.as_ref());
        return_values(&mut c, input.return_values.as_deref());
        return_item_collection_metrics(&mut c, input.return_item_collection_metrics.as_deref());
        return_on_condition_failure(
            &mut c,
            input.return_values_on_condition_check_failure.as_deref(),
        );
        c.finish()?;
        let return_old = returns_all_old(input.return_values.as_deref())?;
        let Compiled { condition, .. } = compile_item_write(Operation::PutItem, input.expressions)?;
        let conditional = condition.is_some();
        let item = validated(input.item)?;
        let table_name = input.table_name.unwrap_or_default();
        let table = self.table_for_items(&table_name)?;
        let key = table.key_schema.key_of_item(&item)?;
        let size = item_size(&item);
        if size > limits::MAX_ITEM_SIZE {
            return Err(EngineError::validation(messages::ITEM_TOO_LARGE));
        }
        if let Err(refused) = check_index_keys(&table, &item) {
            self.count_index_key_refusal(&table_name, &refused);
            return Err(refused);
        }
        let storage_key = keys::item_key(table.id, &key)?;
        let slot = crate::counters::recent::Slot::of(&storage_key);
        let catalog = self.catalog.clone();
        let return_on_failure =
            returns_item_on_failure(&input.return_values_on_condition_check_failure);
        let metrics = asks_metrics(&input.return_item_collection_metrics);
        let (old, written, table, evidence) = self
            .writer
            .submit(false, move |w| {
                let table = current_table(&catalog, &table)?;
                let current = read_current(w, &storage_key)?;
                check_condition(condition.as_ref(), current.as_ref(), return_on_failure)?;
                let evidence = PutEvidence::of(&table, current.as_ref(), &item);
                let written = write_item(w, &table, storage_key, current.as_ref(), Some(item))?;
                Ok((current, written, table, evidence))
            })
            .await?;
        let capacity = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        let mut consumed = written.indexes.clone();
        consumed.table = write_units(old.as_ref().map_or(0, item_size).max(size));
        let counters = self.count_item_request(&table, &consumed, Some(size), &key);
        let now = self.clock.now_ms();
        if !conditional {
            counters.traffic.single_write(now);
        }
        counters.traffic.put(conditional, old.is_none());
        counters.traffic.changed();
        counters.key_written(slot, now);
        if old.is_some() {
            counters.key_replaced(slot, now);
        }
        evidence.count(&counters.traffic);
        Ok(PutItemOutput {
            attributes: if return_old { old } else { None },
            consumed_capacity: ConsumedCapacity::report(capacity, &table_name, &consumed, true),
            item_collection_metrics: written.metrics(&table, metrics),
        })
    }

    pub fn get_item(&self, input: GetItemInput) -> Result<GetItemOutput> {
        let mut c = Constraints::new();
        return_consumed_capacity(&mut c, input.return_consumed_capacity.as_deref());
        if let Some(names) = &input.expressions.attributes_to_get {
            c.length(
                "attributesToGet",
                &format!("[{}]", names.join(", ")),
                names.len(),
                1,
                255,
            );
        }
        c.name("tableName", input.table_name.as_deref());
        c.not_null("key", input.key.as_ref());
        c.finish()?;
        let Compiled { projection, .. } = compile(Operation::GetItem, input.expressions)?;
        let key = validated(input.key)?;
        let table_name = input.table_name.unwrap_or_default();
        let table = self.table_for_items(&table_name)?;
        let key = table.key_schema.key_of_key_map(&key)?;
        let storage_key = keys::item_key(table.id, &key)?;
        let item = read_snapshot(self.store.snapshot()?.as_ref(), &storage_key)?;
        let consistent = input.consistent_read.unwrap_or(false);
        // Capacity counts the whole item read, not the projected part.
        let units = read_units(item.as_ref().map_or(0, item_size), consistent);
        let item = match (item, &projection) {
            (Some(item), Some(paths)) => Some(project(&item, paths)),
            (item, _) => item,
        };
        let capacity = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        let consumed = Consumed::table(units);
        let counters = self.count_item_request(&table, &consumed, None, &key);
        counters.traffic.read(consistent);
        if !consistent {
            counters.eventual_read(&storage_key, self.clock.now_ms());
        }
        counters.key_read(&storage_key, self.clock.now_ms(), &|tag| {
            gsi_of_tag(&table, tag)
        });
        Ok(GetItemOutput {
            item,
            consumed_capacity: ConsumedCapacity::report(capacity, &table_name, &consumed, false),
        })
    }

    pub async fn delete_item(&self, input: DeleteItemInput) -> Result<DeleteItemOutput> {
        let mut c = Constraints::new();
        return_consumed_capacity(&mut c, input.return_consumed_capacity.as_deref());
        c.name("tableName", input.table_name.as_deref());
        return_values(&mut c, input.return_values.as_deref());
        return_item_collection_metrics(&mut c, input.return_item_collection_metrics.as_deref());
        c.not_null("key", input.key.as_ref());
        return_on_condition_failure(
            &mut c,
            input.return_values_on_condition_check_failure.as_deref(),
        );
        c.finish()?;
        let return_old = returns_all_old(input.return_values.as_deref())?;
        let Compiled { condition, .. } =
            compile_item_write(Operation::DeleteItem, input.expressions)?;
        let conditional = condition.is_some();
        let key = validated(input.key)?;
        let table_name = input.table_name.unwrap_or_default();
        let table = self.table_for_items(&table_name)?;
        let key = table.key_schema.key_of_key_map(&key)?;
        let storage_key = keys::item_key(table.id, &key)?;
        let slot = crate::counters::recent::Slot::of(&storage_key);
        let catalog = self.catalog.clone();
        let return_on_failure =
            returns_item_on_failure(&input.return_values_on_condition_check_failure);
        let metrics = asks_metrics(&input.return_item_collection_metrics);
        let (old, written, table) = self
            .writer
            .submit(false, move |w| {
                let table = current_table(&catalog, &table)?;
                let current = read_current(w, &storage_key)?;
                check_condition(condition.as_ref(), current.as_ref(), return_on_failure)?;
                let written = write_item(w, &table, storage_key, current.as_ref(), None)?;
                Ok((current, written, table))
            })
            .await?;
        let capacity = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        let mut consumed = written.indexes.clone();
        consumed.table = write_units(old.as_ref().map_or(0, item_size));
        let counters = self.count_item_request(&table, &consumed, Some(0), &key);
        counters.traffic.deleted();
        if old.is_some() {
            counters.traffic.changed();
        }
        counters.key_written(slot, self.clock.now_ms());
        if !conditional {
            counters.traffic.single_write(self.clock.now_ms());
        }
        Ok(DeleteItemOutput {
            attributes: if return_old { old } else { None },
            consumed_capacity: ConsumedCapacity::report(capacity, &table_name, &consumed, true),
            item_collection_metrics: written.metrics(&table, metrics),
        })
    }

    /// UpdateItem: applies the update (UpdateExpression or AttributeUpdates) to the item, or
    /// to a new item holding just the key when there is none, as DynamoDB does.
    pub async fn update_item(&self, input: UpdateItemInput) -> Result<UpdateItemOutput> {
        let mut c = Constraints::new();
        return_consumed_capacity(&mut c, input.return_consumed_capacity.as_deref());
        c.item_table_name("tableName", input.table_name.as_deref());
        return_item_collection_metrics(&mut c, input.return_item_collection_metrics.as_deref());
        return_values(&mut c, input.return_values.as_deref());
        // Reported with the framework's constraints, before the missing key (AWS us-east-1
        // and eu-west-2 2026-10-09, paritysuite/dynamodb-conformance
        // `tests/tier3/validation-ordering/updateItem.test.ts`).
        c.one_of(
            "conditionalOperator",
            input.expressions.conditional_operator.as_deref(),
            &kura_expr::legacy::CONDITIONAL_OPERATORS,
        );
        c.not_null("key", input.key.as_ref());
        return_on_condition_failure(
            &mut c,
            input.return_values_on_condition_check_failure.as_deref(),
        );
        c.finish()?;
        let guarded = guards_existence(&input.expressions, input.key.as_ref());
        let appends = appends_to_collection(&input.expressions);
        let Compiled {
            condition, update, ..
        } = compile_item_write(Operation::UpdateItem, input.expressions)?;
        let key = validated(input.key)?;
        let table_name = input.table_name.unwrap_or_default();
        let table = self.table_for_items(&table_name)?;
        let key: PrimaryKey = table.key_schema.key_of_key_map(&key)?;
        let update = update.unwrap_or_default();
        refuse_key_updates(&update, &table)?;
        let updated_paths: Vec<Path> = update.target_paths().cloned().collect();
        let key_item = table.key_schema.key_item(&key);
        let storage_key = keys::item_key(table.id, &key)?;
        let slot = crate::counters::recent::Slot::of(&storage_key);
        let catalog = self.catalog.clone();
        let return_on_failure =
            returns_item_on_failure(&input.return_values_on_condition_check_failure);
        let metrics = asks_metrics(&input.return_item_collection_metrics);
        // The writer counts an index key refusal for the advisor where it finds one.
        let refusals = self.counters.table(&table_name);
        let (old, new, written, table) = self
            .writer
            .submit(false, move |w| {
                let table = current_table(&catalog, &table)?;
                let current = read_current(w, &storage_key)?;
                check_condition(condition.as_ref(), current.as_ref(), return_on_failure)?;
                // Removing from an item that does not exist creates nothing.
                if current.is_none() && update.only_removes() {
                    return Ok((None, None, Written::default(), table));
                }
                let new = apply(&update, current.as_ref().unwrap_or(&key_item))?;
                if item_size(&new) > limits::MAX_ITEM_SIZE {
                    return Err(EngineError::validation(messages::UPDATED_ITEM_TOO_LARGE));
                }
                if let Err(refused) = check_updated_index_keys(&table, &new) {
                    index_key_refused(&refusals, &refused);
                    return Err(refused);
                }
                let unchanged = current.as_ref().is_some_and(|c| items_equal(c, &new));
                let written = if !unchanged {
                    write_item(w, &table, storage_key, current.as_ref(), Some(new.clone()))?
                } else {
                    Written::default()
                };
                Ok((current, Some(new), written, table))
            })
            .await?;
        let capacity = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        let mut consumed = written.indexes.clone();
        consumed.table = write_units(
            old.as_ref()
                .map_or(0, item_size)
                .max(new.as_ref().map_or(0, item_size)),
        );
        let new_size = new.as_ref().map_or(0, item_size);
        let counters = self.count_item_request(&table, &consumed, Some(new_size), &key);
        counters.traffic.update(guarded, appends);
        let changed = match (&old, &new) {
            (None, None) => false,
            (Some(old), Some(new)) => !items_equal(old, new),
            _ => true,
        };
        if changed {
            counters.traffic.changed();
        }
        counters.key_written(slot, self.clock.now_ms());
        let attributes = match input.return_values.as_deref() {
            Some("ALL_OLD") => old,
            Some("ALL_NEW") => new,
            Some("UPDATED_OLD") => updated_part(old.as_ref(), &updated_paths),
            Some("UPDATED_NEW") => updated_part(new.as_ref(), &updated_paths),
            _ => None,
        };
        Ok(UpdateItemOutput {
            attributes,
            consumed_capacity: ConsumedCapacity::report(capacity, &table_name, &consumed, true),
            item_collection_metrics: written.metrics(&table, metrics),
        })
    }
}

/// Whether `ReturnItemCollectionMetrics` asks for the metrics.
pub(crate) fn asks_metrics(option: &Option<String>) -> bool {
    option.as_deref() == Some("SIZE")
}

fn returns_item_on_failure(option: &Option<String>) -> bool {
    option.as_deref() == Some("ALL_OLD")
}

/// The table as the writer sees it now. A write raced a DeleteTable (or delete and
/// re-create) must not land in a table that no longer exists, and index changes published
/// since the request was validated (a GSI created or deleted) must be honoured. The
/// request's record is still the catalog's unless it was superseded since; only then is
/// the catalog read again.
pub(crate) fn current_table(
    catalog: &crate::catalog::Catalog,
    table: &Arc<TableRecord>,
) -> Result<Arc<TableRecord>> {
    if table.publication.is_live() {
        return Ok(table.clone());
    }
    match catalog.get(&table.name) {
        Some(current) if current.id == table.id => Ok(current),
        _ => Err(EngineError::ResourceNotFound(
            messages::RESOURCE_NOT_FOUND.into(),
        )),
    }
}

pub(crate) fn decode_stored(bytes: &[u8]) -> Result<Item> {
    decode_item(bytes).map_err(corrupt)
}

/// The top-level attributes of a stored item that `wanted` accepts, the rest walked past.
pub(crate) fn decode_stored_where(bytes: &[u8], wanted: impl FnMut(&str) -> bool) -> Result<Item> {
    decode_item_where(bytes, wanted).map_err(corrupt)
}

pub(crate) fn corrupt(e: CodecError) -> EngineError {
    EngineError::Internal(format!("corrupt stored item: {e}"))
}

/// What one item write did besides writing the item.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// Write units the table's indexes consumed (the caller adds the table's own).
    pub indexes: Consumed,
    /// The item's collection (partition key value) and its size after the write, on
    /// tables with local secondary indexes.
    pub collection: Option<(AttributeValue, u64)>,
}

impl Written {
    /// The `ItemCollectionMetrics` of this write, when asked for and the table has LSIs.
    pub fn metrics(&self, table: &TableRecord, asked: bool) -> Option<ItemCollectionMetrics> {
        let (hash, bytes) = self.collection.as_ref().filter(|_| asked)?;
        Some(ItemCollectionMetrics::new(
            &table.key_schema.hash.name,
            hash,
            *bytes,
        ))
    }
}

/// Applies one item change a request made (`new` = None deletes) and every side effect
/// of it. `old` is the current item, which every caller has already read with
/// [`read_current`].
pub(crate) fn write_item(
    w: &mut WriteContext<'_>,
    table: &TableRecord,
    storage_key: Vec<u8>,
    old: Option<&Item>,
    new: Option<Item>,
) -> Result<Written> {
    apply_item_change(w, table, storage_key, old, new, Origin::Request)
}

/// [`write_item`] for a change from `origin` (requests, or the TTL expirer).
pub(crate) fn apply_item_change(
    w: &mut WriteContext<'_>,
    table: &TableRecord,
    storage_key: Vec<u8>,
    old: Option<&Item>,
    new: Option<Item>,
    origin: Origin,
) -> Result<Written> {
    apply_item_change_at(w, table, storage_key, old, new, origin, None)
}

/// [`apply_item_change`] with the last-write time a replica sent (`replica_time`); a
/// global table's local write gets its time here.
pub(crate) fn apply_item_change_at(
    w: &mut WriteContext<'_>,
    table: &TableRecord,
    storage_key: Vec<u8>,
    old: Option<&Item>,
    new: Option<Item>,
    origin: Origin,
    replica_time: Option<ReplicaTime>,
) -> Result<Written> {
    let Some(any) = new.as_ref().or(old) else {
        return Ok(Written::default()); // deleting nothing changes nothing
    };
    let time = match (&table.replication, replica_time) {
        (None, _) => None,
        (Some(_), Some(time)) => Some(time),
        (Some(group), None) => Some(replica_time::local(w, &storage_key, &group.region)?),
    };
    if let Some(time) = &time {
        replica_time::record(w, &storage_key, time);
    }
    let old_size = old.map(item_size);
    let new_size = new.as_ref().map(item_size);
    let mut written = Written::default();
    if !table.indexes.is_empty() {
        let table_key = table.key_schema.key_of_item(any)?;
        let changes = update_indexes(w, table, &table_key, old, new.as_ref())?;
        written.indexes = changes.consumed;
        if table.has_local_indexes() {
            let delta =
                new_size.unwrap_or(0) as i64 - old_size.unwrap_or(0) as i64 + changes.local_bytes;
            let bytes = resize_collection(w, table, &table_key, delta)?;
            written.collection = Some((table_key.hash, bytes));
        }
    }
    streams::record::append(w, table, old, new.as_ref(), origin, time.as_ref())?;
    crate::kinesis::destination::append(w, table, old, new.as_ref(), origin)?;
    if table.history_from.is_some() {
        crate::backups::history::record(w, &storage_key, old);
    }
    ttl::update_ttl_index(w, table, &storage_key, old, new.as_ref())?;
    if !table.vector_indexes.is_empty() {
        written.indexes.vector =
            crate::vectors::follow::follow_write(w, table, &storage_key, old, new.as_ref())?;
    }
    let stats_key = keys::stats_key(table.id);
    let mut stats = TableStats::read(w.get(Space::Meta, &stats_key)?)?;
    stats.apply(old_size, new_size);
    match &new {
        Some(item) => w.put(Space::Items, storage_key, encode_item(item)),
        None => w.delete(Space::Items, storage_key),
    }
    w.put(Space::Meta, stats_key, stats.encode());
    Ok(written)
}

/// Adds `delta` bytes to the item collection of `key`'s partition and returns its new
/// size; growth past the limit is refused (shrinking never is).
fn resize_collection(
    w: &mut WriteContext<'_>,
    table: &TableRecord,
    key: &PrimaryKey,
    delta: i64,
) -> Result<u64> {
    let record = keys::collection_key(table.id, &key.encode_hash()?);
    let current =
        match w.get(Space::Meta, &record)? {
            Some(bytes) => u64::from_be_bytes(bytes.as_slice().try_into().map_err(|_| {
                EngineError::Internal("corrupt item collection size record".into())
            })?),
            None => 0,
        };
    let next = current.saturating_add_signed(delta);
    if delta > 0 && next > w.limits().max_item_collection_bytes {
        return Err(EngineError::ItemCollectionSizeLimitExceeded(
            messages::ITEM_COLLECTION_TOO_LARGE.into(),
        ));
    }
    if next == 0 {
        w.delete(Space::Meta, record);
    } else {
        w.put(Space::Meta, record, next.to_be_bytes().to_vec());
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guarded(json: &str) -> bool {
        let input: UpdateItemInput = serde_json::from_str(json).expect("input");
        guards_existence(&input.expressions, input.key.as_ref())
    }

    #[test]
    fn an_existence_test_on_a_key_attribute_guards_an_update() {
        let key = r#""Key": {"user_id": {"S": "u"}}"#;
        assert!(guarded(&format!(
            r#"{{{key}, "ConditionExpression": "attribute_exists(user_id)"}}"#
        )));
        assert!(guarded(&format!(
            r##"{{{key}, "ConditionExpression": "v = :v AND attribute_not_exists( #k )",
                "ExpressionAttributeNames": {{"#k": "user_id"}}}}"##
        )));
        assert!(guarded(&format!(
            r#"{{{key}, "Expected": {{"user_id": {{"Exists": true, "Value": {{"S": "u"}}}}}}}}"#
        )));
        assert!(!guarded(&format!(r#"{{{key}}}"#)));
        assert!(!guarded(&format!(
            r#"{{{key}, "ConditionExpression": "attribute_exists(other)"}}"#
        )));
        assert!(!guarded(&format!(
            r#"{{{key}, "ConditionExpression": "version = :v"}}"#
        )));
    }
}
