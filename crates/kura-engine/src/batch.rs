//! BatchGetItem and BatchWriteItem.
//!
//! BatchWriteItem applies all of its requests in one group commit, so nothing is ever
//! left unprocessed; each write is atomic on its own, as DynamoDB promises, and here the
//! whole batch happens to be too. BatchGetItem reads every key from one snapshot and
//! returns the keys past the 16 MB response limit as `UnprocessedKeys`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use kura_expr::Projection;
use kura_expr::eval::projection::project;
use kura_expr::request::{Compiled, Operation, compile};
use kura_model::constraint::Constraints;
use kura_model::size::item_size;
use kura_model::wire::item_from_json;
use kura_model::{Item, ScalarType, limits, messages};

use crate::Engine;
use crate::api::*;
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::indexes::entries::check_index_keys;
use crate::items::{asks_metrics, current_table, read_current, read_snapshot, write_item};
use crate::keys;

const MAX_WRITE_REQUESTS: usize = 25;
const MAX_GET_KEYS: usize = 100;
/// BatchGetItem answers at most this many bytes of items.
const MAX_GET_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// The number of write requests of a batch, refused when one is neither a put nor a
/// delete, or when there are more than BatchWriteItem takes.
fn write_request_count(request_items: &BTreeMap<String, Vec<WriteRequest>>) -> Result<usize> {
    for requests in request_items.values() {
        if requests
            .iter()
            .any(|r| r.put_request.is_none() && r.delete_request.is_none())
        {
            return Err(EngineError::validation(messages::WRITE_REQUEST_EMPTY));
        }
    }
    let total: usize = request_items.values().map(Vec::len).sum();
    if total > MAX_WRITE_REQUESTS {
        return Err(EngineError::validation(messages::too_many_batch_items(
            "BatchWriteItem",
        )));
    }
    Ok(total)
}

/// One table's write requests as changes, each item's values checked.
fn changes(requests: Vec<WriteRequest>) -> Result<Vec<Change>> {
    let mut pending = Vec::with_capacity(requests.len());
    for request in requests {
        let change = match (request.put_request, request.delete_request) {
            (Some(put), None) => {
                let item = item_from_json(put.item.unwrap_or_default())?;
                if item_size(&item) > limits::MAX_ITEM_SIZE {
                    return Err(EngineError::validation(messages::ITEM_TOO_LARGE));
                }
                Change::Put(item)
            }
            (None, Some(delete)) => Change::Delete(item_from_json(delete.key.unwrap_or_default())?),
            _ => return Err(EngineError::validation(messages::WRITE_REQUEST_EMPTY)),
        };
        pending.push(change);
    }
    Ok(pending)
}

/// One request of a batch, before its table is known.
enum Change {
    Put(Item),
    Delete(Item),
}

/// One validated write of a batch.
struct BatchWrite {
    table: Arc<TableRecord>,
    storage_key: Vec<u8>,
    item: Option<Item>,
}

