//! Secondary indexes through aws-sdk-dynamodb: seed 003's single-table design (user
//! profiles and orders in one table, GSI1 newest-first with paging, status + date range
//! with BETWEEN and a filter), sparse indexes, projections and their errors, index
//! capacity, and GSI creation on a table that already has items.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as V, BillingMode, CreateGlobalSecondaryIndexAction, GlobalSecondaryIndex,
    GlobalSecondaryIndexUpdate, IndexStatus, KeyType, Projection, ProjectionType,
    ReturnConsumedCapacity, ScalarAttributeType, Select,
};

use super::{code, def, key, message};

type Item = HashMap<String, V>;

const STATUSES: [&str; 4] = ["pending", "shipped", "delivered", "cancelled"];
const ORDERS: usize = 60;

fn s(v: &str) -> V {
    V::S(v.to_owned())
}

fn text<'i>(item: &'i Item, name: &str) -> &'i str {
    match item.get(name) {
        Some(V::S(v)) => v,
        other => panic!("{name} is not a string: {other:?}"),
    }
}

fn gsi(name: &str, pk: &str, sk: Option<&str>, projection: Projection) -> GlobalSecondaryIndex {
    let mut b = GlobalSecondaryIndex::builder()
        .index_name(name)
        .key_schema(key(pk, KeyType::Hash))
        .projection(projection);
    if let Some(sk) = sk {
        b = b.key_schema(key(sk, KeyType::Range));
    }
    b.build().expect("gsi")
}

fn projection(ty: ProjectionType, non_key: &[&str]) -> Projection {
    let mut b = Projection::builder().projection_type(ty);
    for n in non_key {
        b = b.non_key_attributes(*n);
    }
    b.build()
}

/// The order with number `i`: created on a day of November 2026, one of four statuses.
fn order(i: usize) -> Item {
    let created = format!("2026-11-{:02}T{:02}:00:00Z", 1 + i % 28, i % 24);
    let id = format!("o{i:03}");
    HashMap::from([
        ("PK".into(), s(&format!("USER#{}", i % 5))),
        ("SK".into(), s(&format!("ORDER#{id}"))),
        ("GSI1PK".into(), s("ORDER")),
        ("GSI1SK".into(), s(&format!("{created}#{id}"))),
        ("status".into(), s(STATUSES[i % 4])),
        ("total".into(), V::N(format!("{}", 10 + i))),
        ("createdAt".into(), s(&created)),
    ])
}

