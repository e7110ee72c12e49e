//! How the projector reads the stream, through the real SDKs: the shard list is read
//! (DescribeStream) once per refresh interval and when a shard ends, not every round; a
//! shard that ends is followed by its children in the same round; an iterator kept
//! between rounds that expired is renewed from the checkpoint; a record DynamoDB refuses
//! is parked at once, not retried. (The GetRecords and cancellation rules AWS has and
//! Kura cannot show are unit-tested in `shards` and `cancellation`.)

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use kura_cqrs::keys::VERSION_LATEST;
use kura_cqrs::projector::ProjectorStats;
use kura_cqrs::{
    CommandInput, CommandService, Invoker, Projector, ProjectorOptions, TableNames, ensure_tables,
};
use kura_engine::clock::ManualClock;
use kura_engine::streams::ShardShape;
use kura_engine::writer::WriteLimits;
use kura_engine::{Engine, EngineOptions};
use serde_json::json;

fn command(sk: &str, total: i64) -> CommandInput {
    CommandInput::new("ORDER#tenant001", sk, VERSION_LATEST)
        .with_name("order")
        .with_tenant_code("tenant001")
        .with_kind("ORDER")
        .with_attribute("total", json!(total))
}

async fn publish(service: &CommandService, sk: &str, totals: std::ops::Range<i64>) {
    for total in totals {
        service
            .publish_async(&command(sk, total), &Invoker::default())
            .await
            .expect("publish")
            .expect("written");
    }
}

async fn run_until_idle(projector: &Projector) -> u64 {
    let mut total = 0;
    loop {
        let done = projector.run_once().await.expect("projector round");
        if done == 0 {
            return total;
        }
        total += done;
    }
}

fn describes(stats: &ProjectorStats) -> u64 {
    stats.describe_stream_calls.load(Ordering::Relaxed)
}

async fn data_version(service: &CommandService, sk: &str) -> i64 {
    service
        .data_row("ORDER#tenant001", sk)
        .await
        .expect("data")
        .map_or(0, |row| row.version.get())
}

fn options(shard_refresh: Duration) -> ProjectorOptions {
    ProjectorOptions {
        retry_for: Duration::from_millis(5),
        first_backoff: Duration::from_millis(1),
        shard_refresh,
        ..ProjectorOptions::default()
    }
}

// Given a stream with records, when the projector runs many rounds, then it reads the
// shard list once per refresh interval (AWS allows DescribeStream 10 times a second per
// account), not once per round; with no interval, once per round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shard_list_is_read_once_per_refresh() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables.clone());
    publish(&service, "ORDER#1", 0..3).await;

    let every = Duration::from_secs(5);
    let projector = Projector::new(
        client.clone(),
        streams.clone(),
        tables.clone(),
        options(every),
    );
    let stats = projector.stats();
    let started = Instant::now();
    let rounds = 30;
    let mut finished = 0;
    for round in 0..rounds {
        finished += projector.run_once().await.expect("round");
        if round == 10 {
            publish(&service, "ORDER#1", 3..5).await;
        }
    }
    assert_eq!(finished, 5);
    assert_eq!(data_version(&service, "ORDER#1").await, 5);
    // One read, plus one per interval that passed (a slow endpoint may take long).
    let pages = 1; // a new stream's shard list fits one DescribeStream page
    let allowed = pages * (1 + started.elapsed().as_secs() / every.as_secs());
    assert!(
        describes(&stats) <= allowed,
        "{} DescribeStream calls in {rounds} rounds, {:?}",
        describes(&stats),
        started.elapsed()
    );
    assert!(describes(&stats) >= 1);

    // No interval: the list is read every round.
    let eager = Projector::new(client, streams, tables, options(Duration::ZERO));
    for _ in 0..5 {
        eager.run_once().await.expect("round");
    }
    assert_eq!(describes(&eager.stats()), 5);
}

