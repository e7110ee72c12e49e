//! The legacy (pre-expression) parameters, translated into expression trees:
//! `Expected` + `ConditionalOperator`, `KeyConditions`, `QueryFilter`, `ScanFilter`,
//! `AttributeUpdates` and `AttributesToGet` (Developer Guide, "Legacy conditional
//! parameters"). Messages: dynalite `validations/index.js` (`validateAttributeConditions`,
//! `validateConditions`) and the API Reference.

use std::collections::BTreeMap;

use kura_model::wire::AttributeValueJson;
use kura_model::{AttributeValue, ValueType, messages};
use serde::Deserialize;

use crate::ast::{Comparator, Condition, Operand, Path, Projection, Update};
use crate::error::{ExprError, Result};
use crate::eval::compare::order;

/// One entry of `Expected`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ExpectedJson {
    pub value: Option<AttributeValueJson>,
    pub exists: Option<bool>,
    pub comparison_operator: Option<String>,
    pub attribute_value_list: Option<Vec<AttributeValueJson>>,
}

/// One entry of `KeyConditions`, `QueryFilter` or `ScanFilter`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ConditionJson {
    pub comparison_operator: Option<String>,
    pub attribute_value_list: Option<Vec<AttributeValueJson>>,
}

/// One entry of `AttributeUpdates`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct AttributeValueUpdateJson {
    pub value: Option<AttributeValueJson>,
    pub action: Option<String>,
}

/// What a list of legacy conditions is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    Filter,
    KeyCondition,
}

const OPERATORS: [&str; 13] = [
    "IN",
    "NULL",
    "BETWEEN",
    "LT",
    "NOT_CONTAINS",
    "EQ",
    "GT",
    "NOT_NULL",
    "NE",
    "LE",
    "BEGINS_WITH",
    "GE",
    "CONTAINS",
];

fn invalid(detail: impl AsRef<str>) -> ExprError {
    ExprError::validation(format!(
        "One or more parameter values were invalid: {}",
        detail.as_ref()
    ))
}

fn values(list: Option<Vec<AttributeValueJson>>) -> Result<Vec<AttributeValue>> {
    list.unwrap_or_default()
        .into_iter()
        .map(|v| v.into_value().map_err(ExprError::from))
        .collect()
}

/// `ComparisonOperator` + `AttributeValueList` on attribute `name`, as a condition.
fn comparison(name: &str, operator: &str, list: Vec<AttributeValue>) -> Result<Condition> {
    let count_ok = match operator {
        "NULL" | "NOT_NULL" => list.is_empty(),
        "IN" => !list.is_empty(),
        "BETWEEN" => list.len() == 2,
        _ => list.len() == 1,
    };
    if !count_ok {
        return Err(invalid(format!(
            "Invalid number of argument(s) for the {operator} ComparisonOperator"
        )));
    }
    if let Some(first) = list.first()
        && list.iter().any(|v| v.value_type() != first.value_type())
    {
        return Err(invalid(
            "AttributeValues inside AttributeValueList must be of same type",
        ));
    }
    let allowed: &[ValueType] = match operator {
        "EQ" | "NE" | "NULL" | "NOT_NULL" => &[],
        "BEGINS_WITH" => &[ValueType::S, ValueType::B],
        "CONTAINS" | "NOT_CONTAINS" => &[
            ValueType::S,
            ValueType::N,
            ValueType::B,
            ValueType::Bool,
            ValueType::Null,
        ],
        _ => &[ValueType::S, ValueType::N, ValueType::B],
    };
    if !allowed.is_empty()
        && let Some(bad) = list.iter().find(|v| !allowed.contains(&v.value_type()))
    {
        return Err(invalid(format!(
            "ComparisonOperator {operator} is not valid for {} AttributeValue type",
            bad.value_type().descriptor()
        )));
    }
    if operator == "BETWEEN" && order(&list[0], &list[1]) == Some(std::cmp::Ordering::Greater) {
        return Err(ExprError::validation(
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
        ));
    }
    let path = || Operand::Path(Path::attribute(name));
    let mut list = list.into_iter().map(Operand::Value);
    let mut next = || list.next().unwrap_or(Operand::Value(AttributeValue::Null));
    let compare = |c: Comparator, v: Operand| Condition::Compare(c, path(), v);
    Ok(match operator {
        "EQ" => compare(Comparator::Eq, next()),
        "NE" => compare(Comparator::Ne, next()),
        "LT" => compare(Comparator::Lt, next()),
        "LE" => compare(Comparator::Le, next()),
        "GT" => compare(Comparator::Gt, next()),
        "GE" => compare(Comparator::Ge, next()),
        "NULL" => Condition::AttributeNotExists(Path::attribute(name)),
        "NOT_NULL" => Condition::AttributeExists(Path::attribute(name)),
        "CONTAINS" => Condition::Contains(path(), next()),
        // A missing attribute fails NOT_CONTAINS as it fails CONTAINS (scylladb
        // `test_update_expected_1_not_contains`, run against AWS).
        "NOT_CONTAINS" => Condition::And(
            Box::new(Condition::AttributeExists(Path::attribute(name))),
            Box::new(Condition::Not(Box::new(Condition::Contains(
                path(),
                next(),
            )))),
        ),
        "BEGINS_WITH" => Condition::BeginsWith(path(), next()),
        "BETWEEN" => {
            let low = next();
            Condition::Between(path(), low, next())
        }
        _ => Condition::In(path(), list.collect()),
    })
}

