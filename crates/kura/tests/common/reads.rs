//! Query and Scan through aws-sdk-dynamodb: key conditions, filters, projections, paging
//! forwards and backwards across the 1 MB page limit, Limit counted before the filter,
//! parallel scan segments.

use std::collections::{BTreeSet, HashMap};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue as V, ScalarAttributeType, Select};

use super::{code, create_table, message};

fn s(v: &str) -> V {
    V::S(v.to_owned())
}

fn n(v: i64) -> V {
    V::N(v.to_string())
}

fn sk_of(item: &HashMap<String, V>) -> i64 {
    match item.get("sk") {
        Some(V::N(text)) => text.parse().expect("integer"),
        other => panic!("no sk: {other:?}"),
    }
}

const ITEMS: i64 = 300;
const PAD: usize = 5_000;

pub async fn query_and_scan(client: &Client, table: &str) {
    create_table(client, table, "pk", Some(("sk", ScalarAttributeType::N))).await;
    for i in 0..ITEMS {
        client
            .put_item()
            .table_name(table)
            .item("pk", s("P"))
            .item("sk", n(i))
            .item("even", V::Bool(i % 2 == 0))
            .item("filler", s(&"x".repeat(PAD)))
            .send()
            .await
            .expect("put");
    }
    for other in ["Q", "R", "S"] {
        client
            .put_item()
            .table_name(table)
            .item("pk", s(other))
            .item("sk", n(1))
            .send()
            .await
            .expect("put");
    }
    paging(client, table, true).await;
    paging(client, table, false).await;
    limit_before_filter(client, table).await;
    key_conditions(client, table).await;
    string_sort_keys(client, table).await;
    scans(client, table).await;
    errors(client, table).await;
}

/// Reads partition P page by page; the pages must hold every item exactly once, in order.
async fn paging(client: &Client, table: &str, forward: bool) {
    let mut seen = Vec::new();
    let mut start = None;
    let mut pages = 0;
    loop {
        let page = client
            .query()
            .table_name(table)
            .key_condition_expression("pk = :p")
            .expression_attribute_values(":p", s("P"))
            .scan_index_forward(forward)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("query");
        pages += 1;
        let items = page.items();
        assert!(
            items.len() < ITEMS as usize,
            "a 1.5 MB partition needs two pages"
        );
        assert_eq!(page.count() as usize, items.len());
        assert_eq!(page.scanned_count(), page.count());
        seen.extend(items.iter().map(sk_of));
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            break;
        }
    }
    assert_eq!(pages, 2);
    let mut expected: Vec<i64> = (0..ITEMS).collect();
    if !forward {
        expected.reverse();
    }
    assert_eq!(seen, expected, "every item once, in sort-key order");
}

/// Limit counts items read, before the filter; Count counts those that pass.
async fn limit_before_filter(client: &Client, table: &str) {
    let mut evens = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .query()
            .table_name(table)
            .key_condition_expression("pk = :p AND sk < :max")
            .filter_expression("even = :t")
            .projection_expression("sk")
            .expression_attribute_values(":p", s("P"))
            .expression_attribute_values(":max", n(50))
            .expression_attribute_values(":t", V::Bool(true))
            .limit(7)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("query");
        assert!(page.scanned_count() <= 7);
        for item in page.items() {
            assert_eq!(item.len(), 1, "projected to sk only");
            evens.push(sk_of(item));
        }
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            break;
        }
    }
    assert_eq!(evens, (0..50).step_by(2).collect::<Vec<_>>());

    let counted = client
        .query()
        .table_name(table)
        .key_condition_expression("pk = :p AND sk BETWEEN :lo AND :hi")
        .filter_expression("even = :t")
        .expression_attribute_values(":p", s("P"))
        .expression_attribute_values(":lo", n(10))
        .expression_attribute_values(":hi", n(19))
        .expression_attribute_values(":t", V::Bool(true))
        .select(Select::Count)
        .send()
        .await
        .expect("count");
    assert_eq!(counted.count(), 5);
    assert_eq!(counted.scanned_count(), 10);
    assert!(counted.items().is_empty());
}

