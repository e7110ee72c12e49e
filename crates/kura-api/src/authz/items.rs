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
use kura_engine::expr::request::{Operation, compile};
use kura_model::AttributeValue;
use kura_model::wire::ItemJson;

use super::{Check, Scope, split_top_level, top_name};

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

/// The top-level names a projection reads (ProjectionExpression or AttributesToGet).
fn projected(params: &ExpressionParams, out: &mut BTreeSet<String>) {
    let names = params.expression_attribute_names.as_ref();
    if let Some(projection) = &params.projection_expression {
        out.extend(
            split_top_level(projection)
                .into_iter()
                .filter_map(|p| top_name(p, names)),
        );
    }
    if let Some(list) = &params.attributes_to_get {
        out.extend(list.iter().cloned());
    }
}

/// The top-level names an UpdateExpression (or AttributeUpdates) writes.
fn updated(params: &ExpressionParams, out: &mut BTreeSet<String>) {
    let names = params.expression_attribute_names.as_ref();
    if let Some(updates) = &params.attribute_updates {
        out.extend(updates.keys().cloned());
    }
    let Some(expression) = &params.update_expression else {
        return;
    };
    // Clauses start with SET, REMOVE, ADD or DELETE; each action's target comes first.
    let mut clause = "";
    let mut text = String::new();
    let flush = |clause: &str, text: &str, out: &mut BTreeSet<String>| {
        for action in split_top_level(text) {
            let target = match clause {
                "SET" => action.split('=').next().unwrap_or(""),
                _ => action.split_whitespace().next().unwrap_or(""),
            };
            out.extend(top_name(target, names));
        }
    };
    for word in expression.split_inclusive(char::is_whitespace) {
        let upper = word.trim().to_ascii_uppercase();
        if matches!(upper.as_str(), "SET" | "REMOVE" | "ADD" | "DELETE") {
            if !clause.is_empty() {
                flush(clause, &text, out);
            }
            clause = match upper.as_str() {
                "SET" => "SET",
                "REMOVE" => "REMOVE",
                "ADD" => "ADD",
                _ => "DELETE",
            };
            text.clear();
        } else {
            text.push_str(word);
        }
    }
    if !clause.is_empty() {
        flush(clause, &text, out);
    }
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
    action: &'static str,
    table: &Option<String>,
    item: &Option<ItemJson>,
    mut attributes: BTreeSet<String>,
) -> Check {
    let table = table_of(table);
    names_of(item, &mut attributes);
    Check::new(action, scope.table(table))
        .key(LEADING_KEYS, leading_keys(scope, table, item))
        .key(ATTRIBUTES, attributes.into_iter().collect())
}

pub(crate) fn get_item(scope: &Scope<'_>, input: &GetItemInput) -> Vec<Check> {
    let mut read = BTreeSet::new();
    projected(&input.expressions, &mut read);
    let capacity = input.return_consumed_capacity.as_deref();
    vec![
        one_item(scope, "GetItem", &input.table_name, &input.key, read)
            .opt(RETURN_CONSUMED_CAPACITY, capacity),
    ]
}

pub(crate) fn put_item(scope: &Scope<'_>, input: &PutItemInput) -> Vec<Check> {
    let capacity = input.return_consumed_capacity.as_deref();
    vec![
        one_item(
            scope,
            "PutItem",
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
            "DeleteItem",
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
    updated(&input.expressions, &mut written);
    let capacity = input.return_consumed_capacity.as_deref();
    vec![
        one_item(scope, "UpdateItem", &input.table_name, &input.key, written)
            .opt(RETURN_VALUES, input.return_values.as_deref())
            .opt(RETURN_CONSUMED_CAPACITY, capacity),
    ]
}

/// The partition key values a Query's key condition names (equalities on the table's or
/// the index's partition key attributes).
fn query_leading_keys(scope: &Scope<'_>, input: &QueryInput) -> Vec<String> {
    let table = table_of(&input.table_name);
    let Some(names) = scope
        .schemas
        .partition_keys(table, input.index_name.as_deref())
    else {
        return Vec::new();
    };
    let Ok(compiled) = compile(Operation::Query, input.expressions.clone()) else {
        return Vec::new();
    };
    let Some(condition) = compiled.key_condition else {
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
    vec![Check::new(
        "SearchVectors",
        scope.target(table, input.index_name.as_deref()),
    )]
}

pub(crate) fn query(scope: &Scope<'_>, input: &QueryInput) -> Vec<Check> {
    let table = table_of(&input.table_name);
    let mut attributes = BTreeSet::new();
    projected(&input.expressions, &mut attributes);
    vec![
        Check::new("Query", scope.target(table, input.index_name.as_deref()))
            .key(LEADING_KEYS, query_leading_keys(scope, input))
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
    projected(&input.expressions, &mut attributes);
    vec![
        Check::new("Scan", scope.target(table, input.index_name.as_deref()))
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
            projected(&request.expressions, &mut attributes);
            Check::new("BatchGetItem", scope.table(table))
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
            Check::new("BatchWriteItem", scope.table(table))
                .key(LEADING_KEYS, leading_keys(scope, table, items))
                .key(ATTRIBUTES, attributes.into_iter().collect())
                .opt(
                    RETURN_CONSUMED_CAPACITY,
                    input.return_consumed_capacity.as_deref(),
                )
        })
        .collect()
}

fn transact_action(
    scope: &Scope<'_>,
    action: &'static str,
    a: &TransactAction,
    enclosing: &'static str,
) -> Check {
    let table = table_of(&a.table_name);
    let keys: Vec<&ItemJson> = a.key.iter().chain(&a.item).collect();
    let mut attributes = BTreeSet::new();
    names_of(keys.iter().copied(), &mut attributes);
    projected(&a.expressions, &mut attributes);
    updated(&a.expressions, &mut attributes);
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
            checks.push(transact_action(scope, "ConditionCheckItem", a, ENCLOSING));
        }
        if let Some(a) = &item.put {
            checks.push(transact_action(scope, "PutItem", a, ENCLOSING));
        }
        if let Some(a) = &item.delete {
            checks.push(transact_action(scope, "DeleteItem", a, ENCLOSING));
        }
        if let Some(a) = &item.update {
            checks.push(transact_action(scope, "UpdateItem", a, ENCLOSING));
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
            transact_action(scope, "GetItem", a, "TransactGetItems").opt(
                RETURN_CONSUMED_CAPACITY,
                input.return_consumed_capacity.as_deref(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_targets() {
        let params = ExpressionParams {
            update_expression: Some(
                "SET a = list_append(b, :v), #n.x = :w REMOVE c[0], d ADD e :one DELETE f :s"
                    .into(),
            ),
            expression_attribute_names: Some(
                [("#n".to_owned(), "name".to_owned())].into_iter().collect(),
            ),
            ..Default::default()
        };
        let mut out = BTreeSet::new();
        updated(&params, &mut out);
        let got: Vec<&str> = out.iter().map(String::as_str).collect();
        assert_eq!(got, ["a", "c", "d", "e", "f", "name"]);
    }
}
