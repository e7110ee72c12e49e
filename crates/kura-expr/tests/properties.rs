//! Property tests for the expression language.
//!
//! - Printing an expression tree and parsing the printed text with the printed bindings
//!   gives the same tree back (conditions, updates, projections).
//! - The condition evaluator agrees with a naive reference evaluator written here from
//!   DynamoDB's documented semantics, over a value model of its own (integers as `i64`,
//!   sets as ordered sets so that equality ignores order).
//! - Applying an update on distinct top-level attributes agrees with a reference.

use std::cmp::Ordering;

use kura_expr::ast::{
    Comparator, Condition, Operand, Path, PathElement, SetOperand, SetValue, Update,
};
use kura_expr::bindings::Bindings;
use kura_expr::parse::condition::parse_condition;
use kura_expr::parse::projection::parse_projection;
use kura_expr::parse::update::parse_update;
use kura_expr::{eval, print};
use kura_model::{AttributeValue, Item, Number, ValueType};
use proptest::prelude::*;
use proptest::sample::{select, subsequence};

// ---------------------------------------------------------------------------------------
// Pools
// ---------------------------------------------------------------------------------------

/// Attribute names for the round trip: printing uses `#n` placeholders, so any string is
/// fine, even one with a dot or a space.
const NAMES: &[&str] = &["a", "b", "c", "weird.name", "x y"];
/// Top-level names and map keys of generated items, small so paths often hit.
const KEYS: &[&str] = &["a", "b", "c"];
/// Top-level names for the update property.
const TOPS: &[&str] = &["a", "b", "c", "d", "e"];
const STRINGS: &[&str] = &["", "a", "ab", "abc", "b", "ba", "Z", "é", "\u{ff5e}", "𝄞"];
const BYTES: &[&[u8]] = &[
    b"",
    b"\x00",
    b"\x00\x01",
    b"\x01",
    b"\x7f",
    b"\x80",
    b"\xff",
];
const VALUE_TYPES: &[ValueType] = &[
    ValueType::S,
    ValueType::N,
    ValueType::B,
    ValueType::Bool,
    ValueType::Null,
    ValueType::L,
    ValueType::M,
    ValueType::Ss,
    ValueType::Ns,
    ValueType::Bs,
];
const COMPARATORS: &[Comparator] = &[
    Comparator::Eq,
    Comparator::Ne,
    Comparator::Lt,
    Comparator::Le,
    Comparator::Gt,
    Comparator::Ge,
];

// ---------------------------------------------------------------------------------------
// Value strategies
// ---------------------------------------------------------------------------------------

fn n(i: i64) -> AttributeValue {
    AttributeValue::N(Number::from_i64(i))
}

fn string_value() -> BoxedStrategy<AttributeValue> {
    select(STRINGS).prop_map(AttributeValue::s).boxed()
}

fn number_value() -> BoxedStrategy<AttributeValue> {
    (-4i64..=4).prop_map(n).boxed()
}

fn binary_value() -> BoxedStrategy<AttributeValue> {
    select(BYTES)
        .prop_map(|b| AttributeValue::B(b.to_vec()))
        .boxed()
}

/// A value of one of the ordered types: S, N or B.
fn ordered_value() -> BoxedStrategy<AttributeValue> {
    prop_oneof![string_value(), number_value(), binary_value()].boxed()
}

fn scalar_value() -> BoxedStrategy<AttributeValue> {
    prop_oneof![
        string_value(),
        number_value(),
        binary_value(),
        any::<bool>().prop_map(AttributeValue::Bool),
        Just(AttributeValue::Null),
    ]
    .boxed()
}

/// A non-empty, duplicate-free set, its members in a random order.
fn set_value() -> BoxedStrategy<AttributeValue> {
    let strings: Vec<String> = STRINGS[1..].iter().map(|s| (*s).to_owned()).collect();
    let numbers: Vec<Number> = (-3..=3).map(Number::from_i64).collect();
    let binaries: Vec<Vec<u8>> = BYTES[1..].iter().map(|b| b.to_vec()).collect();
    prop_oneof![
        subsequence(strings, 1..=3)
            .prop_shuffle()
            .prop_map(AttributeValue::Ss),
        subsequence(numbers, 1..=3)
            .prop_shuffle()
            .prop_map(AttributeValue::Ns),
        subsequence(binaries, 1..=3)
            .prop_shuffle()
            .prop_map(AttributeValue::Bs),
    ]
    .boxed()
}

