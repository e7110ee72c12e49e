//! Key conditions: an equality on the partition key and at most one condition on the
//! sort key, turned into the key range a Query reads. Messages: dynalite
//! `validations/index.js` (`checkExpr`) and `validations/query.js`.
//!
//! A GSI's multi-attribute key (up to four partition and four sort key attributes) takes
//! an equality on every partition key attribute and conditions on a leading run of its
//! sort key attributes, left to right: equalities, the last of which may instead be any
//! sort key condition (Developer Guide, "Multi-attribute keys pattern").

use kura_model::{AttributeValue, limits, messages};

use crate::ast::{Comparator, Condition, Operand, Path, PathElement};
use crate::error::{ExprError, Result};

/// A condition on the sort key.
#[derive(Debug, Clone, PartialEq)]
pub enum SortCondition {
    Compare(Comparator, AttributeValue),
    Between(AttributeValue, AttributeValue),
    BeginsWith(AttributeValue),
}

/// What a Query reads: one partition, optionally narrowed by the sort key.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyCondition {
    pub partition: AttributeValue,
    pub sort: Option<SortCondition>,
}

/// What a Query reads on a key of one or more attributes: one partition (a value per
/// partition key attribute, in key order), narrowed by `sort`, the conditions on the
/// first `sort.len()` sort key attributes. All but the last are equalities.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiKeyCondition {
    pub partition: Vec<AttributeValue>,
    pub sort: Vec<SortCondition>,
}

fn invalid(detail: &str) -> ExprError {
    ExprError::validation(messages::invalid_expression(
        "KeyConditionExpression",
        detail,
    ))
}

fn key_name(path: &Path) -> Result<String> {
    match path.0.as_slice() {
        [PathElement::Attribute(name)] => Ok(name.clone()),
        _ => Err(invalid(
            "KeyConditionExpressions cannot have conditions on nested attributes",
        )),
    }
}

/// One simple condition: (key attribute, its condition).
fn part(condition: &Condition) -> Result<(String, SortCondition)> {
    let flip = |c: Comparator| match c {
        Comparator::Lt => Comparator::Gt,
        Comparator::Le => Comparator::Ge,
        Comparator::Gt => Comparator::Lt,
        Comparator::Ge => Comparator::Le,
        other => other,
    };
    match condition {
        Condition::Compare(Comparator::Ne, ..) => Err(invalid(
            "Invalid operator used in KeyConditionExpression: <>",
        )),
        Condition::Compare(c, Operand::Path(p), Operand::Value(v)) => {
            Ok((key_name(p)?, SortCondition::Compare(*c, v.clone())))
        }
        Condition::Compare(c, Operand::Value(v), Operand::Path(p)) => {
            Ok((key_name(p)?, SortCondition::Compare(flip(*c), v.clone())))
        }
        Condition::Compare(_, Operand::Path(_), Operand::Path(_)) => Err(invalid(
            "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition",
        )),
        Condition::Compare(_, Operand::Size(_), _) | Condition::Compare(_, _, Operand::Size(_)) => {
            Err(invalid(
                "KeyConditionExpressions cannot contain nested operations",
            ))
        }
        Condition::Compare(..) => Err(invalid(
            "Invalid condition in KeyConditionExpression: No key attribute specified",
        )),
        Condition::Between(Operand::Path(p), Operand::Value(lo), Operand::Value(hi)) => {
            Ok((key_name(p)?, SortCondition::Between(lo.clone(), hi.clone())))
        }
        Condition::Between(..) => Err(invalid(
            "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand",
        )),
        Condition::BeginsWith(Operand::Path(p), Operand::Value(v)) => {
            Ok((key_name(p)?, SortCondition::BeginsWith(v.clone())))
        }
        Condition::BeginsWith(..) => Err(invalid(
            "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand",
        )),
        Condition::In(..) => Err(invalid(
            "Invalid operator used in KeyConditionExpression: IN",
        )),
        Condition::Or(..) => Err(invalid(
            "Invalid operator used in KeyConditionExpression: OR",
        )),
        Condition::Not(..) => Err(invalid(
            "Invalid operator used in KeyConditionExpression: NOT",
        )),
        Condition::AttributeExists(_) => Err(invalid(
            "Invalid operator used in KeyConditionExpression: attribute_exists",
        )),
        Condition::AttributeNotExists(_) => Err(invalid(
            "Invalid operator used in KeyConditionExpression: attribute_not_exists",
        )),
        Condition::AttributeType(..) => Err(invalid(
            "Invalid operator used in KeyConditionExpression: attribute_type",
        )),
        Condition::Contains(..) => Err(invalid(
            "Invalid operator used in KeyConditionExpression: contains",
        )),
        Condition::And(..) => Err(invalid(
            "KeyConditionExpressions must only contain one condition per key",
        )),
    }
}

fn flatten<'a>(condition: &'a Condition, out: &mut Vec<&'a Condition>) {
    match condition {
        Condition::And(a, b) => {
            flatten(a, out);
            flatten(b, out);
        }
        other => out.push(other),
    }
}

