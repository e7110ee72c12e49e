//! Item family: PutItem, GetItem, DeleteItem, UpdateItem, Query, Scan, SearchVectors,
//! batches, transactions. What each input names, asks of the policies
//! (`crate::authz::items`) and of capacity is its [`Input`]; the handlers are the steps
//! after [`begin`].

use kura_engine::api::{
    BatchGetItemInput, BatchWriteItemInput, DeleteItemInput, GetItemInput, PutItemInput,
    QueryInput, ScanInput, SearchVectorsInput, TransactGetItemsInput, TransactWriteItemsInput,
    UpdateItemInput,
};

use kura_engine::throttle::Access;
use kura_model::wire::ItemJson;

use super::input::{Input, begin, once};
use super::{Call, item_json, json, strong, throttling};
use crate::authz::{Check, Scope, items as checks};
use crate::error::ApiError;
use crate::operation::Op;

pub async fn put_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: PutItemInput = begin(&call).await?;
    let items: Vec<&ItemJson> = input.item.iter().collect();
    let held = strong::hold(&call, input.table_name.as_deref(), Some(&items))?;
    json(&strong::run(&call, held, call.engine.put_item(input)).await?)
}

pub async fn get_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: GetItemInput = begin(&call).await?;
    strong::read(&call, input.table_name.as_deref(), input.consistent_read)?;
    item_json(&call.engine.get_item(input)?)
}

pub async fn delete_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DeleteItemInput = begin(&call).await?;
    let items: Vec<&ItemJson> = input.key.iter().collect();
    let held = strong::hold(&call, input.table_name.as_deref(), Some(&items))?;
    json(&strong::run(&call, held, call.engine.delete_item(input)).await?)
}

pub async fn update_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: UpdateItemInput = begin(&call).await?;
    let items: Vec<&ItemJson> = input.key.iter().collect();
    let held = strong::hold(&call, input.table_name.as_deref(), Some(&items))?;
    json(&strong::run(&call, held, call.engine.update_item(input)).await?)
}

pub async fn query(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: QueryInput = begin(&call).await?;
    strong::read(&call, input.table_name.as_deref(), input.consistent_read)?;
    let output = call.engine.query(input)?;
    call.observation.returned_items(output.count);
    item_json(&output)
}

pub async fn scan(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ScanInput = begin(&call).await?;
    strong::read(&call, input.table_name.as_deref(), input.consistent_read)?;
    let output = call.engine.scan(input)?;
    call.observation.returned_items(output.count);
    item_json(&output)
}

pub async fn search_vectors(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: SearchVectorsInput = begin(&call).await?;
    let output = call.engine.search_vectors(input).await?;
    call.observation.returned_items(output.search_results.len());
    json(&output)
}

pub async fn batch_get_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: BatchGetItemInput = begin(&call).await?;
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
    let input: BatchWriteItemInput = begin(&call).await?;
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
    let input: TransactWriteItemsInput = begin(&call).await?;
    let tables = action_tables(&input);
    strong::no_transaction(&call, "TransactWriteItems", tables)?;
    json(&call.engine.transact_write_items(input).await?)
}

pub async fn transact_get_items(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: TransactGetItemsInput = begin(&call).await?;
    strong::no_transaction(&call, "TransactGetItems", get_tables(&input))?;
    json(&call.engine.transact_get_items(input)?)
}

/// The single-item operations: one table, one item addressed by its key (a Put's by its
/// whole item).
macro_rules! single_item {
    ($($input:ty => $check:ident, $item:ident, $access:ident;)*) => {$(
        impl Input for $input {
            fn tables(&self) -> Vec<&str> {
                self.table_name.as_deref().into_iter().collect()
            }

            fn item(&self) -> Option<&ItemJson> {
                self.$item.as_ref()
            }

            fn checks(&self, scope: &Scope<'_>, _: Op) -> Vec<Check> {
                checks::$check(scope, self)
            }

            fn admit(&self, call: &Call<'_>) -> Result<(), ApiError> {
                let table = self.table_name.as_deref();
                throttling::one(call, table, None, self.$item.as_ref(), Access::$access)
            }
        }
    )*};
}

single_item! {
    PutItemInput => put_item, item, Write;
    GetItemInput => get_item, key, Read;
    DeleteItemInput => delete_item, key, Write;
    UpdateItemInput => update_item, key, Write;
}

/// The reads of a table or one of its indexes.
macro_rules! index_read {
    ($($input:ty => $check:ident;)*) => {$(
        impl Input for $input {
            fn tables(&self) -> Vec<&str> {
                self.table_name.as_deref().into_iter().collect()
            }

            fn checks(&self, scope: &Scope<'_>, _: Op) -> Vec<Check> {
                checks::$check(scope, self)
            }

            fn admit(&self, call: &Call<'_>) -> Result<(), ApiError> {
                let (table, index) = (self.table_name.as_deref(), self.index_name.as_deref());
                throttling::one(call, table, index, None, Access::Read)
            }
        }
    )*};
}

index_read! {
    QueryInput => query;
    ScanInput => scan;
    SearchVectorsInput => search_vectors;
}

/// Batches admit table by table as they run (`Input::admit`).
macro_rules! batch {
    ($($input:ty => $check:ident;)*) => {$(
        impl Input for $input {
            fn tables(&self) -> Vec<&str> {
                let tables = self.request_items.iter().flat_map(|r| r.keys());
                tables.map(String::as_str).collect()
            }

            fn checks(&self, scope: &Scope<'_>, _: Op) -> Vec<Check> {
                checks::$check(scope, self)
            }
        }
    )*};
}

batch! {
    BatchGetItemInput => batch_get_item;
    BatchWriteItemInput => batch_write_item;
}

impl Input for TransactWriteItemsInput {
    fn tables(&self) -> Vec<&str> {
        once(action_tables(self))
    }

    fn checks(&self, scope: &Scope<'_>, _: Op) -> Vec<Check> {
        checks::transact_write_items(scope, self)
    }

    fn admit(&self, call: &Call<'_>) -> Result<(), ApiError> {
        // A cancellation gives a reason per action: every action's table, in order.
        throttling::transaction(call, action_tables(self), Access::Write)
    }
}

impl Input for TransactGetItemsInput {
    fn tables(&self) -> Vec<&str> {
        once(get_tables(self))
    }

    fn checks(&self, scope: &Scope<'_>, _: Op) -> Vec<Check> {
        checks::transact_get_items(scope, self)
    }

    fn admit(&self, call: &Call<'_>) -> Result<(), ApiError> {
        throttling::transaction(call, get_tables(self), Access::Read)
    }
}

/// The table of each action of a TransactWriteItems, in order (a table once per action).
fn action_tables(input: &TransactWriteItemsInput) -> impl Iterator<Item = &str> {
    let actions = input.transact_items.iter().flatten();
    let actions = actions.flat_map(|a| [&a.condition_check, &a.put, &a.delete, &a.update]);
    actions.flatten().filter_map(|a| a.table_name.as_deref())
}

/// The table of each Get of a TransactGetItems, in order.
fn get_tables(input: &TransactGetItemsInput) -> impl Iterator<Item = &str> {
    let actions = input.transact_items.iter().flatten();
    actions.filter_map(|a| a.get.as_ref()?.table_name.as_deref())
}
