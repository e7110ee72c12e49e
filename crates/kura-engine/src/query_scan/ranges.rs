//! The key ranges a Query or Scan reads: a parallel-scan segment's share of the hash
//! space, a sort-key condition's bounds, and the type checks of the values they compare.

use std::ops::Bound;

use kura_expr::Comparator;
use kura_expr::key_condition::SortCondition;
use kura_model::keycode::ScalarType;
use kura_model::{AttributeValue, messages};

use crate::error::{EngineError, Result};
use kura_store::KeyRange;

/// The key range of one parallel-scan segment: an equal share of the partition-hash space
/// under `prefix` (a table's or an index's).
pub(super) fn segment_range(prefix: &[u8], segment: u64, total: u64) -> KeyRange {
    let space = 1u64 << 32;
    let bound = |s: u64| -> Vec<u8> {
        let mut key = prefix.to_vec();
        key.extend_from_slice(&((s * space / total) as u32).to_be_bytes());
        key
    };
    let start = Bound::Included(bound(segment));
    let end = if segment + 1 == total {
        KeyRange::prefix(prefix).end
    } else {
        Bound::Excluded(bound(segment + 1))
    };
    KeyRange { start, end }
}

/// The keys of one partition that a sort-key condition can match: the encoding preserves
/// order and is prefix-free, and a string or binary prefix is a prefix of the escaped
/// bytes, terminator aside. A key may go on after the sort key (index entries end with the
/// table key), so a bound on a value covers every key that starts with its encoding.
/// Items are still checked one by one with [`sort_matches`].
pub(super) fn sort_range(partition: &[u8], condition: &SortCondition) -> Result<KeyRange> {
    let key = |value: &AttributeValue| -> Result<Vec<u8>> {
        let mut out = partition.to_vec();
        kura_model::keycode::encode_key_value(value, &mut out)
            .map_err(|e| EngineError::validation(e.to_string()))?;
        Ok(out)
    };
    let whole = KeyRange::prefix(partition);
    Ok(match condition {
        SortCondition::Compare(op, v) => {
            let k = key(v)?;
            // Just past every key that starts with `k`.
            let after = |k: &[u8]| KeyRange::prefix(k).end;
            match op {
                Comparator::Eq => KeyRange::prefix(&k),
                Comparator::Gt => KeyRange {
                    start: match after(&k) {
                        Bound::Excluded(next) => Bound::Included(next),
                        _ => Bound::Excluded(k),
                    },
                    ..whole
                },
                Comparator::Ge => KeyRange {
                    start: Bound::Included(k),
                    ..whole
                },
                Comparator::Lt => KeyRange {
                    end: Bound::Excluded(k),
                    ..whole
                },
                Comparator::Le => KeyRange {
                    end: after(&k),
                    ..whole
                },
                Comparator::Ne => whole,
            }
        }
        SortCondition::Between(lo, hi) => KeyRange {
            start: Bound::Included(key(lo)?),
            end: KeyRange::prefix(&key(hi)?).end,
        },
        SortCondition::BeginsWith(p) => {
            let mut k = key(p)?;
            // Drop the two-byte terminator of the string or binary encoding.
            k.truncate(k.len().saturating_sub(2).max(partition.len()));
            KeyRange::prefix(&k)
        }
    })
}

pub(super) fn sort_matches(condition: &SortCondition, value: &AttributeValue) -> bool {
    use kura_expr::eval::compare::order;
    use std::cmp::Ordering::*;
    match condition {
        SortCondition::Compare(op, bound) => order(value, bound).is_some_and(|o| match op {
            Comparator::Eq => o == Equal,
            Comparator::Lt => o == Less,
            Comparator::Le => o != Greater,
            Comparator::Gt => o == Greater,
            Comparator::Ge => o != Less,
            Comparator::Ne => o != Equal,
        }),
        SortCondition::Between(lo, hi) => {
            order(value, lo).is_some_and(|o| o != Less)
                && order(value, hi).is_some_and(|o| o != Greater)
        }
        SortCondition::BeginsWith(prefix) => match (value, prefix) {
            (AttributeValue::S(v), AttributeValue::S(p)) => v.starts_with(p.as_str()),
            (AttributeValue::B(v), AttributeValue::B(p)) => v.starts_with(p),
            _ => false,
        },
    }
}

pub(super) fn check_key_value_type(value: &AttributeValue, ty: ScalarType) -> Result<()> {
    if value.value_type() == ty.value_type() {
        Ok(())
    } else {
        Err(EngineError::validation(
            messages::KEY_CONDITION_TYPE_MISMATCH,
        ))
    }
}

pub(super) fn check_sort_condition_types(condition: &SortCondition, ty: ScalarType) -> Result<()> {
    match condition {
        SortCondition::Compare(_, v) => check_key_value_type(v, ty),
        SortCondition::Between(lo, hi) => {
            check_key_value_type(lo, ty)?;
            check_key_value_type(hi, ty)
        }
        SortCondition::BeginsWith(v) => {
            if ty == ScalarType::N {
                return Err(EngineError::validation(messages::invalid_expression(
                    "KeyConditionExpression",
                    &messages::function_operand_type("begins_with", "N"),
                )));
            }
            check_key_value_type(v, ty)
        }
    }
}
