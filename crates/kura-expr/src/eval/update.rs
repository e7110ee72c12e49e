//! Applying an update expression to an item (empty when the item does not exist yet).
//!
//! Every SET value is computed from the item as it was before the update, then the
//! actions apply in clause order: SET, REMOVE, ADD, DELETE. REMOVE of several elements of
//! one list uses the original indexes: elements go from the highest index down.

use kura_model::{AttributeValue, Item, messages};

use super::path;
use crate::ast::{Path, SetOperand, SetValue, Update};
use crate::error::{ExprError, Result};

fn wrong_type() -> ExprError {
    ExprError::validation(messages::UPDATE_WRONG_OPERAND_TYPE)
}

/// The item after `update`.
pub fn apply(update: &Update, original: &Item) -> Result<Item> {
    apply_actions(update, original).map_err(|e| match e.message() {
        messages::UPDATE_WRONG_OPERAND_TYPE if update.legacy => {
            ExprError::validation(messages::LEGACY_UPDATE_TYPE_MISMATCH)
        }
        _ => e,
    })
}

fn apply_actions(update: &Update, original: &Item) -> Result<Item> {
    let values = update
        .set
        .iter()
        .map(|(_, value)| set_value(value, original))
        .collect::<Result<Vec<_>>>()?;
    let mut item = original.clone();
    // Paths never overlap, so order matters only for indexes past the end of a list:
    // DynamoDB appends those in ascending index order.
    let mut sets: Vec<(&Path, AttributeValue)> =
        update.set.iter().map(|(p, _)| p).zip(values).collect();
    sets.sort_by(|a, b| a.0.cmp(b.0));
    for (target, value) in sets {
        path::set(&mut item, target, value)?;
    }
    let mut removals: Vec<&Path> = update.remove.iter().collect();
    removals.sort_by(|a, b| b.cmp(a));
    for target in removals {
        path::remove(&mut item, target)?;
    }
    for (target, value) in &update.add {
        let new = match path::get(&item, target) {
            None => value.clone(),
            Some(existing) => add(existing, value)?,
        };
        path::set(&mut item, target, new)?;
    }
    for (target, value) in &update.delete {
        let Some(existing) = path::get(&item, target) else {
            path::check_parent(&mut item, target)?;
            continue;
        };
        match remove_members(existing, value)? {
            Some(remaining) => path::set(&mut item, target, remaining)?,
            None => {
                path::remove(&mut item, target)?;
            }
        }
    }
    Ok(item)
}

fn set_value(value: &SetValue, item: &Item) -> Result<AttributeValue> {
    match value {
        SetValue::Operand(op) => set_operand(op, item),
        SetValue::Plus(a, b) | SetValue::Minus(a, b) => {
            let (a, b) = (set_operand(a, item)?, set_operand(b, item)?);
            let (AttributeValue::N(x), AttributeValue::N(y)) = (&a, &b) else {
                return Err(wrong_type());
            };
            let result = if matches!(value, SetValue::Plus(..)) {
                x.checked_add(y)?
            } else {
                x.checked_sub(y)?
            };
            Ok(AttributeValue::N(result))
        }
    }
}

fn set_operand(op: &SetOperand, item: &Item) -> Result<AttributeValue> {
    match op {
        SetOperand::Path(p) => path::get(item, p)
            .cloned()
            .ok_or_else(|| ExprError::validation(messages::UPDATE_MISSING_ATTRIBUTE)),
        SetOperand::Value(v) => Ok(v.clone()),
        SetOperand::IfNotExists(p, fallback) => match path::get(item, p) {
            Some(v) => Ok(v.clone()),
            None => set_operand(fallback, item),
        },
        SetOperand::ListAppend(a, b) => {
            let (a, b) = (set_operand(a, item)?, set_operand(b, item)?);
            match (a, b) {
                (AttributeValue::L(mut x), AttributeValue::L(y)) => {
                    x.extend(y);
                    Ok(AttributeValue::L(x))
                }
                _ => Err(wrong_type()),
            }
        }
    }
}

/// ADD to an existing value: numbers sum, sets unite (same set type only), lists append
/// (reachable only from legacy `AttributeUpdates`; the expression form refuses lists).
fn add(existing: &AttributeValue, value: &AttributeValue) -> Result<AttributeValue> {
    fn union<T: Clone + PartialEq>(a: &[T], b: &[T]) -> Vec<T> {
        let mut out = a.to_vec();
        out.extend(b.iter().filter(|e| !a.contains(e)).cloned());
        out
    }
    Ok(match (existing, value) {
        (AttributeValue::N(a), AttributeValue::N(b)) => AttributeValue::N(a.checked_add(b)?),
        (AttributeValue::Ss(a), AttributeValue::Ss(b)) => AttributeValue::Ss(union(a, b)),
        (AttributeValue::Ns(a), AttributeValue::Ns(b)) => AttributeValue::Ns(union(a, b)),
        (AttributeValue::Bs(a), AttributeValue::Bs(b)) => AttributeValue::Bs(union(a, b)),
        (AttributeValue::L(a), AttributeValue::L(b)) => {
            AttributeValue::L(a.iter().chain(b).cloned().collect())
        }
        _ => return Err(wrong_type()),
    })
}

/// DELETE from a set; `None` when nothing is left (an empty set cannot exist).
fn remove_members(
    existing: &AttributeValue,
    value: &AttributeValue,
) -> Result<Option<AttributeValue>> {
    fn minus<T: Clone + PartialEq>(a: &[T], b: &[T]) -> Vec<T> {
        a.iter().filter(|e| !b.contains(e)).cloned().collect()
    }
    let remaining = match (existing, value) {
        (AttributeValue::Ss(a), AttributeValue::Ss(b)) => AttributeValue::Ss(minus(a, b)),
        (AttributeValue::Ns(a), AttributeValue::Ns(b)) => AttributeValue::Ns(minus(a, b)),
        (AttributeValue::Bs(a), AttributeValue::Bs(b)) => AttributeValue::Bs(minus(a, b)),
        _ => return Err(wrong_type()),
    };
    let empty = match &remaining {
        AttributeValue::Ss(x) => x.is_empty(),
        AttributeValue::Ns(x) => x.is_empty(),
        AttributeValue::Bs(x) => x.is_empty(),
        _ => false,
    };
    Ok((!empty).then_some(remaining))
}
