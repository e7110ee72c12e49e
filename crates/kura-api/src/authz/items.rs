//! What the item operations ask of the policies: one check per table (and per action of a
//! transaction), with `dynamodb:LeadingKeys` (the partition key values the request
//! touches), `dynamodb:Attributes` (the top-level attribute names it reads or writes),
//! `dynamodb:Select`, `dynamodb:ReturnValues`, `dynamodb:ReturnConsumedCapacity` and, for
//! the actions of a transaction, `dynamodb:EnclosingOperation`.

use std::collections::{BTreeMap, BTreeSet};

use kura_engine::api::{
    BatchGetItemInput, BatchWriteItemInput, DeleteItemInput, ExpressionParams, GetItemInput,
    PutItemInput, QueryInput, ScanInput, SearchVectorsInput, TransactAction, TransactGetItemsInput,
    TransactWriteItemsInput, UpdateItemInput,
};
use kura_engine::expr::ast::Comparator;
use kura_engine::expr::key_condition::{SortCondition, key_parts};
use kura_engine::expr::request::{Compiled, Operation, compile};
use kura_model::AttributeValue;
use kura_model::wire::ItemJson;

use super::{Check, Scope};
use crate::operation::Op;

const LEADING_KEYS: &str = "dynamodb:LeadingKeys";
const ATTRIBUTES: &str = "dynamodb:Attributes";
const SELECT: &str = "dynamodb:Select";
const RETURN_VALUES: &str = "dynamodb:ReturnValues";
const RETURN_CONSUMED_CAPACITY: &str = "dynamodb:ReturnConsumedCapacity";
const ENCLOSING_OPERATION: &str = "dynamodb:EnclosingOperation";

/// The partition key values of `items` (keys or whole items) of `table`.
fn leading_keys<'a>(
    scope: &Scope<'_>,
    table: &str,
    items: impl IntoIterator<Item = &'a ItemJson>,
) -> Vec<String> {
    let Some(names) = scope.schemas.partition_keys(table, None) else {
        return Vec::new();
    };
    let mut out = BTreeSet::new();
    for item in items {
        for name in &names {
            if let Some(text) = item.get(name).and_then(|v| v.key_text()) {
                out.insert(text.to_owned());
            }
        }
    }
    out.into_iter().collect()
}

/// The text of a scalar value, as `dynamodb:LeadingKeys` compares it.
pub(crate) fn value_text(value: &AttributeValue) -> Option<String> {
    match value {
        AttributeValue::S(s) => Some(s.clone()),
        AttributeValue::N(n) => Some(n.to_string()),
        AttributeValue::B(_) => serde_json::to_value(value)
            .ok()?
            .get("B")?
            .as_str()
            .map(str::to_owned),
        _ => None,
    }
}

/// The top-level names `params` return and write (projection, AttributesToGet, update
/// targets, AttributeUpdates), as kura-expr compiles them for `operation`. Expressions that
/// do not compile name nothing here: the engine compiles the same members the same way
/// and refuses the request before it reads or writes anything.
fn expression_attributes(
    operation: Operation,
    params: &ExpressionParams,
    out: &mut BTreeSet<String>,
) -> Option<Compiled> {
    let compiled = compile(operation, params.clone()).ok()?;
    let returned = compiled.returned_attributes().into_iter();
    out.extend(
        returned
            .chain(compiled.written_attributes())
            .map(str::to_owned),
    );
    Some(compiled)
}

fn names_of<'a>(items: impl IntoIterator<Item = &'a ItemJson>, out: &mut BTreeSet<String>) {
    for item in items {
        out.extend(item.keys().cloned());
    }
}

fn table_of(name: &Option<String>) -> &str {
    name.as_deref().unwrap_or_default()
}

/// The check of an operation on one item: the partition key values and the top-level
/// names of `item` (a key or a whole item), with the `attributes` it reads or writes
/// besides.
fn one_item(
    scope: &Scope<'_>,
    op: Op,
    table: &Option<String>,
    item: &Option<ItemJson>,
    mut attributes: BTreeSet<String>,
) -> Check {
    let table = table_of(table);
    names_of(item, &mut attributes);
    Check::of(op, scope.table(table))
        .key(LEADING_KEYS, leading_keys(scope, table, item))
        .key(ATTRIBUTES, attributes.into_iter().collect())
}

pub(crate) fn get_item(scope: &Scope<'_>, input: &GetItemInput) -> Vec<Check> {
    let mut read = BTreeSet::new();
    expression_attributes(Operation::GetItem, &input.expressions, &mut read);
    let capacity = input.return_consumed_capacity.as_deref();
    vec![
        one_item(scope, Op::GetItem, &input.table_name, &input.key, read)
            .opt(RETURN_CONSUMED_CAPACITY, capacity),
    ]
}