/// BatchWriteItem's framework constraints, in the order DynamoDB reports them (dynalite
/// `validations/batchWriteItem.js` and `test/batchWriteItem.js`): ReturnConsumedCapacity,
/// ReturnItemCollectionMetrics, RequestItems (present, not empty, its keys table names,
/// each list 1..=25 requests), then each request's Key and Item, tables in reverse order.
fn write_constraints(input: &BatchWriteItemInput) -> Result<()> {
    let mut c = Constraints::new();
    c.one_of(
        "returnConsumedCapacity",
        input.return_consumed_capacity.as_deref(),
        &ReturnConsumedCapacity::VALUES,
    );
    c.one_of(
        "returnItemCollectionMetrics",
        input.return_item_collection_metrics.as_deref(),
        &["SIZE", "NONE"],
    );
    match &input.request_items {
        None => c.not_null::<()>("requestItems", None),
        Some(tables) => {
            let rendered = render_map(tables, |requests| render_list(requests, render_write));
            // An empty map is not a framework failure here: BatchWriteItem answers it with
            // its own sentence, after the other members (below).
            c.table_name_keys("requestItems", &rendered, tables.keys());
            c.value_lengths(
                "requestItems",
                &rendered,
                tables.values().map(Vec::len),
                1,
                MAX_WRITE_REQUESTS,
            );
            for (name, requests) in tables.iter().rev() {
                for (i, request) in requests.iter().enumerate() {
                    let at = format!("requestItems.{name}.member.{}.member", i + 1);
                    if let Some(delete) = &request.delete_request {
                        c.not_null(&format!("{at}.deleteRequest.key"), delete.key.as_ref());
                    }
                    if let Some(put) = &request.put_request {
                        c.not_null(&format!("{at}.putRequest.item"), put.item.as_ref());
                    }
                }
            }
        }
    }
    c.finish()?;
    if input.request_items.as_ref().is_some_and(BTreeMap::is_empty) {
        return Err(EngineError::validation(
            messages::BATCH_WRITE_REQUEST_ITEMS_REQUIRED,
        ));
    }
    Ok(())
}

/// BatchGetItem's framework constraints, in DynamoDB's order (dynalite
/// `validations/batchGetItem.js` and `test/batchGetItem.js`): ReturnConsumedCapacity,
/// RequestItems (present, not empty, its keys table names), then per table, in reverse
/// order, Keys (present, 1..=100) and AttributesToGet (1..=255).
fn get_constraints(input: &BatchGetItemInput) -> Result<()> {
    let mut c = Constraints::new();
    c.one_of(
        "returnConsumedCapacity",
        input.return_consumed_capacity.as_deref(),
        &ReturnConsumedCapacity::VALUES,
    );
    match &input.request_items {
        None => c.not_null::<()>("requestItems", None),
        Some(tables) => {
            // BatchGetItem moved to the framework's 2026 wording for RequestItems and Keys
            // (no quoted value, PascalCase paths), and quotes the map in table-name
            // failures as JSON (AWS us-east-1 and eu-west-2, 2026-09/10, as captured in
            // dynoxide PR #198 and issue #18 and paritysuite/dynamodb-conformance
            // `batchGetItem.test.ts`).
            if tables.is_empty() {
                c.fail_unquoted("RequestItems", &messages::min_length(1));
            }
            c.table_name_keys("requestItems", &render_get_json(tables), tables.keys());
            for (name, request) in tables.iter().rev() {
                let path = format!("RequestItems.{name}.member.Keys");
                match &request.keys {
                    None => c.not_null::<()>(&format!("requestItems.{name}.member.keys"), None),
                    Some(keys) if keys.is_empty() => {
                        c.fail_unquoted(&path, &messages::min_length(1))
                    }
                    Some(keys) if keys.len() > MAX_GET_KEYS => {
                        c.fail_unquoted(&path, &messages::max_length(MAX_GET_KEYS))
                    }
                    Some(_) => {}
                }
                if let Some(names) = &request.expressions.attributes_to_get {
                    c.length(
                        &format!("requestItems.{name}.member.attributesToGet"),
                        &format!("[{}]", names.join(", ")),
                        names.len(),
                        1,
                        255,
                    );
                }
            }
        }
    }
    Ok(c.finish()?)
}

/// A map as DynamoDB's (Java) framework quotes it in a constraint failure: `{k=v, ...}`.
fn render_map<V>(map: &BTreeMap<String, V>, value: impl Fn(&V) -> String) -> String {
    let entries: Vec<String> = map
        .iter()
        .map(|(k, v)| format!("{k}={}", value(v)))
        .collect();
    format!("{{{}}}", entries.join(", "))
}

