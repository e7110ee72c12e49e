//! Expression parsing from arbitrary text: conditions, updates and projections return
//! errors, never panic; what parses prints back to text that parses to the same tree.
#![no_main]
use std::collections::BTreeMap;

use kura_expr::bindings::Bindings;
use kura_expr::parse::condition::parse_condition;
use kura_expr::parse::projection::parse_projection;
use kura_expr::parse::update::parse_update;
use kura_expr::print::{self, Printed};
use kura_model::{AttributeValue, Number, limits};
use libfuzzer_sys::fuzz_target;

/// `#a #b #c` and `:a :b :c` (a number, a string, a string set) plus a list and a
/// binary, so that every grammar rule has a well-typed operand to reach.
fn bindings() -> Bindings {
    let names = [("#a", "a"), ("#b", "b"), ("#c", "c")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let values: BTreeMap<String, AttributeValue> = [
        (":a", AttributeValue::N(Number::from_i64(1))),
        (":b", AttributeValue::s("ab")),
        (":c", AttributeValue::Ss(vec!["ab".into(), "b".into()])),
        (":l", AttributeValue::L(vec![AttributeValue::Null])),
        (":x", AttributeValue::B(vec![0, 255])),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Bindings::from_parts(names, values)
}

/// Bindings for printed text; `None` when the printed text is longer than DynamoDB allows
/// (placeholders like `#n12` can be longer than the names they replace).
fn reparse(printed: Printed) -> Option<(String, Bindings)> {
    if printed.text.encode_utf16().count() > limits::MAX_EXPRESSION_LENGTH {
        return None;
    }
    Some((
        printed.text,
        Bindings::from_parts(printed.names, printed.values),
    ))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);

    if let Ok(condition) = parse_condition(&text, &mut bindings(), "ConditionExpression")
        && let Some((printed, mut b)) = reparse(print::condition(&condition))
    {
        let again = parse_condition(&printed, &mut b, "ConditionExpression")
            .unwrap_or_else(|e| panic!("printed condition {printed:?} refused: {e}"));
        assert_eq!(again, condition, "printed as {printed:?}");
    }

    if let Ok(update) = parse_update(&text, &mut bindings())
        && let Some((printed, mut b)) = reparse(print::update(&update))
    {
        let again = parse_update(&printed, &mut b)
            .unwrap_or_else(|e| panic!("printed update {printed:?} refused: {e}"));
        assert_eq!(again, update, "printed as {printed:?}");
    }

    if let Ok(paths) = parse_projection(&text, &mut bindings())
        && let Some((printed, mut b)) = reparse(print::projection(&paths))
    {
        let again = parse_projection(&printed, &mut b)
            .unwrap_or_else(|e| panic!("printed projection {printed:?} refused: {e}"));
        assert_eq!(again, paths, "printed as {printed:?}");
    }
});
