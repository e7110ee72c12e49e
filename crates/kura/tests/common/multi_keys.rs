//! Multi-attribute GSI keys through aws-sdk-dynamodb (Developer Guide, "Multi-attribute
//! keys pattern"): a GSI of two HASH and three RANGE attributes (a number, then two
//! strings) and a KEYS_ONLY one; DescribeTable's KeySchema; sparse items; every accepted
//! key condition shape and the refused ones; order across the mixed types in both
//! directions; Limit paging and LastEvaluatedKey's shape; Scan on the index; legacy
//! KeyConditions; invalid key schemas; the stream's records; and a multi-attribute GSI
//! added by UpdateTable to a table with items.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as V, BillingMode, ComparisonOperator, Condition,
    CreateGlobalSecondaryIndexAction, GlobalSecondaryIndex, GlobalSecondaryIndexUpdate,
    IndexStatus, KeyType, LocalSecondaryIndex, Projection, ProjectionType, ScalarAttributeType,
    StreamSpecification, StreamViewType,
};
use aws_sdk_dynamodbstreams::Client as StreamsClient;

use super::{code, def, key, message};

type Item = HashMap<String, V>;

fn s(v: &str) -> V {
    V::S(v.to_owned())
}

fn n(v: i64) -> V {
    V::N(v.to_string())
}

fn all() -> Projection {
    Projection::builder()
        .projection_type(ProjectionType::All)
        .build()
}

fn keys_only() -> Projection {
    Projection::builder()
        .projection_type(ProjectionType::KeysOnly)
        .build()
}

/// A GSI of the HASH attributes `hash` and the RANGE attributes `range`, in that order.
fn gsi(name: &str, hash: &[&str], range: &[&str], projection: Projection) -> GlobalSecondaryIndex {
    let mut b = GlobalSecondaryIndex::builder()
        .index_name(name)
        .projection(projection);
    for h in hash {
        b = b.key_schema(key(h, KeyType::Hash));
    }
    for r in range {
        b = b.key_schema(key(r, KeyType::Range));
    }
    b.build().expect("gsi")
}

const MATCHES: &[&str] = &["tournament", "region"];
const MATCH_SORT: &[&str] = &["round", "bracket", "matchId"];

/// Match `i`: two tournaments, two regions, rounds 1..=12 in each partition (so that
/// 9 < 10 < 12 tests the numeric order), two brackets; every 9th lacks `region` and every
/// 11th `bracket`.
fn match_item(i: usize) -> Item {
    let mut item = HashMap::from([
        ("pk".to_owned(), s(&format!("m{i:03}"))),
        ("tournament".to_owned(), s(["WINTER", "SPRING"][i % 2])),
        ("region".to_owned(), s(["EAST", "WEST"][i / 2 % 2])),
        ("round".to_owned(), n((i / 4 % 12) as i64 + 1)),
        ("bracket".to_owned(), s(["LOWER", "UPPER"][i / 3 % 2])),
        ("matchId".to_owned(), s(&format!("id{:02}", 50 - i % 50))),
        ("player".to_owned(), s(&format!("p{}", i % 4))),
        ("day".to_owned(), n((i % 5) as i64)),
        ("winner".to_owned(), s(&format!("w{i}"))),
    ]);
    if i.is_multiple_of(9) {
        item.remove("region");
    }
    if i.is_multiple_of(11) {
        item.remove("bracket");
    }
    item
}

const MATCH_COUNT: usize = 160;

fn in_index(item: &Item) -> bool {
    MATCHES
        .iter()
        .chain(MATCH_SORT)
        .all(|k| item.contains_key(*k))
}

/// The sort order of a Matches entry: round numerically, then bracket and matchId by
/// bytes, then the table key.
fn match_order(item: &Item) -> (i64, String, String, String) {
    let num = |k: &str| match &item[k] {
        V::N(v) => v.parse::<i64>().expect("number"),
        other => panic!("{k}: {other:?}"),
    };
    let text = |k: &str| match &item[k] {
        V::S(v) => v.clone(),
        other => panic!("{k}: {other:?}"),
    };
    (num("round"), text("bracket"), text("matchId"), text("pk"))
}

