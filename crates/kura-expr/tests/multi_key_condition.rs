//! Key conditions on a GSI's multi-attribute key: every partition key attribute by
//! equality, sort key attributes left to right, a range condition only on the last one.

use kura_expr::key_condition::{MultiKeyCondition, SortCondition, multi_key_condition};
use kura_expr::request::{Operation, compile};
use kura_expr::{Comparator, ExprError};
use kura_model::AttributeValue;

const HASH: [&str; 2] = ["h1", "h2"];
const RANGE: [&str; 3] = ["s1", "s2", "s3"];

fn check(expr: &str) -> Result<MultiKeyCondition, ExprError> {
    let values = r#"{":t":{"S":"T"},":g":{"S":"G"},":r":{"S":"R"},":b":{"S":"B"},":m":{"S":"M"},":x":{"S":"X"}}"#;
    let used: Vec<&str> = [":t", ":g", ":r", ":b", ":m", ":x"]
        .into_iter()
        .filter(|k| expr.contains(k))
        .collect();
    let values: serde_json::Value = serde_json::from_str(values).expect("values");
    let values: serde_json::Map<String, serde_json::Value> = used
        .iter()
        .map(|k| ((*k).to_owned(), values[*k].clone()))
        .collect();
    let params = serde_json::json!({
        "KeyConditionExpression": expr,
        "ExpressionAttributeValues": values,
    });
    let params = serde_json::from_value(params).expect("params");
    let compiled = compile(Operation::Query, params)?;
    let condition = compiled.key_condition.expect("key condition");
    multi_key_condition(&condition, &HASH, &RANGE)
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::s(v)
}

#[test]
fn accepted_shapes() {
    let all = check("h1 = :t AND h2 = :g").expect("partition only");
    assert_eq!(all.partition, vec![s("T"), s("G")]);
    assert!(all.sort.is_empty());

    let reordered = check("h2 = :g AND s1 = :r AND h1 = :t").expect("any order");
    assert_eq!(reordered.partition, vec![s("T"), s("G")]);
    assert_eq!(
        reordered.sort,
        vec![SortCondition::Compare(Comparator::Eq, s("R"))]
    );

    let last_range = check("h1 = :t AND h2 = :g AND s1 = :r AND s2 = :b AND s3 > :m")
        .expect("range on the last");
    assert_eq!(last_range.sort.len(), 3);
    assert_eq!(
        last_range.sort.last(),
        Some(&SortCondition::Compare(Comparator::Gt, s("M")))
    );

    for expr in [
        "h1 = :t AND h2 = :g AND s1 BETWEEN :r AND :x",
        "h1 = :t AND h2 = :g AND s1 = :r AND begins_with(s2, :b)",
        "h1 = :t AND h2 = :g AND s1 <= :r",
        "h1 = :t AND h2 = :g AND s1 = :r AND s2 = :b AND s3 = :m",
    ] {
        check(expr).unwrap_or_else(|e| panic!("{expr}: {}", e.message()));
    }
}

#[test]
fn refused_shapes() {
    let cases = [
        ("h1 = :t", "Query condition missed key schema element: h2"),
        ("h1 = :t AND h2 > :g", "Query key condition not supported"),
        (
            "h1 = :t AND begins_with(h2, :g)",
            "Query key condition not supported",
        ),
        (
            "h1 = :t AND h2 = :g AND s2 = :b",
            "RANGE key attributes s1 must have equality conditions specified in the query because a condition is present on key attribute s2",
        ),
        (
            "h1 = :t AND h2 = :g AND s1 = :r AND s3 = :m",
            "RANGE key attributes s2 must have equality conditions specified in the query because a condition is present on key attribute s3",
        ),
        (
            "h1 = :t AND h2 = :g AND s3 = :m",
            "RANGE key attributes s1, s2 must have equality conditions specified in the query because a condition is present on key attribute s3",
        ),
        (
            "h1 = :t AND h2 = :g AND s1 > :r AND s2 = :b",
            "RANGE key attributes s1 must have equality conditions specified in the query because a condition is present on key attribute s2",
        ),
        (
            "h1 = :t AND h2 = :g AND begins_with(s1, :r) AND s2 = :b",
            "RANGE key attributes s1 must have equality conditions specified in the query because a condition is present on key attribute s2",
        ),
        (
            "h1 = :t AND h2 = :g AND color = :x",
            "Query condition missed key schema element: s1",
        ),
        (
            "h1 = :t AND h2 = :g AND s1 = :r AND s2 = :b AND s3 = :m AND color = :x",
            "Query condition missed key schema element: s3",
        ),
    ];
    for (expr, expected) in cases {
        let err = check(expr).expect_err(expr);
        assert_eq!(err.message(), expected, "{expr}");
    }
}
