//! Format stability: a data directory written by the store format of 2026-11 must open
//! and read back exactly with every later build.
//!
//! `tests/fixtures/format-v1/` holds:
//! - `data/`: a durable data directory with three tables (a GSI, an LSI, a stream with
//!   records of every kind, TTL enabled, tags), written by this file's `write` mode;
//! - `answers.json`: the answer each read in [`reads`] gave on the build that wrote it;
//! - `catalog.json`: the catalog records exactly as stored (the golden record JSON).
//!
//! The test opens a copy of `data/` and checks every answer and every stored catalog
//! record byte for byte, and that the current build encodes each record to the same
//! bytes. A change of any persisted encoding fails here: it needs a format version bump
//! and a migration (`docs/design.md`), and then a new fixture beside this one, never an
//! edited one.
//!
//! To write a new fixture (only with a format version bump):
//! `KURA_WRITE_FORMAT_FIXTURE=DIR cargo test -p kura --test format_fixture`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use kura_engine::clock::ManualClock;
use kura_engine::storage::{Direction, FjallStore, KeyRange, Space, Store};
use kura_engine::{Engine, EngineOptions};
use serde_json::{Value, json};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format-v1")
}

async fn call(engine: &Engine, operation: &str, request: &Value) -> Value {
    let body = bytes::Bytes::from(serde_json::to_vec(request).expect("request"));
    let streams = [
        "ListStreams",
        "DescribeStream",
        "GetShardIterator",
        "GetRecords",
    ];
    let answer = if streams.contains(&operation) {
        kura_api::invoke_streams(engine, operation, body).await
    } else {
        kura_api::invoke(engine, operation, body).await
    };
    match answer {
        Ok(answer) => serde_json::from_slice(&answer).expect("answer is JSON"),
        Err(e) => panic!("{operation} {request} failed: {e:?}"),
    }
}