fn list_value() -> BoxedStrategy<AttributeValue> {
    prop::collection::vec(scalar_value(), 0..4)
        .prop_map(AttributeValue::L)
        .boxed()
}

fn map_of(values: BoxedStrategy<AttributeValue>) -> BoxedStrategy<AttributeValue> {
    prop::collection::btree_map(select(KEYS).prop_map(str::to_owned), values, 0..3)
        .prop_map(AttributeValue::M)
        .boxed()
}

fn list_of(values: BoxedStrategy<AttributeValue>) -> BoxedStrategy<AttributeValue> {
    prop::collection::vec(values, 0..3)
        .prop_map(AttributeValue::L)
        .boxed()
}

/// Any value, mostly scalars and sets, sometimes a list or map nested up to two levels.
fn value() -> BoxedStrategy<AttributeValue> {
    let flat = || prop_oneof![4 => scalar_value(), 1 => set_value()].boxed();
    let one_level = || prop_oneof![2 => flat(), 1 => list_of(flat()), 1 => map_of(flat())].boxed();
    prop_oneof![
        6 => flat(),
        1 => list_value(),
        1 => list_of(one_level()),
        1 => map_of(one_level()),
    ]
    .boxed()
}

fn item() -> BoxedStrategy<Item> {
    prop::collection::btree_map(select(KEYS).prop_map(str::to_owned), value(), 0..4).boxed()
}

// ---------------------------------------------------------------------------------------
// Path strategies
// ---------------------------------------------------------------------------------------

/// A path starting at one of `tops`, followed by up to `rest` map keys from `names` and
/// list indexes.
fn path(
    tops: &'static [&'static str],
    names: &'static [&'static str],
    rest: usize,
) -> BoxedStrategy<Path> {
    let element = prop_oneof![
        select(names).prop_map(|s| PathElement::Attribute(s.to_owned())),
        (0usize..3).prop_map(PathElement::Index),
    ];
    (select(tops), prop::collection::vec(element, 0..=rest))
        .prop_map(|(top, rest)| {
            let mut elements = vec![PathElement::Attribute(top.to_owned())];
            elements.extend(rest);
            Path(elements)
        })
        .boxed()
}

/// Paths of 1..4 elements over [`NAMES`].
fn rt_path() -> BoxedStrategy<Path> {
    path(NAMES, NAMES, 3)
}

/// Whether two update targets (or projected paths) may appear together: neither is a
/// prefix of the other (nor equal), and where they first differ both elements are of the
/// same kind.
fn compatible(x: &Path, y: &Path) -> bool {
    for (a, b) in x.0.iter().zip(&y.0) {
        match (a, b) {
            _ if a == b => continue,
            (PathElement::Attribute(_), PathElement::Attribute(_))
            | (PathElement::Index(_), PathElement::Index(_)) => return true,
            _ => return false,
        }
    }
    false
}

/// Keeps each path only if it is compatible with every path kept before it.
fn keep_compatible<T>(items: Vec<(Path, T)>) -> Vec<(Path, T)> {
    let mut kept: Vec<(Path, T)> = Vec::new();
    for (p, t) in items {
        if kept.iter().all(|(q, _)| compatible(q, &p)) {
            kept.push((p, t));
        }
    }
    kept
}

#[path = "properties/reference.rs"]
mod reference;

use reference::{ref_apply, ref_eval, ref_order, ref_size, to_ref, to_ref_item};

// ---------------------------------------------------------------------------------------
// Condition strategies
// ---------------------------------------------------------------------------------------

fn combine(leaf: BoxedStrategy<Condition>) -> BoxedStrategy<Condition> {
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|c| Condition::Not(Box::new(c))),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| Condition::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner).prop_map(|(a, b)| Condition::Or(Box::new(a), Box::new(b))),
        ]
    })
    .boxed()
}

fn compare(op: Comparator, a: Operand, b: Operand, swap: bool) -> Condition {
    if swap {
        Condition::Compare(op, b, a)
    } else {
        Condition::Compare(op, a, b)
    }
}