async fn key_conditions(client: &Client, table: &str) {
    let range = |expr: &'static str, a: i64, b: Option<i64>| {
        let mut q = client
            .query()
            .table_name(table)
            .key_condition_expression(expr)
            .expression_attribute_values(":p", s("P"))
            .expression_attribute_values(":a", n(a))
            .projection_expression("sk");
        if let Some(b) = b {
            q = q.expression_attribute_values(":b", n(b));
        }
        q.send()
    };
    let sks = |out: aws_sdk_dynamodb::operation::query::QueryOutput| -> Vec<i64> {
        out.items().iter().map(sk_of).collect()
    };
    assert_eq!(
        sks(range("pk = :p AND sk = :a", 5, None).await.expect("query")),
        vec![5]
    );
    assert_eq!(
        sks(range("pk = :p AND sk < :a", 3, None).await.expect("query")),
        vec![0, 1, 2]
    );
    assert_eq!(
        sks(range("pk = :p AND sk >= :a", 297, None)
            .await
            .expect("query")),
        vec![297, 298, 299]
    );
    assert_eq!(
        sks(range(":a >= sk AND pk = :p", 1, None).await.expect("query")),
        vec![0, 1]
    );
    assert_eq!(
        sks(range("pk = :p AND sk BETWEEN :a AND :b", 7, Some(9))
            .await
            .expect("query")),
        vec![7, 8, 9]
    );
}

/// Sort-key ranges on strings, including bytes the key encoding escapes, and a start key
/// at the end of an equality range.
async fn string_sort_keys(client: &Client, table: &str) {
    let name = format!("{table}Strings");
    create_table(client, &name, "pk", Some(("sk", ScalarAttributeType::S))).await;
    let sks = [
        "ORDER#1",
        "ORDER#1\0x",
        "ORDER#10",
        "ORDER#2",
        "ORDER\u{ff}",
        "ORDEQ",
        "P",
    ];
    for sk in sks {
        client
            .put_item()
            .table_name(&name)
            .item("pk", s("T"))
            .item("sk", s(sk))
            .send()
            .await
            .expect("put");
    }
    let query = |expr: &'static str, v: &'static str| {
        client
            .query()
            .table_name(&name)
            .key_condition_expression(expr)
            .expression_attribute_values(":p", s("T"))
            .expression_attribute_values(":v", s(v))
    };
    let got: Vec<String> = query("pk = :p AND begins_with(sk, :v)", "ORDER#1")
        .send()
        .await
        .expect("begins_with")
        .items()
        .iter()
        .map(|i| match i.get("sk") {
            Some(V::S(v)) => v.clone(),
            _ => panic!("sk"),
        })
        .collect();
    assert_eq!(got, vec!["ORDER#1", "ORDER#1\0x", "ORDER#10"]);
    let below = query("pk = :p AND sk < :v", "ORDER#2")
        .send()
        .await
        .expect("lt");
    assert_eq!(below.count(), 4, "ORDEQ, ORDER#1, ORDER#1\\0x, ORDER#10");
    let exact = query("pk = :p AND sk = :v", "ORDER#2")
        .exclusive_start_key("pk", s("T"))
        .exclusive_start_key("sk", s("ORDER#2"))
        .send()
        .await
        .expect("after the only match");
    assert_eq!(exact.count(), 0);
    assert!(exact.last_evaluated_key().is_none());
}

