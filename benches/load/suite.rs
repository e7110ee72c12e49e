//! The shape of a real test suite, replayed: what a user's CI feels of a local DynamoDB.
//!
//! Each test creates its own table with a GSI (and waits until it is ACTIVE), puts items,
//! gets some back, queries the table and the index, updates a few under a condition,
//! writes a transaction, and then cleans up: it deletes its table, or (`reset`, Kura with
//! `--test-controls`, one worker) the whole server is reset through the test controls.
//! Workers run their share of the tests at once against one server, as pytest-xdist or
//! Jest workers do. Each request waits for the one before it, as test code does.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use crate::driver::Driver;
use crate::targets::{self, Kind};
use crate::workload::{self, Request};

/// Requests of one test, by kind.
const PUTS: usize = 200;
const GETS: usize = 100;
const QUERIES: usize = 20;
const UPDATES: usize = 10;

/// How a test leaves the server for the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cleanup {
    /// The test deletes its table.
    Delete,
    /// The whole server is reset through the test controls (`POST /kura/admin/reset`);
    /// Kura only, one worker (a reset empties every worker's tables).
    Reset,
}

#[derive(Debug, Clone, Serialize)]
pub struct SuiteRun {
    pub target: String,
    pub workers: usize,
    pub cleanup: Cleanup,
    pub tests: usize,
    /// Wall time of the whole suite.
    pub seconds: f64,
    /// Median wall time of one test.
    pub test_p50_ms: f64,
    /// Median time of the cleanup step alone.
    pub cleanup_p50_ms: f64,
    pub requests: usize,
}