fn size(p: Path) -> Operand {
    Operand::Size(Box::new(Operand::Path(p)))
}

/// Two values of the same ordered type, low first.
fn ordered_pair() -> BoxedStrategy<(AttributeValue, AttributeValue)> {
    prop_oneof![
        (string_value(), string_value()),
        (number_value(), number_value()),
        (binary_value(), binary_value()),
    ]
    .prop_map(|(a, b)| {
        if ref_order(&to_ref(&a), &to_ref(&b)) == Some(Ordering::Greater) {
            (b, a)
        } else {
            (a, b)
        }
    })
    .boxed()
}

/// A path, or the size of one.
fn rt_sized_path() -> BoxedStrategy<Operand> {
    prop_oneof![3 => rt_path().prop_map(Operand::Path), 1 => rt_path().prop_map(size)].boxed()
}

/// Conditions DynamoDB accepts, so that the parser must accept their printed form.
fn rt_condition() -> BoxedStrategy<Condition> {
    let comparisons = prop_oneof![
        (select(&COMPARATORS[..2]), rt_path(), value(), any::<bool>())
            .prop_map(|(op, p, v, swap)| compare(op, Operand::Path(p), Operand::Value(v), swap)),
        (
            select(COMPARATORS),
            rt_path(),
            ordered_value(),
            any::<bool>()
        )
            .prop_map(|(op, p, v, swap)| compare(
                op,
                Operand::Path(p),
                Operand::Value(v),
                swap
            )),
        (select(COMPARATORS), rt_path(), rt_path())
            .prop_filter("distinct paths", |(_, p, q)| p != q)
            .prop_map(|(op, p, q)| Condition::Compare(op, Operand::Path(p), Operand::Path(q))),
        (
            select(COMPARATORS),
            rt_path(),
            number_value(),
            any::<bool>()
        )
            .prop_map(|(op, p, v, swap)| compare(op, size(p), Operand::Value(v), swap)),
        (rt_sized_path(), ordered_pair()).prop_map(|(v, (lo, hi))| Condition::Between(
            v,
            Operand::Value(lo),
            Operand::Value(hi)
        )),
        (rt_sized_path(), rt_path(), rt_path()).prop_map(|(v, lo, hi)| Condition::Between(
            v,
            Operand::Path(lo),
            Operand::Path(hi)
        )),
        (
            rt_sized_path(),
            prop::collection::vec(value().prop_map(Operand::Value), 1..=5)
        )
            .prop_map(|(v, list)| Condition::In(v, list)),
    ];
    let functions = prop_oneof![
        rt_path().prop_map(Condition::AttributeExists),
        rt_path().prop_map(Condition::AttributeNotExists),
        (rt_path(), select(VALUE_TYPES))
            .prop_map(|(p, t)| Condition::AttributeType(Operand::Path(p), t)),
        (rt_path(), prop_oneof![string_value(), binary_value()])
            .prop_map(|(p, v)| Condition::BeginsWith(Operand::Path(p), Operand::Value(v))),
        (rt_path(), value())
            .prop_map(|(p, v)| Condition::Contains(Operand::Path(p), Operand::Value(v))),
    ];
    combine(prop_oneof![2 => comparisons, 1 => functions].boxed())
}

/// A value found in an item: where, what, and its parts (set members, list elements,
/// substrings of a string or binary, the value itself).
#[derive(Debug, Clone)]
struct Found {
    path: Path,
    value: AttributeValue,
    parts: Vec<AttributeValue>,
}

fn parts(value: &AttributeValue) -> Vec<AttributeValue> {
    let mut out = vec![value.clone()];
    match value {
        AttributeValue::S(text) => {
            let bounds: Vec<usize> = (0..=text.len())
                .filter(|i| text.is_char_boundary(*i))
                .collect();
            for (k, i) in bounds.iter().enumerate() {
                for j in &bounds[k..] {
                    out.push(AttributeValue::s(&text[*i..*j]));
                }
            }
        }
        AttributeValue::B(bytes) => {
            for i in 0..=bytes.len() {
                for j in i..=bytes.len() {
                    out.push(AttributeValue::B(bytes[i..j].to_vec()));
                }
            }
        }
        AttributeValue::Ss(set) => out.extend(set.iter().map(AttributeValue::s)),
        AttributeValue::Ns(set) => out.extend(set.iter().cloned().map(AttributeValue::N)),
        AttributeValue::Bs(set) => out.extend(set.iter().cloned().map(AttributeValue::B)),
        AttributeValue::L(list) => out.extend(list.iter().cloned()),
        _ => {}
    }
    out
}