/// The writes that make the fixture: every persisted shape at least once.
async fn populate(engine: &Engine) {
    let s = |v: &str| json!({ "S": v });
    let n = |v: &str| json!({ "N": v });
    call(
        engine,
        "CreateTable",
        &json!({
            "TableName": "Orders",
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
                {"AttributeName": "status", "AttributeType": "S"},
                {"AttributeName": "total", "AttributeType": "N"},
                {"AttributeName": "placed", "AttributeType": "B"}
            ],
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"}
            ],
            "GlobalSecondaryIndexes": [{
                "IndexName": "byStatus",
                "KeySchema": [
                    {"AttributeName": "status", "KeyType": "HASH"},
                    {"AttributeName": "total", "KeyType": "RANGE"}
                ],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["note"]}
            }],
            "LocalSecondaryIndexes": [{
                "IndexName": "byPlaced",
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "placed", "KeyType": "RANGE"}
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"}
            }],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"},
            "Tags": [{"Key": "team", "Value": "shop"}, {"Key": "empty", "Value": ""}],
            "DeletionProtectionEnabled": true
        }),
    )
    .await;
    call(
        engine,
        "CreateTable",
        &json!({
            "TableName": "Sessions",
            "BillingMode": "PROVISIONED",
            "ProvisionedThroughput": {"ReadCapacityUnits": 7, "WriteCapacityUnits": 3},
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "B"}],
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
            "TableClass": "STANDARD_INFREQUENT_ACCESS"
        }),
    )
    .await;
    call(
        engine,
        "CreateTable",
        &json!({
            "TableName": "Numbers",
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [
                {"AttributeName": "n", "AttributeType": "N"},
                {"AttributeName": "m", "AttributeType": "N"}
            ],
            "KeySchema": [
                {"AttributeName": "n", "KeyType": "HASH"},
                {"AttributeName": "m", "KeyType": "RANGE"}
            ],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}
        }),
    )
    .await;
    call(
        engine,
        "UpdateTimeToLive",
        &json!({"TableName": "Sessions",
                "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "expires"}}),
    )
    .await;

    // Every attribute type, in items of the stream table.
    let every_type = json!({
        "pk": s("o#1"), "sk": s("2026-11-01#a"), "status": s("open"), "total": n("12.50"),
        "placed": {"B": "AAEC"}, "note": s("first"), "flag": {"BOOL": true}, "nothing": {"NULL": true},
        "tags": {"SS": ["b", "a"]}, "scores": {"NS": ["1", "-2.5", "1E+30"]},
        "blobs": {"BS": ["AA==", "AQ=="]},
        "lines": {"L": [s("x"), n("0.000001"), {"M": {"deep": {"L": [{"BOOL": false}]}}}]},
        "addr": {"M": {"city": s("Kyoto"), "zip": s("600-8216")}}
    });
    let put = |item: Value| json!({"TableName": "Orders", "Item": item});
    call(engine, "PutItem", &put(every_type)).await;
    for (i, status) in ["open", "shipped", "open", "closed"].iter().enumerate() {
        let placed = ["AAAA", "AAAB", "AAAC", "AAAD"][i];
        let item = json!({
            "pk": s(&format!("o#{}", i % 2)), "sk": s(&format!("2026-11-0{}#b", i + 2)),
            "status": s(status), "total": n(&format!("{}", 100 - i * 7)),
            "placed": {"B": placed}, "note": s("n"), "other": n("1")
        });
        call(engine, "PutItem", &put(item)).await;
    }
    // A modify, a remove, a batch and a transaction: each kind of stream record.
    call(
        engine,
        "UpdateItem",
        &json!({"TableName": "Orders", "Key": {"pk": s("o#1"), "sk": s("2026-11-01#a")},
                "UpdateExpression": "SET #s = :s ADD #t :d REMOVE note",
                "ExpressionAttributeNames": {"#s": "status", "#t": "total"},
                "ExpressionAttributeValues": {":s": s("paid"), ":d": n("0.25")}}),
    )
    .await;
    call(
        engine,
        "DeleteItem",
        &json!({"TableName": "Orders", "Key": {"pk": s("o#0"), "sk": s("2026-11-04#b")}}),
    )
    .await;
    let mut requests = Vec::new();
    for i in 0..5 {
        requests.push(json!({"PutRequest": {"Item": {
            "n": n(&format!("{}", i - 2)), "m": n(&format!("{}.5", i * 3)), "v": s("batch")
        }}}));
    }
    call(
        engine,
        "BatchWriteItem",
        &json!({"RequestItems": {"Numbers": requests}}),
    )
    .await;
    call(
        engine,
        "TransactWriteItems",
        &json!({"TransactItems": [
            {"Put": {"TableName": "Numbers", "Item": {"n": n("99999999999999999999999999999999999999"), "m": n("-1E-130")}}},
            {"Update": {"TableName": "Orders", "Key": {"pk": s("o#1"), "sk": s("2026-11-03#b")},
                        "UpdateExpression": "SET note = :n", "ExpressionAttributeValues": {":n": s("tx")}}},
            {"Delete": {"TableName": "Numbers", "Key": {"n": n("-2"), "m": n("0.5")}}}
        ]}),
    )
    .await;
    // TTL items: one far in the future, one without the attribute, one with a string.
    for (id, expires) in [
        ("AQ==", Some(n("4102444800"))),
        ("Ag==", None),
        ("Aw==", Some(s("not a number"))),
    ] {
        let mut item = json!({"id": {"B": id}, "v": n("1")});
        if let Some(e) = expires {
            item["expires"] = e;
        }
        call(
            engine,
            "PutItem",
            &json!({"TableName": "Sessions", "Item": item}),
        )
        .await;
    }
}

/// The reads whose answers the fixture keeps: (operation, request). Stream reads are
/// done by [`read_streams`] because shard iterators are opaque.
fn reads() -> Vec<(&'static str, Value)> {
    let s = |v: &str| json!({ "S": v });
    let mut reads = vec![("ListTables", json!({}))];
    for table in ["Orders", "Sessions", "Numbers"] {
        reads.push(("DescribeTable", json!({"TableName": table})));
        reads.push(("Scan", json!({"TableName": table})));
        reads.push(("DescribeTimeToLive", json!({"TableName": table})));
    }
    reads.extend([
        (
            "ListTagsOfResource",
            json!({"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/Orders"}),
        ),
        (
            "Query",
            json!({"TableName": "Orders", "IndexName": "byStatus",
                   "KeyConditionExpression": "#s = :s", "ExpressionAttributeNames": {"#s": "status"},
                   "ExpressionAttributeValues": {":s": s("open")}}),
        ),
        ("Scan", json!({"TableName": "Orders", "IndexName": "byStatus"})),
        (
            "Query",
            json!({"TableName": "Orders", "IndexName": "byPlaced",
                   "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": s("o#0")},
                   "ScanIndexForward": false}),
        ),
        (
            "Query",
            json!({"TableName": "Numbers", "KeyConditionExpression": "n = :n AND m > :m",
                   "ExpressionAttributeValues": {":n": {"N": "1"}, ":m": {"N": "-1"}}}),
        ),
        (
            "GetItem",
            json!({"TableName": "Orders", "Key": {"pk": s("o#1"), "sk": s("2026-11-01#a")},
                   "ConsistentRead": true, "ReturnConsumedCapacity": "TOTAL"}),
        ),
        ("ListStreams", json!({})),
    ]);
    reads
}