fn check_operator_name(path: &str, operator: Option<&str>) -> Result<String> {
    match operator {
        Some(op) if OPERATORS.contains(&op) => Ok(op.to_owned()),
        other => {
            let message = match other {
                None => messages::constraint(None, path, messages::MUST_NOT_BE_NULL),
                Some(op) => {
                    messages::constraint(Some(op), path, &messages::enum_values(&OPERATORS))
                }
            };
            Err(ExprError::validation(messages::constraint_summary(&[
                message,
            ])))
        }
    }
}

/// ConditionalOperator's values in the order DynamoDB lists them. Source: AWS us-east-1 and
/// eu-west-2 2026-10-09 (UpdateItem), paritysuite/dynamodb-conformance
/// `tests/tier3/validation-ordering/updateItem.test.ts`; one enum shape serves every
/// operation. Kura used to list `[AND, OR]` (dynalite's order).
pub const CONDITIONAL_OPERATORS: [&str; 2] = ["OR", "AND"];

fn combine(parts: Vec<Condition>, operator: Option<&str>) -> Result<Option<Condition>> {
    let count = parts.len();
    let or = match operator {
        None | Some("AND") => false,
        Some("OR") => true,
        Some(other) => {
            return Err(ExprError::validation(messages::constraint_summary(&[
                messages::constraint(
                    Some(other),
                    "conditionalOperator",
                    &messages::enum_values(&CONDITIONAL_OPERATORS),
                ),
            ])));
        }
    };
    check_operator_use(count, operator)?;
    Ok(parts.into_iter().reduce(|a, b| {
        if or {
            Condition::Or(Box::new(a), Box::new(b))
        } else {
            Condition::And(Box::new(a), Box::new(b))
        }
    }))
}

/// `ConditionalOperator` needs at least two conditions to combine.
fn check_operator_use(count: usize, operator: Option<&str>) -> Result<()> {
    match (operator, count) {
        (None, _) => Ok(()),
        (Some(_), 0) => Err(ExprError::validation(messages::CONDITIONAL_OPERATOR_ALONE)),
        (Some(_), 1) => Err(ExprError::validation(
            messages::CONDITIONAL_OPERATOR_ONE_ELEMENT,
        )),
        _ => Ok(()),
    }
}

/// `ConditionalOperator` with nothing to combine.
pub fn check_lone_operator(operator: Option<&str>) -> Result<()> {
    combine(Vec::new(), operator)?;
    Ok(())
}

