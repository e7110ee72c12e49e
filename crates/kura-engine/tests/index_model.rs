//! Model-based test of secondary indexes: random puts, updates, deletes, batches and
//! transactions on a table with several GSIs and LSIs; after every step each index, read
//! back through Scan (in small pages, so LastEvaluatedKey and ExclusiveStartKey on indexes
//! are exercised) and Query, must equal the index computed from scratch from the table, in
//! DynamoDB's order, and DescribeTable's ItemCount per index must match. Two GSIs have
//! multi-attribute keys (sort keys of a number then a string, partition keys of two
//! strings); their partitions are also queried with conditions on leading sort key
//! attributes.
//!
//! `PROPTEST_CASES=1000 cargo test -p kura-engine --test index_model` runs a long campaign.

use std::collections::BTreeMap;
use std::sync::Arc;

use kura_engine::{Engine, RequestContext};
use proptest::prelude::*;
use serde_json::{Value, json};

/// One index as the model sees it.
struct ModelIndex {
    name: &'static str,
    /// Partition key attributes (name, type), in KeySchema order.
    hash: &'static [(&'static str, &'static str)],
    /// Sort key attributes, in KeySchema order.
    range: &'static [(&'static str, &'static str)],
    /// `None` = ALL; otherwise the non-key attributes projected.
    include: Option<&'static [&'static str]>,
}

const INDEXES: &[ModelIndex] = &[
    ModelIndex {
        name: "byRank",
        hash: &[("pk", "S")],
        range: &[("rank", "N")],
        include: Some(&[]),
    },
    ModelIndex {
        name: "byTagLocal",
        hash: &[("pk", "S")],
        range: &[("tag", "S")],
        include: Some(&["color"]),
    },
    ModelIndex {
        name: "byColor",
        hash: &[("color", "S")],
        range: &[("rank", "N")],
        include: None,
    },
    ModelIndex {
        name: "byTag",
        hash: &[("tag", "S")],
        range: &[],
        include: Some(&["rank", "extra"]),
    },
    ModelIndex {
        name: "byBlob",
        hash: &[("bk", "B")],
        range: &[("sk", "N")],
        include: Some(&[]),
    },
    ModelIndex {
        name: "byColorRankTag",
        hash: &[("color", "S")],
        range: &[("rank", "N"), ("tag", "S")],
        include: None,
    },
    ModelIndex {
        name: "byTagColor",
        hash: &[("tag", "S"), ("color", "S")],
        range: &[("sk", "N"), ("bk", "B")],
        include: Some(&["extra"]),
    },
];
const LOCAL: [&str; 2] = ["byRank", "byTagLocal"];

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

fn create_table_request() -> Value {
    let projection = |i: &ModelIndex| match i.include {
        None => json!({"ProjectionType": "ALL"}),
        Some([]) => json!({"ProjectionType": "KEYS_ONLY"}),
        Some(names) => json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": names}),
    };
    let key_schema = |i: &ModelIndex| {
        let hash = i
            .hash
            .iter()
            .map(|(name, _)| json!({"AttributeName": name, "KeyType": "HASH"}));
        let range = i
            .range
            .iter()
            .map(|(name, _)| json!({"AttributeName": name, "KeyType": "RANGE"}));
        hash.chain(range).collect::<Vec<_>>()
    };
    let index = |i: &ModelIndex| json!({"IndexName": i.name, "KeySchema": key_schema(i), "Projection": projection(i)});
    json!({
        "TableName": "Model",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "rank", "AttributeType": "N"},
            {"AttributeName": "tag", "AttributeType": "S"},
            {"AttributeName": "color", "AttributeType": "S"},
            {"AttributeName": "bk", "AttributeType": "B"},
        ],
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "LocalSecondaryIndexes": INDEXES.iter().filter(|i| LOCAL.contains(&i.name)).map(index).collect::<Vec<_>>(),
        "GlobalSecondaryIndexes": INDEXES.iter().filter(|i| !LOCAL.contains(&i.name)).map(index).collect::<Vec<_>>(),
    })
}