/// BatchGetItem's RequestItems as DynamoDB quotes it in a table-name failure: the request's
/// JSON, e.g. `{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}` (us-east-1 and eu-west-2,
/// 2026-10-09, paritysuite/dynamodb-conformance `batchGetItem.test.ts`).
fn render_get_json(tables: &BTreeMap<String, KeysAndAttributes>) -> String {
    let entries: Vec<String> = tables
        .iter()
        .map(|(name, request)| {
            let mut members = Vec::new();
            if let Some(keys) = &request.keys {
                members.push(format!("\"Keys\":{}", json(keys)));
            }
            if let Some(names) = &request.expressions.attributes_to_get {
                members.push(format!("\"AttributesToGet\":{}", json(names)));
            }
            if let Some(consistent) = request.consistent_read {
                members.push(format!("\"ConsistentRead\":{consistent}"));
            }
            if let Some(projection) = &request.expressions.projection_expression {
                members.push(format!("\"ProjectionExpression\":{}", json(projection)));
            }
            if let Some(names) = &request.expressions.expression_attribute_names {
                members.push(format!("\"ExpressionAttributeNames\":{}", json(names)));
            }
            format!("{}:{{{}}}", json(name), members.join(","))
        })
        .collect();
    format!("{{{}}}", entries.join(","))
}

/// The key of a PutRequest's item. A key attribute missing or of another type gets the
/// generic schema message, not PutItem's (see [`messages::KEY_SCHEMA_MISMATCH`]); empty and
/// oversized key values keep theirs.
fn put_key(table: &TableRecord, item: &Item) -> Result<kura_model::PrimaryKey> {
    if table
        .key_schema
        .attributes()
        .any(|a| item.get(&a.name).and_then(ScalarType::of) != Some(a.ty))
    {
        return Err(EngineError::validation(messages::KEY_SCHEMA_MISMATCH));
    }
    Ok(table.key_schema.key_of_item(item)?)
}

fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A list as the framework quotes it: `[a, b]`, `[]` when empty.
fn render_list<T>(list: &[T], element: impl Fn(&T) -> String) -> String {
    let elements: Vec<String> = list.iter().map(element).collect();
    format!("[{}]", elements.join(", "))
}

/// An item or key: its attribute names; DynamoDB quotes the values as object references,
/// which no client can use.
fn render_item(item: &kura_model::wire::ItemJson) -> String {
    render_map(item, |_| "AttributeValue".to_owned())
}

fn render_write(request: &WriteRequest) -> String {
    let put = request.put_request.as_ref().map_or_else(
        || "null".to_owned(),
        |p| {
            format!(
                "PutRequest(item={})",
                p.item
                    .as_ref()
                    .map_or_else(|| "null".to_owned(), render_item)
            )
        },
    );
    let delete = request.delete_request.as_ref().map_or_else(
        || "null".to_owned(),
        |d| {
            format!(
                "DeleteRequest(key={})",
                d.key
                    .as_ref()
                    .map_or_else(|| "null".to_owned(), render_item)
            )
        },
    );
    format!("WriteRequest(putRequest={put}, deleteRequest={delete})")
}

