//! No acknowledged write is lost under concurrent writers (issue 50), on every endpoint
//! the suite runs on (Kura in process, `kura serve`, DynamoDB Local):
//!
//! - partial updates, sync and async, from many tasks at once, each retrying on a version
//!   conflict: every field any of them was told was written is there at the end, and
//!   every version is its predecessor with exactly one patch merged in;
//! - full updates on top of the latest: every acknowledged version is stored as written;
//! - sync and async publishers on one entity with the projector running: the data row
//!   ends with every change and history has a row for every version it replaced;
//! - the latest command's row gone (as TTL deletes it): publishing goes on from the
//!   data row's version instead of writing version 1 again;
//! - a model-based property: random concurrent patches from several writers end in a
//!   state equal to applying the acknowledged ones one by one in version order.

mod common;

use std::sync::Arc;
use std::time::Duration;

use kura_cqrs::keys::{VERSION_FIRST, VERSION_LATEST};
use kura_cqrs::{
    CommandInput, CommandModel, CommandService, CqrsError, Invoker, PartialUpdate, Projector,
    ProjectorOptions, ensure_tables, merge,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

const PK: &str = "ORDER#tenant001";

async fn service() -> CommandService {
    let client = common::client().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    CommandService::new(client, tables)
}

fn invoker(who: usize) -> Invoker {
    Invoker {
        user_id: format!("writer-{who}"),
        ..Invoker::default()
    }
}

fn patch(sk: &str, attributes: Value) -> PartialUpdate {
    PartialUpdate {
        pk: PK.into(),
        sk: sk.into(),
        version: VERSION_LATEST,
        attributes: attributes.as_object().cloned().unwrap_or_default(),
        ..PartialUpdate::default()
    }
}

/// Whether a publish may be tried again as it is: another writer took the version, or
/// the transaction met contention.
fn try_again(error: &CqrsError) -> bool {
    matches!(error, CqrsError::VersionConflict { .. }) || error.is_retryable()
}

/// A short random pause between tries, so that writers in step do not stay in step.
async fn jitter() {
    tokio::time::sleep(Duration::from_micros(fastrand::u64(0..3_000))).await;
}

/// Publishes `patch` (in sync or async) until it is acknowledged; returns the version
/// it was stored as, or `None` when it changed nothing (not dirty).
async fn publish_until_acknowledged(
    service: &CommandService,
    patch: &PartialUpdate,
    sync: bool,
    who: usize,
) -> Option<i64> {
    loop {
        let published = if sync {
            service
                .publish_partial_update_sync(patch, &invoker(who))
                .await
        } else {
            service
                .publish_partial_update_async(patch, &invoker(who))
                .await
        };
        match published {
            Ok(stored) => return stored.map(|s| s.version.get()),
            Err(e) if try_again(&e) => jitter().await,
            Err(e) => panic!("writer {who}: {e}"),
        }
    }
}

/// Creates the entity at version 1 with `{"base": true}`.
async fn create(service: &CommandService, sk: &str, sync: bool) {
    let input = CommandInput::new(PK, sk, VERSION_FIRST).with_attribute("base", json!(true));
    let stored = if sync {
        service.publish_sync(&input, &Invoker::default()).await
    } else {
        service.publish_async(&input, &Invoker::default()).await
    };
    assert_eq!(stored.expect("create").expect("written").version, 1);
}

/// Every version 1..=latest as stored in the command table.
async fn versions(service: &CommandService, sk: &str, latest: i64) -> Vec<CommandModel> {
    let mut all = Vec::new();
    for version in 1..=latest {
        all.push(
            service
                .command(PK, sk, version)
                .await
                .expect("read")
                .unwrap_or_else(|| panic!("version {version} of {sk} is missing")),
        );
    }
    all
}

/// `writers` tasks each add a field of their own by partial update, retrying on
/// conflict; then every field is in the latest version, and every version adds exactly
/// one field to the one before (each was merged onto its predecessor, none onto an
/// older one).
async fn every_partial_update_survives(sync: bool) {
    const WRITERS: usize = 32;
    let service = Arc::new(service().await);
    let sk = "ORDER#partial";
    create(&service, sk, sync).await;
    let tasks: Vec<_> = (0..WRITERS)
        .map(|who| {
            let service = service.clone();
            tokio::spawn(async move {
                let field = format!("field{who:02}");
                let patch = patch(sk, json!({ field: who }));
                publish_until_acknowledged(&service, &patch, sync, who)
                    .await
                    .expect("a patch adding a field is dirty")
            })
        })
        .collect();
    let mut acknowledged = Vec::new();
    for task in tasks {
        acknowledged.push(task.await.expect("writer"));
    }
    acknowledged.sort_unstable();
    let want: Vec<i64> = (2..=WRITERS as i64 + 1).collect();
    assert_eq!(acknowledged, want, "each writer got a version of its own");

    let latest = service
        .latest_command(PK, sk)
        .await
        .expect("latest")
        .expect("entity");
    assert_eq!(latest.version.get(), WRITERS as i64 + 1);
    for who in 0..WRITERS {
        assert_eq!(
            latest.attributes.get(&format!("field{who:02}")),
            Some(&json!(who)),
            "writer {who}'s acknowledged field is lost"
        );
    }
    let all = versions(&service, sk, latest.version.get()).await;
    for pair in all.windows(2) {
        assert_eq!(
            pair[1].attributes.len(),
            pair[0].attributes.len() + 1,
            "version {} is not version {} with one patch merged in",
            pair[1].version,
            pair[0].version
        );
        assert!(
            pair[0]
                .attributes
                .iter()
                .all(|(k, v)| pair[1].attributes.get(k) == Some(v)),
            "version {} dropped a field of version {}",
            pair[1].version,
            pair[0].version
        );
    }
    if sync {
        let data = service.data_row(PK, sk).await.expect("data").expect("row");
        assert_eq!(data.version.get(), latest.version);
        assert_eq!(data.attributes, latest.attributes);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_async_partial_updates_lose_nothing() {
    every_partial_update_survives(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_sync_partial_updates_lose_nothing() {
    every_partial_update_survives(true).await;
}

/// Full updates on top of the latest, from many writers: each acknowledged version is
/// stored exactly as its writer published it, and no two writers got the same one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_acknowledged_full_update_is_stored() {
    const WRITERS: usize = 16;
    for sync in [false, true] {
        let service = Arc::new(service().await);
        let sk = if sync {
            "ORDER#full-sync"
        } else {
            "ORDER#full-async"
        };
        create(&service, sk, sync).await;
        let tasks: Vec<_> = (0..WRITERS)
            .map(|who| {
                let service = service.clone();
                tokio::spawn(async move {
                    let input = CommandInput::new(PK, sk, VERSION_LATEST)
                        .with_attribute("writer", json!(who));
                    loop {
                        let published = if sync {
                            service.publish_sync(&input, &invoker(who)).await
                        } else {
                            service.publish_async(&input, &invoker(who)).await
                        };
                        match published {
                            Ok(Some(stored)) => return (stored.version.get(), who),
                            // The same content as the latest: nothing to write.
                            Ok(None) => return (0, who),
                            Err(e) if try_again(&e) => jitter().await,
                            Err(e) => panic!("writer {who}: {e}"),
                        }
                    }
                })
            })
            .collect();
        let mut stored = Vec::new();
        for task in tasks {
            stored.push(task.await.expect("writer"));
        }
        let mut numbers: Vec<i64> = stored.iter().map(|(v, _)| *v).filter(|v| *v > 0).collect();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(
            numbers.len(),
            stored.iter().filter(|(v, _)| *v > 0).count(),
            "two writers were told they wrote the same version (sync: {sync})"
        );
        for (version, who) in stored.into_iter().filter(|(v, _)| *v > 0) {
            let row = service
                .command(PK, sk, version)
                .await
                .expect("read")
                .expect("acknowledged version stored");
            assert_eq!(row.attributes["writer"], json!(who), "version {version}");
            assert_eq!(row.audit.updated_by, format!("writer-{who}"));
        }
    }
}

/// Sync and async partial updates on one entity while the projector runs: at the end
/// the data row has every field, and history holds every version it replaced (none
/// skipped by a projector write that landed on a row moved on meanwhile).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sync_and_async_writers_with_the_projector_lose_nothing() {
    const WRITERS: usize = 12;
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = Arc::new(CommandService::new(client.clone(), tables.clone()));
    let sk = "ORDER#mixed";
    create(&service, sk, true).await;
    let projector = Arc::new(Projector::new(
        client,
        streams,
        tables,
        ProjectorOptions {
            first_backoff: Duration::from_millis(2),
            ..ProjectorOptions::default()
        },
    ));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let worker = {
        let projector = projector.clone();
        tokio::spawn(async move {
            projector
                .run(Duration::from_millis(5), async {
                    let _ = stopped.await;
                })
                .await;
        })
    };
    let tasks: Vec<_> = (0..WRITERS)
        .map(|who| {
            let service = service.clone();
            tokio::spawn(async move {
                let patch = patch(sk, json!({ format!("field{who:02}"): who }));
                publish_until_acknowledged(&service, &patch, who % 2 == 0, who)
                    .await
                    .expect("a patch adding a field is dirty")
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("writer");
    }
    let last = WRITERS as i64 + 1;
    let finished = service
        .wait_finished(
            PK,
            sk,
            last,
            Duration::from_millis(10),
            Duration::from_secs(60),
        )
        .await
        .expect("the last version finished");
    assert_eq!(finished, "finish:FINISHED");
    // The data row may trail the last status mark by nothing: it is written first.
    let data = service.data_row(PK, sk).await.expect("data").expect("row");
    assert_eq!(data.version.get(), last);
    for who in 0..WRITERS {
        assert_eq!(
            data.attributes.get(&format!("field{who:02}")),
            Some(&json!(who)),
            "writer {who}'s field is not in the data row"
        );
    }
    for version in 1..last {
        assert!(
            service
                .history_row(PK, sk, version)
                .await
                .expect("history")
                .is_some(),
            "no history row for version {version}"
        );
    }
    let _ = stop.send(());
    worker.await.expect("projector");
}

/// The latest command's row deleted, as TTL deletes an expired row: the entity's number
/// comes from its data row, so publishing on top of the latest writes the next version
/// (not version 1 again), and publishing on the data row's version is no conflict.
#[tokio::test]
async fn publishing_goes_on_after_the_latest_command_row_expires() {
    let client = common::client().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables);
    let sk = "ORDER#expired";
    for version in [VERSION_FIRST.get(), 1, 2] {
        service
            .publish_sync(
                &CommandInput::new(PK, sk, version).with_attribute("total", json!(version)),
                &Invoker::default(),
            )
            .await
            .expect("publish")
            .expect("written");
    }
    for version in 1..=3 {
        client
            .delete_item()
            .table_name(&service.tables().command)
            .key("pk", aws_sdk_dynamodb::types::AttributeValue::S(PK.into()))
            .key(
                "sk",
                aws_sdk_dynamodb::types::AttributeValue::S(format!("{sk}@{version}")),
            )
            .send()
            .await
            .expect("expire");
    }
    assert_eq!(service.next_version(PK, sk).await.expect("next"), 4);
    let latest = service
        .latest_command(PK, sk)
        .await
        .expect("latest")
        .expect("the data row stands in for the expired command");
    assert_eq!(
        (latest.version.get(), &latest.attributes["total"]),
        (3, &json!(2))
    );
    // Publishing on the data row's version, and then on top of the latest.
    let fourth = service
        .publish_async(
            &CommandInput::new(PK, sk, 3).with_attribute("total", json!(40)),
            &Invoker::default(),
        )
        .await
        .expect("on the data row's version")
        .expect("written");
    assert_eq!(fourth.version.get(), 4);
    let fifth = service
        .publish_partial_update_async(&patch(sk, json!({"note": "x"})), &Invoker::default())
        .await
        .expect("on top of the latest")
        .expect("written");
    assert_eq!(fifth.version.get(), 5);
    assert_eq!(fifth.attributes["total"], json!(40));
    assert!(
        service.command(PK, sk, 1).await.expect("read").is_none(),
        "version 1 was not written again"
    );
}

/// One patch of the property below: a field and a value.
type Op = (u8, u8);

/// Whether the case publishes in sync (else async: a sync publish checks the data row,
/// which no projector moves on here), and each writer's patches.
fn cases() -> impl Strategy<Value = (bool, Vec<Vec<Op>>)> {
    let writer = prop::collection::vec((0u8..6, 0u8..4), 1..5);
    (any::<bool>(), prop::collection::vec(writer, 2..5))
}

/// Runs each writer's patches concurrently (each retried until acknowledged), then
/// checks that the stored versions are the acknowledged patches applied one by one in
/// version order: version k is version k-1 with the patch acknowledged as k merged in.
async fn serial_order_holds(
    service: Arc<CommandService>,
    sk: String,
    sync: bool,
    writers: Vec<Vec<Op>>,
) {
    create(&service, &sk, sync).await;
    let tasks: Vec<_> = writers
        .into_iter()
        .enumerate()
        .map(|(who, ops)| {
            let service = service.clone();
            let sk = sk.clone();
            tokio::spawn(async move {
                let mut acknowledged = Vec::new();
                for (field, value) in ops {
                    let attributes = json!({ format!("f{field}"): format!("w{who}v{value}") });
                    let patch = patch(&sk, attributes.clone());
                    // A patch that changes nothing writes nothing and is not acknowledged
                    // as a version.
                    if let Some(version) =
                        publish_until_acknowledged(&service, &patch, sync, who).await
                    {
                        acknowledged.push((version, attributes));
                    }
                }
                acknowledged
            })
        })
        .collect();
    let mut acknowledged = Vec::new();
    for task in tasks {
        acknowledged.extend(task.await.expect("writer"));
    }
    acknowledged.sort_by_key(|(version, _)| *version);
    let mut state: Map<String, Value> = json!({"base": true})
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (expected, (version, attributes)) in (2..).zip(&acknowledged) {
        assert_eq!(
            *version, expected,
            "acknowledged versions have no gap or twin"
        );
        state = merge(&state, attributes.as_object().expect("map"));
        let stored = service
            .command(PK, &sk, *version)
            .await
            .expect("read")
            .expect("stored");
        assert_eq!(stored.attributes, state, "version {version}");
    }
    if sync {
        let data = service.data_row(PK, &sk).await.expect("data").expect("row");
        assert_eq!(data.attributes, state, "the data row");
    }
}

#[test]
fn concurrent_patches_equal_a_serial_order() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .expect("runtime");
    let service = Arc::new(runtime.block_on(service()));
    let case = std::sync::atomic::AtomicU32::new(0);
    let config = ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(16),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |((sync, writers) in cases())| {
        let sk = format!("ORDER#p{}", case.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        runtime.block_on(serial_order_holds(service.clone(), sk, sync, writers));
    });
}