/// Seed 003 end to end: the table of the seed's CDK definition and its two GSI1 queries.
pub async fn seed_single_table(client: &Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("PK", ScalarAttributeType::S))
        .attribute_definitions(def("SK", ScalarAttributeType::S))
        .attribute_definitions(def("GSI1PK", ScalarAttributeType::S))
        .attribute_definitions(def("GSI1SK", ScalarAttributeType::S))
        .key_schema(key("PK", KeyType::Hash))
        .key_schema(key("SK", KeyType::Range))
        .global_secondary_indexes(gsi(
            "GSI1",
            "GSI1PK",
            Some("GSI1SK"),
            projection(ProjectionType::All, &[]),
        ))
        .send()
        .await
        .expect("create table");
    for user in 0..5 {
        // Profiles have no GSI1 attributes: the index stays sparse.
        client
            .put_item()
            .table_name(table)
            .item("PK", s(&format!("USER#{user}")))
            .item("SK", s("PROFILE"))
            .item("email", s(&format!("u{user}@example.com")))
            .send()
            .await
            .expect("put profile");
    }
    let orders: Vec<Item> = (0..ORDERS).map(order).collect();
    for o in &orders {
        client
            .put_item()
            .table_name(table)
            .set_item(Some(o.clone()))
            .send()
            .await
            .expect("put order");
    }

    // listOrdersByDate: all orders newest first, 7 per page.
    let mut listed: Vec<Item> = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let page = client
            .query()
            .table_name(table)
            .index_name("GSI1")
            .key_condition_expression("GSI1PK = :pk")
            .expression_attribute_values(":pk", s("ORDER"))
            .scan_index_forward(false)
            .limit(7)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("list orders");
        listed.extend(page.items().iter().cloned());
        match page.last_evaluated_key() {
            Some(key) => {
                let mut names: Vec<&str> = key.keys().map(String::as_str).collect();
                names.sort();
                assert_eq!(names, ["GSI1PK", "GSI1SK", "PK", "SK"]);
                start = Some(key.clone());
            }
            None => break,
        }
    }
    let mut newest_first = orders.clone();
    newest_first.sort_by(|a, b| text(b, "GSI1SK").cmp(text(a, "GSI1SK")));
    assert_eq!(listed, newest_first, "GSI1 newest first, across pages");

    // listOrdersByStatus: shipped orders between two days.
    let shipped = client
        .query()
        .table_name(table)
        .index_name("GSI1")
        .key_condition_expression("GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to")
        .filter_expression("#status = :status")
        .expression_attribute_names("#status", "status")
        .expression_attribute_values(":pk", s("ORDER"))
        .expression_attribute_values(":from", s("2026-11-05#"))
        .expression_attribute_values(":to", s("2026-11-12#~"))
        .expression_attribute_values(":status", s("shipped"))
        .send()
        .await
        .expect("orders by status");
    let in_range: Vec<&Item> = orders
        .iter()
        .filter(|o| text(o, "GSI1SK") >= "2026-11-05#" && text(o, "GSI1SK") <= "2026-11-12#~")
        .collect();
    let mut want: Vec<Item> = in_range
        .iter()
        .filter(|o| text(o, "status") == "shipped")
        .map(|o| (*o).clone())
        .collect();
    want.sort_by(|a, b| text(a, "GSI1SK").cmp(text(b, "GSI1SK")));
    assert!(!want.is_empty());
    assert_eq!(shipped.items(), want.as_slice());
    assert_eq!(shipped.scanned_count() as usize, in_range.len());

    // Moving an order in the index, dropping it out of it, deleting it.
    let first = &orders[0];
    client
        .update_item()
        .table_name(table)
        .key("PK", first["PK"].clone())
        .key("SK", first["SK"].clone())
        .update_expression("SET GSI1SK = :sk")
        .expression_attribute_values(":sk", s("2099-01-01#o000"))
        .send()
        .await
        .expect("move");
    let newest = newest_orders(client, table, 1).await;
    assert_eq!(text(&newest[0], "GSI1SK"), "2099-01-01#o000");
    client
        .update_item()
        .table_name(table)
        .key("PK", first["PK"].clone())
        .key("SK", first["SK"].clone())
        .update_expression("REMOVE GSI1PK")
        .send()
        .await
        .expect("remove from index");
    let all = newest_orders(client, table, 1000).await;
    assert_eq!(all.len(), ORDERS - 1);
    assert!(all.iter().all(|o| o["SK"] != first["SK"]));
    client
        .delete_item()
        .table_name(table)
        .key("PK", orders[1]["PK"].clone())
        .key("SK", orders[1]["SK"].clone())
        .send()
        .await
        .expect("delete");
    assert_eq!(newest_orders(client, table, 1000).await.len(), ORDERS - 2);

    let described = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .expect("describe");
    let index = &described.table().expect("table").global_secondary_indexes()[0];
    assert_eq!(index.index_status(), Some(&IndexStatus::Active));
    assert_eq!(index.item_count(), Some((ORDERS - 2) as i64));
    assert!(
        index
            .index_arn()
            .is_some_and(|a| a.ends_with(&format!("table/{table}/index/GSI1")))
    );
}

async fn newest_orders(client: &Client, table: &str, limit: i32) -> Vec<Item> {
    client
        .query()
        .table_name(table)
        .index_name("GSI1")
        .key_condition_expression("GSI1PK = :pk")
        .expression_attribute_values(":pk", s("ORDER"))
        .scan_index_forward(false)
        .limit(limit)
        .send()
        .await
        .expect("query")
        .items()
        .to_vec()
}

