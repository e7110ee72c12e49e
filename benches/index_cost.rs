//! What secondary indexes and streams cost on the write path: PutItem throughput on a
//! durable engine for a table without indexes (the baseline), with one KEYS_ONLY GSI,
//! with three GSIs (ALL projections) plus an LSI, and with a NEW_AND_OLD_IMAGES stream.
//! Concurrent writers share group commits, as clients of `kura serve` do. Figures are
//! printed as ratios to the baseline run in this process.
//!
//! Run: `cargo run --release -p kura-bench --bin index-cost [-- ITEMS]`

use std::sync::Arc;
use std::time::{Duration, Instant};

use kura_engine::{Engine, RequestContext};
use serde_json::{Value, json};

const WRITERS: usize = 32;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

fn table(gsis: &[(&str, &str)], lsi: bool) -> Value {
    let mut defs = vec![
        json!({"AttributeName": "pk", "AttributeType": "S"}),
        json!({"AttributeName": "sk", "AttributeType": "N"}),
    ];
    let mut indexes = Vec::new();
    for (i, (attr, projection)) in gsis.iter().enumerate() {
        defs.push(json!({"AttributeName": attr, "AttributeType": "S"}));
        indexes.push(json!({
            "IndexName": format!("gsi{i}"),
            "KeySchema": [{"AttributeName": attr, "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": projection},
        }));
    }
    let mut request = json!({
        "TableName": "Bench",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": defs,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    });
    if !indexes.is_empty() {
        request["GlobalSecondaryIndexes"] = json!(indexes);
    }
    if lsi {
        request["AttributeDefinitions"]
            .as_array_mut()
            .expect("defs")
            .push(json!({"AttributeName": "at", "AttributeType": "S"}));
        request["LocalSecondaryIndexes"] = json!([{
            "IndexName": "lsi",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "at", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }]);
    }
    request
}

/// Puts `items` items of about 1 KB from concurrent writers; returns puts per second.
async fn run(create: Value, items: usize) -> f64 {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::open(dir.path()).expect("open");
    engine
        .create_table(&RequestContext::default(), input(create))
        .await
        .expect("create table");
    let started = Instant::now();
    let mut tasks = Vec::new();
    for writer in 0..WRITERS {
        let engine: Arc<Engine> = engine.clone();
        tasks.push(tokio::spawn(async move {
            for i in (writer..items).step_by(WRITERS) {
                let item = json!({
                    "pk": {"S": format!("p{}", i % 1000)},
                    "sk": {"N": i.to_string()},
                    "a": {"S": format!("a{}", i % 17)},
                    "b": {"S": format!("b{}", i % 101)},
                    "c": {"S": format!("c{}", i % 5)},
                    "at": {"S": format!("2026-11-{:02}", 1 + i % 28)},
                    "pad": {"S": "x".repeat(900)},
                });
                engine
                    .put_item(input(json!({"TableName": "Bench", "Item": item})))
                    .await
                    .expect("put");
            }
        }));
    }
    for task in tasks {
        task.await.expect("writer");
    }
    let took: Duration = started.elapsed();
    engine.shutdown();
    items as f64 / took.as_secs_f64()
}

#[allow(clippy::print_stdout)] // a benchmark's job is to print
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let items: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let baseline = run(table(&[], false), items).await;
    let one = run(table(&[("a", "KEYS_ONLY")], false), items).await;
    let four = run(
        table(&[("a", "ALL"), ("b", "ALL"), ("c", "ALL")], true),
        items,
    )
    .await;
    let mut streamed = table(&[], false);
    streamed["StreamSpecification"] =
        json!({"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"});
    let stream = run(streamed, items).await;
    println!("PutItem, {items} items of ~1 KB, {WRITERS} concurrent writers, durable store");
    println!("{:<36}{:>12}{:>12}", "table", "puts/s", "ratio");
    for (name, rate) in [
        ("no index (baseline)", baseline),
        ("1 GSI, KEYS_ONLY", one),
        ("3 GSIs ALL + 1 LSI KEYS_ONLY", four),
        ("stream, NEW_AND_OLD_IMAGES", stream),
    ] {
        println!("{name:<36}{rate:>12.0}{:>12.2}", rate / baseline);
    }
}