/// A random item change.
#[derive(Debug, Clone)]
enum Op {
    Put {
        pk: u8,
        sk: u8,
        rank: Option<u8>,
        tag: Option<u8>,
        color: Option<u8>,
        blob: Option<u8>,
        extra: Option<u8>,
    },
    Update {
        pk: u8,
        sk: u8,
        action: u8,
        value: u8,
    },
    Delete {
        pk: u8,
        sk: u8,
    },
    /// An index key of the wrong type: refused, nothing changes.
    BadPut {
        pk: u8,
        sk: u8,
    },
    Batch {
        puts: Vec<(u8, u8, Option<u8>, Option<u8>)>,
    },
    Transact {
        put: (u8, u8, Option<u8>),
        delete: (u8, u8),
    },
}

fn op() -> impl Strategy<Value = Op> {
    let key = (0u8..3, 0u8..5);
    let small = || proptest::option::of(0u8..4);
    prop_oneof![
        4 => (key.clone(), small(), small(), small(), small(), small()).prop_map(
            |((pk, sk), rank, tag, color, blob, extra)| Op::Put { pk, sk, rank, tag, color, blob, extra }
        ),
        4 => (key.clone(), 0u8..8, 0u8..4).prop_map(|((pk, sk), action, value)| Op::Update { pk, sk, action, value }),
        2 => key.clone().prop_map(|(pk, sk)| Op::Delete { pk, sk }),
        1 => key.clone().prop_map(|(pk, sk)| Op::BadPut { pk, sk }),
        1 => proptest::collection::vec((0u8..3, 0u8..5, small(), small()), 1..4).prop_map(|mut puts| {
            puts.sort_by_key(|p| (p.0, p.1));
            puts.dedup_by_key(|p| (p.0, p.1));
            Op::Batch { puts }
        }),
        1 => ((0u8..3, 0u8..5, small()), key).prop_filter("distinct items", |(p, d)| (p.0, p.1) != *d)
            .prop_map(|(put, delete)| Op::Transact { put, delete }),
    ]
}

fn pk(v: u8) -> Value {
    json!({"S": format!("p{v}")})
}
fn num(v: u8) -> Value {
    json!({"N": v.to_string()})
}
fn tag(v: u8) -> Value {
    json!({"S": (["a", "b", "c", "dd"])[v as usize % 4]})
}
fn color(v: u8) -> Value {
    json!({"S": (["red", "blue", "green", "red2"])[v as usize % 4]})
}
fn blob(v: u8) -> Value {
    // base64 of one byte: 0x00, 0x01, 0xfe, 0xff
    json!({"B": (["AA==", "AQ==", "/g==", "/w=="])[v as usize % 4]})
}

fn item(
    p: u8,
    s: u8,
    rank: Option<u8>,
    t: Option<u8>,
    c: Option<u8>,
    b: Option<u8>,
    extra: Option<u8>,
) -> Value {
    let mut item = serde_json::Map::new();
    item.insert("pk".into(), pk(p));
    item.insert("sk".into(), num(s));
    if let Some(r) = rank {
        item.insert("rank".into(), num(r));
    }
    if let Some(t) = t {
        item.insert("tag".into(), tag(t));
    }
    if let Some(c) = c {
        item.insert("color".into(), color(c));
    }
    if let Some(b) = b {
        item.insert("bk".into(), blob(b));
    }
    if let Some(e) = extra {
        item.insert("extra".into(), json!({"SS": [format!("x{e}"), "y"]}));
    }
    Value::Object(item)
}