/// Projections, Select and ConsistentRead on GSIs and LSIs, index capacity, and the
/// index errors, through the SDK.
pub async fn projections_and_errors(client: &Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .attribute_definitions(def("sk", ScalarAttributeType::N))
        .attribute_definitions(def("email", ScalarAttributeType::S))
        .attribute_definitions(def("rank", ScalarAttributeType::N))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .global_secondary_indexes(gsi(
            "byEmail",
            "email",
            None,
            projection(ProjectionType::KeysOnly, &[]),
        ))
        .global_secondary_indexes(gsi(
            "byEmailInclude",
            "email",
            None,
            projection(ProjectionType::Include, &["nick"]),
        ))
        .local_secondary_indexes(
            aws_sdk_dynamodb::types::LocalSecondaryIndex::builder()
                .index_name("byRank")
                .key_schema(key("pk", KeyType::Hash))
                .key_schema(key("rank", KeyType::Range))
                .projection(projection(ProjectionType::KeysOnly, &[]))
                .build()
                .expect("lsi"),
        )
        .send()
        .await
        .expect("create table");
    let put = client
        .put_item()
        .table_name(table)
        .item("pk", s("p"))
        .item("sk", V::N("1".into()))
        .item("email", s("a@example.com"))
        .item("rank", V::N("5".into()))
        .item("nick", s("ann"))
        .item("bio", s("hello"))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .expect("put");
    let consumed = put.consumed_capacity().expect("capacity");
    assert_eq!(
        consumed.capacity_units(),
        Some(4.0),
        "table + 3 index entries"
    );
    assert_eq!(consumed.table().and_then(|t| t.capacity_units()), Some(1.0));
    let gsis = consumed.global_secondary_indexes().expect("gsi capacity");
    assert_eq!(gsis["byEmail"].capacity_units(), Some(1.0));
    assert_eq!(gsis["byEmailInclude"].capacity_units(), Some(1.0));
    let lsis = consumed.local_secondary_indexes().expect("lsi capacity");
    assert_eq!(lsis["byRank"].capacity_units(), Some(1.0));

    let names = |items: &[Item]| -> Vec<String> {
        let mut names: Vec<String> = items.iter().flat_map(|i| i.keys().cloned()).collect();
        names.sort();
        names
    };
    let by_email = |index: &'static str| {
        client
            .query()
            .table_name(table)
            .index_name(index)
            .key_condition_expression("email = :e")
            .expression_attribute_values(":e", s("a@example.com"))
    };
    let keys_only = by_email("byEmail").send().await.expect("keys only");
    assert_eq!(names(keys_only.items()), ["email", "pk", "sk"]);
    let include = by_email("byEmailInclude").send().await.expect("include");
    assert_eq!(names(include.items()), ["email", "nick", "pk", "sk"]);
    let err = by_email("byEmail")
        .select(Select::AllAttributes)
        .send()
        .await
        .expect_err("ALL_ATTRIBUTES on a KEYS_ONLY GSI");
    assert_eq!(code(&err), "ValidationException");
    assert_eq!(
        message(&err),
        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index byEmail because its projection type is not ALL"
    );
    let err = by_email("byEmail")
        .consistent_read(true)
        .send()
        .await
        .expect_err("consistent GSI read");
    assert_eq!(
        message(&err),
        "Consistent reads are not supported on global secondary indexes"
    );
    let gsi_read = by_email("byEmail")
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .expect("gsi read");
    let consumed = gsi_read.consumed_capacity().expect("capacity");
    assert_eq!(consumed.table().and_then(|t| t.capacity_units()), Some(0.0));
    assert_eq!(
        consumed.global_secondary_indexes().expect("gsi")["byEmail"].capacity_units(),
        Some(0.5)
    );

    let by_rank = || {
        client
            .query()
            .table_name(table)
            .index_name("byRank")
            .key_condition_expression("pk = :p AND #r > :r")
            .expression_attribute_names("#r", "rank")
            .expression_attribute_values(":p", s("p"))
            .expression_attribute_values(":r", V::N("1".into()))
    };
    let lsi = by_rank().consistent_read(true).send().await.expect("lsi");
    assert_eq!(names(lsi.items()), ["pk", "rank", "sk"]);
    let fetched = by_rank()
        .select(Select::AllAttributes)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .expect("lsi fetch");
    assert_eq!(
        names(fetched.items()),
        ["bio", "email", "nick", "pk", "rank", "sk"]
    );
    let consumed = fetched.consumed_capacity().expect("capacity");
    assert_eq!(consumed.table().and_then(|t| t.capacity_units()), Some(0.5));
    // A filter on an attribute the LSI does not project reads it from the table; the
    // results are still the index entries.
    let filtered = by_rank()
        .filter_expression("bio = :b")
        .expression_attribute_values(":b", s("hello"))
        .send()
        .await
        .expect("lsi filter");
    assert_eq!(filtered.count(), 1);
    assert_eq!(names(filtered.items()), ["pk", "rank", "sk"]);

    let err = client
        .query()
        .table_name(table)
        .index_name("nope")
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("p"))
        .send()
        .await
        .expect_err("unknown index");
    assert_eq!(
        message(&err),
        "The table does not have the specified index: nope"
    );
    let err = client
        .put_item()
        .table_name(table)
        .item("pk", s("p"))
        .item("sk", V::N("2".into()))
        .item("email", V::N("3".into()))
        .send()
        .await
        .expect_err("index key type");
    assert_eq!(
        message(&err),
        "One or more parameter values were invalid: Type mismatch for Index Key email Expected: S Actual: N IndexName: byEmail"
    );
    let err = client
        .put_item()
        .table_name(table)
        .item("pk", s("p"))
        .item("sk", V::N("2".into()))
        .item("email", s(""))
        .send()
        .await
        .expect_err("empty index key");
    assert_eq!(
        message(&err),
        "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: byEmail, IndexKey: email"
    );
    let err = client
        .update_item()
        .table_name(table)
        .key("pk", s("p"))
        .key("sk", V::N("1".into()))
        .update_expression("SET email = :e")
        .expression_attribute_values(":e", s(""))
        .send()
        .await
        .expect_err("emptied index key");
    assert_eq!(
        message(&err),
        "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value."
    );
}