/// Runs the suite of `tests` tests with `workers` workers against a new `kind` server.
pub async fn run(
    kind: Kind,
    tests: usize,
    workers: usize,
    cleanup: Cleanup,
    kura_args: &[String],
) -> Result<SuiteRun, String> {
    let mut args = kura_args.to_vec();
    if cleanup == Cleanup::Reset {
        args.push("--test-controls".into());
    }
    let target = targets::start(kind, &args).await?;
    let workers = workers.max(1);
    let started = Instant::now();
    let mut handles = Vec::new();
    for worker in 0..workers {
        let driver = target.driver.clone();
        let share: Vec<usize> = (worker..tests).step_by(workers).collect();
        handles.push(tokio::spawn(async move {
            let mut figures = Vec::new();
            for test in share {
                figures.push(one_test(&driver, worker, test, cleanup).await?);
            }
            Ok::<_, String>(figures)
        }));
    }
    let mut figures = Vec::new();
    for handle in handles {
        figures.extend(handle.await.map_err(|e| e.to_string())??);
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut test_ms: Vec<f64> = figures.iter().map(|f| f.test_ms).collect();
    let mut cleanup_ms: Vec<f64> = figures.iter().map(|f| f.cleanup_ms).collect();
    Ok(SuiteRun {
        target: kind.name().into(),
        workers,
        cleanup,
        tests,
        seconds,
        test_p50_ms: median(&mut test_ms),
        cleanup_p50_ms: median(&mut cleanup_ms),
        requests: figures.iter().map(|f| f.requests).sum(),
    })
}

struct TestFigures {
    test_ms: f64,
    cleanup_ms: f64,
    requests: usize,
}

async fn one_test(
    driver: &Driver,
    worker: usize,
    test: usize,
    cleanup: Cleanup,
) -> Result<TestFigures, String> {
    let started = Instant::now();
    let table = format!("suite_w{worker}_t{test}");
    let mut requests = 0;
    let mut call = async |operation: &'static str, body: Value| {
        requests += 1;
        driver.must(&Request::new(operation, &body)).await
    };
    call("CreateTable", create_table(&table)).await?;
    loop {
        let described = call("DescribeTable", json!({"TableName": table})).await?;
        if contains(&described, b"\"TableStatus\":\"ACTIVE\"") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    for i in 0..PUTS {
        call("PutItem", json!({"TableName": table, "Item": item(i)})).await?;
    }
    for i in 0..GETS {
        call(
            "GetItem",
            json!({"TableName": table, "Key": key(i * 7 % PUTS)}),
        )
        .await?;
    }
    for q in 0..QUERIES {
        let body = if q.is_multiple_of(2) {
            json!({"TableName": table, "KeyConditionExpression": "pk = :p",
                   "ExpressionAttributeValues": {":p": {"S": format!("USER#{}", q % 10)}}})
        } else {
            json!({"TableName": table, "IndexName": "by_status",
                   "KeyConditionExpression": "#s = :s", "Limit": 25,
                   "ExpressionAttributeNames": {"#s": "status"},
                   "ExpressionAttributeValues": {":s": {"S": "OPEN"}}})
        };
        call("Query", body).await?;
    }
    for u in 0..UPDATES {
        call(
            "UpdateItem",
            json!({"TableName": table, "Key": key(u),
                   "UpdateExpression": "SET #s = :closed, version = version + :one",
                   "ConditionExpression": "version = :zero",
                   "ExpressionAttributeNames": {"#s": "status"},
                   "ExpressionAttributeValues": {":closed": {"S": "CLOSED"},
                       ":one": {"N": "1"}, ":zero": {"N": "0"}}}),
        )
        .await?;
    }
    let puts: Vec<Value> = (PUTS..PUTS + 4)
        .map(|i| {
            json!({"Put": {"TableName": table, "Item": item(i),
                                "ConditionExpression": "attribute_not_exists(pk)"}})
        })
        .collect();
    call("TransactWriteItems", json!({"TransactItems": puts})).await?;
    let cleaning = Instant::now();
    match cleanup {
        Cleanup::Delete => {
            call("DeleteTable", json!({"TableName": table})).await?;
        }
        Cleanup::Reset => {
            requests += 1;
            driver.admin("/kura/admin/reset").await?;
        }
    }
    Ok(TestFigures {
        test_ms: started.elapsed().as_secs_f64() * 1e3,
        cleanup_ms: cleaning.elapsed().as_secs_f64() * 1e3,
        requests,
    })
}

/// The bench's pk/sk table with a GSI on `status` (sort key `sk`), as a test fixture
/// would declare it.
fn create_table(table: &str) -> Value {
    let mut definition = workload::table_definition(table);
    if let Some(attributes) = definition["AttributeDefinitions"].as_array_mut() {
        attributes.push(json!({"AttributeName": "status", "AttributeType": "S"}));
    }
    definition["GlobalSecondaryIndexes"] = json!([{
        "IndexName": "by_status",
        "KeySchema": [
            {"AttributeName": "status", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"},
    }]);
    definition
}

fn key(i: usize) -> Value {
    json!({"pk": {"S": format!("USER#{}", i % 10)}, "sk": {"S": format!("ORDER#{i:05}")}})
}

/// An order of about 200 bytes, the size of a typical test fixture.
fn item(i: usize) -> Value {
    let mut item = key(i);
    item["status"] = json!({"S": if i.is_multiple_of(3) { "OPEN" } else { "SHIPPED" }});
    item["version"] = json!({"N": "0"});
    item["total"] = json!({"N": format!("{}.{:02}", i * 13 % 997, i % 100)});
    item["email"] = json!({"S": format!("user{}@example.com", i % 10)});
    item["lines"] = json!({"L": [
        {"M": {"sku": {"S": format!("SKU-{:04}", i % 50)}, "qty": {"N": "2"}}},
        {"M": {"sku": {"S": format!("SKU-{:04}", (i + 7) % 50)}, "qty": {"N": "1"}}},
    ]});
    item
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Times a reset of Kura (`--test-controls`, in memory) holding `items` items: the median
/// of `rounds` resets, each after the table is loaded again.
pub async fn reset_cost(
    items: usize,
    rounds: usize,
    kura_args: &[String],
) -> Result<(f64, Vec<f64>), String> {
    let mut args = kura_args.to_vec();
    args.push("--test-controls".to_owned());
    let target = targets::start(Kind::KuraMemory, &args).await?;
    let mut times = Vec::new();
    for round in 0..rounds {
        let table = format!("reset_{round}");
        target
            .driver
            .must(&Request::new("CreateTable", &create_table(&table)))
            .await?;
        targets::wait_active(&target.driver, &table).await?;
        for chunk in (0..items).collect::<Vec<_>>().chunks(25) {
            let puts: Vec<Value> = chunk
                .iter()
                .map(|&i| json!({"PutRequest": {"Item": item(i)}}))
                .collect();
            targets::write_batch(
                &target.driver,
                Request::new(
                    "BatchWriteItem",
                    &json!({"RequestItems": {table.clone(): puts}}),
                ),
            )
            .await?;
        }
        let started = Instant::now();
        target.driver.admin("/kura/admin/reset").await?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let mut sorted = times.clone();
    Ok((median(&mut sorted), times))
}