async fn apply(engine: &Engine, op: &Op) {
    match op.clone() {
        Op::Put {
            pk: p,
            sk: s,
            rank,
            tag: t,
            color: c,
            blob: b,
            extra,
        } => {
            let req = json!({"TableName": "Model", "Item": item(p, s, rank, t, c, b, extra)});
            engine.put_item(input(req)).await.expect("put");
        }
        Op::Update {
            pk: p,
            sk: s,
            action,
            value,
        } => {
            let (expr, values) = match action {
                0 => ("SET #r = :v", json!({":v": num(value)})),
                1 => ("REMOVE #r", json!(null)),
                2 => ("SET color = :v", json!({":v": color(value)})),
                3 => ("REMOVE tag", json!(null)),
                4 => ("SET tag = :v", json!({":v": tag(value)})),
                5 => ("SET extra = :v", json!({":v": {"S": format!("e{value}")}})),
                6 => ("REMOVE color, bk", json!(null)),
                _ => ("SET bk = :v", json!({":v": blob(value)})),
            };
            let mut req = json!({
                "TableName": "Model",
                "Key": {"pk": pk(p), "sk": num(s)},
                "UpdateExpression": expr,
            });
            if expr.contains("#r") {
                req["ExpressionAttributeNames"] = json!({"#r": "rank"});
            }
            if !values.is_null() {
                req["ExpressionAttributeValues"] = values;
            }
            engine.update_item(input(req)).await.expect("update");
        }
        Op::Delete { pk: p, sk: s } => {
            let req = json!({"TableName": "Model", "Key": {"pk": pk(p), "sk": num(s)}});
            engine.delete_item(input(req)).await.expect("delete");
        }
        Op::BadPut { pk: p, sk: s } => {
            let mut bad = item(p, s, Some(1), Some(1), None, None, None);
            bad["color"] = json!({"N": "7"});
            let req = json!({"TableName": "Model", "Item": bad});
            let err = engine
                .put_item(input(req))
                .await
                .expect_err("type mismatch");
            assert!(
                err.to_string()
                    .contains("Type mismatch for Index Key color Expected: S Actual: N"),
                "{err}"
            );
        }
        Op::Batch { puts } => {
            let requests: Vec<Value> = puts
                .iter()
                .map(|(p, s, r, c)| json!({"PutRequest": {"Item": item(*p, *s, *r, Some(*s), *c, None, None)}}))
                .collect();
            let req = json!({"RequestItems": {"Model": requests}});
            engine.batch_write_item(input(req)).await.expect("batch");
        }
        Op::Transact { put, delete } => {
            let req = json!({"TransactItems": [
                {"Put": {"TableName": "Model", "Item": item(put.0, put.1, put.2, Some(put.1), put.2, put.2, None)}},
                {"Delete": {"TableName": "Model", "Key": {"pk": pk(delete.0), "sk": num(delete.1)}}},
            ]});
            engine
                .transact_write_items(input(req))
                .await
                .expect("transact");
        }
    }
}

/// Every page of a Scan (on the table or an index), following LastEvaluatedKey.
fn scan_all(engine: &Engine, index: Option<&str>, limit: i64) -> Vec<Value> {
    let mut out = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let mut req = json!({"TableName": "Model", "Limit": limit});
        if let Some(index) = index {
            req["IndexName"] = json!(index);
        }
        if let Some(start) = start.take() {
            req["ExclusiveStartKey"] = start;
        }
        let page = serde_json::to_value(engine.scan(input(req)).expect("scan")).expect("json");
        out.extend(page["Items"].as_array().cloned().unwrap_or_default());
        match page.get("LastEvaluatedKey") {
            Some(key) => start = Some(key.clone()),
            None => return out,
        }
    }
}

/// An attribute value's sort order as a key: numbers numerically, strings and binaries
/// by bytes (base64 of one byte is not ordered, so decode the fixed alphabet).
fn order_key(v: &Value) -> (u8, i64, Vec<u8>) {
    if let Some(n) = v.get("N").and_then(Value::as_str) {
        return (0, n.parse().expect("number"), Vec::new());
    }
    if let Some(s) = v.get("S").and_then(Value::as_str) {
        return (1, 0, s.as_bytes().to_vec());
    }
    let b = v.get("B").and_then(Value::as_str).expect("key value");
    let byte = match b {
        "AA==" => 0,
        "AQ==" => 1,
        "/g==" => 0xfe,
        _ => 0xff,
    };
    (2, 0, vec![byte])
}

