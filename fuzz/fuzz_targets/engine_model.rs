//! Model-based: the input is a sequence of operations (puts, updates, deletes, conditional
//! writes, batches, transactions, queries, scans, gets) run against a fresh engine and
//! against a `BTreeMap` model. Every answer must match the model — conditions fail exactly
//! when the model says so, transactions apply wholly or not at all, reads return exactly
//! the model's items in key order — and at the end the table and its GSIs equal the model:
//! `Gsi` (g, sk) and `Multi`, a multi-attribute key (HASH g; RANGE v, sk), whose partitions
//! must come in (v, sk, pk) order.
#![no_main]
use std::collections::BTreeMap;
use std::sync::LazyLock;

use kura_engine::{Engine, EngineError, RequestContext};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
});

const PKS: [&str; 3] = ["a", "b", "c"];
const SKS: usize = 5;
const KEYS: usize = PKS.len() * SKS;

/// The model: (pk, sk) → (v, g).
type Model = BTreeMap<(usize, usize), (i64, Option<String>)>;

fn input<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("a well-formed request")
}

fn key_of(k: usize) -> (usize, usize) {
    (k % PKS.len(), (k / PKS.len()) % SKS)
}

fn key_json((p, s): (usize, usize)) -> Value {
    json!({"pk": {"S": PKS[p]}, "sk": {"N": s.to_string()}})
}

fn item_json(key: (usize, usize), v: i64, g: &Option<String>) -> Value {
    let mut item = key_json(key);
    item["v"] = json!({"N": v.to_string()});
    if let Some(g) = g {
        item["g"] = json!({"S": g});
    }
    item
}

fn group(y: u8) -> Option<String> {
    (y & 1 == 1).then(|| format!("g{}", (y >> 1) & 3))
}

fn as_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("serialisable")
}

fn is_condition_failure(e: &EngineError) -> bool {
    matches!(e, EngineError::ConditionalCheckFailed { .. })
}

/// Every item of the table or index, page by page.
fn scan_all(engine: &Engine, index: Option<&str>) -> Vec<Value> {
    let mut items = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let mut request = json!({"TableName": "Tab", "Limit": 4});
        if let Some(index) = index {
            request["IndexName"] = json!(index);
        }
        if let Some(s) = start.take() {
            request["ExclusiveStartKey"] = s;
        }
        let page = engine.scan(input(request)).expect("scan");
        let page = as_json(&page);
        items.extend(page["Items"].as_array().cloned().unwrap_or_default());
        match page.get("LastEvaluatedKey") {
            Some(k) => start = Some(k.clone()),
            None => return items,
        }
    }
}

fn sorted(mut items: Vec<Value>) -> Vec<Value> {
    items.sort_by_key(|v| v.to_string());
    items
}

