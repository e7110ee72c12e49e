//! What kura-cqrs costs over the same writes done by hand with the SDK, on a durable Kura
//! engine in this process reached through aws-sdk-dynamodb (the SDK's serialisation and
//! Kura's request handling included, no sockets): 8 writers, each moving its own entities
//! through versions 1..=V.
//!
//! - **async by hand**: one conditional PutItem of the command row (`sk@v`, not there
//!   yet), the version kept by the client;
//! - **publish_async**: the framework's (the latest version read back first, the first
//!   version's audit fields read, the conditional put);
//! - **sync by hand**: one TransactWriteItems of the command row, the previous data row to
//!   history and the new data row under a version condition, the previous row kept by the
//!   client;
//! - **publish_sync**: the framework's (the data row read first, the same transaction);
//! - **publish_sync + LargeAttributes**: the same with a store for large attributes
//!   configured, entities far under the threshold (the cost of the size check on every
//!   publish, against plain publish_sync).
//!
//! Each pair alternates three times; printed as commands per second and the second's
//! throughput as a ratio of the first's (1.0 = no overhead).
//!
//! Then **publish_async at 1 and at 1,000 versions**: each writer publishes 200 versions
//! of one entity, new or with 1,000 versions behind it (built with `publish_sync`), a
//! projector applying both as it runs in production; the latest
//! version is read from the data row and the few command rows after it, so the ratio
//! should stay near 1.0 however long the history.
//!
//! Run: `cargo run --release -p kura-bench --bin cqrs-cost [-- ENTITIES_PER_WRITER VERSIONS]`

use std::sync::Arc;
use std::time::Instant;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use kura_cqrs::keys::VERSION_LATEST;
use kura_cqrs::{
    CommandInput, CommandModel, CommandService, Invoker, Projector, ProjectorOptions, TableNames,
    ensure_tables,
};
use serde_json::json;

const WRITERS: usize = 8;

#[derive(Clone, Copy, PartialEq)]
enum Way {
    AsyncByHand,
    PublishAsync,
    SyncByHand,
    PublishSync,
    PublishSyncLarge,
}

impl Way {
    fn label(self) -> &'static str {
        match self {
            Way::AsyncByHand => "async by hand (PutItem)",
            Way::PublishAsync => "publish_async",
            Way::SyncByHand => "sync by hand (TransactWriteItems)",
            Way::PublishSync => "publish_sync",
            Way::PublishSyncLarge => "publish_sync + LargeAttributes",
        }
    }
}

fn input(writer: usize, entity: usize, version: i64) -> CommandInput {
    CommandInput::new(
        "ORDER#tenant001",
        format!("ORDER#{writer:02}-{entity:04}"),
        VERSION_LATEST,
    )
    .with_name("order")
    .with_entity(&json!({"total": version, "status": "OPEN", "note": "x".repeat(200)}))
    .expect("a map")
}

/// The rows the framework would write, built with its own model (so the hand-written
/// writes carry the same bytes).
fn model(writer: usize, entity: usize, version: i64) -> CommandModel {
    CommandModel::from_input(
        &input(writer, entity, version),
        version,
        &Invoker::default(),
        None,
        &kura_cqrs::command::now_timestamp(),
    )
}

fn put(
    table: &str,
    item: std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>,
    condition: &str,
    v: Option<kura_cqrs::Version>,
) -> TransactWriteItem {
    let mut put = Put::builder()
        .table_name(table)
        .set_item(Some(item))
        .condition_expression(condition);
    if let Some(v) = v {
        put = put.expression_attribute_values(":v", AttributeValue::N(v.to_string()));
    }
    TransactWriteItem::builder()
        .put(put.build().expect("put"))
        .build()
}