/// The index's expected contents from the table's items: entries of items that have all
/// index key attributes, projected.
fn expected_entries(index: &ModelIndex, table: &[Value]) -> Vec<Value> {
    let mut keys = vec!["pk", "sk"];
    keys.extend(index.hash.iter().chain(index.range).map(|(name, _)| *name));
    table
        .iter()
        .filter(|item| keys.iter().all(|k| item.get(*k).is_some()))
        .map(|item| {
            let obj = item.as_object().expect("item");
            let projected: serde_json::Map<String, Value> = obj
                .iter()
                .filter(|(name, _)| match index.include {
                    None => true,
                    Some(extra) => keys.contains(&name.as_str()) || extra.contains(&name.as_str()),
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Value::Object(projected)
        })
        .collect()
}

fn sorted(mut v: Vec<Value>) -> Vec<Value> {
    v.sort_by_key(|x| x.to_string());
    v
}

fn check_indexes(rt: &tokio::runtime::Runtime, engine: &Engine, limit: i64) {
    let table = scan_all(engine, None, 7);
    let described = rt
        .block_on(engine.describe_table(
            &RequestContext::default(),
            input(json!({"TableName": "Model"})),
        ))
        .expect("describe");
    let described = serde_json::to_value(described).expect("json");
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for list in ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"] {
        for d in described["Table"][list].as_array().expect("index list") {
            counts.insert(
                d["IndexName"].as_str().expect("name").to_owned(),
                d["ItemCount"].as_u64().expect("count"),
            );
        }
    }
    for index in INDEXES {
        let expected = expected_entries(index, &table);
        let scanned = scan_all(engine, Some(index.name), limit);
        assert_eq!(
            sorted(scanned.clone()),
            sorted(expected.clone()),
            "index {} differs from the table",
            index.name
        );
        assert_eq!(
            counts[index.name],
            expected.len() as u64,
            "ItemCount of {}",
            index.name
        );
        check_partitions(engine, index, &expected);
    }
}

/// The values of `attrs` in `entry`, as a JSON array (an index partition or sort key).
fn values_of(entry: &Value, attrs: &[(&str, &str)]) -> Value {
    Value::Array(attrs.iter().map(|(name, _)| entry[*name].clone()).collect())
}

/// Every page of a Query on `index` with the key condition `conditions` (attribute,
/// operator, value), forward or backward.
fn query_all(
    engine: &Engine,
    index: &str,
    conditions: &[(&str, &str, Value)],
    forward: bool,
) -> Vec<Value> {
    let mut names = serde_json::Map::new();
    let mut values = serde_json::Map::new();
    let mut parts = Vec::new();
    for (i, (name, op, value)) in conditions.iter().enumerate() {
        names.insert(format!("#k{i}"), json!(name));
        values.insert(format!(":k{i}"), value.clone());
        parts.push(format!("#k{i} {op} :k{i}"));
    }
    let mut out = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let mut req = json!({
            "TableName": "Model",
            "IndexName": index,
            "KeyConditionExpression": parts.join(" AND "),
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
            "ScanIndexForward": forward,
            "Limit": 3,
        });
        if let Some(start) = start.take() {
            req["ExclusiveStartKey"] = start;
        }
        let page = serde_json::to_value(engine.query(input(req)).expect("query")).expect("json");
        out.extend(page["Items"].as_array().cloned().unwrap_or_default());
        match page.get("LastEvaluatedKey") {
            Some(key) => start = Some(key.clone()),
            None => return out,
        }
    }
}

