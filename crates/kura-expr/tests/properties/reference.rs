//! The reference value model, condition evaluator and update the properties compare Kura's
//! evaluator with, written from DynamoDB's documented semantics.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use kura_expr::ast::{
    Comparator, Condition, Operand, Path, PathElement, SetOperand, SetValue, Update,
};
use kura_model::{AttributeValue, Item, Number, ValueType};

/// Values as the reference sees them: numbers are the (integer) values generated, sets
/// are ordered sets, so derived equality is DynamoDB's equality.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum V {
    S(String),
    N(i64),
    B(Vec<u8>),
    Bool(bool),
    Null,
    L(Vec<V>),
    M(BTreeMap<String, V>),
    Ss(BTreeSet<String>),
    Ns(BTreeSet<i64>),
    Bs(BTreeSet<Vec<u8>>),
}

pub(super) type RefItem = BTreeMap<String, V>;

pub(super) fn int(number: &Number) -> i64 {
    number.to_i64().expect("the tests only generate integers")
}

pub(super) fn to_ref(value: &AttributeValue) -> V {
    match value {
        AttributeValue::S(s) => V::S(s.clone()),
        AttributeValue::N(x) => V::N(int(x)),
        AttributeValue::B(b) => V::B(b.clone()),
        AttributeValue::Bool(b) => V::Bool(*b),
        AttributeValue::Null => V::Null,
        AttributeValue::L(l) => V::L(l.iter().map(to_ref).collect()),
        AttributeValue::M(m) => V::M(to_ref_item(m)),
        AttributeValue::Ss(s) => V::Ss(s.iter().cloned().collect()),
        AttributeValue::Ns(s) => V::Ns(s.iter().map(int).collect()),
        AttributeValue::Bs(s) => V::Bs(s.iter().cloned().collect()),
    }
}

pub(super) fn to_ref_item(item: &Item) -> RefItem {
    item.iter().map(|(k, v)| (k.clone(), to_ref(v))).collect()
}

pub(super) fn type_of(v: &V) -> ValueType {
    match v {
        V::S(_) => ValueType::S,
        V::N(_) => ValueType::N,
        V::B(_) => ValueType::B,
        V::Bool(_) => ValueType::Bool,
        V::Null => ValueType::Null,
        V::L(_) => ValueType::L,
        V::M(_) => ValueType::M,
        V::Ss(_) => ValueType::Ss,
        V::Ns(_) => ValueType::Ns,
        V::Bs(_) => ValueType::Bs,
    }
}

pub(super) fn ref_get<'a>(item: &'a RefItem, path: &Path) -> Option<&'a V> {
    let mut elements = path.0.iter();
    let Some(PathElement::Attribute(top)) = elements.next() else {
        return None;
    };
    let mut current = item.get(top)?;
    for element in elements {
        current = match (element, current) {
            (PathElement::Attribute(key), V::M(map)) => map.get(key)?,
            (PathElement::Index(i), V::L(list)) => list.get(*i)?,
            _ => return None,
        };
    }
    Some(current)
}

/// `size()`: length of a string as Java counts it (UTF-16 code units, as the crate
/// documents DynamoDB does), bytes of a binary, members of a set, elements of a list or
/// map; nothing for N, BOOL and NULL.
pub(super) fn ref_size(v: &V) -> Option<i64> {
    let len = match v {
        V::S(s) => s.chars().map(char::len_utf16).sum(),
        V::B(b) => b.len(),
        V::Ss(s) => s.len(),
        V::Ns(s) => s.len(),
        V::Bs(s) => s.len(),
        V::L(l) => l.len(),
        V::M(m) => m.len(),
        V::N(_) | V::Bool(_) | V::Null => return None,
    };
    Some(len as i64)
}

pub(super) fn ref_operand(op: &Operand, item: &RefItem) -> Option<V> {
    match op {
        Operand::Path(p) => ref_get(item, p).cloned(),
        Operand::Value(v) => Some(to_ref(v)),
        Operand::Size(inner) => ref_size(&ref_operand(inner, item)?).map(V::N),
    }
}

