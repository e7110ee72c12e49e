//! Capacity emulation at the door (`--enforce-capacity`): each data-plane request asks the
//! engine's throttle before it runs. Batches throttle per table: a throttled table's
//! requests come back unprocessed, and only when every table is throttled does the batch
//! fail, as DynamoDB's BatchWriteItem and BatchGetItem do.

use std::collections::{BTreeMap, BTreeSet};

use kura_engine::api::CancellationReason;
use kura_engine::expr::partiql::lower::Lowered;

use kura_engine::throttle::Access;
use kura_model::wire::ItemJson;

use super::Call;
use crate::error::ApiError;

/// Admits a request on one table (and index), addressing the partition key value found
/// in `key` (a key or a whole item) when given.
pub(crate) fn one(
    call: &Call<'_>,
    table: Option<&str>,
    index: Option<&str>,
    key: Option<&ItemJson>,
    access: Access,
) -> Result<(), ApiError> {
    if !call.engine.capacity().enforced() {
        return Ok(());
    }
    let Some(table) = table else {
        return Ok(());
    };
    check(call, table, index, access, key).map_err(ApiError::from)
}

/// The engine's check on `table`, with the request's copy of it (unknown tables
/// pass: the operation reports them).
fn check(
    call: &Call<'_>,
    table: &str,
    index: Option<&str>,
    access: Access,
    key: Option<&ItemJson>,
) -> Result<(), kura_engine::EngineError> {
    match call.schemas.table(table) {
        Some(published) => call
            .engine
            .capacity()
            .check_on(&call.ctx, &published, index, access, key),
        None => Ok(()),
    }
}

/// Admits a PartiQL statement (as the handler prepared it) on the table or index it names:
/// a SELECT reads, the others write. A statement that does not parse passes (the engine
/// refuses it).
pub(crate) fn statement(
    call: &Call<'_>,
    prepared: Option<&Result<Lowered, kura_engine::EngineError>>,
) -> Result<(), ApiError> {
    if !call.engine.capacity().enforced() {
        return Ok(());
    }
    let Some(Ok(lowered)) = prepared else {
        return Ok(());
    };
    let source = lowered.source();
    check(
        call,
        &source.table,
        source.index.as_deref(),
        statement_access(lowered),
        None,
    )
    .map_err(ApiError::from)
}

/// What a PartiQL statement takes capacity for.
fn statement_access(lowered: &Lowered) -> Access {
    match lowered {
        Lowered::Select(_) | Lowered::Exists(_) => Access::Read,
        _ => Access::Write,
    }
}

/// Admits an ExecuteTransaction as TransactWriteItems or TransactGetItems is admitted:
/// when a statement's table is out of capacity, the transaction is canceled with a
/// reason per statement. One that does not parse passes (the engine refuses it).
pub(crate) fn statement_transaction(
    call: &Call<'_>,
    prepared: &[Option<&Result<Lowered, kura_engine::EngineError>>],
) -> Result<(), ApiError> {
    if !call.engine.capacity().enforced() {
        return Ok(());
    }
    let Some(lowered) = prepared
        .iter()
        .map(|p| match p {
            Some(Ok(lowered)) => Some(lowered),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(());
    };
    let tables: Vec<String> = lowered.iter().map(|l| l.source().table.clone()).collect();
    let access = if lowered.iter().all(|l| statement_access(l) == Access::Read) {
        Access::Read
    } else {
        Access::Write
    };
    transaction(call, tables.iter().map(String::as_str), access)
}

/// Admits each statement of a BatchExecuteStatement: the refusal of each one out of
/// capacity, by position (all None when capacity is not emulated). The caller answers
/// those with an error in place, as DynamoDB's per-statement
/// `ProvisionedThroughputExceeded`, and runs the rest.
pub(crate) fn statement_batch(
    call: &Call<'_>,
    prepared: &[Option<&Result<Lowered, kura_engine::EngineError>>],
) -> Vec<Option<ApiError>> {
    prepared.iter().map(|p| statement(call, *p).err()).collect()
}

/// Admits a transaction, whose actions name `tables` in order: when any table is out of
/// capacity, the transaction is canceled with DynamoDB's reason on each of its actions
/// (`ProvisionedThroughputExceeded`, or `None`).
pub(crate) fn transaction<'a>(
    call: &Call<'_>,
    tables: impl Iterator<Item = &'a str>,
    access: Access,
) -> Result<(), ApiError> {
    if !call.engine.capacity().enforced() {
        return Ok(());
    }
    let tables: Vec<&str> = tables.collect();
    let mut refused: BTreeMap<&str, Option<String>> = BTreeMap::new();
    for table in &tables {
        refused
            .entry(table)
            .or_insert_with(|| match check(call, table, None, access, None) {
                Err(kura_engine::EngineError::Throttled(t)) => Some(t.message.to_owned()),
                _ => None,
            });
    }
    if refused.values().all(Option::is_none) {
        return Ok(());
    }
    let reasons = tables
        .iter()
        .map(|table| match refused.get(table).cloned().flatten() {
            Some(message) => CancellationReason {
                code: "ProvisionedThroughputExceeded".into(),
                message: Some(message),
                item: None,
            },
            None => CancellationReason::none(),
        })
        .collect();
    Err(ApiError::from(
        kura_engine::EngineError::TransactionCanceled { reasons },
    ))
}