/// Each index partition, queried forward in pages, comes in index sort-key order (the
/// sort key attributes compared left to right, each by its type), then table-key order;
/// backward is the exact reverse. Equalities on leading sort key attributes, and a range
/// condition after them, narrow it to exactly the matching entries.
fn check_partitions(engine: &Engine, index: &ModelIndex, expected: &[Value]) {
    let mut partitions: Vec<Value> = expected.iter().map(|e| values_of(e, index.hash)).collect();
    partitions.sort_by_key(|v| v.to_string());
    partitions.dedup();
    let sort_key = |e: &Value| {
        let range: Vec<_> = index.range.iter().map(|(r, _)| order_key(&e[*r])).collect();
        (range, order_key(&e["pk"]), order_key(&e["sk"]))
    };
    let order = |items: &[Value]| -> Vec<(String, String)> {
        items
            .iter()
            .map(|e| (e["pk"].to_string(), e["sk"].to_string()))
            .collect()
    };
    for partition in partitions {
        let mut want: Vec<Value> = expected
            .iter()
            .filter(|e| values_of(e, index.hash) == partition)
            .cloned()
            .collect();
        want.sort_by_key(sort_key);
        let equalities: Vec<(&str, &str, Value)> = index
            .hash
            .iter()
            .zip(partition.as_array().expect("values"))
            .map(|((name, _), v)| (*name, "=", v.clone()))
            .collect();
        let forward = query_all(engine, index.name, &equalities, true);
        assert_eq!(
            order(&forward),
            order(&want),
            "order in {} partition {partition}",
            index.name
        );
        let mut backward = query_all(engine, index.name, &equalities, false);
        backward.reverse();
        assert_eq!(
            order(&backward),
            order(&want),
            "reverse order in {}",
            index.name
        );
        if index.hash.len() == 1 && index.range.len() < 2 {
            continue;
        }
        // Narrowed by the first sort key attribute, then (for two) by a range on the
        // second after an equality on the first.
        let Some(first) = want.first() else { continue };
        let Some(&(r0, _)) = index.range.first() else {
            continue;
        };
        let mut conditions = equalities.clone();
        conditions.push((r0, "=", first[r0].clone()));
        let narrowed: Vec<Value> = want
            .iter()
            .filter(|e| e[r0] == first[r0])
            .cloned()
            .collect();
        assert_eq!(
            order(&query_all(engine, index.name, &conditions, true)),
            order(&narrowed),
            "{} with {r0} = {}",
            index.name,
            first[r0]
        );
        if let Some(&(r1, _)) = index.range.get(1) {
            conditions.push((r1, ">=", first[r1].clone()));
            let bound = order_key(&first[r1]);
            let ranged: Vec<Value> = narrowed
                .iter()
                .filter(|e| order_key(&e[r1]) >= bound)
                .cloned()
                .collect();
            let mut got = query_all(engine, index.name, &conditions, false);
            got.reverse();
            assert_eq!(
                order(&got),
                order(&ranged),
                "{} with {r0} = and {r1} >=",
                index.name
            );
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn engine_with_table(rt: &tokio::runtime::Runtime) -> Arc<Engine> {
    let engine = Engine::in_memory();
    rt.block_on(engine.create_table(&RequestContext::default(), input(create_table_request())))
        .expect("create table");
    engine
}

proptest! {
    // 24 cases by default; PROPTEST_CASES raises it for long campaigns.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24)
    ))]

    #[test]
    fn indexes_always_equal_a_recomputation(ops in proptest::collection::vec(op(), 1..40), limit in 1i64..5) {
        let rt = runtime();
        let engine = engine_with_table(&rt);
        for op in &ops {
            rt.block_on(apply(&engine, op));
            check_indexes(&rt, &engine, limit);
        }
        engine.shutdown();
    }
}