/// Kura in process on a clock the test moves: four shards, closing after a minute and
/// splitting in two after 8 records each, so the projector meets lineage of both kinds.
fn manual_engine() -> (Arc<Engine>, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let engine = Engine::in_memory_with_options(EngineOptions {
        clock: clock.clone(),
        limits: WriteLimits {
            shards: ShardShape {
                initial: 4,
                split_after_records: 8,
                max_open: 12,
                max_age_ms: 60_000,
            },
            ..WriteLimits::default()
        },
        ..EngineOptions::default()
    });
    (engine, clock)
}

async fn setup(client: &aws_sdk_dynamodb::Client) -> (TableNames, CommandService) {
    let tables = common::unique_names("order");
    ensure_tables(client, &tables).await.expect("tables");
    (tables.clone(), CommandService::new(client.clone(), tables))
}

// Given a projector that read a shard up to the present, when the shard closes and a
// child opens (AWS rolls shards about every four hours), then the next round reads the
// parent to its end (no next iterator), reads the shard list again at once although the
// refresh interval is far off, and applies the child's records in the same round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shard_that_ends_is_followed_by_its_children() {
    let (engine, clock) = manual_engine();
    let Some((client, streams)) = common::in_process(engine) else {
        common::not_checked(
            "a shard that ends is followed by its children",
            "shards close by age, after hours; only an engine of the test's own can close \
             one now (a_closed_stream_is_read_to_its_end runs everywhere)",
        );
        return;
    };
    let (tables, service) = setup(&client).await;
    publish(&service, "ORDER#1", 0..3).await;
    let projector = Projector::new(client, streams, tables, options(Duration::from_secs(3600)));
    let stats = projector.stats();
    assert_eq!(run_until_idle(&projector).await, 3);
    assert_eq!(describes(&stats), 1);

    clock.advance_ms(61_000);
    publish(&service, "ORDER#1", 3..6).await; // the first write closes the open shard
    assert_eq!(projector.run_once().await.expect("round"), 3);
    assert_eq!(data_version(&service, "ORDER#1").await, 6);
    assert_eq!(
        describes(&stats),
        2,
        "read again once, when the shard ended"
    );

    // Steady state again: no more DescribeStream calls.
    assert_eq!(run_until_idle(&projector).await, 0);
    publish(&service, "ORDER#1", 6..7).await;
    assert_eq!(run_until_idle(&projector).await, 1);
    assert_eq!(describes(&stats), 2);
    assert_eq!(data_version(&service, "ORDER#1").await, 7);
}

// Given a projector that kept its shard iterator between rounds, when it is not run for
// longer than an iterator lives (15 minutes), then the next round takes a new iterator
// after its checkpoint and misses nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_iterator_is_renewed_from_the_checkpoint() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let engine = Engine::in_memory_with_options(EngineOptions {
        clock: clock.clone(),
        ..EngineOptions::default()
    });
    let Some((client, streams)) = common::in_process(engine) else {
        common::not_checked(
            "an expired iterator is renewed from the checkpoint",
            "iterators expire after 15 minutes; only an engine on the test's clock can \
             expire one now",
        );
        return;
    };
    let (tables, service) = setup(&client).await;
    publish(&service, "ORDER#1", 0..2).await;
    let projector = Projector::new(client, streams, tables, options(Duration::from_secs(3600)));
    assert_eq!(run_until_idle(&projector).await, 2);

    clock.advance_ms(16 * 60 * 1000);
    publish(&service, "ORDER#1", 2..4).await;
    assert_eq!(run_until_idle(&projector).await, 2);
    assert_eq!(data_version(&service, "ORDER#1").await, 4);
}

/// An item's size as DynamoDB counts it, near enough (numbers at their largest).
fn size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(_) => 21,
        AttributeValue::M(m) => 3 + m.iter().map(|(k, v)| k.len() + size(v) + 1).sum::<usize>(),
        AttributeValue::L(l) => 3 + l.iter().map(|v| size(v) + 1).sum::<usize>(),
        _ => 1,
    }
}

fn item_size(item: &std::collections::HashMap<String, AttributeValue>) -> usize {
    item.iter().map(|(k, v)| k.len() + size(v)).sum()
}