async fn create(client: &Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .attribute_definitions(def("tournament", ScalarAttributeType::S))
        .attribute_definitions(def("region", ScalarAttributeType::S))
        .attribute_definitions(def("round", ScalarAttributeType::N))
        .attribute_definitions(def("bracket", ScalarAttributeType::S))
        .attribute_definitions(def("matchId", ScalarAttributeType::S))
        .attribute_definitions(def("player", ScalarAttributeType::S))
        .attribute_definitions(def("day", ScalarAttributeType::N))
        .key_schema(key("pk", KeyType::Hash))
        .global_secondary_indexes(gsi("Matches", MATCHES, MATCH_SORT, all()))
        .global_secondary_indexes(gsi("ByPlayer", &["player"], &["day", "round"], keys_only()))
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::KeysOnly)
                .build()
                .expect("stream"),
        )
        .send()
        .await
        .expect("create table with multi-attribute GSIs");
}

/// Every page of a Query on Matches in partition (WINTER, EAST), narrowed by `extra`
/// (a KeyConditionExpression suffix with its values), `limit` items a page.
async fn query_matches(
    client: &Client,
    table: &str,
    extra: (&str, &[(&str, V)]),
    forward: bool,
    limit: Option<i32>,
) -> (Vec<Item>, usize) {
    let mut out = Vec::new();
    let mut pages = 0;
    let mut start: Option<Item> = None;
    loop {
        let mut req = client
            .query()
            .table_name(table)
            .index_name("Matches")
            .key_condition_expression(format!("tournament = :t AND #r = :g{}", extra.0))
            .expression_attribute_names("#r", "region")
            .expression_attribute_values(":t", s("WINTER"))
            .expression_attribute_values(":g", s("EAST"))
            .scan_index_forward(forward)
            .set_limit(limit)
            .set_exclusive_start_key(start.take());
        for (name, value) in extra.1 {
            req = req.expression_attribute_values(*name, value.clone());
        }
        let page = req.send().await.expect("query Matches");
        pages += 1;
        out.extend(page.items().iter().cloned());
        match page.last_evaluated_key() {
            Some(k) => {
                let mut names: Vec<&str> = k.keys().map(String::as_str).collect();
                names.sort_unstable();
                assert_eq!(
                    names,
                    ["bracket", "matchId", "pk", "region", "round", "tournament"],
                    "LastEvaluatedKey: the table key and every index key attribute"
                );
                start = Some(k.clone());
            }
            None => return (out, pages),
        }
    }
}

