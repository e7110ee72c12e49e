//! Evaluating conditions and filters. A condition never fails at run time: a missing
//! attribute or a type mismatch simply makes the comparison false (Developer Guide,
//! "Comparison operator and function reference").

use std::borrow::Cow;
use std::cmp::Ordering;

use kura_model::{AttributeValue, Item, Number};

use super::compare::{equal, order};
use super::path;
use crate::ast::{Comparator, Condition, Operand};

/// Whether `item` (empty when the item does not exist) satisfies `condition`.
pub fn evaluate(condition: &Condition, item: &Item) -> bool {
    match condition {
        Condition::Compare(op, left, right) => {
            let (l, r) = (operand(left, item), operand(right, item));
            match op {
                Comparator::Eq => matches!((&l, &r), (Some(a), Some(b)) if equal(a, b)),
                Comparator::Ne => !matches!((&l, &r), (Some(a), Some(b)) if equal(a, b)),
                _ => {
                    let ordering = match (&l, &r) {
                        (Some(a), Some(b)) => order(a, b),
                        _ => None,
                    };
                    ordering.is_some_and(|o| match op {
                        Comparator::Lt => o == Ordering::Less,
                        Comparator::Le => o != Ordering::Greater,
                        Comparator::Gt => o == Ordering::Greater,
                        _ => o != Ordering::Less,
                    })
                }
            }
        }
        Condition::Between(value, low, high) => {
            let (Some(v), Some(lo), Some(hi)) = (
                operand(value, item),
                operand(low, item),
                operand(high, item),
            ) else {
                return false;
            };
            order(&v, &lo).is_some_and(|o| o != Ordering::Less)
                && order(&v, &hi).is_some_and(|o| o != Ordering::Greater)
        }
        Condition::In(value, list) => operand(value, item).is_some_and(|v| {
            list.iter()
                .any(|candidate| operand(candidate, item).is_some_and(|c| equal(&v, &c)))
        }),
        Condition::AttributeExists(p) => path::get(item, p).is_some(),
        Condition::AttributeNotExists(p) => path::get(item, p).is_none(),
        Condition::AttributeType(a, wanted) => {
            operand(a, item).is_some_and(|v| v.value_type() == *wanted)
        }
        Condition::BeginsWith(target, prefix) => {
            match (operand(target, item), operand(prefix, item)) {
                (Some(t), Some(p)) => match (t.as_ref(), p.as_ref()) {
                    (AttributeValue::S(t), AttributeValue::S(p)) => t.starts_with(p.as_str()),
                    (AttributeValue::B(t), AttributeValue::B(p)) => t.starts_with(p),
                    _ => false,
                },
                _ => false,
            }
        }
        Condition::Contains(target, element) => {
            match (operand(target, item), operand(element, item)) {
                (Some(t), Some(e)) => contains(&t, &e),
                _ => false,
            }
        }
        Condition::Not(inner) => !evaluate(inner, item),
        Condition::And(a, b) => evaluate(a, item) && evaluate(b, item),
        Condition::Or(a, b) => evaluate(a, item) || evaluate(b, item),
    }
}

fn contains(target: &AttributeValue, element: &AttributeValue) -> bool {
    match (target, element) {
        (AttributeValue::S(s), AttributeValue::S(sub)) => s.contains(sub.as_str()),
        (AttributeValue::B(b), AttributeValue::B(sub)) => {
            sub.is_empty() || b.windows(sub.len()).any(|w| w == sub.as_slice())
        }
        (AttributeValue::Ss(set), AttributeValue::S(s)) => set.contains(s),
        (AttributeValue::Ns(set), AttributeValue::N(n)) => set.contains(n),
        (AttributeValue::Bs(set), AttributeValue::B(b)) => set.contains(b),
        (AttributeValue::L(list), e) => list.iter().any(|x| equal(x, e)),
        _ => false,
    }
}

/// The value of an operand; `None` when it names a missing attribute or is the size of
/// something that has no size.
pub fn operand<'a>(op: &'a Operand, item: &'a Item) -> Option<Cow<'a, AttributeValue>> {
    match op {
        Operand::Path(p) => path::get(item, p).map(Cow::Borrowed),
        Operand::Value(v) => Some(Cow::Borrowed(v)),
        Operand::Size(inner) => {
            let value = operand(inner, item)?;
            size(&value).map(|n| Cow::Owned(AttributeValue::N(Number::from_i64(n as i64))))
        }
    }
}

/// `size()`: string length in UTF-16 code units (DynamoDB counts as Java does:
/// `size("é𝄞")` is 3), binary length, element counts of sets, lists and maps; other types
/// have no size.
pub fn size(value: &AttributeValue) -> Option<usize> {
    match value {
        AttributeValue::S(s) => Some(s.encode_utf16().count()),
        AttributeValue::B(b) => Some(b.len()),
        AttributeValue::Ss(x) => Some(x.len()),
        AttributeValue::Ns(x) => Some(x.len()),
        AttributeValue::Bs(x) => Some(x.len()),
        AttributeValue::L(x) => Some(x.len()),
        AttributeValue::M(x) => Some(x.len()),
        AttributeValue::N(_) | AttributeValue::Bool(_) | AttributeValue::Null => None,
    }
}