async fn scans(client: &Client, table: &str) {
    let total = ITEMS as usize + 3;
    let mut all = BTreeSet::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .projection_expression("pk, sk")
            .limit(40)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("scan");
        for item in page.items() {
            assert!(
                all.insert(format!("{:?}/{}", item.get("pk"), sk_of(item))),
                "duplicate"
            );
        }
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            break;
        }
    }
    assert_eq!(all.len(), total);

    let mut segmented = BTreeSet::new();
    for segment in 0..4 {
        let mut start = None;
        loop {
            let page = client
                .scan()
                .table_name(table)
                .segment(segment)
                .total_segments(4)
                .projection_expression("pk, sk")
                .set_exclusive_start_key(start)
                .send()
                .await
                .expect("segment scan");
            for item in page.items() {
                assert!(
                    segmented.insert(format!("{:?}/{}", item.get("pk"), sk_of(item))),
                    "an item in two segments"
                );
            }
            start = page.last_evaluated_key().cloned();
            if start.is_none() {
                break;
            }
        }
    }
    assert_eq!(segmented, all, "the segments cover the table exactly once");

    let filtered = client
        .scan()
        .table_name(table)
        .filter_expression("attribute_not_exists(filler)")
        .send()
        .await
        .expect("filtered scan");
    let mut count = filtered.count();
    let mut start = filtered.last_evaluated_key().cloned();
    while start.is_some() {
        let page = client
            .scan()
            .table_name(table)
            .filter_expression("attribute_not_exists(filler)")
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("filtered scan");
        count += page.count();
        start = page.last_evaluated_key().cloned();
    }
    assert_eq!(count, 3);
}

async fn errors(client: &Client, table: &str) {
    let no_key = client
        .query()
        .table_name(table)
        .filter_expression("sk = :a")
        .expression_attribute_values(":a", n(1))
        .send()
        .await
        .expect_err("a Query needs a key condition");
    assert_eq!(code(&no_key), "ValidationException");
    assert_eq!(
        message(&no_key),
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."
    );
    let wrong_type = client
        .query()
        .table_name(table)
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", n(1))
        .send()
        .await
        .expect_err("partition key is a string");
    assert_eq!(
        message(&wrong_type),
        "One or more parameter values were invalid: Condition parameter type does not match schema type"
    );
    let outside = client
        .query()
        .table_name(table)
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("P"))
        .exclusive_start_key("pk", s("Q"))
        .exclusive_start_key("sk", n(1))
        .send()
        .await
        .expect_err("a start key from another partition");
    assert_eq!(
        message(&outside),
        "The provided starting key is outside query boundaries based on provided conditions"
    );
    let long = client
        .query()
        .table_name(table)
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s(&"k".repeat(70_000)))
        .send()
        .await
        .expect_err("a partition key value over 2048 bytes");
    assert_eq!(
        message(&long),
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"
    );
    let long_sort = client
        .query()
        .table_name(table)
        .key_condition_expression("pk = :p AND sk > :v")
        .expression_attribute_values(":p", s("P"))
        .expression_attribute_values(":v", V::N("1".repeat(38)))
        .send()
        .await
        .expect("a 38-digit number is a valid sort value");
    assert_eq!(long_sort.count(), 0);
    let key_filter = client
        .query()
        .table_name(table)
        .key_condition_expression("pk = :p")
        .filter_expression("sk > :v")
        .expression_attribute_values(":p", s("P"))
        .expression_attribute_values(":v", n(1))
        .send()
        .await
        .expect_err("a filter on a key attribute");
    assert_eq!(
        message(&key_filter),
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"
    );
    let shape_first = client
        .query()
        .table_name("NoSuchTable")
        .key_condition_expression("pk = :p OR pk = :p")
        .expression_attribute_values(":p", s("P"))
        .send()
        .await
        .expect_err("a malformed key condition is refused before the table lookup");
    assert_eq!(code(&shape_first), "ValidationException");
    let segment = client
        .scan()
        .table_name(table)
        .segment(4)
        .total_segments(4)
        .send()
        .await
        .expect_err("segment out of range");
    assert_eq!(
        message(&segment),
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 4 is not less than TotalSegments: 4"
    );
}