/// Only S (by UTF-8 bytes), N (by value) and B (by unsigned bytes) are ordered, and only
/// against the same type.
pub(super) fn ref_order(a: &V, b: &V) -> Option<Ordering> {
    match (a, b) {
        (V::S(x), V::S(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (V::N(x), V::N(y)) => Some(x.cmp(y)),
        (V::B(x), V::B(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

pub(super) fn is_subsequence<T: PartialEq>(haystack: &[T], needle: &[T]) -> bool {
    (0..=haystack.len()).any(|start| haystack[start..].starts_with(needle))
}

pub(super) fn ref_contains(target: &V, element: &V) -> bool {
    match (target, element) {
        (V::S(s), V::S(sub)) => is_subsequence(s.as_bytes(), sub.as_bytes()),
        (V::B(b), V::B(sub)) => is_subsequence(b, sub),
        (V::Ss(set), V::S(x)) => set.contains(x),
        (V::Ns(set), V::N(x)) => set.contains(x),
        (V::Bs(set), V::B(x)) => set.contains(x),
        (V::L(list), x) => list.contains(x),
        _ => false,
    }
}

pub(super) fn ref_eval(condition: &Condition, item: &RefItem) -> bool {
    match condition {
        Condition::Compare(op, l, r) => {
            let (l, r) = (ref_operand(l, item), ref_operand(r, item));
            match op {
                Comparator::Eq => l.is_some() && r.is_some() && l == r,
                Comparator::Ne => l.is_none() || r.is_none() || l != r,
                _ => {
                    let (Some(l), Some(r)) = (l, r) else {
                        return false;
                    };
                    match (ref_order(&l, &r), op) {
                        (None, _) => false,
                        (Some(o), Comparator::Lt) => o == Ordering::Less,
                        (Some(o), Comparator::Le) => o != Ordering::Greater,
                        (Some(o), Comparator::Gt) => o == Ordering::Greater,
                        (Some(o), _) => o != Ordering::Less,
                    }
                }
            }
        }
        Condition::Between(v, lo, hi) => {
            let (Some(v), Some(lo), Some(hi)) = (
                ref_operand(v, item),
                ref_operand(lo, item),
                ref_operand(hi, item),
            ) else {
                return false;
            };
            matches!(
                (ref_order(&lo, &v), ref_order(&v, &hi)),
                (
                    Some(Ordering::Less | Ordering::Equal),
                    Some(Ordering::Less | Ordering::Equal)
                )
            )
        }
        Condition::In(v, list) => {
            let Some(v) = ref_operand(v, item) else {
                return false;
            };
            list.iter().any(|c| ref_operand(c, item) == Some(v.clone()))
        }
        Condition::AttributeExists(p) => ref_get(item, p).is_some(),
        Condition::AttributeNotExists(p) => ref_get(item, p).is_none(),
        Condition::AttributeType(a, t) => ref_operand(a, item).is_some_and(|v| type_of(&v) == *t),
        Condition::BeginsWith(a, b) => match (ref_operand(a, item), ref_operand(b, item)) {
            (Some(V::S(s)), Some(V::S(prefix))) => s.as_bytes().starts_with(prefix.as_bytes()),
            (Some(V::B(s)), Some(V::B(prefix))) => s.starts_with(&prefix),
            _ => false,
        },
        Condition::Contains(a, b) => match (ref_operand(a, item), ref_operand(b, item)) {
            (Some(t), Some(e)) => ref_contains(&t, &e),
            _ => false,
        },
        Condition::Not(c) => !ref_eval(c, item),
        Condition::And(a, b) => ref_eval(a, item) && ref_eval(b, item),
        Condition::Or(a, b) => ref_eval(a, item) || ref_eval(b, item),
    }
}

// Updates

pub(super) fn ref_set_operand(op: &SetOperand, item: &RefItem) -> Option<V> {
    match op {
        SetOperand::Path(p) => ref_get(item, p).cloned(),
        SetOperand::Value(v) => Some(to_ref(v)),
        SetOperand::IfNotExists(p, fallback) => match ref_get(item, p) {
            Some(v) => Some(v.clone()),
            None => ref_set_operand(fallback, item),
        },
        SetOperand::ListAppend(a, b) => {
            match (ref_set_operand(a, item)?, ref_set_operand(b, item)?) {
                (V::L(mut x), V::L(y)) => {
                    x.extend(y);
                    Some(V::L(x))
                }
                _ => None,
            }
        }
    }
}

pub(super) fn ref_set_value(value: &SetValue, item: &RefItem) -> Option<V> {
    match value {
        SetValue::Operand(op) => ref_set_operand(op, item),
        SetValue::Plus(a, b) | SetValue::Minus(a, b) => {
            let (V::N(x), V::N(y)) = (ref_set_operand(a, item)?, ref_set_operand(b, item)?) else {
                return None;
            };
            Some(V::N(if matches!(value, SetValue::Plus(..)) {
                x + y
            } else {
                x - y
            }))
        }
    }
}

/// The item after `update` (all of whose targets are distinct top-level attributes), or
/// `None` when DynamoDB refuses the update for this item.
pub(super) fn ref_apply(update: &Update, original: &RefItem) -> Option<RefItem> {
    let mut item = original.clone();
    for (target, value) in &update.set {
        item.insert(target.top().to_owned(), ref_set_value(value, original)?);
    }
    for target in &update.remove {
        item.remove(target.top());
    }
    for (target, value) in &update.add {
        let new = match (item.get(target.top()), to_ref(value)) {
            (None, v) => v,
            (Some(V::N(a)), V::N(b)) => V::N(a + b),
            (Some(V::Ss(a)), V::Ss(b)) => V::Ss(a.union(&b).cloned().collect()),
            (Some(V::Ns(a)), V::Ns(b)) => V::Ns(a.union(&b).cloned().collect()),
            (Some(V::Bs(a)), V::Bs(b)) => V::Bs(a.union(&b).cloned().collect()),
            _ => return None,
        };
        item.insert(target.top().to_owned(), new);
    }
    for (target, value) in &update.delete {
        let Some(existing) = item.get(target.top()) else {
            continue;
        };
        let remaining = match (existing, to_ref(value)) {
            (V::Ss(a), V::Ss(b)) => V::Ss(a.difference(&b).cloned().collect()),
            (V::Ns(a), V::Ns(b)) => V::Ns(a.difference(&b).cloned().collect()),
            (V::Bs(a), V::Bs(b)) => V::Bs(a.difference(&b).cloned().collect()),
            _ => return None,
        };
        // A set cannot be empty: deleting its last members removes the attribute.
        if ref_size(&remaining) == Some(0) {
            item.remove(target.top());
        } else {
            item.insert(target.top().to_owned(), remaining);
        }
    }
    Some(item)
}