pub(crate) fn put_item(scope: &Scope<'_>, input: &PutItemInput) -> Vec<Check> {
    let capacity = input.return_consumed_capacity.as_deref();
    vec![
        one_item(
            scope,
            Op::PutItem,
            &input.table_name,
            &input.item,
            BTreeSet::new(),
        )
        .opt(RETURN_VALUES, input.return_values.as_deref())
        .opt(RETURN_CONSUMED_CAPACITY, capacity),
    ]
}

pub(crate) fn delete_item(scope: &Scope<'_>, input: &DeleteItemInput) -> Vec<Check> {
    let capacity = input.return_consumed_capacity.as_deref();
    vec![
        one_item(
            scope,
            Op::DeleteItem,
            &input.table_name,
            &input.key,
            BTreeSet::new(),
        )
        .opt(RETURN_VALUES, input.return_values.as_deref())
        .opt(RETURN_CONSUMED_CAPACITY, capacity),
    ]
}

pub(crate) fn update_item(scope: &Scope<'_>, input: &UpdateItemInput) -> Vec<Check> {
    let mut written = BTreeSet::new();
    expression_attributes(Operation::UpdateItem, &input.expressions, &mut written);
    let capacity = input.return_consumed_capacity.as_deref();
    vec![
        one_item(
            scope,
            Op::UpdateItem,
            &input.table_name,
            &input.key,
            written,
        )
        .opt(RETURN_VALUES, input.return_values.as_deref())
        .opt(RETURN_CONSUMED_CAPACITY, capacity),
    ]
}

/// The partition key values a Query's key condition names (equalities on the table's or
/// the index's partition key attributes).
fn query_leading_keys(
    scope: &Scope<'_>,
    input: &QueryInput,
    compiled: Option<Compiled>,
) -> Vec<String> {
    let table = table_of(&input.table_name);
    let Some(names) = scope
        .schemas
        .partition_keys(table, input.index_name.as_deref())
    else {
        return Vec::new();
    };
    let Some(condition) = compiled.and_then(|c| c.key_condition) else {
        return Vec::new();
    };
    let Ok(parts) = key_parts(&condition) else {
        return Vec::new();
    };
    parts
        .iter()
        .filter(|(name, _)| names.contains(name))
        .filter_map(|(_, c)| match c {
            SortCondition::Compare(Comparator::Eq, v) => value_text(v),
            _ => None,
        })
        .collect()
}

/// `dynamodb:SearchVectors` on the index's ARN. DynamoDB's fine-grained access keys
/// (LeadingKeys, Attributes, Select) have no effect on it: none is set, so a statement
/// whose condition names one does not match, as AWS documents.
pub(crate) fn search_vectors(scope: &Scope<'_>, input: &SearchVectorsInput) -> Vec<Check> {
    let table = table_of(&input.table_name);
    vec![Check::of(
        Op::SearchVectors,
        scope.target(table, input.index_name.as_deref()),
    )]
}

pub(crate) fn query(scope: &Scope<'_>, input: &QueryInput) -> Vec<Check> {
    let table = table_of(&input.table_name);
    let mut attributes = BTreeSet::new();
    let compiled = expression_attributes(Operation::Query, &input.expressions, &mut attributes);
    vec![
        Check::of(Op::Query, scope.target(table, input.index_name.as_deref()))
            .key(LEADING_KEYS, query_leading_keys(scope, input, compiled))
            .key(ATTRIBUTES, attributes.into_iter().collect())
            .opt(SELECT, input.select.as_deref())
            .opt(
                RETURN_CONSUMED_CAPACITY,
                input.return_consumed_capacity.as_deref(),
            ),
    ]
}

/// A Scan touches no particular partition: it has no `dynamodb:LeadingKeys`.
pub(crate) fn scan(scope: &Scope<'_>, input: &ScanInput) -> Vec<Check> {
    let table = table_of(&input.table_name);
    let mut attributes = BTreeSet::new();
    expression_attributes(Operation::Scan, &input.expressions, &mut attributes);
    vec![
        Check::of(Op::Scan, scope.target(table, input.index_name.as_deref()))
            .key(ATTRIBUTES, attributes.into_iter().collect())
            .opt(SELECT, input.select.as_deref())
            .opt(
                RETURN_CONSUMED_CAPACITY,
                input.return_consumed_capacity.as_deref(),
            ),
    ]
}