pub async fn multi_attribute_keys(client: &Client, streams: &StreamsClient, table: &str) {
    create(client, table).await;
    let described = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .expect("describe");
    let gsis = described.table().expect("table").global_secondary_indexes();
    let schema = |name: &str| -> Vec<(String, String)> {
        gsis.iter()
            .find(|g| g.index_name() == Some(name))
            .expect("index")
            .key_schema()
            .iter()
            .map(|k| {
                (
                    k.attribute_name().to_owned(),
                    k.key_type().as_str().to_owned(),
                )
            })
            .collect()
    };
    let want: Vec<(String, String)> = [
        ("tournament", "HASH"),
        ("region", "HASH"),
        ("round", "RANGE"),
        ("bracket", "RANGE"),
        ("matchId", "RANGE"),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
    .collect();
    assert_eq!(schema("Matches"), want);

    let items: Vec<Item> = (0..MATCH_COUNT).map(match_item).collect();
    for item in &items {
        client
            .put_item()
            .table_name(table)
            .set_item(Some(item.clone()))
            .send()
            .await
            .expect("put match");
    }
    // A mistyped key attribute of a multi-attribute GSI is refused as for any GSI.
    let mut bad = match_item(1);
    bad.insert("bracket".into(), n(3));
    let err = client
        .put_item()
        .table_name(table)
        .set_item(Some(bad))
        .send()
        .await
        .expect_err("mistyped index key");
    assert_eq!(code(&err), "ValidationException");
    assert!(
        message(&err).contains("Type mismatch for Index Key bracket"),
        "{}",
        message(&err)
    );

    // Sparse: only complete items are in the index, and ItemCount says so.
    let complete = items.iter().filter(|i| in_index(i)).count();
    let described = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .expect("describe");
    let count = described.table().expect("table").global_secondary_indexes()[0].item_count();
    assert_eq!(count, Some(complete as i64));
    let scanned = client
        .scan()
        .table_name(table)
        .index_name("Matches")
        .send()
        .await
        .expect("scan index");
    assert_eq!(scanned.count() as usize, complete);

    let mut partition: Vec<Item> = items
        .iter()
        .filter(|i| in_index(i) && i["tournament"] == s("WINTER") && i["region"] == s("EAST"))
        .cloned()
        .collect();
    partition.sort_by_key(match_order);
    let ids = |items: &[Item]| -> Vec<V> { items.iter().map(|i| i["pk"].clone()).collect() };

    // The whole partition in sort order, paged 3 at a time, and backwards.
    let (forward, pages) = query_matches(client, table, ("", &[]), true, Some(3)).await;
    assert_eq!(ids(&forward), ids(&partition));
    assert!(pages > 3, "Limit paged the query ({pages} pages)");
    let (mut backward, _) = query_matches(client, table, ("", &[]), false, Some(4)).await;
    backward.reverse();
    assert_eq!(ids(&backward), ids(&partition));

    // Each accepted shape returns exactly the entries it describes, in order.
    type Pick = fn(&Item) -> bool;
    type Shape<'a> = (&'a str, Vec<(&'a str, V)>, Pick);
    let round = |i: &Item| match_order(i).0;
    let shapes: Vec<Shape> = vec![
        (" AND round = :a", vec![(":a", n(10))], |i| {
            match_order(i).0 == 10
        }),
        (" AND round < :a", vec![(":a", n(10))], |i| {
            match_order(i).0 < 10
        }),
        (" AND round <= :a", vec![(":a", n(10))], |i| {
            match_order(i).0 <= 10
        }),
        (" AND round > :a", vec![(":a", n(9))], |i| {
            match_order(i).0 > 9
        }),
        (" AND round >= :a", vec![(":a", n(9))], |i| {
            match_order(i).0 >= 9
        }),
        (
            " AND round BETWEEN :a AND :b",
            vec![(":a", n(2)), (":b", n(10))],
            |i| (2..=10).contains(&match_order(i).0),
        ),
        (
            " AND round = :a AND bracket = :b",
            vec![(":a", n(5)), (":b", s("UPPER"))],
            |i| match_order(i).0 == 5 && match_order(i).1 == "UPPER",
        ),
        (
            " AND round = :a AND begins_with(bracket, :b)",
            vec![(":a", n(1)), (":b", s("LOW"))],
            |i| match_order(i).0 == 1 && match_order(i).1.starts_with("LOW"),
        ),
        (
            " AND round = :a AND bracket = :b AND matchId > :c",
            vec![(":a", n(1)), (":b", s("LOWER")), (":c", s("id01"))],
            |i| {
                let (r, b, m, _) = match_order(i);
                r == 1 && b == "LOWER" && m.as_str() > "id01"
            },
        ),
        (
            " AND round = :a AND bracket = :b AND matchId BETWEEN :c AND :d",
            vec![
                (":a", n(5)),
                (":b", s("UPPER")),
                (":c", s("id00")),
                (":d", s("id99")),
            ],
            |i| match_order(i).0 == 5 && match_order(i).1 == "UPPER",
        ),
    ];
    for (extra, values, pick) in &shapes {
        let want: Vec<Item> = partition.iter().filter(|i| pick(i)).cloned().collect();
        for forward in [true, false] {
            let (mut got, _) =
                query_matches(client, table, (extra, values.as_slice()), forward, Some(2)).await;
            if !forward {
                got.reverse();
            }
            assert_eq!(ids(&got), ids(&want), "{extra} forward={forward}");
        }
    }
    assert!(
        partition.iter().any(|i| round(i) >= 10),
        "rounds past 9 are there"
    );

    // Refused shapes.
    type Refused<'a> = (&'a str, &'a [(&'a str, V)], &'a str);
    let refused: &[Refused] = &[
        (
            "tournament = :t",
            &[(":t", s("WINTER"))],
            "Query condition missed key schema element: region",
        ),
        (
            "tournament = :t AND #r > :g",
            &[(":t", s("WINTER")), (":g", s("EAST"))],
            "Query key condition not supported",
        ),
        (
            "tournament = :t AND #r = :g AND bracket = :b",
            &[(":t", s("WINTER")), (":g", s("EAST")), (":b", s("UPPER"))],
            "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute bracket",
        ),
        (
            "tournament = :t AND #r = :g AND round = :a AND matchId = :m",
            &[
                (":t", s("WINTER")),
                (":g", s("EAST")),
                (":a", n(1)),
                (":m", s("x")),
            ],
            "RANGE key attributes bracket must have equality conditions specified in the query because a condition is present on key attribute matchId",
        ),
        (
            "tournament = :t AND #r = :g AND round > :a AND bracket = :b",
            &[
                (":t", s("WINTER")),
                (":g", s("EAST")),
                (":a", n(1)),
                (":b", s("UPPER")),
            ],
            "RANGE key attributes round must have equality conditions specified in the query because a condition is present on key attribute bracket",
        ),
        // An attribute outside a GSI's key (issue 58).
        (
            "tournament = :t AND #r = :g AND winner = :w",
            &[(":t", s("WINTER")), (":g", s("EAST")), (":w", s("w1"))],
            "Query key condition not supported",
        ),
        (
            "tournament = :t AND #r = :g AND round = :a",
            &[(":t", s("WINTER")), (":g", s("EAST")), (":a", s("1"))],
            "One or more parameter values were invalid: Condition parameter type does not match schema type",
        ),
    ];
    for (expr, values, expected) in refused {
        let mut req = client
            .query()
            .table_name(table)
            .index_name("Matches")
            .key_condition_expression(*expr);
        if expr.contains("#r") {
            req = req.expression_attribute_names("#r", "region");
        }
        for (name, value) in *values {
            req = req.expression_attribute_values(*name, value.clone());
        }
        let err = req.send().await.expect_err(expr);
        assert_eq!(code(&err), "ValidationException", "{expr}");
        assert_eq!(message(&err), *expected, "{expr}");
    }
    // A filter on any key attribute of the index is refused; on others it applies.
    let err = client
        .query()
        .table_name(table)
        .index_name("Matches")
        .key_condition_expression("tournament = :t AND #r = :g")
        .filter_expression("bracket = :b")
        .expression_attribute_names("#r", "region")
        .expression_attribute_values(":t", s("WINTER"))
        .expression_attribute_values(":g", s("EAST"))
        .expression_attribute_values(":b", s("UPPER"))
        .send()
        .await
        .expect_err("filter on a key");
    assert_eq!(
        message(&err),
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: bracket"
    );

    // Legacy KeyConditions: three conditions on a multi-attribute key.
    let eq = |v: V| {
        Condition::builder()
            .comparison_operator(ComparisonOperator::Eq)
            .attribute_value_list(v)
            .build()
            .expect("condition")
    };
    let legacy = client
        .query()
        .table_name(table)
        .index_name("Matches")
        .key_conditions("tournament", eq(s("WINTER")))
        .key_conditions("region", eq(s("EAST")))
        .key_conditions(
            "round",
            Condition::builder()
                .comparison_operator(ComparisonOperator::Ge)
                .attribute_value_list(n(9))
                .build()
                .expect("condition"),
        )
        .send()
        .await
        .expect("legacy KeyConditions");
    let want: Vec<Item> = partition
        .iter()
        .filter(|i| round(i) >= 9)
        .cloned()
        .collect();
    assert_eq!(ids(legacy.items()), ids(&want));

    // KEYS_ONLY carries the table key and every index key attribute.
    let by_player = client
        .query()
        .table_name(table)
        .index_name("ByPlayer")
        .key_condition_expression("player = :p AND #d = :d")
        .expression_attribute_names("#d", "day")
        .expression_attribute_values(":p", s("p1"))
        .expression_attribute_values(":d", n(1))
        .send()
        .await
        .expect("query ByPlayer");
    assert!(by_player.count() > 0);
    for item in by_player.items() {
        let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["day", "pk", "player", "round"]);
    }

    // The stream's records name the table key only: index keys do not change them.
    let (records, _) = super::streams::read_all(client, streams, table).await;
    assert_eq!(records.len(), MATCH_COUNT);
    for record in &records {
        let keys = record
            .dynamodb()
            .and_then(|d| d.keys())
            .expect("record keys");
        assert_eq!(keys.keys().collect::<Vec<_>>(), ["pk"]);
    }
}