/// Every stream's description and all its records from TRIM_HORIZON.
async fn read_streams(engine: &Engine) -> Vec<Value> {
    let mut out = Vec::new();
    let streams = call(engine, "ListStreams", &json!({})).await;
    for stream in streams["Streams"].as_array().expect("Streams") {
        let arn = &stream["StreamArn"];
        let described = call(engine, "DescribeStream", &json!({"StreamArn": arn})).await;
        let mut records = Vec::new();
        for shard in described["StreamDescription"]["Shards"]
            .as_array()
            .expect("Shards")
        {
            let iterator = call(
                engine,
                "GetShardIterator",
                &json!({"StreamArn": arn, "ShardId": shard["ShardId"],
                        "ShardIteratorType": "TRIM_HORIZON"}),
            )
            .await;
            let mut next = iterator["ShardIterator"].clone();
            while next.is_string() {
                let page = call(engine, "GetRecords", &json!({"ShardIterator": next})).await;
                let got = page["Records"].as_array().expect("Records");
                if got.is_empty() {
                    break;
                }
                records.extend(got.iter().cloned());
                next = page["NextShardIterator"].clone();
            }
        }
        out.push(json!({"DescribeStream": described, "Records": records}));
    }
    out
}

async fn answers(engine: &Engine) -> Value {
    let mut answers = Vec::new();
    for (operation, request) in reads() {
        let answer = call(engine, operation, &request).await;
        answers.push(json!({"operation": operation, "request": request, "answer": answer}));
    }
    json!({"reads": answers, "streams": read_streams(engine).await})
}

/// The catalog records as stored, parsed (for a readable golden file) and raw.
fn stored_catalog(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let store = FjallStore::open(dir).expect("open store");
    let snapshot = store.snapshot().expect("snapshot");
    let records = snapshot
        .range(Space::Catalog, KeyRange::prefix(b""), Direction::Forward)
        .map(|row| {
            let (key, value) = row.expect("catalog row");
            (String::from_utf8(key).expect("table name"), value)
        })
        .collect();
    drop(snapshot);
    records
}

