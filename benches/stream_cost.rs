//! What streams, their shards and a trigger cost a writer, on a durable engine in this
//! process: PutItem throughput of 32 concurrent writers (items of about 1 KB over 2,000
//! keys) on a table
//! - without a stream (the baseline),
//! - with a stream of one shard (as streams were before shards),
//! - with a stream of four shards (the default),
//! - with four shards and a trigger delivering every record to an HTTP function (a tiny
//!   server in this process answering at once), batch size 100,
//! - without a stream, with a Kinesis streaming destination (a Kinesis stream of four
//!   shards, every change written to it in DynamoDB's JSON, in the change's batch),
//!
//! each alternated three times; printed as ratios against the baseline runs' mean.
//!
//! Run: `cargo run --release -p kura-bench --bin stream-cost [-- WRITES]`

use std::sync::Arc;
use std::time::{Duration, Instant};

use kura_engine::streams::ShardShape;
use kura_engine::writer::WriteLimits;
use kura_engine::{Engine, EngineOptions, RequestContext};
use serde_json::{Value, json};

const WRITERS: usize = 32;
const KEYS: usize = 2_000;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

#[derive(Clone, Copy, PartialEq)]
enum Setup {
    NoStream,
    OneShard,
    FourShards,
    FourShardsTrigger,
    KinesisDestination,
}

impl Setup {
    fn label(self) -> &'static str {
        match self {
            Setup::NoStream => "no stream",
            Setup::OneShard => "stream, 1 shard",
            Setup::FourShards => "stream, 4 shards",
            Setup::FourShardsTrigger => "stream, 4 shards, trigger",
            Setup::KinesisDestination => "Kinesis destination, 4 shards",
        }
    }
}

/// A function that takes every invocation at once; returns its URL.
async fn instant_function() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = axum::Router::new().route("/", axum::routing::post(|| async { "{}" }));
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/")
}

async fn put_many(engine: &Arc<Engine>, count: usize) -> f64 {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for writer in 0..WRITERS {
        let engine = engine.clone();
        tasks.push(tokio::spawn(async move {
            for i in (writer..count).step_by(WRITERS) {
                let item = json!({
                    "pk": {"S": format!("k{:06}", i % KEYS)},
                    "n": {"N": i.to_string()},
                    "pad": {"S": "x".repeat(1000)},
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
    count as f64 / started.elapsed().as_secs_f64()
}

/// Puts per second with `setup`, and the records the trigger delivered by the end.
async fn throughput(setup: Setup, writes: usize, function: &str) -> (f64, u64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let shards = ShardShape {
        initial: if setup == Setup::OneShard { 1 } else { 4 },
        ..ShardShape::default()
    };
    let engine = Engine::open_with_options(
        dir.path(),
        EngineOptions {
            limits: WriteLimits {
                shards,
                ..WriteLimits::default()
            },
            ..EngineOptions::default()
        },
    )
    .expect("open");
    let mut table = json!({
        "TableName": "Bench", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    });
    if !matches!(setup, Setup::NoStream | Setup::KinesisDestination) {
        table["StreamSpecification"] =
            json!({"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"});
    }
    engine
        .create_table(&RequestContext::default(), input(table))
        .await
        .expect("create");
    if setup == Setup::KinesisDestination {
        engine
            .kinesis_create_stream(input(json!({"StreamName": "cdc", "ShardCount": 4})))
            .await
            .expect("stream");
        engine
            .enable_kinesis_streaming_destination(input(json!({
                "TableName": "Bench",
                "StreamArn": "arn:aws:kinesis:us-east-1:000000000000:stream/cdc"
            })))
            .await
            .expect("destination");
    }
    let triggers = (setup == Setup::FourShardsTrigger).then(|| {
        let triggers = kura_triggers::Triggers::new(
            engine.clone(),
            "us-east-1",
            kura_triggers::StateStore::Dir(dir.path().join("triggers")),
            kura_triggers::RunnerOptions::default(),
        );
        let trigger = serde_json::from_value::<kura_triggers::TriggerInput>(json!({
            "Name": "bench", "Table": "Bench", "Function": {"Url": function}
        }))
        .expect("trigger")
        .validate()
        .expect("valid");
        triggers.add_from_file(trigger).expect("start");
        triggers
    });
    put_many(&engine, KEYS).await;
    let rate = put_many(&engine, writes).await;
    let mut delivered = 0;
    if let Some(triggers) = triggers {
        tokio::time::sleep(Duration::from_millis(500)).await;
        delivered = triggers.status("bench").map_or(0, |s| s.records_delivered);
        triggers.shutdown().await;
    }
    engine.shutdown();
    (rate, delivered)
}

#[tokio::main]
#[allow(clippy::print_stdout)] // a benchmark's job is to print
async fn main() {
    let writes: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let function = instant_function().await;
    let setups = [
        Setup::NoStream,
        Setup::OneShard,
        Setup::FourShards,
        Setup::FourShardsTrigger,
        Setup::KinesisDestination,
    ];
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); setups.len()];
    for round in 1..=3 {
        for (i, setup) in setups.iter().enumerate() {
            let (rate, delivered) = throughput(*setup, writes, &function).await;
            println!(
                "round {round}: {:<28} {rate:>8.0} puts/s{}",
                setup.label(),
                if delivered > 0 {
                    format!(" ({delivered} records delivered)")
                } else {
                    String::new()
                }
            );
            rates[i].push(rate);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let base = mean(&rates[0]);
    println!("\n{WRITERS} writers, {writes} puts of ~1 KB per run, durable, mean of 3 runs:");
    for (i, setup) in setups.iter().enumerate() {
        println!(
            "  {:<28} {:>8.0} puts/s  {:.3} x no stream",
            setup.label(),
            mean(&rates[i]),
            mean(&rates[i]) / base
        );
    }
}