/// The tables of a batch that are out of capacity (empty when capacity is not emulated),
/// with the first refusal. The caller leaves their requests unprocessed.
pub(crate) fn batch<'a>(
    call: &Call<'_>,
    tables: impl Iterator<Item = &'a String>,
    access: Access,
) -> (BTreeSet<String>, Option<ApiError>) {
    let mut throttled = BTreeSet::new();
    let mut first = None;
    if !call.engine.capacity().enforced() {
        return (throttled, first);
    }
    for table in tables {
        if let Err(e) = check(call, table, None, access, None) {
            throttled.insert(table.clone());
            first.get_or_insert(ApiError::from(e));
        }
    }
    (throttled, first)
}

/// The items or keys a batch's requests on one table name: BatchWriteItem's `PutRequest`
/// items and `DeleteRequest` keys, BatchGetItem's `Keys` (malformed ones are skipped: the
/// request was answered, not checked).
fn request_keys(requests: &serde_json::Value) -> Vec<kura_model::Item> {
    let as_item = |v: &serde_json::Value| {
        let item: kura_model::wire::ItemJson = serde_json::from_value(v.clone()).ok()?;
        kura_model::wire::item_from_json(item).ok()
    };
    match requests {
        serde_json::Value::Array(writes) => writes
            .iter()
            .filter_map(|w| {
                w.pointer("/PutRequest/Item")
                    .or_else(|| w.pointer("/DeleteRequest/Key"))
                    .and_then(as_item)
            })
            .collect(),
        serde_json::Value::Object(get) => get
            .get("Keys")
            .and_then(|k| k.as_array())
            .into_iter()
            .flatten()
            .filter_map(as_item)
            .collect(),
        _ => Vec::new(),
    }
}

/// Adds the throttled tables' requests, as the client sent them, to the batch answer's
/// `field` (`UnprocessedItems` or `UnprocessedKeys`).
pub(crate) fn leave_unprocessed(
    call: &Call<'_>,
    answer: Vec<u8>,
    field: &str,
    throttled: &BTreeSet<String>,
) -> Result<Vec<u8>, ApiError> {
    let internal = |e: serde_json::Error| ApiError::internal(e.to_string());
    let request: serde_json::Value = serde_json::from_slice(&call.body).map_err(internal)?;
    let mut answer: serde_json::Value = serde_json::from_slice(&answer).map_err(internal)?;
    let Some(requested) = request.get("RequestItems").and_then(|r| r.as_object()) else {
        return serde_json::to_vec(&answer).map_err(internal);
    };
    if let Some(unprocessed) = answer.get_mut(field).and_then(|u| u.as_object_mut()) {
        for (name, requests) in requested {
            // RequestItems may name a table by ARN; answers name tables by name.
            let table = name.rsplit('/').next().unwrap_or(name);
            if throttled.contains(table) {
                unprocessed.insert(table.to_owned(), requests.clone());
                let keys = request_keys(requests);
                call.engine.note_unprocessed(table, keys.iter());
            }
        }
    }
    serde_json::to_vec(&answer).map_err(internal)
}