/// A GSI added to a table with items: CREATING with Backfilling, then ACTIVE and exact.
pub async fn online_index_creation(client: &Client, table: &str, items: usize) {
    super::create_table(client, table, "pk", Some(("sk", ScalarAttributeType::N))).await;
    let requests: Vec<_> = (0..items)
        .map(|i| {
            aws_sdk_dynamodb::types::WriteRequest::builder()
                .put_request(
                    aws_sdk_dynamodb::types::PutRequest::builder()
                        .item("pk", s(&format!("p{}", i % 10)))
                        .item("sk", V::N(i.to_string()))
                        .item("grp", s(&format!("g{}", i % 7)))
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
    let created = client
        .update_table()
        .table_name(table)
        .attribute_definitions(def("grp", ScalarAttributeType::S))
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder()
                .create(
                    CreateGlobalSecondaryIndexAction::builder()
                        .index_name("byGroup")
                        .key_schema(key("grp", KeyType::Hash))
                        .projection(projection(ProjectionType::KeysOnly, &[]))
                        .build()
                        .expect("create action"),
                )
                .build(),
        )
        .send()
        .await
        .expect("create index");
    let description = created.table_description().expect("description");
    assert_eq!(
        description.global_secondary_indexes()[0].index_status(),
        Some(&IndexStatus::Creating)
    );
    // Writes during the backfill: a new member of g0, one moved out of g0.
    client
        .put_item()
        .table_name(table)
        .item("pk", s("new"))
        .item("sk", V::N("0".into()))
        .item("grp", s("g0"))
        .send()
        .await
        .expect("put during backfill");
    client
        .update_item()
        .table_name(table)
        .key("pk", s("p0"))
        .key("sk", V::N("0".into()))
        .update_expression("SET grp = :g")
        .expression_attribute_values(":g", s("g6"))
        .send()
        .await
        .expect("update during backfill");
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
            assert_eq!(index.item_count(), Some(items as i64 + 1));
            break;
        }
        assert_eq!(index.backfilling(), Some(true));
        assert!(Instant::now() < deadline, "backfill did not finish");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut g0 = 0;
    let mut start: Option<Item> = None;
    loop {
        let page = client
            .query()
            .table_name(table)
            .index_name("byGroup")
            .key_condition_expression("grp = :g")
            .expression_attribute_values(":g", s("g0"))
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("query new index");
        g0 += page.count();
        match page.last_evaluated_key() {
            Some(k) => start = Some(k.clone()),
            None => break,
        }
    }
    // g0 held every 7th item; one moved out, one new came in.
    assert_eq!(g0 as usize, items.div_ceil(7));
}
