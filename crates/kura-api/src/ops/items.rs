//! Item family: PutItem, GetItem, DeleteItem, UpdateItem, Query, Scan, batches,
//! transactions. Each parses its input once, has it authorized (`crate::authz::items`),
//! then runs it.

use kura_engine::api::{
    BatchGetItemInput, BatchWriteItemInput, DeleteItemInput, GetItemInput, PutItemInput,
    QueryInput, ScanInput, SearchVectorsInput, TransactGetItemsInput, TransactWriteItemsInput,
    UpdateItemInput,
};

use kura_engine::throttle::Access;
use kura_model::wire::ItemJson;

use super::{Call, item_json, json, strong, throttling};
use crate::authz::{self, items as checks};
use crate::error::ApiError;

pub async fn put_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: PutItemInput = call.input()?;
    call.observe_table(input.table_name.as_deref());
    authz::authorize(&call, |s| checks::put_item(s, &input))?;
    let table = input.table_name.as_deref();
    throttling::one(&call, table, None, input.item.as_ref(), Access::Write)?;
    let items: Vec<&ItemJson> = input.item.iter().collect();
    let held = strong::hold(&call, table, Some(&items))?;
    json(&strong::run(&call, held, call.engine.put_item(input)).await?)
}

pub fn get_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: GetItemInput = call.input()?;
    call.observe_table(input.table_name.as_deref());
    authz::authorize(&call, |s| checks::get_item(s, &input))?;
    let table = input.table_name.as_deref();
    throttling::one(&call, table, None, input.key.as_ref(), Access::Read)?;
    strong::read(&call, table, input.consistent_read)?;
    item_json(&call.engine.get_item(input)?)
}

pub async fn delete_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DeleteItemInput = call.input()?;
    call.observe_table(input.table_name.as_deref());
    authz::authorize(&call, |s| checks::delete_item(s, &input))?;
    let table = input.table_name.as_deref();
    throttling::one(&call, table, None, input.key.as_ref(), Access::Write)?;
    let items: Vec<&ItemJson> = input.key.iter().collect();
    let held = strong::hold(&call, table, Some(&items))?;
    json(&strong::run(&call, held, call.engine.delete_item(input)).await?)
}

pub async fn update_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: UpdateItemInput = call.input()?;
    call.observe_table(input.table_name.as_deref());
    authz::authorize(&call, |s| checks::update_item(s, &input))?;
    let table = input.table_name.as_deref();
    throttling::one(&call, table, None, input.key.as_ref(), Access::Write)?;
    let items: Vec<&ItemJson> = input.key.iter().collect();
    let held = strong::hold(&call, table, Some(&items))?;
    json(&strong::run(&call, held, call.engine.update_item(input)).await?)
}

pub fn query(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: QueryInput = call.input()?;
    call.observe_table(input.table_name.as_deref());
    authz::authorize(&call, |s| checks::query(s, &input))?;
    let (table, index) = (input.table_name.as_deref(), input.index_name.as_deref());
    throttling::one(&call, table, index, None, Access::Read)?;
    strong::read(&call, table, input.consistent_read)?;
    let output = call.engine.query(input)?;
    call.observation.returned_items(output.count);
    item_json(&output)
}

pub fn scan(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ScanInput = call.input()?;
    call.observe_table(input.table_name.as_deref());
    authz::authorize(&call, |s| checks::scan(s, &input))?;
    let (table, index) = (input.table_name.as_deref(), input.index_name.as_deref());
    throttling::one(&call, table, index, None, Access::Read)?;
    strong::read(&call, table, input.consistent_read)?;
    let output = call.engine.scan(input)?;
    call.observation.returned_items(output.count);
    item_json(&output)
}

pub async fn search_vectors(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: SearchVectorsInput = call.input()?;
    call.observe_table(input.table_name.as_deref());
    authz::authorize(&call, |s| checks::search_vectors(s, &input))?;
    let (table, index) = (input.table_name.as_deref(), input.index_name.as_deref());
    throttling::one(&call, table, index, None, Access::Read)?;
    let output = call.engine.search_vectors(input).await?;
    call.observation.returned_items(output.search_results.len());
    json(&output)
}

