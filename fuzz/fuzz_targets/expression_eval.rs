//! Expressions evaluated against items: the input's first line is an expression, the rest
//! an item in DynamoDB JSON (a fixed item when it is not one). Whatever parses as a
//! condition evaluates, as an update applies or fails with an error, as a projection
//! projects; none of it may panic.
#![no_main]
use std::collections::BTreeMap;

use kura_expr::bindings::Bindings;
use kura_expr::eval;
use kura_expr::parse::condition::parse_condition;
use kura_expr::parse::projection::parse_projection;
use kura_expr::parse::update::parse_update;
use kura_model::wire::{ItemJson, item_from_json};
use kura_model::{AttributeValue, Item, Number};
use libfuzzer_sys::fuzz_target;

fn n(i: i64) -> AttributeValue {
    AttributeValue::N(Number::from_i64(i))
}

/// `#a #b #c` and `:a :b :c` (a number, a string, a string set) plus a list, a number
/// set and a binary, so that every action has a well-typed operand to reach.
fn bindings() -> Bindings {
    let names = [("#a", "a"), ("#b", "b"), ("#c", "c")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let values: BTreeMap<String, AttributeValue> = [
        (":a", n(1)),
        (":b", AttributeValue::s("ab")),
        (":c", AttributeValue::Ss(vec!["ab".into(), "b".into()])),
        (":l", AttributeValue::L(vec![n(7), AttributeValue::Null])),
        (
            ":n",
            AttributeValue::Ns(vec![Number::from_i64(1), Number::from_i64(2)]),
        ),
        (":x", AttributeValue::B(vec![0, 255])),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Bindings::from_parts(names, values)
}

/// An item with a value of each type, nested maps and lists, under names the bindings
/// and plain identifiers reach.
fn fixed_item() -> Item {
    let mut inner = Item::new();
    inner.insert(
        "a".into(),
        AttributeValue::L(vec![AttributeValue::s("x"), n(2)]),
    );
    inner.insert("c".into(), AttributeValue::Ss(vec!["ab".into()]));
    let mut item = Item::new();
    item.insert("a".into(), n(1));
    item.insert("b".into(), AttributeValue::M(inner));
    item.insert("c".into(), AttributeValue::s("abc"));
    item.insert(
        "l".into(),
        AttributeValue::L(vec![n(1), AttributeValue::L(vec![]), n(3)]),
    );
    item.insert(
        "s".into(),
        AttributeValue::Ss(vec!["ab".into(), "x".into()]),
    );
    item.insert("x".into(), AttributeValue::B(vec![0, 1, 255]));
    item.insert("t".into(), AttributeValue::Bool(true));
    item
}

fn no_empty_sets(value: &AttributeValue) -> bool {
    match value {
        AttributeValue::Ss(s) => !s.is_empty(),
        AttributeValue::Ns(s) => !s.is_empty(),
        AttributeValue::Bs(s) => !s.is_empty(),
        AttributeValue::L(l) => l.iter().all(no_empty_sets),
        AttributeValue::M(m) => m.values().all(no_empty_sets),
        _ => true,
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (expression, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let item = serde_json::from_str::<ItemJson>(rest)
        .ok()
        .and_then(|json| item_from_json(json).ok())
        .unwrap_or_else(fixed_item);

    if let Ok(condition) = parse_condition(expression, &mut bindings(), "ConditionExpression") {
        let holds = eval::condition::evaluate(&condition, &item);
        let negated = kura_expr::Condition::Not(Box::new(condition));
        assert_eq!(eval::condition::evaluate(&negated, &item), !holds);
    }

    if let Ok(update) = parse_update(expression, &mut bindings())
        && let Ok(updated) = eval::update::apply(&update, &item)
    {
        // An update never leaves an empty set behind: DynamoDB has none.
        assert!(updated.values().all(no_empty_sets), "{updated:?}");
    }

    if let Ok(paths) = parse_projection(expression, &mut bindings()) {
        let projected = eval::projection::project(&item, &paths);
        assert!(projected.keys().all(|k| item.contains_key(k)));
    }
});