fuzz_target!(|data: &[u8]| {
    if data.len() > 4 * 64 {
        return;
    }
    let engine = Engine::in_memory();
    let ctx = RequestContext::default();
    RUNTIME
        .block_on(engine.create_table(
            &ctx,
            input(json!({
                "TableName": "Tab", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [
                    {"AttributeName": "pk", "AttributeType": "S"},
                    {"AttributeName": "sk", "AttributeType": "N"},
                    {"AttributeName": "g", "AttributeType": "S"},
                    {"AttributeName": "v", "AttributeType": "N"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "sk", "KeyType": "RANGE"}],
                "GlobalSecondaryIndexes": [{"IndexName": "Gsi",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                  {"AttributeName": "sk", "KeyType": "RANGE"}],
                    "Projection": {"ProjectionType": "ALL"}},
                    {"IndexName": "Multi",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                  {"AttributeName": "v", "KeyType": "RANGE"},
                                  {"AttributeName": "sk", "KeyType": "RANGE"}],
                    "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            })),
        ))
        .expect("create table");
    let mut model: Model = BTreeMap::new();
    for op in data.chunks_exact(4) {
        let (code, k, x, y) = (op[0] % 9, op[1] as usize, op[2], op[3]);
        let key = key_of(k);
        let val = i64::from(x as i8);
        match code {
            0 => {
                let g = group(y);
                RUNTIME
                    .block_on(engine.put_item(input(
                        json!({"TableName": "Tab", "Item": item_json(key, val, &g)}),
                    )))
                    .expect("put");
                model.insert(key, (val, g));
            }
            1 => {
                let g = group(y);
                let mut values = json!({":d": {"N": val.to_string()}});
                let expression = match &g {
                    Some(g) => {
                        values[":g"] = json!({"S": g});
                        "ADD v :d SET g = :g"
                    }
                    None => "ADD v :d REMOVE g",
                };
                RUNTIME
                    .block_on(engine.update_item(input(json!({
                        "TableName": "Tab", "Key": key_json(key),
                        "UpdateExpression": expression,
                        "ExpressionAttributeValues": values,
                    }))))
                    .expect("update");
                let v = model.get(&key).map_or(0, |(v, _)| *v) + val;
                model.insert(key, (v, g));
            }
            2 => {
                RUNTIME
                    .block_on(engine.delete_item(input(
                        json!({"TableName": "Tab", "Key": key_json(key)}),
                    )))
                    .expect("delete");
                model.remove(&key);
            }
            3 => {
                let result = RUNTIME.block_on(engine.put_item(input(json!({
                    "TableName": "Tab", "Item": item_json(key, val, &None),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }))));
                match (model.contains_key(&key), result) {
                    (false, Ok(_)) => {
                        model.insert(key, (val, None));
                    }
                    (true, Err(e)) if is_condition_failure(&e) => {}
                    (present, other) => panic!("put-if-absent, present={present}: {other:?}"),
                }
            }
            4 => {
                let expected = match model.get(&key) {
                    Some((v, _)) if y & 2 == 2 => *v,
                    _ => i64::from(y as i8),
                };
                let result = RUNTIME.block_on(engine.update_item(input(json!({
                    "TableName": "Tab", "Key": key_json(key),
                    "UpdateExpression": "SET v = :n",
                    "ConditionExpression": "v = :e",
                    "ExpressionAttributeValues": {
                        ":n": {"N": val.to_string()}, ":e": {"N": expected.to_string()}},
                }))));
                let holds = model.get(&key).is_some_and(|(v, _)| *v == expected);
                match (holds, result) {
                    (true, Ok(_)) => {
                        if let Some(entry) = model.get_mut(&key) {
                            entry.0 = val;
                        }
                    }
                    (false, Err(e)) if is_condition_failure(&e) => {}
                    (holds, other) => panic!("conditional update, holds={holds}: {other:?}"),
                }
            }
            5 => {
                let mut writes = Vec::new();
                for (i, kk) in [k, k + 1, k + 2].into_iter().enumerate() {
                    let key = key_of(kk % KEYS);
                    if y >> i & 1 == 1 {
                        let g = group(y >> 3);
                        writes.push(json!({"PutRequest": {"Item": item_json(key, val, &g)}}));
                        model.insert(key, (val, g));
                    } else {
                        writes.push(json!({"DeleteRequest": {"Key": key_json(key)}}));
                        model.remove(&key);
                    }
                }
                let out = RUNTIME
                    .block_on(engine.batch_write_item(input(
                        json!({"RequestItems": {"Tab": writes}}),
                    )))
                    .expect("batch write");
                assert!(
                    as_json(&out)["UnprocessedItems"]
                        .as_object()
                        .is_none_or(|m| m.is_empty()),
                    "nothing comes back unprocessed"
                );
            }
            6 => {
                let other = key_of((k + 7) % KEYS);
                let result = RUNTIME.block_on(engine.transact_write_items(input(json!({
                    "TransactItems": [
                        {"Put": {"TableName": "Tab", "Item": item_json(key, val, &None)}},
                        {"Update": {"TableName": "Tab", "Key": key_json(other),
                            "UpdateExpression": "ADD v :one",
                            "ConditionExpression": "attribute_exists(pk)",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}}},
                    ]
                }))));
                match (model.contains_key(&other), result) {
                    (true, Ok(_)) => {
                        model.insert(key, (val, None));
                        if let Some(entry) = model.get_mut(&other) {
                            entry.0 += 1;
                        }
                    }
                    (false, Err(EngineError::TransactionCanceled { .. })) => {}
                    (exists, other) => panic!("transaction, condition={exists}: {other:?}"),
                }
            }
            7 => {
                let lo = usize::from(x) % SKS;
                let hi = lo + usize::from(y) % 3;
                let forward = y & 4 == 0;
                let limit = 1 + (y >> 3) % 3;
                let mut got = Vec::new();
                let mut start: Option<Value> = None;
                loop {
                    let mut request = json!({
                        "TableName": "Tab",
                        "KeyConditionExpression": "pk = :p AND sk BETWEEN :lo AND :hi",
                        "ExpressionAttributeValues": {":p": {"S": PKS[key.0]},
                            ":lo": {"N": lo.to_string()}, ":hi": {"N": hi.to_string()}},
                        "ScanIndexForward": forward, "Limit": limit,
                    });
                    if let Some(s) = start.take() {
                        request["ExclusiveStartKey"] = s;
                    }
                    let page = as_json(&engine.query(input(request)).expect("query"));
                    got.extend(page["Items"].as_array().cloned().unwrap_or_default());
                    match page.get("LastEvaluatedKey") {
                        Some(k) => start = Some(k.clone()),
                        None => break,
                    }
                }
                let mut expected: Vec<Value> = model
                    .range((key.0, lo)..=(key.0, hi))
                    .map(|(k, (v, g))| item_json(*k, *v, g))
                    .collect();
                if !forward {
                    expected.reverse();
                }
                assert_eq!(got, expected, "query {lo}..={hi} forward={forward}");
            }
            _ => {
                let got = engine
                    .get_item(input(json!({"TableName": "Tab", "Key": key_json(key),
                                          "ConsistentRead": true})))
                    .expect("get");
                let expected = model.get(&key).map(|(v, g)| item_json(key, *v, g));
                assert_eq!(as_json(&got).get("Item").cloned(), expected, "get {key:?}");
            }
        }
    }
    let table: Vec<Value> = model
        .iter()
        .map(|(k, (v, g))| item_json(*k, *v, g))
        .collect();
    assert_eq!(sorted(scan_all(&engine, None)), sorted(table.clone()), "table");
    let indexed: Vec<Value> = model
        .iter()
        .filter(|(_, (_, g))| g.is_some())
        .map(|(k, (v, g))| item_json(*k, *v, g))
        .collect();
    assert_eq!(sorted(scan_all(&engine, Some("Gsi"))), sorted(indexed.clone()), "GSI");
    // KEYS_ONLY projects every key attribute: pk, sk, g and v, which is the whole item.
    assert_eq!(sorted(scan_all(&engine, Some("Multi"))), sorted(indexed), "Multi");
    for g in 0..4 {
        let g = format!("g{g}");
        let mut expected: Vec<(i64, usize, usize)> = model
            .iter()
            .filter(|(_, (_, mg))| mg.as_deref() == Some(g.as_str()))
            .map(|((p, s), (v, _))| (*v, *s, *p))
            .collect();
        expected.sort();
        let expected: Vec<Value> = expected
            .into_iter()
            .map(|(v, s, p)| item_json((p, s), v, &Some(g.clone())))
            .collect();
        let request = json!({"TableName": "Tab", "IndexName": "Multi",
            "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": g}}});
        let page = as_json(&engine.query(input(request)).expect("query Multi"));
        let got = page["Items"].as_array().cloned().unwrap_or_default();
        assert_eq!(got, expected, "Multi partition {g}");
    }
    engine.shutdown();
});