/// Invalid multi-attribute key schemas, and the one-HASH-one-RANGE rule of tables and
/// LSIs, with their messages.
pub async fn invalid_schemas(client: &Client) {
    let attempt = |name: &'static str, hash: Vec<&'static str>, range: Vec<&'static str>| {
        let mut all_defs: Vec<&str> = vec!["pk"];
        all_defs.extend(hash.iter().chain(&range).filter(|a| **a != "undefined"));
        all_defs.sort_unstable();
        all_defs.dedup();
        let mut req = client
            .create_table()
            .table_name(name)
            .billing_mode(BillingMode::PayPerRequest)
            .key_schema(key("pk", KeyType::Hash))
            .global_secondary_indexes(gsi("gsi", &hash, &range, all()));
        for d in all_defs {
            req = req.attribute_definitions(def(d, ScalarAttributeType::S));
        }
        req.send()
    };
    let cases: Vec<(Vec<&str>, Vec<&str>, String)> = vec![
        (
            vec!["a", "b", "c", "d", "e"],
            vec![],
            "One or more parameter values were invalid: Index KeySchema has more than 4 HASH key attributes for index: gsi".into(),
        ),
        (
            vec!["a"],
            vec!["b", "c", "d", "e", "f"],
            "One or more parameter values were invalid: Index KeySchema has more than 4 RANGE key attributes for index: gsi".into(),
        ),
        (
            vec!["a", "b", "a"],
            vec![],
            "One or more parameter values were invalid: Duplicate AttributeName a in Index KeySchema for index: gsi".into(),
        ),
        (
            vec!["a", "b"],
            vec!["a"],
            "One or more parameter values were invalid: Duplicate AttributeName a in Index KeySchema for index: gsi".into(),
        ),
        (
            vec!["a", "undefined"],
            vec!["c"],
            "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [a, undefined, c], AttributeDefinitions: [a, c, pk]".into(),
        ),
    ];
    for (hash, range, expected) in cases {
        let err = attempt("BadGsi", hash.clone(), range.clone())
            .await
            .expect_err("invalid schema");
        assert_eq!(code(&err), "ValidationException", "{hash:?} {range:?}");
        assert_eq!(message(&err), expected, "{hash:?} {range:?}");
    }
    // HASH after RANGE, and a RANGE-only key.
    let ordered = |elements: &[(&str, KeyType)]| {
        let mut g = GlobalSecondaryIndex::builder()
            .index_name("gsi")
            .projection(all());
        for (name, ty) in elements {
            g = g.key_schema(key(name, ty.clone()));
        }
        client
            .create_table()
            .table_name("BadOrder")
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(def("pk", ScalarAttributeType::S))
            .attribute_definitions(def("a", ScalarAttributeType::S))
            .attribute_definitions(def("b", ScalarAttributeType::S))
            .attribute_definitions(def("c", ScalarAttributeType::S))
            .key_schema(key("pk", KeyType::Hash))
            .global_secondary_indexes(g.build().expect("gsi"))
            .send()
    };
    let err = ordered(&[
        ("a", KeyType::Hash),
        ("b", KeyType::Range),
        ("c", KeyType::Hash),
    ])
    .await
    .expect_err("HASH after RANGE");
    assert_eq!(
        message(&err),
        "Invalid KeySchema: A HASH KeySchemaElement cannot follow a RANGE KeySchemaElement"
    );
    let err = ordered(&[
        ("a", KeyType::Range),
        ("b", KeyType::Range),
        ("c", KeyType::Range),
    ])
    .await
    .expect_err("no HASH");
    assert_eq!(
        message(&err),
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
    );
    // Tables and LSIs keep one HASH and at most one RANGE.
    let err = client
        .create_table()
        .table_name("TwoHash")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("a", ScalarAttributeType::S))
        .attribute_definitions(def("b", ScalarAttributeType::S))
        .key_schema(key("a", KeyType::Hash))
        .key_schema(key("b", KeyType::Hash))
        .send()
        .await
        .expect_err("table with two HASH keys");
    assert_eq!(
        message(&err),
        "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"
    );
    let err = client
        .create_table()
        .table_name("WideLsi")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("a", ScalarAttributeType::S))
        .attribute_definitions(def("b", ScalarAttributeType::S))
        .attribute_definitions(def("c", ScalarAttributeType::S))
        .key_schema(key("a", KeyType::Hash))
        .key_schema(key("b", KeyType::Range))
        .local_secondary_indexes(
            LocalSecondaryIndex::builder()
                .index_name("lsi")
                .key_schema(key("a", KeyType::Hash))
                .key_schema(key("b", KeyType::Range))
                .key_schema(key("c", KeyType::Range))
                .projection(all())
                .build()
                .expect("lsi"),
        )
        .send()
        .await
        .expect_err("LSI with two RANGE keys");
    assert_eq!(
        message(&err),
        "1 validation error detected: Value '[...]' at 'localSecondaryIndexes.1.member.keySchema' failed to satisfy constraint: Member must have length less than or equal to 2"
    );
}

