//! What point-in-time recovery costs and what a restore takes, on a durable engine:
//! 1. PutItem throughput of 32 concurrent writers overwriting items of about 1 KB (so
//!    every change keeps a 1 KB pre-image), PITR off and on, alternated three times in this
//!    process; ratios against the runs with it off;
//! 2. the history's bytes per change;
//! 3. restoring a table of ITEMS items to the latest time and to a backup taken before
//!    every item was overwritten, with progress figures;
//! 4. exporting that table (DynamoDB JSON, gzip'd, to a local bucket) and importing the
//!    export into a new table.
//!
//! Run: `cargo run --release -p kura-bench --bin pitr-cost [-- WRITES [ITEMS]]`

use std::sync::Arc;
use std::time::{Duration, Instant};

use kura_engine::{Engine, RequestContext};
use serde_json::{Value, json};

const WRITERS: usize = 32;
/// Distinct keys the throughput runs overwrite.
const KEYS: usize = 2_000;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

fn ctx() -> RequestContext {
    RequestContext::default()
}

async fn create(engine: &Engine, name: &str, pitr: bool) {
    engine
        .create_table(
            &ctx(),
            input(json!({
                "TableName": name,
                "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            })),
        )
        .await
        .expect("create table");
    if pitr {
        engine
            .update_continuous_backups(input(json!({"TableName": name,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}})))
            .await
            .expect("enable pitr");
    }
}

/// `count` puts from concurrent writers over `keys` keys; returns puts per second.
async fn put_many(engine: &Arc<Engine>, table: &str, count: usize, keys: usize, tag: &str) -> f64 {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for writer in 0..WRITERS {
        let engine = engine.clone();
        let (table, tag) = (table.to_owned(), tag.to_owned());
        tasks.push(tokio::spawn(async move {
            for i in (writer..count).step_by(WRITERS) {
                let item = json!({
                    "pk": {"S": format!("k{:06}", i % keys)},
                    "tag": {"S": tag},
                    "pad": {"S": "x".repeat(1000)},
                });
                engine
                    .put_item(input(json!({"TableName": table, "Item": item})))
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

async fn throughput(writes: usize, pitr: bool) -> (f64, usize, usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::open(dir.path()).expect("open");
    create(&engine, "Bench", pitr).await;
    put_many(&engine, "Bench", KEYS, KEYS, "load").await;
    let rate = put_many(&engine, "Bench", writes, KEYS, "over").await;
    let (entries, bytes) = engine.internals().history_size();
    engine.shutdown();
    (rate, entries, bytes)
}

/// Starts a restore and reports its progress until the table is ACTIVE; returns seconds.
#[allow(clippy::print_stdout)] // a benchmark's job is to print
async fn timed_restore(
    engine: &Engine,
    label: &str,
    target: &str,
    expect: u64,
    start: Value,
) -> f64 {
    let started = Instant::now();
    let restore = async {
        if start.get("BackupArn").is_some() {
            engine
                .restore_table_from_backup(&ctx(), input(start))
                .await
                .map(drop)
        } else {
            engine
                .restore_table_to_point_in_time(&ctx(), input(start))
                .await
                .map(drop)
        }
    };
    restore.await.expect("restore");
    let mut last_report = Instant::now();
    loop {
        let d = serde_json::to_value(
            engine
                .describe_table(&ctx(), input(json!({"TableName": target})))
                .await
                .expect("describe"),
        )
        .expect("json");
        let done = d["Table"]["ItemCount"].as_u64().unwrap_or(0);
        if d["Table"]["TableStatus"] == "ACTIVE" {
            assert_eq!(done, expect, "{label}: restored item count");
            break;
        }
        if last_report.elapsed() >= Duration::from_millis(500) {
            let secs = started.elapsed().as_secs_f64();
            println!(
                "  {label}: {done}/{expect} items ({:.0}%), {:.0} items/s",
                100.0 * done as f64 / expect as f64,
                done as f64 / secs
            );
            last_report = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    started.elapsed().as_secs_f64()
}

#[allow(clippy::print_stdout)] // a benchmark's job is to print
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut args = std::env::args().skip(1);
    let writes: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(60_000);
    let items: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);

    let mut off = Vec::new();
    let mut on = Vec::new();
    let mut history = (0, 0);
    for _ in 0..3 {
        off.push(throughput(writes, false).await.0);
        let (rate, entries, bytes) = throughput(writes, true).await;
        on.push(rate);
        history = (entries, bytes);
    }
    let off_mean = off.iter().sum::<f64>() / off.len() as f64;
    println!(
        "PutItem overwriting {KEYS} items of ~1 KB, {writes} puts, {WRITERS} writers, durable store"
    );
    println!("{:<28}{:>12}{:>12}", "run", "puts/s", "ratio");
    for (i, (a, b)) in off.iter().zip(&on).enumerate() {
        println!(
            "{:<28}{a:>12.0}{:>12.2}",
            format!("PITR off, run {}", i + 1),
            a / off_mean
        );
        println!(
            "{:<28}{b:>12.0}{:>12.2}",
            format!("PITR on, run {}", i + 1),
            b / off_mean
        );
    }
    let (entries, bytes) = history;
    println!(
        "history: {entries} entries, {bytes} bytes: {:.0} bytes per change (the item is ~1,030)",
        bytes as f64 / entries.max(1) as f64
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::open(dir.path()).expect("open");
    create(&engine, "Big", true).await;
    put_many(&engine, "Big", items, items, "v1").await;
    let backup = serde_json::to_value(
        engine
            .create_backup(
                &ctx(),
                input(json!({"TableName": "Big", "BackupName": "before-v2"})),
            )
            .await
            .expect("backup"),
    )
    .expect("json");
    let arn = backup["BackupDetails"]["BackupArn"].clone();
    put_many(&engine, "Big", items, items, "v2").await;
    println!("restores of a {items}-item table (~1 KB items), durable store");
    let latest = timed_restore(
        &engine,
        "latest",
        "Latest",
        items as u64,
        json!({"SourceTableName": "Big", "TargetTableName": "Latest", "UseLatestRestorableTime": true}),
    )
    .await;
    let from_backup = timed_restore(
        &engine,
        "backup",
        "FromBackup",
        items as u64,
        json!({"BackupArn": arn, "TargetTableName": "FromBackup"}),
    )
    .await;
    println!(
        "to the latest time (no history to undo): {latest:.2} s, {:.0} items/s",
        items as f64 / latest
    );
    println!(
        "from a backup taken before every item changed ({items} pre-images merged): {from_backup:.2} s, {:.0} items/s",
        items as f64 / from_backup
    );

    let started = Instant::now();
    let export = serde_json::to_value(
        engine
            .export_table_to_point_in_time(
                &ctx(),
                input(json!({"TableArn": ctx().table_arn("Big"), "S3Bucket": "bench-bucket"})),
            )
            .await
            .expect("export"),
    )
    .expect("json");
    let export_arn = export["ExportDescription"]["ExportArn"].clone();
    let manifest = loop {
        let d = serde_json::to_value(
            engine
                .describe_export(input(json!({"ExportArn": export_arn})))
                .expect("describe export"),
        )
        .expect("json");
        if d["ExportDescription"]["ExportStatus"] == "COMPLETED" {
            break d["ExportDescription"]["ExportManifest"]
                .as_str()
                .expect("manifest")
                .to_owned();
        }
        assert_eq!(d["ExportDescription"]["ExportStatus"], "IN_PROGRESS", "{d}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let exported = started.elapsed().as_secs_f64();
    let files = std::fs::read_dir(dir.path().join("buckets/bench-bucket/AWSDynamoDB"))
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|d| {
            std::fs::read_dir(d.path().join("data"))
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|f| f.metadata().map_or(0, |m| m.len()))
        .sum::<u64>();
    println!(
        "export (DYNAMODB_JSON, gzip): {exported:.2} s, {:.0} items/s, {:.1} MB of data files",
        items as f64 / exported,
        files as f64 / 1e6
    );
    let started = Instant::now();
    let import = serde_json::to_value(
        engine
            .import_table(
                &ctx(),
                input(json!({
                    "S3BucketSource": {"S3Bucket": "bench-bucket",
                        "S3KeyPrefix": manifest.replace("manifest-summary.json", "data/")},
                    "InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP",
                    "TableCreationParameters": {"TableName": "Imported", "BillingMode": "PAY_PER_REQUEST",
                        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]},
                })),
            )
            .await
            .expect("import"),
    )
    .expect("json");
    let import_arn = import["ImportTableDescription"]["ImportArn"].clone();
    loop {
        let d = serde_json::to_value(
            engine
                .describe_import(input(json!({"ImportArn": import_arn})))
                .expect("describe import"),
        )
        .expect("json");
        if d["ImportTableDescription"]["ImportStatus"] == "COMPLETED" {
            assert_eq!(
                d["ImportTableDescription"]["ImportedItemCount"],
                items as u64
            );
            break;
        }
        assert_eq!(
            d["ImportTableDescription"]["ImportStatus"], "IN_PROGRESS",
            "{d}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let imported = started.elapsed().as_secs_f64();
    println!(
        "import of that export: {imported:.2} s, {:.0} items/s",
        items as f64 / imported
    );
    engine.shutdown();
}