async fn writer(
    client: Client,
    tables: TableNames,
    way: Way,
    id: usize,
    entities: usize,
    versions: i64,
) {
    let mut service = CommandService::new(client.clone(), tables.clone());
    if way == Way::PublishSyncLarge {
        // Nothing reaches the threshold: the directory is never written.
        let store = kura_cqrs::DirectoryStore::new(std::env::temp_dir().join("kura-cqrs-cost"));
        service = service.with_large_attributes(kura_cqrs::LargeAttributes::new(
            Arc::new(store),
            "attributes",
        ));
    }
    let invoker = Invoker::default();
    for entity in 0..entities {
        let mut previous: Option<CommandModel> = None;
        for version in 1..=versions {
            match way {
                Way::PublishAsync => {
                    service
                        .publish_async(&input(id, entity, version), &invoker)
                        .await
                        .expect("publish_async");
                }
                Way::PublishSync | Way::PublishSyncLarge => {
                    service
                        .publish_sync(&input(id, entity, version), &invoker)
                        .await
                        .expect("publish_sync");
                }
                Way::AsyncByHand => {
                    let row = kura_cqrs::projection::command_row(
                        &model(id, entity, version),
                        kura_cqrs::status::STARTED,
                        &kura_cqrs::RowTtl::default(),
                    );
                    client
                        .put_item()
                        .table_name(&tables.command)
                        .set_item(Some(row))
                        .condition_expression(kura_cqrs::names::not_exists())
                        .send()
                        .await
                        .expect("put");
                }
                Way::SyncByHand => {
                    let current = model(id, entity, version);
                    let projection = kura_cqrs::project(
                        previous.as_ref(),
                        &current,
                        &kura_cqrs::RowTtl::default(),
                    );
                    let mut actions = vec![put(
                        &tables.command,
                        kura_cqrs::projection::command_row(
                            &current,
                            kura_cqrs::status::FINISHED,
                            &kura_cqrs::RowTtl::default(),
                        ),
                        &kura_cqrs::names::not_exists(),
                        None,
                    )];
                    if let Some(history) = projection.history_row {
                        actions.push(put(
                            &tables.history,
                            history,
                            &kura_cqrs::names::not_exists(),
                            None,
                        ));
                    }
                    let (condition, v) = match &previous {
                        Some(p) => ("version = :v", Some(p.version)),
                        None => ("attribute_not_exists(pk)", None),
                    };
                    actions.push(put(&tables.data, projection.data_row.clone(), condition, v));
                    client
                        .transact_write_items()
                        .set_transact_items(Some(actions))
                        .send()
                        .await
                        .expect("transaction");
                    let mut applied = current;
                    applied.sk = applied.base_sk().to_owned();
                    previous = Some(applied);
                }
            }
        }
    }
}

async fn run(
    engine: &Arc<kura_engine::Engine>,
    way: Way,
    round: usize,
    entities: usize,
    versions: i64,
) -> f64 {
    let client = kura_testkit::in_process_client(engine.clone());
    let tables = TableNames::new(
        "bench",
        &format!("r{round}"),
        match way {
            Way::AsyncByHand => "ah",
            Way::PublishAsync => "pa",
            Way::SyncByHand => "sh",
            Way::PublishSync => "ps",
            Way::PublishSyncLarge => "pl",
        },
    );
    ensure_tables(&client, &tables).await.expect("tables");
    let started = Instant::now();
    let tasks: Vec<_> = (0..WRITERS)
        .map(|id| {
            tokio::spawn(writer(
                client.clone(),
                tables.clone(),
                way,
                id,
                entities,
                versions,
            ))
        })
        .collect();
    for task in tasks {
        task.await.expect("writer");
    }
    let commands = (WRITERS * entities) as f64 * versions as f64;
    commands / started.elapsed().as_secs_f64()
}

/// Versions behind each deep entity.
const DEEP: i64 = 1_000;