/// Every value in `item`, nested ones too.
fn contents(item: &Item) -> Vec<Found> {
    fn walk(at: &mut Vec<PathElement>, value: &AttributeValue, out: &mut Vec<Found>) {
        out.push(Found {
            path: Path(at.clone()),
            value: value.clone(),
            parts: parts(value),
        });
        match value {
            AttributeValue::M(map) => {
                for (key, v) in map {
                    at.push(PathElement::Attribute(key.clone()));
                    walk(at, v, out);
                    at.pop();
                }
            }
            AttributeValue::L(list) => {
                for (i, v) in list.iter().enumerate() {
                    at.push(PathElement::Index(i));
                    walk(at, v, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (name, value) in item {
        walk(
            &mut vec![PathElement::Attribute(name.clone())],
            value,
            &mut out,
        );
    }
    out
}

/// A path over the items' names, often one that exists.
fn eval_path(paths: &[Path]) -> BoxedStrategy<Path> {
    let random = path(KEYS, KEYS, 2);
    if paths.is_empty() {
        random
    } else {
        prop_oneof![1 => random, 2 => select(paths.to_vec())].boxed()
    }
}

/// A constant, often one found in the item.
fn eval_value(values: &[AttributeValue]) -> BoxedStrategy<AttributeValue> {
    if values.is_empty() {
        value()
    } else {
        prop_oneof![1 => value(), 2 => select(values.to_vec())].boxed()
    }
}

/// Any operand, sensible or not.
fn eval_operand(paths: &[Path], values: &[AttributeValue]) -> BoxedStrategy<Operand> {
    prop_oneof![
        4 => eval_path(paths).prop_map(Operand::Path),
        3 => eval_value(values).prop_map(Operand::Value),
        1 => eval_path(paths).prop_map(size),
        1 => eval_value(values).prop_map(|v| Operand::Size(Box::new(Operand::Value(v)))),
    ]
    .boxed()
}

fn sorted(lo: AttributeValue, hi: AttributeValue) -> (Operand, Operand) {
    let (lo, hi) = if ref_order(&to_ref(&lo), &to_ref(&hi)) == Some(Ordering::Greater) {
        (hi, lo)
    } else {
        (lo, hi)
    };
    (Operand::Value(lo), Operand::Value(hi))
}

/// Leaves built around a value found in the item: its path against constants of the same
/// type or against its parts, so that comparisons and functions often hold.
fn near_leaf(found: &[Found], values: &[AttributeValue]) -> BoxedStrategy<Condition> {
    let mut all = values.to_vec();
    all.extend(STRINGS.iter().map(|s| AttributeValue::s(*s)));
    all.extend((-4..=4).map(n));
    all.extend(BYTES.iter().map(|b| AttributeValue::B(b.to_vec())));
    let near = select(found.to_vec()).prop_map(move |f| {
        let same: Vec<AttributeValue> = all
            .iter()
            .filter(|v| v.value_type() == f.value.value_type())
            .cloned()
            .collect();
        (f.path, same, f.parts)
    });
    prop_oneof![
        3 => near.clone()
            .prop_flat_map(|(p, same, _)| {
                (select(COMPARATORS), Just(p), select(same), any::<bool>())
            })
            .prop_map(|(op, p, v, swap)| compare(op, Operand::Path(p), Operand::Value(v), swap)),
        1 => near.clone()
            .prop_flat_map(|(p, same, _)| (Just(p), select(same.clone()), select(same)))
            .prop_map(|(p, lo, hi)| {
                let (lo, hi) = sorted(lo, hi);
                Condition::Between(Operand::Path(p), lo, hi)
            }),
        1 => near.clone()
            .prop_flat_map(|(p, same, _)| (Just(p), prop::collection::vec(select(same), 1..=3)))
            .prop_map(|(p, list)| {
                Condition::In(Operand::Path(p), list.into_iter().map(Operand::Value).collect())
            }),
        1 => near.clone()
            .prop_flat_map(|(p, _, parts)| (Just(p), select(parts)))
            .prop_map(|(p, v)| Condition::BeginsWith(Operand::Path(p), Operand::Value(v))),
        3 => near
            .prop_flat_map(|(p, _, parts)| {
                // The value's members rather than the value itself, when it has some.
                let members = if parts.len() > 1 { parts[1..].to_vec() } else { parts };
                (Just(p), select(members))
            })
            .prop_map(|(p, v)| Condition::Contains(Operand::Path(p), Operand::Value(v))),
        2 => (select(COMPARATORS), select(found.to_vec()), -1i64..=1).prop_map(|(op, f, delta)| {
            let k = ref_size(&to_ref(&f.value)).unwrap_or(0) + delta;
            Condition::Compare(op, size(f.path), Operand::Value(n(k)))
        }),
    ]
    .boxed()
}

/// An item and any condition over its names, sensible or not: the evaluator must agree
/// with the reference on all of them.
fn eval_case() -> BoxedStrategy<(Item, Condition)> {
    item()
        .prop_flat_map(|item| {
            let found = contents(&item);
            let paths: Vec<Path> = found.iter().map(|f| f.path.clone()).collect();
            let values: Vec<AttributeValue> =
                found.iter().flat_map(|f| f.parts.iter().cloned()).collect();
            let p = || eval_path(&paths);
            let o = || eval_operand(&paths, &values);
            let random = prop_oneof![
                3 => (select(COMPARATORS), o(), o())
                    .prop_map(|(c, a, b)| Condition::Compare(c, a, b)),
                1 => (o(), o(), o()).prop_map(|(v, lo, hi)| Condition::Between(v, lo, hi)),
                1 => (o(), eval_value(&values), eval_value(&values)).prop_map(|(v, lo, hi)| {
                    let (lo, hi) = sorted(lo, hi);
                    Condition::Between(v, lo, hi)
                }),
                1 => (o(), prop::collection::vec(o(), 1..=5))
                    .prop_map(|(v, l)| Condition::In(v, l)),
                1 => p().prop_map(Condition::AttributeExists),
                1 => p().prop_map(Condition::AttributeNotExists),
                1 => (p(), select(VALUE_TYPES)).prop_map(|(p, t)| Condition::AttributeType(Operand::Path(p), t)),
                1 => (o(), o()).prop_map(|(a, b)| Condition::BeginsWith(a, b)),
                1 => (o(), o()).prop_map(|(a, b)| Condition::Contains(a, b)),
            ]
            .boxed();
            let leaf = if found.is_empty() {
                random
            } else {
                prop_oneof![random, near_leaf(&found, &values)].boxed()
            };
            (Just(item), combine(leaf))
        })
        .boxed()
}

// ---------------------------------------------------------------------------------------
// Update strategies
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Action {
    Set(SetValue),
    Remove,
    Add(AttributeValue),
    Delete(AttributeValue),
}

fn build_update(actions: Vec<(Path, Action)>) -> Update {
    let mut update = Update::default();
    for (p, action) in actions {
        match action {
            Action::Set(v) => update.set.push((p, v)),
            Action::Remove => update.remove.push(p),
            Action::Add(v) => update.add.push((p, v)),
            Action::Delete(v) => update.delete.push((p, v)),
        }
    }
    update
}

/// An operand of `+` or `-`: a number, a path, or `if_not_exists(path, number)`.
fn number_operand(paths: BoxedStrategy<Path>) -> BoxedStrategy<SetOperand> {
    prop_oneof![
        number_value().prop_map(SetOperand::Value),
        paths.clone().prop_map(SetOperand::Path),
        (paths, number_value())
            .prop_map(|(p, v)| SetOperand::IfNotExists(p, Box::new(SetOperand::Value(v)))),
    ]
    .boxed()
}

/// An operand of `list_append`: a list, a path, or `if_not_exists(path, list)`.
fn list_operand(paths: BoxedStrategy<Path>) -> BoxedStrategy<SetOperand> {
    prop_oneof![
        list_value().prop_map(SetOperand::Value),
        paths.clone().prop_map(SetOperand::Path),
        (paths, list_value())
            .prop_map(|(p, v)| SetOperand::IfNotExists(p, Box::new(SetOperand::Value(v)))),
    ]
    .boxed()
}

fn set_action_value(paths: BoxedStrategy<Path>) -> BoxedStrategy<SetValue> {
    let operand = prop_oneof![
        2 => value().prop_map(SetOperand::Value),
        1 => paths.clone().prop_map(SetOperand::Path),
        1 => (paths.clone(), value())
            .prop_map(|(p, v)| SetOperand::IfNotExists(p, Box::new(SetOperand::Value(v)))),
        1 => (list_operand(paths.clone()), list_operand(paths.clone()))
            .prop_map(|(a, b)| SetOperand::ListAppend(Box::new(a), Box::new(b))),
    ];
    prop_oneof![
        2 => operand.prop_map(SetValue::Operand),
        1 => (number_operand(paths.clone()), number_operand(paths.clone()))
            .prop_map(|(a, b)| SetValue::Plus(a, b)),
        1 => (number_operand(paths.clone()), number_operand(paths))
            .prop_map(|(a, b)| SetValue::Minus(a, b)),
    ]
    .boxed()
}

fn action(paths: BoxedStrategy<Path>) -> BoxedStrategy<Action> {
    prop_oneof![
        3 => set_action_value(paths).prop_map(Action::Set),
        1 => Just(Action::Remove),
        1 => prop_oneof![number_value(), set_value()].prop_map(Action::Add),
        1 => set_value().prop_map(Action::Delete),
    ]
    .boxed()
}

/// Updates DynamoDB accepts: 1..8 actions on compatible target paths.
fn rt_update() -> BoxedStrategy<Update> {
    prop::collection::vec((path(NAMES, NAMES, 2), action(rt_path())), 1..8)
        .prop_map(|actions| build_update(keep_compatible(actions)))
        .boxed()
}

fn rt_projection() -> BoxedStrategy<Vec<Path>> {
    prop::collection::vec(rt_path(), 1..6)
        .prop_map(|paths| {
            let tagged = paths.into_iter().map(|p| (p, ())).collect();
            keep_compatible(tagged)
                .into_iter()
                .map(|(p, ())| p)
                .collect()
        })
        .boxed()
}

/// A set of the same type as `existing` (any set when it is not one), its members drawn
/// from `existing`'s and a few others.
fn set_like(existing: Option<&AttributeValue>) -> BoxedStrategy<AttributeValue> {
    fn pool<T: Clone + PartialEq>(members: &[T], others: impl IntoIterator<Item = T>) -> Vec<T> {
        let mut pool = members.to_vec();
        for other in others {
            if !pool.contains(&other) {
                pool.push(other);
            }
        }
        pool
    }
    match existing {
        Some(AttributeValue::Ss(members)) => prop_oneof![
            subsequence(members.clone(), 1..=members.len()),
            subsequence(
                pool(members, STRINGS[1..].iter().map(|s| (*s).to_owned())),
                1..=3
            ),
        ]
        .prop_shuffle()
        .prop_map(AttributeValue::Ss)
        .boxed(),
        Some(AttributeValue::Ns(members)) => prop_oneof![
            subsequence(members.clone(), 1..=members.len()),
            subsequence(pool(members, (-3..=3).map(Number::from_i64)), 1..=3),
        ]
        .prop_shuffle()
        .prop_map(AttributeValue::Ns)
        .boxed(),
        Some(AttributeValue::Bs(members)) => prop_oneof![
            subsequence(members.clone(), 1..=members.len()),
            subsequence(pool(members, BYTES[1..].iter().map(|b| b.to_vec())), 1..=3),
        ]
        .prop_shuffle()
        .prop_map(AttributeValue::Bs)
        .boxed(),
        _ => set_value(),
    }
}

/// An action on the top-level attribute holding `existing`, of a fitting type more often
/// than not so that most updates apply.
fn action_on(
    existing: Option<&AttributeValue>,
    paths: BoxedStrategy<Path>,
) -> BoxedStrategy<Action> {
    let add = match existing {
        Some(AttributeValue::N(_)) | None => {
            prop_oneof![3 => number_value(), 1 => set_like(existing)].boxed()
        }
        Some(_) => prop_oneof![1 => number_value(), 3 => set_like(existing)].boxed(),
    };
    prop_oneof![
        3 => set_action_value(paths).prop_map(Action::Set),
        1 => Just(Action::Remove),
        2 => add.prop_map(Action::Add),
        2 => set_like(existing).prop_map(Action::Delete),
    ]
    .boxed()
}

/// Items over [`TOPS`], numbers and sets more likely, so ADD and DELETE often meet a value.
fn update_item() -> BoxedStrategy<Item> {
    let v = prop_oneof![number_value(), set_value(), value(), list_value()];
    prop::collection::btree_map(select(TOPS).prop_map(str::to_owned), v, 0..5).boxed()
}

/// An item and an update of 1..=3 actions, each on a different top-level attribute of
/// [`TOPS`]; SET reads paths that mostly exist.
fn update_case() -> BoxedStrategy<(Item, Update)> {
    update_item()
        .prop_flat_map(|item| {
            let existing: Vec<Path> = contents(&item).into_iter().map(|f| f.path).collect();
            let paths = if existing.is_empty() {
                path(TOPS, KEYS, 2)
            } else {
                prop_oneof![1 => path(TOPS, KEYS, 2), 2 => select(existing)].boxed()
            };
            let actions: Vec<BoxedStrategy<(Path, Action)>> = TOPS
                .iter()
                .map(|name| {
                    (
                        Just(Path::attribute(*name)),
                        action_on(item.get(*name), paths.clone()),
                    )
                        .boxed()
                })
                .collect();
            let update = subsequence(actions, 1..=3)
                .prop_shuffle()
                .prop_flat_map(|chosen| chosen)
                .prop_map(build_update);
            (Just(item), update)
        })
        .boxed()
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

fn subconditions(c: &Condition) -> Vec<&Condition> {
    let mut out = vec![c];
    match c {
        Condition::Not(a) => out.extend(subconditions(a)),
        Condition::And(a, b) | Condition::Or(a, b) => {
            out.extend(subconditions(a));
            out.extend(subconditions(b));
        }
        _ => {}
    }
    out
}

fn bindings(printed: &print::Printed) -> Bindings {
    Bindings::from_parts(printed.names.clone(), printed.values.clone())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn condition_round_trips(condition in rt_condition()) {
        let printed = print::condition(&condition);
        let mut b = bindings(&printed);
        let parsed = parse_condition(&printed.text, &mut b, "ConditionExpression");
        prop_assert_eq!(parsed.as_ref(), Ok(&condition), "text: {}", printed.text);
        prop_assert!(b.check_all_used().is_ok(), "text: {}", printed.text);
    }

    #[test]
    fn update_round_trips(update in rt_update()) {
        let printed = print::update(&update);
        let mut b = bindings(&printed);
        let parsed = parse_update(&printed.text, &mut b);
        prop_assert_eq!(parsed.as_ref(), Ok(&update), "text: {}", printed.text);
        prop_assert!(b.check_all_used().is_ok(), "text: {}", printed.text);
    }

    #[test]
    fn projection_round_trips(paths in rt_projection()) {
        let printed = print::projection(&paths);
        let mut b = bindings(&printed);
        let parsed = parse_projection(&printed.text, &mut b);
        prop_assert_eq!(parsed.as_ref(), Ok(&paths), "text: {}", printed.text);
        prop_assert!(b.check_all_used().is_ok(), "text: {}", printed.text);
    }

    #[test]
    fn evaluator_matches_reference((item, condition) in eval_case()) {
        let reference = to_ref_item(&item);
        // Every sub-condition, so that AND and OR do not hide a wrong answer.
        for c in subconditions(&condition) {
            prop_assert_eq!(eval::condition::evaluate(c, &item), ref_eval(c, &reference), "{:?}", c);
        }
    }

    #[test]
    fn update_matches_reference((item, update) in update_case()) {
        let expected = ref_apply(&update, &to_ref_item(&item));
        let actual = eval::update::apply(&update, &item);
        match (&actual, &expected) {
            (Ok(result), Some(expected)) => prop_assert_eq!(&to_ref_item(result), expected),
            (Err(_), None) => {}
            _ => prop_assert!(false, "apply gave {:?}, reference {:?}", actual, expected),
        }
    }
}
