//! What a global table's replicas cost a PutItem, same run, durable engines: the
//! throughput of 1 and 16 concurrent writers overwriting items of about 1 KB in one
//! region, on a table without a stream, with a NEW_AND_OLD_IMAGES stream (what every
//! replica has), and with one and two replicas (each write also sent to and applied in the
//! other regions by the replication thread, on the same 2 cores), and as an MRSC table of
//! three regions (each write held against the other regions and applied in both others
//! before it is acknowledged, as the API's handlers do). Cases alternate, three rounds;
//! ratios against the table without a stream. Also the replication latency seen.
//!
//! Run: `cargo run --release -p kura-bench --bin replica-cost [-- WRITES]`

use std::sync::Arc;
use std::time::Instant;

use kura_engine::api::PutItemInput;
use kura_engine::replication::Regions;
use kura_engine::{Engine, RequestContext};
use serde_json::{Value, json};

/// Distinct keys the writers overwrite.
const KEYS: usize = 2_000;
const REGIONS: [&str; 3] = ["us-east-1", "eu-west-1", "ap-northeast-1"];

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

fn ctx() -> RequestContext {
    RequestContext::default()
}

/// A directory of durable regions in `dir`, replication running.
fn regions(dir: &std::path::Path) -> (Arc<Regions>, Arc<Engine>) {
    let home = Engine::open(&dir.join("home")).expect("open");
    let home_engine = home.clone();
    let root = dir.join("regions");
    let regions = Regions::new(
        REGIONS[0],
        Box::new(move || home_engine.clone()),
        Box::new(move |region| Engine::open(&root.join(region))),
    );
    regions.start().expect("replication thread");
    (regions, home)
}

/// How the table of a case is made.
#[derive(Clone, Copy)]
struct Case {
    name: &'static str,
    stream: bool,
    replicas: usize,
    /// MRSC: the replicas made at once, `MultiRegionConsistency: STRONG`.
    strong: bool,
}

/// Creates the table of `case`.
async fn create(regions: &Arc<Regions>, home: &Engine, case: Case) {
    let Case {
        stream,
        replicas,
        strong,
        ..
    } = case;
    let mut table = json!({
        "TableName": "Bench",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    });
    if stream {
        table["StreamSpecification"] =
            json!({"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"});
    }
    home.create_table(&ctx(), input(table))
        .await
        .expect("create");
    if strong {
        let creates: Vec<Value> = REGIONS[1..=replicas]
            .iter()
            .map(|r| json!({"Create": {"RegionName": r}}))
            .collect();
        regions
            .update_table(
                home,
                &ctx(),
                input(json!({"TableName": "Bench", "ReplicaUpdates": creates,
                    "MultiRegionConsistency": "STRONG"})),
            )
            .await
            .expect("MRSC table");
        return;
    }
    for region in &REGIONS[1..=replicas] {
        regions
            .update_table(
                home,
                &ctx(),
                input(json!({"TableName": "Bench",
                    "ReplicaUpdates": [{"Create": {"RegionName": region}}]})),
            )
            .await
            .expect("add replica");
        let replica = regions.engine(region).expect("region");
        loop {
            let d = serde_json::to_value(
                replica
                    .describe_table(&ctx(), input(json!({"TableName": "Bench"})))
                    .await
                    .expect("describe"),
            )
            .expect("json");
            if d["Table"]["TableStatus"] == "ACTIVE" {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    }
}

/// `count` puts from `writers` concurrent writers; puts per second. With `strong`, each
/// put goes through the MRSC steps of the API's handler (hold, put, acknowledge).
async fn put_many(
    regions: &Arc<Regions>,
    engine: &Arc<Engine>,
    writers: usize,
    count: usize,
    strong: bool,
) -> f64 {
    let started = Instant::now();
    let tasks: Vec<_> = (0..writers)
        .map(|writer| {
            let (regions, engine) = (regions.clone(), engine.clone());
            tokio::spawn(async move {
                for i in (writer..count).step_by(writers) {
                    let item = json!({
                        "pk": {"S": format!("k{:06}", i % KEYS)},
                        "pad": {"S": "x".repeat(1000)},
                    });
                    let put: PutItemInput = input(json!({"TableName": "Bench", "Item": item}));
                    // Writers of one region never conflict; keys repeat across writers.
                    let hold = if strong {
                        let items: Vec<_> = put.item.iter().collect();
                        regions
                            .strong_write(engine.as_ref(), REGIONS[0], "Bench", Some(&items))
                            .expect("held")
                    } else {
                        None
                    };
                    engine.put_item(put).await.expect("put");
                    if let Some(hold) = hold {
                        regions.acknowledge(&engine, hold).await.expect("majority");
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("writer");
    }
    count as f64 / started.elapsed().as_secs_f64()
}

/// One case: its throughput, and the largest replication latency reported (ms).
async fn case(writers: usize, writes: usize, case: Case) -> (f64, i64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (regions, home) = regions(dir.path());
    create(&regions, &home, case).await;
    put_many(&regions, &home, writers, KEYS.min(writes), case.strong).await;
    let rate = put_many(&regions, &home, writers, writes, case.strong).await;
    let latency = regions
        .lag()
        .iter()
        .map(|l| l.latency_ms)
        .max()
        .unwrap_or(0);
    regions.shutdown();
    home.shutdown();
    (rate, latency)
}

#[tokio::main]
#[allow(clippy::print_stdout)] // a benchmark's job is to print
async fn main() {
    let writes: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(8_000);
    let case_of = |name, stream, replicas, strong| Case {
        name,
        stream,
        replicas,
        strong,
    };
    let cases = [
        case_of("no stream", false, 0, false),
        case_of("stream", true, 0, false),
        case_of("1 replica", true, 1, false),
        case_of("2 replicas", true, 2, false),
        case_of("MRSC, 3", true, 2, true),
    ];
    println!("PutItem of about 1 KB, durable, {writes} writes per run, 3 rounds alternated");
    for writers in [1, 16] {
        let mut rates = vec![Vec::new(); cases.len()];
        let mut latency = vec![0; cases.len()];
        for _round in 0..3 {
            for (i, c) in cases.iter().enumerate() {
                let (rate, lag) = case(writers, writes, *c).await;
                rates[i].push(rate);
                latency[i] = latency[i].max(lag);
            }
        }
        let median = |r: &Vec<f64>| {
            let mut r = r.clone();
            r.sort_by(f64::total_cmp);
            r[r.len() / 2]
        };
        let base = median(&rates[0]);
        println!("{writers} writer(s):");
        for (i, Case { name, replicas, .. }) in cases.iter().enumerate() {
            let m = median(&rates[i]);
            let lag = if *replicas > 0 {
                format!(", replication latency up to {} ms", latency[i])
            } else {
                String::new()
            };
            println!("  {name:<11} {m:>8.0} puts/s  {:.2}x{lag}", m / base);
        }
    }
}