fn catalog_json(records: &[(String, Vec<u8>)]) -> Value {
    records
        .iter()
        .map(|(name, bytes)| {
            let text = String::from_utf8(bytes.clone()).expect("catalog record is UTF-8 JSON");
            (name.clone(), Value::String(text))
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// An engine on `dir` whose clock stands still at the fixture's time, so nothing in it
/// is trimmed or expired while the test reads.
fn open_at(dir: &Path, now_ms: i64) -> Arc<Engine> {
    let options = EngineOptions {
        clock: Arc::new(ManualClock::new(now_ms)),
        sweep_interval: Duration::from_secs(3600),
        ..EngineOptions::default()
    };
    Engine::open_with_options(dir, options).expect("open fixture")
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("json") + "\n"
}

#[tokio::test]
async fn data_directory_of_format_v1_reads_back_exactly() {
    if let Ok(target) = std::env::var("KURA_WRITE_FORMAT_FIXTURE") {
        write_fixture(Path::new(&target)).await;
        return;
    }
    let fixture = fixture_dir();
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture.join("answers.json")).expect("answers.json"),
    )
    .expect("answers.json is JSON");
    let golden_catalog: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture.join("catalog.json")).expect("catalog.json"),
    )
    .expect("catalog.json is JSON");
    let work = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture.join("data"), work.path());

    // The catalog as stored is the golden JSON, and this build encodes it identically.
    let stored = stored_catalog(work.path());
    assert_eq!(
        catalog_json(&stored),
        golden_catalog,
        "stored catalog records"
    );
    for (name, bytes) in &stored {
        let record = kura_engine::catalog::TableRecord::decode(bytes).expect("decodes");
        let encoded = record.encode().expect("encodes");
        assert_eq!(
            String::from_utf8_lossy(&encoded),
            String::from_utf8_lossy(bytes),
            "table {name}: this build writes a different catalog record"
        );
    }

    let now = meta["written_ms"].as_i64().expect("written_ms");
    let engine = open_at(work.path(), now);
    let got = answers(&engine).await;
    engine.shutdown();
    let want = &meta["answers"];
    for (i, (g, w)) in got["reads"]
        .as_array()
        .expect("reads")
        .iter()
        .zip(want["reads"].as_array().expect("reads"))
        .enumerate()
    {
        assert_eq!(g, w, "read {i} differs:\n got {}\nwant {}", g, w);
    }
    assert_eq!(got["reads"], want["reads"]);
    assert_eq!(
        got["streams"], want["streams"],
        "stream descriptions and records"
    );
}

/// A store made before shard iterators were signed has no iterator key: the first open
/// commits one, so an iterator handed out before any write still reads after a restart.
#[tokio::test]
async fn a_store_without_an_iterator_key_keeps_the_one_it_is_given() {
    let fixture = fixture_dir();
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture.join("answers.json")).expect("answers.json"),
    )
    .expect("answers.json is JSON");
    let now = meta["written_ms"].as_i64().expect("written_ms");
    let work = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture.join("data"), work.path());

    let engine = open_at(work.path(), now);
    let streams = call(&engine, "ListStreams", &json!({})).await;
    let arn = streams["Streams"][0]["StreamArn"].clone();
    let described = call(&engine, "DescribeStream", &json!({"StreamArn": arn})).await;
    let shard = described["StreamDescription"]["Shards"][0]["ShardId"].clone();
    let iterator = call(
        &engine,
        "GetShardIterator",
        &json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}),
    )
    .await["ShardIterator"]
        .clone();
    let before = call(&engine, "GetRecords", &json!({"ShardIterator": iterator})).await;
    // Shut down without writing anything.
    engine.shutdown();
    drop(engine);

    let engine = open_at(work.path(), now);
    let after = call(&engine, "GetRecords", &json!({"ShardIterator": iterator})).await;
    engine.shutdown();
    assert!(
        after.get("__type").is_none(),
        "the iterator outlives the restart: {after}"
    );
    assert_eq!(after["Records"], before["Records"]);
}

/// Writes a new fixture into `target` (`data/`, `answers.json`, `catalog.json`).
async fn write_fixture(target: &Path) {
    let data = target.join("data");
    assert!(
        !data.exists(),
        "{} exists; write into a new directory",
        data.display()
    );
    let engine = Engine::open(&data).expect("open");
    populate(&engine).await;
    // TTL is ENABLED once the existing items are in the TTL index.
    for _ in 0..200 {
        let ttl = call(
            &engine,
            "DescribeTimeToLive",
            &json!({"TableName": "Sessions"}),
        )
        .await;
        if ttl["TimeToLiveDescription"]["TimeToLiveStatus"] == "ENABLED" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    engine.shutdown();
    drop(engine);
    let written_ms = kura_engine::clock::now_ms();
    let catalog = catalog_json(&stored_catalog(&data));
    // Answers are taken from a copy, so the committed directory is exactly as written.
    let work = tempfile::tempdir().expect("tempdir");
    copy_dir(&data, work.path());
    let engine = open_at(work.path(), written_ms);
    let answers = answers(&engine).await;
    engine.shutdown();
    std::fs::write(
        target.join("answers.json"),
        pretty(&json!({"written_ms": written_ms, "answers": answers})),
    )
    .expect("write answers.json");
    std::fs::write(target.join("catalog.json"), pretty(&catalog)).expect("write catalog.json");
}