pub fn batch_get_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: BatchGetItemInput = call.input()?;
    for table in input.request_items.iter().flat_map(|r| r.keys()) {
        call.observation.table(table);
    }
    authz::authorize(&call, |s| checks::batch_get_item(s, &input))?;
    for (table, keys) in input.request_items.iter().flatten() {
        strong::read(&call, Some(table), keys.consistent_read)?;
    }
    let mut input = input;
    let tables = input.request_items.iter().flat_map(|r| r.keys());
    let (throttled, refusal) = throttling::batch(&call, tables, Access::Read);
    if throttled.is_empty() {
        return json(&call.engine.batch_get_item(input)?);
    }
    if let Some(items) = input.request_items.as_mut() {
        items.retain(|table, _| !throttled.contains(table));
        if items.is_empty() {
            return Err(refusal.unwrap_or_else(|| ApiError::internal("throttled")));
        }
    }
    let answer = json(&call.engine.batch_get_item(input)?)?;
    throttling::leave_unprocessed(&call, answer, "UnprocessedKeys", &throttled)
}

pub async fn batch_write_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: BatchWriteItemInput = call.input()?;
    for table in input.request_items.iter().flat_map(|r| r.keys()) {
        call.observation.table(table);
    }
    authz::authorize(&call, |s| checks::batch_write_item(s, &input))?;
    let mut held = Vec::new();
    for (table, requests) in input.request_items.iter().flatten() {
        let items: Vec<&ItemJson> = requests
            .iter()
            .filter_map(|r| match (&r.put_request, &r.delete_request) {
                (Some(put), _) => put.item.as_ref(),
                (None, Some(delete)) => delete.key.as_ref(),
                (None, None) => None,
            })
            .collect();
        held.extend(strong::hold(&call, Some(table), Some(&items))?);
    }
    strong::run(&call, held, write_batch(&call, input)).await
}

/// BatchWriteItem's writes, a throttled table's left unprocessed.
async fn write_batch(call: &Call<'_>, input: BatchWriteItemInput) -> Result<Vec<u8>, ApiError> {
    let mut input = input;
    let tables = input.request_items.iter().flat_map(|r| r.keys());
    let (throttled, refusal) = throttling::batch(call, tables, Access::Write);
    if throttled.is_empty() {
        return json(&call.engine.batch_write_item(input).await?);
    }
    if let Some(items) = input.request_items.as_mut() {
        items.retain(|table, _| !throttled.contains(table));
        if items.is_empty() {
            return Err(refusal.unwrap_or_else(|| ApiError::internal("throttled")));
        }
    }
    let answer = json(&call.engine.batch_write_item(input).await?)?;
    throttling::leave_unprocessed(call, answer, "UnprocessedItems", &throttled)
}

pub async fn transact_write_items(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: TransactWriteItemsInput = call.input()?;
    let tables = write_action_tables(&input);
    observe_tables(&call, &tables);
    authz::authorize(&call, |s| checks::transact_write_items(s, &input))?;
    strong::no_transaction(&call, "TransactWriteItems", tables.iter().copied())?;
    throttling::transaction(&call, tables.iter().copied(), Access::Write)?;
    json(&call.engine.transact_write_items(input).await?)
}

pub fn transact_get_items(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: TransactGetItemsInput = call.input()?;
    let tables: Vec<&str> = input
        .transact_items
        .iter()
        .flatten()
        .filter_map(|a| a.get.as_ref()?.table_name.as_deref())
        .collect();
    observe_tables(&call, &tables);
    authz::authorize(&call, |s| checks::transact_get_items(s, &input))?;
    strong::no_transaction(&call, "TransactGetItems", tables.iter().copied())?;
    throttling::transaction(&call, tables.iter().copied(), Access::Read)?;
    json(&call.engine.transact_get_items(input)?)
}

/// The table of each action of a TransactWriteItems, in order (a table once per action:
/// a cancellation gives a reason per action), read once for every step.
fn write_action_tables(input: &TransactWriteItemsInput) -> Vec<&str> {
    let actions = input.transact_items.iter().flatten();
    let actions = actions.flat_map(|a| [&a.condition_check, &a.put, &a.delete, &a.update]);
    actions
        .flatten()
        .filter_map(|a| a.table_name.as_deref())
        .collect()
}

/// Labels a transaction's metrics with each table it names, once.
fn observe_tables(call: &Call<'_>, tables: &[&str]) {
    for (i, table) in tables.iter().enumerate() {
        if !tables[..i].contains(table) {
            call.observation.table(table);
        }
    }
}
