//! Key conditions: an equality on the partition key and at most one condition on the
//! sort key, turned into the key range a Query reads. Messages: dynalite
//! `validations/index.js` (`checkExpr`) and `validations/query.js`.

use kura_model::{AttributeValue, messages};

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
    if conditions.len() > 2 {
        return Err(ExprError::validation(
            "Conditions can be of length 1 or 2 only",
        ));
    }
    Ok(conditions)
}

/// Checks `condition` against the key schema (`hash`, `range`) and returns the range to
/// read. The caller checks the values' types against the schema.
pub fn key_condition(
    condition: &Condition,
    hash: &str,
    range: Option<&str>,
) -> Result<KeyCondition> {
    let conditions = key_parts(condition)?;
    let mut partition = None;
    let mut sort = None;
    for (name, c) in conditions {
        if name == hash {
            match c {
                SortCondition::Compare(Comparator::Eq, v) => partition = Some(v),
                _ => return Err(ExprError::validation("Query key condition not supported")),
            }
        } else if Some(name.as_str()) == range {
            sort = Some(c);
        } else {
            // DynamoDB names the key element it was looking for.
            let missing = range.unwrap_or(hash);
            return Err(ExprError::validation(format!(
                "Query condition missed key schema element: {missing}"
            )));
        }
    }
    let partition = partition.ok_or_else(|| {
        ExprError::validation(format!("Query condition missed key schema element: {hash}"))
    })?;
    Ok(KeyCondition { partition, sort })
}