/// A GSI added by UpdateTable to a table of 100k items fills in the background while
/// writes go on, and ends equal to the index computed from the table.
#[test]
fn backfill_under_writes_ends_exact() {
    let rt = runtime();
    let engine = Engine::in_memory();
    let ctx = RequestContext::default();
    let mut create = create_table_request();
    create["GlobalSecondaryIndexes"] = json!(null);
    create["LocalSecondaryIndexes"] = json!(null);
    create["AttributeDefinitions"] = json!([
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "N"},
    ]);
    rt.block_on(engine.create_table(&ctx, input(create)))
        .expect("create");
    // 100,000 items in partitions other than the model's p0..p2, plus 600 in p0..p2
    // that the writes below touch.
    let mut requests = Vec::new();
    for i in 0..100_000u32 {
        let mut it = item(
            0,
            (i % 250) as u8,
            Some((i % 4) as u8),
            None,
            Some((i % 4) as u8),
            None,
            None,
        );
        it["pk"] = json!({"S": format!("bulk{}", i / 250)});
        requests.push(json!({"PutRequest": {"Item": it}}));
    }
    for p in 0..3u8 {
        for s in 0..200u8 {
            let it = item(p, s, Some(s % 4), Some(s % 3), Some(s % 4), None, None);
            requests.push(json!({"PutRequest": {"Item": it}}));
        }
    }
    for chunk in requests.chunks(25) {
        let req = json!({"RequestItems": {"Model": chunk}});
        rt.block_on(engine.batch_write_item(input(req)))
            .expect("batch");
    }
    let update = json!({
        "TableName": "Model",
        "AttributeDefinitions": [{"AttributeName": "color", "AttributeType": "S"}, {"AttributeName": "rank", "AttributeType": "N"}],
        "GlobalSecondaryIndexUpdates": [{"Create": {
            "IndexName": "byColor",
            "KeySchema": [{"AttributeName": "color", "KeyType": "HASH"}, {"AttributeName": "rank", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"},
        }}],
    });
    let out = rt
        .block_on(engine.update_table(&ctx, input(update)))
        .expect("update table");
    let out = serde_json::to_value(out).expect("json");
    assert_eq!(
        out["TableDescription"]["GlobalSecondaryIndexes"][0]["IndexStatus"],
        "CREATING"
    );
    // Writes while the index fills: moves, removals, deletes and new items.
    let mut step = 0u32;
    loop {
        let p = (step % 3) as u8;
        let s = (step * 7 % 220) as u8;
        let op = match step % 4 {
            0 => Op::Update {
                pk: p,
                sk: s,
                action: 2,
                value: (step % 4) as u8,
            },
            1 => Op::Update {
                pk: p,
                sk: s,
                action: 6,
                value: 0,
            },
            2 => Op::Delete { pk: p, sk: s },
            _ => Op::Put {
                pk: p,
                sk: s,
                rank: Some(1),
                tag: None,
                color: Some(2),
                blob: None,
                extra: None,
            },
        };
        rt.block_on(apply(&engine, &op));
        step += 1;
        let described = serde_json::to_value(
            rt.block_on(engine.describe_table(&ctx, input(json!({"TableName": "Model"}))))
                .expect("describe"),
        )
        .expect("json");
        let status = described["Table"]["GlobalSecondaryIndexes"][0]["IndexStatus"].clone();
        if status == "ACTIVE" {
            assert!(
                described["Table"]["GlobalSecondaryIndexes"][0]
                    .get("Backfilling")
                    .is_none()
            );
            break;
        }
        assert_eq!(
            described["Table"]["GlobalSecondaryIndexes"][0]["Backfilling"],
            true
        );
        assert!(step < 100_000, "backfill never finished");
    }
    assert!(
        step > 10,
        "the backfill should overlap some writes (took {step} steps)"
    );
    let table = scan_all(&engine, None, 5000);
    let index = INDEXES.iter().find(|i| i.name == "byColor").expect("index");
    let scanned = scan_all(&engine, Some("byColor"), 5000);
    let expected = expected_entries(index, &table);
    assert_eq!(sorted(scanned), sorted(expected.clone()));
    let described = serde_json::to_value(
        rt.block_on(engine.describe_table(&ctx, input(json!({"TableName": "Model"}))))
            .expect("describe"),
    )
    .expect("json");
    assert_eq!(
        described["Table"]["GlobalSecondaryIndexes"][0]["ItemCount"],
        expected.len() as u64
    );
    engine.shutdown();
}
