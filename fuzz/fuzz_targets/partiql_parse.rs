//! PartiQL from arbitrary text: parsing and lowering return errors, never panic or
//! overflow the stack; what lowers prints as expression text and evaluates against an
//! item without panicking, as the engine would use it.
#![no_main]
use kura_expr::eval::{condition, projection, update};
use kura_expr::partiql::lower::{Lowered, lower, split_key};
use kura_expr::partiql::parse;
use kura_expr::print;
use kura_model::{AttributeValue, Item, Number};
use libfuzzer_sys::fuzz_target;

fn item() -> Item {
    Item::from([
        ("a".to_owned(), AttributeValue::N(Number::from_i64(1))),
        ("b".to_owned(), AttributeValue::s("ab")),
        (
            "c".to_owned(),
            AttributeValue::L(vec![AttributeValue::Null, AttributeValue::Bool(true)]),
        ),
        (
            "m".to_owned(),
            AttributeValue::M(Item::from([("k".to_owned(), AttributeValue::s("v"))])),
        ),
    ])
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(statement) = parse(text) else {
        return;
    };
    let params = [
        AttributeValue::N(Number::from_i64(7)),
        AttributeValue::s("x"),
        AttributeValue::B(vec![0, 255]),
    ];
    let Ok(lowered) = lower(&statement, &params) else {
        return;
    };
    let item = item();
    let check = |c: &kura_expr::Condition| {
        let _ = print::condition(c);
        let _ = condition::evaluate(c, &item);
        let _ = split_key(c, &["a", "b"]);
    };
    match lowered {
        Lowered::Select(s) | Lowered::Exists(s) => {
            if let Some(f) = &s.filter {
                check(f);
            }
            if let Some(p) = &s.projection {
                let _ = print::projection(p);
                let _ = projection::project(&item, p);
            }
        }
        Lowered::Insert { item, .. } => {
            let _ = kura_model::size::item_size(&item);
        }
        Lowered::Update {
            update: u, filter, ..
        } => {
            check(&filter);
            let _ = print::update(&u);
            let _ = update::apply(&u, &item);
        }
        Lowered::Delete { filter, .. } => check(&filter),
    }
});