/// A multi-attribute GSI added by UpdateTable to a table with items fills from them, then
/// answers queries on its whole key.
pub async fn multi_attribute_backfill(client: &Client, table: &str, items: usize) {
    super::create_table(client, table, "pk", None).await;
    let requests: Vec<_> = (0..items)
        .map(|i| {
            aws_sdk_dynamodb::types::WriteRequest::builder()
                .put_request(
                    aws_sdk_dynamodb::types::PutRequest::builder()
                        .item("pk", s(&format!("k{i}")))
                        .item("tenant", s(&format!("t{}", i % 3)))
                        .item("year", n(2020 + (i % 4) as i64))
                        .item("month", n((i % 12) as i64 + 1))
                        .item("title", s(&format!("doc {i}")))
                        .build()
                        .expect("put request"),
                )
                .build()
        })
        .collect();
    for chunk in requests.chunks(25) {
        client
            .batch_write_item()
            .request_items(table, chunk.to_vec())
            .send()
            .await
            .expect("batch");
    }
    client
        .update_table()
        .table_name(table)
        .attribute_definitions(def("tenant", ScalarAttributeType::S))
        .attribute_definitions(def("year", ScalarAttributeType::N))
        .attribute_definitions(def("month", ScalarAttributeType::N))
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder()
                .create(
                    CreateGlobalSecondaryIndexAction::builder()
                        .index_name("ByTenantYear")
                        .key_schema(key("tenant", KeyType::Hash))
                        .key_schema(key("year", KeyType::Hash))
                        .key_schema(key("month", KeyType::Range))
                        .key_schema(key("title", KeyType::Range))
                        .projection(keys_only())
                        .build()
                        .expect("create action"),
                )
                .build(),
        )
        .attribute_definitions(def("title", ScalarAttributeType::S))
        .send()
        .await
        .expect("create multi-attribute index on a table with items");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let d = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .expect("describe");
        let index = d.table().expect("table").global_secondary_indexes()[0].clone();
        if index.index_status() == Some(&IndexStatus::Active) {
            assert_eq!(index.item_count(), Some(items as i64));
            assert_eq!(index.key_schema().len(), 4);
            break;
        }
        assert!(Instant::now() < deadline, "backfill did not finish");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let page = client
        .query()
        .table_name(table)
        .index_name("ByTenantYear")
        .key_condition_expression("tenant = :t AND #y = :y AND #m BETWEEN :a AND :b")
        .expression_attribute_names("#y", "year")
        .expression_attribute_names("#m", "month")
        .expression_attribute_values(":t", s("t1"))
        .expression_attribute_values(":y", n(2021))
        .expression_attribute_values(":a", n(2))
        .expression_attribute_values(":b", n(10))
        .send()
        .await
        .expect("query the filled index");
    let want = (0..items)
        .filter(|i| i % 3 == 1 && 2020 + i % 4 == 2021 && (2..=10).contains(&(i % 12 + 1)))
        .count();
    assert_eq!(page.count() as usize, want);
    let months: Vec<i64> = page
        .items()
        .iter()
        .map(|i| match &i["month"] {
            V::N(v) => v.parse().expect("month"),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(months.windows(2).all(|w| w[0] <= w[1]), "{months:?}");
}