/// One check per table, with the keys of every item asked of it.
pub(crate) fn batch_get_item(scope: &Scope<'_>, input: &BatchGetItemInput) -> Vec<Check> {
    let empty = BTreeMap::new();
    let tables = input.request_items.as_ref().unwrap_or(&empty);
    tables
        .iter()
        .map(|(table, request)| {
            let keys = request.keys.as_deref().unwrap_or_default();
            let mut attributes = BTreeSet::new();
            names_of(keys, &mut attributes);
            expression_attributes(Operation::GetItem, &request.expressions, &mut attributes);
            Check::of(Op::BatchGetItem, scope.table(table))
                .key(LEADING_KEYS, leading_keys(scope, table, keys))
                .key(ATTRIBUTES, attributes.into_iter().collect())
                .opt(
                    RETURN_CONSUMED_CAPACITY,
                    input.return_consumed_capacity.as_deref(),
                )
        })
        .collect()
}

/// One check per table, with the keys of every put and delete.
pub(crate) fn batch_write_item(scope: &Scope<'_>, input: &BatchWriteItemInput) -> Vec<Check> {
    let empty = BTreeMap::new();
    let tables = input.request_items.as_ref().unwrap_or(&empty);
    tables
        .iter()
        .map(|(table, writes)| {
            let items: Vec<&ItemJson> = writes
                .iter()
                .filter_map(|w| {
                    w.put_request
                        .as_ref()
                        .and_then(|p| p.item.as_ref())
                        .or(w.delete_request.as_ref().and_then(|d| d.key.as_ref()))
                })
                .collect();
            let mut attributes = BTreeSet::new();
            names_of(items.iter().copied(), &mut attributes);
            Check::of(Op::BatchWriteItem, scope.table(table))
                .key(LEADING_KEYS, leading_keys(scope, table, items))
                .key(ATTRIBUTES, attributes.into_iter().collect())
                .opt(
                    RETURN_CONSUMED_CAPACITY,
                    input.return_consumed_capacity.as_deref(),
                )
        })
        .collect()
}

/// One action of a transaction as `action`, its expressions compiled as the engine
/// compiles them (`operation`).
fn transact_action(
    scope: &Scope<'_>,
    (action, operation): (&'static str, Operation),
    a: &TransactAction,
    enclosing: &'static str,
) -> Check {
    let table = table_of(&a.table_name);
    let keys: Vec<&ItemJson> = a.key.iter().chain(&a.item).collect();
    let mut attributes = BTreeSet::new();
    names_of(keys.iter().copied(), &mut attributes);
    expression_attributes(operation, &a.expressions, &mut attributes);
    Check::new(action, scope.table(table))
        .key(LEADING_KEYS, leading_keys(scope, table, keys))
        .key(ATTRIBUTES, attributes.into_iter().collect())
        .key(ENCLOSING_OPERATION, vec![enclosing.to_owned()])
}

/// Each action as its underlying operation (ConditionCheck as ConditionCheckItem), with
/// `dynamodb:EnclosingOperation` = TransactWriteItems. AWS has no action of the
/// transaction's own ("Using IAM with DynamoDB transactions", DynamoDB Developer Guide).
pub(crate) fn transact_write_items(
    scope: &Scope<'_>,
    input: &TransactWriteItemsInput,
) -> Vec<Check> {
    const ENCLOSING: &str = "TransactWriteItems";
    let mut checks = Vec::new();
    for item in input.transact_items.iter().flatten() {
        if let Some(a) = &item.condition_check {
            checks.push(transact_action(
                scope,
                ("ConditionCheckItem", Operation::DeleteItem),
                a,
                ENCLOSING,
            ));
        }
        if let Some(a) = &item.put {
            checks.push(transact_action(
                scope,
                ("PutItem", Operation::PutItem),
                a,
                ENCLOSING,
            ));
        }
        if let Some(a) = &item.delete {
            checks.push(transact_action(
                scope,
                ("DeleteItem", Operation::DeleteItem),
                a,
                ENCLOSING,
            ));
        }
        if let Some(a) = &item.update {
            checks.push(transact_action(
                scope,
                ("UpdateItem", Operation::UpdateItem),
                a,
                ENCLOSING,
            ));
        }
    }
    checks
        .into_iter()
        .map(|c| {
            c.opt(
                RETURN_CONSUMED_CAPACITY,
                input.return_consumed_capacity.as_deref(),
            )
        })
        .collect()
}

/// Each Get as GetItem with `dynamodb:EnclosingOperation` = TransactGetItems.
pub(crate) fn transact_get_items(scope: &Scope<'_>, input: &TransactGetItemsInput) -> Vec<Check> {
    input
        .transact_items
        .iter()
        .flatten()
        .filter_map(|item| item.get.as_ref())
        .map(|a| {
            transact_action(
                scope,
                ("GetItem", Operation::GetItem),
                a,
                "TransactGetItems",
            )
            .opt(
                RETURN_CONSUMED_CAPACITY,
                input.return_consumed_capacity.as_deref(),
            )
        })
        .collect()
}