/// One table's part of a BatchGetItem: the table, the projection, each key with its
/// storage key, whether reads are strongly consistent, and what to echo with unprocessed
/// keys.
type GetPlan = (
    Arc<TableRecord>,
    Option<Projection>,
    Vec<(Item, Vec<u8>)>,
    bool,
    UnprocessedKeys,
);
impl Engine {
    /// Keys (or items) of a batch's requests on `table` that were answered unprocessed
    /// before they reached the engine (the table was out of capacity): counted as the
    /// engine's own unprocessed keys are, so the advisor sees whether they are retried.
    pub fn note_unprocessed<'a>(&self, table: &str, keys: impl IntoIterator<Item = &'a Item>) {
        let Some(record) = self.catalog.get(table) else {
            return;
        };
        let storage_keys = keys.into_iter().filter_map(|item| {
            let key = record.key_schema.key_of_item(item).ok()?;
            keys::item_key(record.id, &key).ok()
        });
        self.counters.table(table).traffic.unprocessed(storage_keys);
    }

    pub async fn batch_write_item(
        &self,
        input: BatchWriteItemInput,
    ) -> Result<BatchWriteItemOutput> {
        // BatchWriteItem's checks in DynamoDB's order, then one write.
        write_constraints(&input)?;
        let request_items = input.request_items.unwrap_or_default();
        let total = write_request_count(&request_items)?;
        let mut writes = Vec::with_capacity(total);
        // Keys for Contributor Insights, recorded once the batch is durable.
        let mut noted = Vec::new();
        let mut deleting = Vec::new();
        for (table_name, requests) in request_items {
            let mut seen = BTreeSet::new();
            let pending = changes(requests)?;
            let table = self.table_for_items(&table_name)?;
            for change in pending {
                let (key, item) = match change {
                    Change::Put(item) => {
                        let key = put_key(&table, &item)?;
                        if let Err(refused) = check_index_keys(&table, &item) {
                            self.count_index_key_refusal(&table_name, &refused);
                            return Err(refused);
                        }
                        (key, Some(item))
                    }
                    Change::Delete(key) => (table.key_schema.key_of_key_map(&key)?, None),
                };
                let storage_key = keys::item_key(table.id, &key)?;
                if !seen.insert(storage_key.clone()) {
                    return Err(EngineError::validation(messages::DUPLICATE_KEYS));
                }
                let counters = self.counters.table(&table.name);
                counters.traffic.batch_key(&storage_key);
                counters.hot.accessed(None, std::slice::from_ref(&key.hash));
                if item.is_none() {
                    deleting.push(counters.clone());
                }
                if counters.insights.active() {
                    noted.push((counters, key));
                }
                writes.push(BatchWrite {
                    table: table.clone(),
                    storage_key,
                    item,
                });
            }
        }
        let catalog = self.catalog.clone();
        let asked = asks_metrics(&input.return_item_collection_metrics);
        let (units, metrics) = self
            .writer
            .submit(false, move |w| {
                let mut units: BTreeMap<String, Consumed> = BTreeMap::new();
                let mut metrics: BTreeMap<String, Vec<ItemCollectionMetrics>> = BTreeMap::new();
                for write in writes {
                    let table = current_table(&catalog, &write.table)?;
                    let new_size = write.item.as_ref().map_or(0, item_size);
                    let old = read_current(w, &write.storage_key)?;
                    let size = old.as_ref().map_or(0, item_size).max(new_size);
                    let written =
                        write_item(w, &table, write.storage_key, old.as_ref(), write.item)?;
                    let mut consumed = written.indexes.clone();
                    consumed.table = write_units(size);
                    units.entry(table.name.clone()).or_default().add(&consumed);
                    if let Some(m) = written.metrics(&table, asked) {
                        metrics.entry(table.name.clone()).or_default().push(m);
                    }
                }
                Ok((units, metrics))
            })
            .await?;
        self.counters.consume_all(&units, true);
        // A delete in a batch is a delete (`ttl.deletes-instead-of-ttl` counts them all).
        for counters in deleting {
            counters.traffic.deleted();
        }
        let now = self.clock.now_ms();
        for (counters, key) in noted {
            crate::counters::note_key(&counters, None, &key, now);
        }
        let mode = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        Ok(BatchWriteItemOutput {
            unprocessed_items: BTreeMap::new(),
            consumed_capacity: ConsumedCapacity::per_table(mode, units, true),
            item_collection_metrics: asked.then_some(metrics),
        })
    }

    /// Each table's checked keys (with their storage keys), projection and read mode, and
    /// the request's settings to echo with its unprocessed keys.
    fn batch_get_plans(
        &self,
        request_items: BTreeMap<String, KeysAndAttributes>,
    ) -> Result<Vec<GetPlan>> {
        let mut plans = Vec::new();
        for (table_name, request) in request_items {
            let echo = UnprocessedKeys {
                keys: Vec::new(),
                consistent_read: request.consistent_read,
                projection_expression: request.expressions.projection_expression.clone(),
                expression_attribute_names: request.expressions.expression_attribute_names.clone(),
                attributes_to_get: request.expressions.attributes_to_get.clone(),
            };
            let Compiled { projection, .. } = compile(Operation::GetItem, request.expressions)?;
            let mut keys_in_order = Vec::new();
            for raw in request.keys.unwrap_or_default() {
                keys_in_order.push(item_from_json(raw)?);
            }
            let table = self.table_for_items(&table_name)?;
            let mut seen = BTreeSet::new();
            let mut lookups = Vec::new();
            for key in keys_in_order {
                let primary = table.key_schema.key_of_key_map(&key)?;
                let storage_key = keys::item_key(table.id, &primary)?;
                if !seen.insert(storage_key.clone()) {
                    return Err(EngineError::validation(messages::DUPLICATE_KEYS));
                }
                lookups.push((key, storage_key));
            }
            let consistent = request.consistent_read.unwrap_or(false);
            plans.push((table, projection, lookups, consistent, echo));
        }
        Ok(plans)
    }

    pub fn batch_get_item(&self, input: BatchGetItemInput) -> Result<BatchGetItemOutput> {
        get_constraints(&input)?;
        let request_items = input.request_items.unwrap_or_default();
        let total: usize = request_items
            .values()
            .map(|r| r.keys.as_ref().map_or(0, Vec::len))
            .sum();
        if total > MAX_GET_KEYS {
            return Err(EngineError::validation(messages::too_many_batch_items(
                "BatchGetItem",
            )));
        }
        // Validate everything before reading anything.
        let plans = self.batch_get_plans(request_items)?;
        let snapshot = self.store.snapshot()?;
        let mut out = BatchGetItemOutput::default();
        let mut units: BTreeMap<String, Consumed> = BTreeMap::new();
        let mut response_bytes = 0usize;
        for (table, projection, lookups, consistent, echo) in plans {
            let table_name = table.name.clone();
            let found = out.responses.entry(table_name.clone()).or_default();
            let mut unprocessed = Vec::new();
            let counters = self.counters.table(&table_name);
            let traffic = &counters.traffic;
            let now = self.clock.now_ms();
            let schema = &table.key_schema;
            let insights = counters.insights.active().then(|| {
                let range = schema.range.as_ref().map(|r| r.name.as_str());
                (schema.hash.name.as_str(), range)
            });
            let mut unprocessed_keys = Vec::new();
            traffic.read(consistent);
            for (key, storage_key) in lookups {
                traffic.batch_key(&storage_key);
                if let Some(partition) = key.get(&schema.hash.name) {
                    counters.hot.accessed(None, std::slice::from_ref(partition));
                }
                counters.key_read(&storage_key, now, &|tag| {
                    crate::items::gsi_of_tag(&table, tag)
                });
                if let Some(names) = insights {
                    crate::counters::note_item(&counters, None, names, &key, now);
                }
                if response_bytes >= MAX_GET_RESPONSE_BYTES {
                    unprocessed.push(key);
                    unprocessed_keys.push(storage_key);
                    continue;
                }
                let item = read_snapshot(snapshot.as_ref(), &storage_key)?;
                let size = item.as_ref().map_or(0, item_size);
                units.entry(table_name.clone()).or_default().table += read_units(size, consistent);
                if let Some(item) = item {
                    let item = match &projection {
                        Some(paths) => project(&item, paths),
                        None => item,
                    };
                    response_bytes += item_size(&item);
                    found.push(item);
                }
            }
            traffic.unprocessed(unprocessed_keys);
            if !unprocessed.is_empty() {
                out.unprocessed_keys.insert(
                    table_name,
                    UnprocessedKeys {
                        keys: unprocessed,
                        ..echo
                    },
                );
            }
        }
        self.counters.consume_all(&units, false);
        let mode = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        out.consumed_capacity = ConsumedCapacity::per_table(mode, units, false);
        Ok(out)
    }
}