/// `publishes` publish_async per writer to one entity of its own, new or deep, with a
/// projector running; commands per second.
async fn depth_run(
    engine: &Arc<kura_engine::Engine>,
    deep: bool,
    round: usize,
    publishes: usize,
) -> f64 {
    let client = kura_testkit::in_process_client(engine.clone());
    let streams = kura_testkit::in_process_streams_client(engine.clone());
    let tables = TableNames::new(
        "bench",
        &format!("d{round}"),
        if deep { "deep" } else { "one" },
    );
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables.clone());
    if deep {
        let builders: Vec<_> = (0..WRITERS)
            .map(|id| {
                let service = service.clone();
                tokio::spawn(async move {
                    for version in 1..=DEEP {
                        service
                            .publish_sync(&input(id, 0, version), &Invoker::default())
                            .await
                            .expect("history");
                    }
                })
            })
            .collect();
        for builder in builders {
            builder.await.expect("builder");
        }
    }
    let projector = Arc::new(Projector::new(
        client.clone(),
        streams,
        tables.clone(),
        ProjectorOptions::default(),
    ));
    while projector.run_once().await.expect("catch up") > 0 {}
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = {
        let projector = projector.clone();
        tokio::spawn(async move {
            projector
                .run(std::time::Duration::from_millis(5), async {
                    let _ = stopped.await;
                })
                .await
        })
    };
    let started = Instant::now();
    let writers: Vec<_> = (0..WRITERS)
        .map(|id| {
            let service = service.clone();
            tokio::spawn(async move {
                for n in 0..publishes {
                    service
                        .publish_async(&input(id, 0, n as i64), &Invoker::default())
                        .await
                        .expect("publish_async");
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.expect("writer");
    }
    let rate = (WRITERS * publishes) as f64 / started.elapsed().as_secs_f64();
    let _ = stop.send(());
    running.await.expect("projector");
    rate
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn spread(v: &[f64]) -> String {
    let (lo, hi) = v
        .iter()
        .fold((f64::MAX, 0f64), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
    format!("{lo:.0}..{hi:.0}")
}

#[allow(clippy::print_stdout)] // a benchmark's output is the point
fn main() {
    let mut args = std::env::args().skip(1);
    let entities: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(25);
    let versions: i64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(8);
    let dir = tempfile::tempdir().expect("dir");
    let engine = kura_engine::Engine::open(dir.path()).expect("engine");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    println!(
        "kura-cqrs cost: {WRITERS} writers x {entities} entities x {versions} versions, durable engine in process, through aws-sdk-dynamodb"
    );
    for (hand, framework) in [
        (Way::AsyncByHand, Way::PublishAsync),
        (Way::SyncByHand, Way::PublishSync),
        (Way::PublishSync, Way::PublishSyncLarge),
    ] {
        let (mut by_hand, mut by_framework) = (Vec::new(), Vec::new());
        for round in 0..3 {
            by_hand.push(runtime.block_on(run(&engine, hand, round, entities, versions)));
            by_framework.push(runtime.block_on(run(&engine, framework, round, entities, versions)));
        }
        println!(
            "{:<36} {:>8.0} commands/s ({})",
            hand.label(),
            mean(&by_hand),
            spread(&by_hand)
        );
        println!(
            "{:<36} {:>8.0} commands/s ({})  = {:.2}x {}",
            framework.label(),
            mean(&by_framework),
            spread(&by_framework),
            mean(&by_framework) / mean(&by_hand),
            hand.label()
        );
    }
    let (mut one, mut deep) = (Vec::new(), Vec::new());
    for round in 0..3 {
        one.push(runtime.block_on(depth_run(&engine, false, round, 200)));
        deep.push(runtime.block_on(depth_run(&engine, true, round, 200)));
    }
    println!(
        "{:<36} {:>8.0} commands/s ({})",
        "publish_async from version 1",
        mean(&one),
        spread(&one)
    );
    println!(
        "{:<36} {:>8.0} commands/s ({})  = {:.2}x from version 1",
        format!("publish_async from version {}", DEEP + 1),
        mean(&deep),
        spread(&deep),
        mean(&deep) / mean(&one)
    );
}