/// The simple conditions of a key condition, each on one attribute, checked for shape
/// only: DynamoDB refuses a malformed key condition before it looks the table up.
pub fn key_parts(condition: &Condition) -> Result<Vec<(String, SortCondition)>> {
    let mut parts = Vec::new();
    flatten(condition, &mut parts);
    let mut conditions: Vec<(String, SortCondition)> = Vec::new();
    for p in parts {
        let (name, c) = part(p)?;
        if conditions.iter().any(|(n, _)| *n == name) {
            return Err(invalid(
                "KeyConditionExpressions must only contain one condition per key",
            ));
        }
        conditions.push((name, c));
    }
    // A key has at most eight attributes (a multi-attribute GSI key); the schema, known
    // later, may allow fewer.
    if conditions.len() > limits::MAX_INDEX_HASH_ATTRIBUTES + limits::MAX_INDEX_RANGE_ATTRIBUTES {
        return Err(too_many_conditions());
    }
    Ok(conditions)
}

fn too_many_conditions() -> ExprError {
    ExprError::validation("Conditions can be of length 1 or 2 only")
}

fn missed(name: &str) -> ExprError {
    ExprError::validation(format!("Query condition missed key schema element: {name}"))
}

fn not_supported() -> ExprError {
    ExprError::validation(messages::KEY_CONDITION_NOT_SUPPORTED)
}

/// Checks `condition` against the key schema (`hash`, `range`) and returns the range to
/// read. The caller checks the values' types against the schema.
pub fn key_condition(
    condition: &Condition,
    hash: &str,
    range: Option<&str>,
) -> Result<KeyCondition> {
    let range: Vec<&str> = range.into_iter().collect();
    let MultiKeyCondition { partition, sort } = multi_key_condition(condition, &[hash], &range)?;
    let partition = partition.into_iter().next().ok_or_else(|| missed(hash))?;
    Ok(KeyCondition {
        partition,
        sort: sort.into_iter().next(),
    })
}

/// [`multi_key_condition`] on a global secondary index, where a condition on an attribute
/// outside the index's key is "Query key condition not supported" rather than a missed
/// key element (issue 58; docs/compat.md, "Secondary indexes").
pub fn index_key_condition(
    condition: &Condition,
    hash: &[&str],
    range: &[&str],
) -> Result<MultiKeyCondition> {
    let conditions = key_parts(condition)?;
    let too_many = hash.len() == 1 && range.len() <= 1 && conditions.len() > 2;
    let outside = conditions
        .iter()
        .any(|(name, _)| !hash.contains(&name.as_str()) && !range.contains(&name.as_str()));
    if outside && !too_many {
        return Err(not_supported());
    }
    multi_key_condition(condition, hash, range)
}

/// Checks `condition` against a key of the partition key attributes `hash` and the sort
/// key attributes `range` (one and at most one, except for a multi-attribute GSI key) and
/// returns what to read. The caller checks the values' types against the schema.
///
/// Refused, with DynamoDB's messages where known (`docs/compat.md`): a condition on an
/// attribute outside the key ("missed key schema element", naming the first sort key
/// attribute without a condition, else the last one, else the partition key); anything
/// but an equality on a partition key attribute ("not supported"); a partition key
/// attribute without a condition ("missed key schema element" naming it); a sort key
/// attribute skipped, or given a condition other than an equality, before the last one
/// given ("RANGE key attributes <skipped> must have equality conditions specified in the
/// query because a condition is present on key attribute <last>", AWS's 2026 wording).
pub fn multi_key_condition(
    condition: &Condition,
    hash: &[&str],
    range: &[&str],
) -> Result<MultiKeyCondition> {
    let conditions = key_parts(condition)?;
    if hash.len() == 1 && range.len() <= 1 && conditions.len() > 2 {
        return Err(too_many_conditions());
    }
    let mut partition: Vec<Option<AttributeValue>> = vec![None; hash.len()];
    let mut sort: Vec<Option<SortCondition>> = vec![None; range.len()];
    let given = |name: &&str| conditions.iter().any(|(n, _)| n == name);
    for (name, c) in &conditions {
        if let Some(i) = hash.iter().position(|h| h == name) {
            match c {
                SortCondition::Compare(Comparator::Eq, v) => {
                    if let Some(slot) = partition.get_mut(i) {
                        *slot = Some(v.clone());
                    }
                }
                _ => return Err(not_supported()),
            }
        } else if let Some(i) = range.iter().position(|r| r == name) {
            if let Some(slot) = sort.get_mut(i) {
                *slot = Some(c.clone());
            }
        } else {
            // DynamoDB names the key element it was looking for.
            let wanted = range
                .iter()
                .find(|r| !given(r))
                .or(range.last())
                .or(hash.first());
            return Err(missed(wanted.copied().unwrap_or_default()));
        }
    }
    let mut values = Vec::with_capacity(hash.len());
    for (name, value) in hash.iter().zip(partition) {
        values.push(value.ok_or_else(|| missed(name))?);
    }
    // Every sort key attribute before the last one with a condition needs an equality.
    if let Some(last) = sort.iter().rposition(Option::is_some) {
        let needing: Vec<&str> = range
            .iter()
            .zip(&sort)
            .take(last)
            .filter(|(_, c)| !matches!(c, Some(SortCondition::Compare(Comparator::Eq, _))))
            .map(|(name, _)| *name)
            .collect();
        if !needing.is_empty() {
            return Err(ExprError::validation(messages::sort_key_needs_equality(
                &needing,
                range.get(last).copied().unwrap_or_default(),
            )));
        }
    }
    let sort: Vec<SortCondition> = sort.into_iter().flatten().collect();
    Ok(MultiKeyCondition {
        partition: values,
        sort,
    })
}