/// `Expected` (+ `ConditionalOperator`) as a condition.
pub fn expected(
    expected: BTreeMap<String, ExpectedJson>,
    operator: Option<&str>,
) -> Result<Option<Condition>> {
    let mut parts = Vec::new();
    for (name, entry) in expected {
        kura_model::wire::check_name_size(&name)?;
        if entry.attribute_value_list.is_some() && entry.value.is_some() {
            return Err(invalid(format!(
                "Value and AttributeValueList cannot be used together for Attribute: {name}"
            )));
        }
        if let Some(op) = entry.comparison_operator.as_deref() {
            if entry.exists.is_some() {
                return Err(invalid(format!(
                    "Exists and ComparisonOperator cannot be used together for Attribute: {name}"
                )));
            }
            let op = check_operator_name(
                &format!("expected.{name}.member.comparisonOperator"),
                Some(op),
            )?;
            if op != "NULL"
                && op != "NOT_NULL"
                && entry.attribute_value_list.is_none()
                && entry.value.is_none()
            {
                return Err(invalid(format!(
                    "Value or AttributeValueList must be used with ComparisonOperator: {op} for Attribute: {name}"
                )));
            }
            let list = match entry.value {
                Some(v) => vec![v.into_value()?],
                None => values(entry.attribute_value_list)?,
            };
            parts.push(comparison(&name, &op, list)?);
            continue;
        }
        if entry.attribute_value_list.is_some() {
            return Err(invalid(format!(
                "AttributeValueList can only be used with a ComparisonOperator for Attribute: {name}"
            )));
        }
        let exists = entry.exists.unwrap_or(true);
        match (exists, entry.value) {
            (true, None) => {
                let shown = entry.exists.map_or("null".to_owned(), |e| e.to_string());
                return Err(invalid(format!(
                    "Value must be provided when Exists is {shown} for Attribute: {name}"
                )));
            }
            (false, Some(_)) => {
                return Err(invalid(format!(
                    "Value cannot be used when Exists is false for Attribute: {name}"
                )));
            }
            (true, Some(value)) => parts.push(Condition::Compare(
                Comparator::Eq,
                Operand::Path(Path::attribute(&name)),
                Operand::Value(value.into_value()?),
            )),
            (false, None) => parts.push(Condition::AttributeNotExists(Path::attribute(&name))),
        }
    }
    combine(parts, operator)
}

/// `KeyConditions`, `QueryFilter` or `ScanFilter` as one condition.
pub fn conditions(
    conditions: BTreeMap<String, ConditionJson>,
    operator: Option<&str>,
    usage: Use,
) -> Result<Option<Condition>> {
    let member = match usage {
        Use::Filter => "filter",
        Use::KeyCondition => "keyConditions",
    };
    let mut parts = Vec::new();
    for (name, entry) in conditions {
        kura_model::wire::check_name_size(&name)?;
        let op = check_operator_name(
            &format!("{member}.{name}.member.comparisonOperator"),
            entry.comparison_operator.as_deref(),
        )?;
        parts.push(comparison(&name, &op, values(entry.attribute_value_list)?)?);
    }
    combine(parts, operator)
}

/// `AttributeUpdates` as an update.
pub fn attribute_updates(updates: BTreeMap<String, AttributeValueUpdateJson>) -> Result<Update> {
    let mut update = Update {
        legacy: true,
        ..Update::default()
    };
    for (name, entry) in updates {
        kura_model::wire::check_attribute_name(&name)?;
        let path = Path::attribute(&name);
        let value = entry.value.map(|v| v.into_value()).transpose()?;
        match (entry.action.as_deref().unwrap_or("PUT"), value) {
            ("PUT", Some(v)) => update.set.push((
                path,
                crate::ast::SetValue::Operand(crate::ast::SetOperand::Value(v)),
            )),
            ("DELETE", None) => update.remove.push(path),
            ("DELETE", Some(v)) => {
                if !matches!(
                    v.value_type(),
                    ValueType::Ss | ValueType::Ns | ValueType::Bs
                ) {
                    return Err(invalid(format!(
                        "DELETE action with value is not supported for the type {}",
                        v.value_type().descriptor()
                    )));
                }
                update.delete.push((path, v));
            }
            ("ADD", Some(v)) => {
                if !matches!(
                    v.value_type(),
                    ValueType::N | ValueType::Ss | ValueType::Ns | ValueType::Bs | ValueType::L
                ) {
                    return Err(invalid(format!(
                        "ADD action is not supported for the type {}",
                        v.value_type().descriptor()
                    )));
                }
                update.add.push((path, v));
            }
            ("PUT" | "ADD", None) => {
                return Err(invalid(
                    "Only DELETE action is allowed when no attribute value is specified",
                ));
            }
            (other, _) => {
                return Err(ExprError::validation(messages::constraint_summary(&[
                    messages::constraint(
                        Some(other),
                        &format!("attributeUpdates.{name}.member.action"),
                        &messages::enum_values(&["ADD", "PUT", "DELETE"]),
                    ),
                ])));
            }
        }
    }
    Ok(update)
}

/// `AttributesToGet` as a projection of top-level attributes.
pub fn attributes_to_get(names: Vec<String>) -> Result<Projection> {
    let mut seen = std::collections::BTreeSet::new();
    for name in &names {
        kura_model::wire::check_attribute_name(name)?;
        if !seen.insert(name) {
            return Err(invalid(format!(
                "Duplicate value in attribute name: {name}"
            )));
        }
    }
    Ok(names.into_iter().map(Path::attribute).collect())
}
