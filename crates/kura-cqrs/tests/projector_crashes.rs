//! A property: any sequence of commands (async and sync, updates and deletes, over a few
//! entities), with the projector crashed at random moments — a round cancelled at an
//! arbitrary await point, its writes half done, and a new projector started from the
//! checkpoints — ends with the same data and history tables as a sequential model of
//! the commands. Kura in process (the cancellation points need no network); the cases
//! are few and small to keep the suite fast (`PROPTEST_CASES` raises them).

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use kura_cqrs::keys::VERSION_LATEST;
use kura_cqrs::{
    CommandInput, CommandService, DataService, Invoker, ListOptions, Projector, ProjectorOptions,
    ensure_tables,
};
use proptest::prelude::*;
use serde_json::json;

const ENTITIES: u8 = 3;

#[derive(Debug, Clone)]
enum Step {
    /// Publish a new version of entity `entity` with `total`, deleted or not, in sync or not.
    Publish {
        entity: u8,
        total: u16,
        deleted: bool,
        sync: bool,
    },
    /// Run the projector for at most `micros` microseconds of its round, then drop it
    /// (a crash when the round had not finished).
    Crash { micros: u16 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0..ENTITIES, any::<u16>(), prop::bool::weighted(0.15), any::<bool>())
            .prop_map(|(entity, total, deleted, sync)| Step::Publish { entity, total, deleted, sync }),
        1 => (0u16..3000).prop_map(|micros| Step::Crash { micros }),
    ]
}

fn projector(
    client: &aws_sdk_dynamodb::Client,
    streams: &aws_sdk_dynamodbstreams::Client,
    tables: &kura_cqrs::TableNames,
) -> Projector {
    Projector::new(
        client.clone(),
        streams.clone(),
        tables.clone(),
        ProjectorOptions {
            page: 3,
            first_backoff: Duration::from_millis(1),
            // One projector process, crashed and started again: it takes its own
            // shards back at once instead of waiting out its lease.
            owner: Some("the-projector".into()),
            ..ProjectorOptions::default()
        },
    )
}

/// What the model says an entity's versions were: (total, deleted) per version, 1-based.
type Model = BTreeMap<u8, Vec<(u16, bool)>>;

async fn check(steps: Vec<Step>) {
    let engine = kura_engine::Engine::in_memory();
    let client = kura_testkit::in_process_client(engine.clone());
    let streams = kura_testkit::in_process_streams_client(engine);
    let tables = common::unique_names("crash");
    ensure_tables(&client, &tables).await.expect("tables");
    let commands = CommandService::new(client.clone(), tables.clone());
    let invoker = Invoker::default();
    let mut model = Model::new();
    for step in steps {
        match step {
            Step::Publish {
                entity,
                total,
                deleted,
                sync,
            } => {
                let versions = model.entry(entity).or_default();
                if versions.last() == Some(&(total, deleted)) {
                    continue; // not dirty: nothing would be written
                }
                let input =
                    CommandInput::new("ORDER#t1", format!("ORDER#{entity}"), VERSION_LATEST)
                        .with_entity(&json!({"total": total}))
                        .expect("a map")
                        .with_deleted(deleted);
                // A sync publish needs the data row at the latest version: let the
                // projector catch up first (as an application would wait_finished).
                if sync {
                    let caught_up = projector(&client, &streams, &tables);
                    while caught_up.run_once().await.expect("round") > 0 {}
                    commands.publish_sync(&input, &invoker).await.expect("sync");
                } else {
                    commands
                        .publish_async(&input, &invoker)
                        .await
                        .expect("async");
                }
                versions.push((total, deleted));
            }
            Step::Crash { micros } => {
                let doomed = projector(&client, &streams, &tables);
                let _ = tokio::time::timeout(
                    Duration::from_micros(u64::from(micros)),
                    doomed.run_once(),
                )
                .await;
                drop(doomed);
            }
        }
    }
    // A last projector runs to the end.
    let last = projector(&client, &streams, &tables);
    while last.run_once().await.expect("round") > 0 {}

    let data = DataService::new(client, tables);
    let rows = data
        .list_all_by_pk("ORDER#t1", &ListOptions::default())
        .await
        .expect("data");
    let got: BTreeMap<String, (i64, serde_json::Value, bool)> = rows
        .into_iter()
        .map(|r| {
            (
                r.sk.clone(),
                (r.version.get(), r.attributes["total"].clone(), r.is_deleted),
            )
        })
        .collect();
    let want: BTreeMap<String, (i64, serde_json::Value, bool)> = model
        .iter()
        .filter(|(_, versions)| !versions.is_empty())
        .map(|(entity, versions)| {
            let (total, deleted) = versions[versions.len() - 1];
            (
                format!("ORDER#{entity}"),
                (versions.len() as i64, json!(total), deleted),
            )
        })
        .collect();
    assert_eq!(got, want, "data table");
    for (entity, versions) in &model {
        let history = data
            .history("ORDER#t1", &format!("ORDER#{entity}"), 1, i64::MAX)
            .await
            .expect("history");
        let got: Vec<(i64, serde_json::Value, bool)> = history
            .iter()
            .map(|r| (r.version.get(), r.attributes["total"].clone(), r.is_deleted))
            .collect();
        let want: Vec<(i64, serde_json::Value, bool)> = versions
            .iter()
            .enumerate()
            .take(versions.len().saturating_sub(1))
            .map(|(i, (total, deleted))| (i as i64 + 1, json!(total), *deleted))
            .collect();
        assert_eq!(got, want, "history of entity {entity}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(12),
        ..ProptestConfig::default()
    })]
    #[test]
    fn crashes_of_the_projector_lose_and_double_nothing(steps in prop::collection::vec(step(), 1..40)) {
        if common::endpoint().is_some() {
            // The property is the projector's and the framework's, not the endpoint's:
            // it runs once, in process, where a round can be cancelled at any await.
            common::not_checked("projector crashes (property)", "runs in process only");
            return Ok(());
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(check(steps));
    }
}