// Given a command whose row fits in an item but whose data row (the same plus `cpk` and
// `csk`) does not, when the projector applies it, then DynamoDB refuses the write, and
// the record is parked at once (no retry can make it fit) while the next entity flows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_record_is_parked_at_once() {
    let (client, streams) = common::clients().await;
    let (tables, service) = setup(&client).await;
    let pk = format!("ORDER#{}", "p".repeat(1500));
    let sk = format!("ORDER#{}", "s".repeat(900));
    let input = |pad: usize| {
        CommandInput::new(&pk, &sk, VERSION_LATEST)
            .with_name("order")
            .with_attribute("pad", json!("x".repeat(pad)))
    };
    // The command row (with its 24-byte status) 500 bytes under the limit: the data row
    // is about 2,400 bytes over it, the parked row (with its error) still under.
    let bare = kura_cqrs::CommandModel::from_input(
        &input(0),
        1,
        &Invoker::default(),
        None,
        "2024-01-01T00:00:00.000Z",
    );
    let pad = 400 * 1024 - 500 - 24 - item_size(&bare.to_item());
    service
        .publish_async(&input(pad), &Invoker::default())
        .await
        .expect("the command fits")
        .expect("written");
    publish(&service, "ORDER#ok", 0..1).await;

    let projector = Projector::new(
        client.clone(),
        streams,
        tables.clone(),
        options(Duration::from_secs(5)),
    );
    let stats = projector.stats();
    assert_eq!(run_until_idle(&projector).await, 2);
    assert_eq!(stats.dead_lettered.load(Ordering::Relaxed), 1);
    assert_eq!(
        stats.retried.load(Ordering::Relaxed),
        0,
        "refused: not retried"
    );
    assert_eq!(
        service
            .status(&pk, &sk, 1)
            .await
            .expect("status")
            .as_deref(),
        Some("finish:FAILED")
    );
    assert!(service.data_row(&pk, &sk).await.expect("data").is_none());
    assert_eq!(data_version(&service, "ORDER#ok").await, 1);
    let parked = client
        .scan()
        .table_name(&tables.dead_letter)
        .send()
        .await
        .expect("scan");
    assert_eq!(parked.count(), 1);
    let error = match parked.items()[0].get(kura_cqrs::names::ERROR) {
        Some(AttributeValue::S(e)) => e.clone(),
        other => panic!("no error: {other:?}"),
    };
    assert!(error.contains("Validation"), "{error}");
}

// Given a projector that read a shard up to the present, when the stream is disabled
// (its open shard closes), then the next round reads the shard to its end, checkpoints it
// finished and reads the shard list again at once, although the refresh interval is far
// off. Runs on every endpoint, unlike the shard roll above.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_stream_is_read_to_its_end() {
    let (client, streams) = common::clients().await;
    let (tables, service) = setup(&client).await;
    publish(&service, "ORDER#1", 0..3).await;
    let projector = Projector::new(
        client.clone(),
        streams,
        tables.clone(),
        options(Duration::from_secs(3600)),
    );
    let stats = projector.stats();
    assert_eq!(run_until_idle(&projector).await, 3);
    assert_eq!(describes(&stats), 1);
    client
        .update_table()
        .table_name(&tables.command)
        .stream_specification(
            aws_sdk_dynamodb::types::StreamSpecification::builder()
                .stream_enabled(false)
                .build()
                .expect("spec"),
        )
        .send()
        .await
        .expect("disable the stream");
    assert_eq!(run_until_idle(&projector).await, 0);
    assert_eq!(
        describes(&stats),
        2,
        "read again once, when the shard ended"
    );
    let checkpoints = client
        .scan()
        .table_name(&tables.projector)
        .send()
        .await
        .expect("scan");
    assert!(
        checkpoints
            .items()
            .iter()
            .all(|c| c.get(kura_cqrs::names::FINISHED) == Some(&AttributeValue::Bool(true))),
        "{checkpoints:?}"
    );
    assert_eq!(run_until_idle(&projector).await, 0);
    assert_eq!(describes(&stats), 2);
}
