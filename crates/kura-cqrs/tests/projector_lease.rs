//! One projector reads a shard at a time (issue 50): two projectors on one module never
//! both apply a version, and when one dies, another takes its shards over once its
//! lease runs out and goes on from its checkpoint.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kura_cqrs::keys::VERSION_LATEST;
use kura_cqrs::{
    CommandInput, CommandModel, CommandService, HandlerFuture, Invoker, Projector,
    ProjectorOptions, SyncHandler, TableNames, ensure_tables,
};
use serde_json::json;

/// A read model that counts the deliveries of each version.
#[derive(Default)]
struct Counting {
    seen: Mutex<HashMap<String, u32>>,
}

impl SyncHandler for Counting {
    fn id(&self) -> &str {
        "count"
    }

    fn up<'a>(&'a self, command: &'a CommandModel) -> HandlerFuture<'a> {
        Box::pin(async move {
            *self
                .seen
                .lock()
                .expect("lock")
                .entry(format!("{} {}", command.pk, command.sk))
                .or_default() += 1;
            Ok(())
        })
    }
}

impl Counting {
    fn deliveries(&self) -> Vec<u32> {
        self.seen.lock().expect("lock").values().copied().collect()
    }
}

fn projector(
    client: &aws_sdk_dynamodb::Client,
    streams: &aws_sdk_dynamodbstreams::Client,
    tables: &TableNames,
    model: &Arc<Counting>,
    lease: Duration,
) -> Projector {
    let mut projector = Projector::new(
        client.clone(),
        streams.clone(),
        tables.clone(),
        ProjectorOptions {
            lease,
            first_backoff: Duration::from_millis(1),
            ..ProjectorOptions::default()
        },
    );
    projector.register(model.clone());
    projector
}

async fn publish(service: &CommandService, entities: usize, round: i64) {
    for entity in 0..entities {
        service
            .publish_async(
                &CommandInput::new(
                    "ORDER#tenant001",
                    format!("ORDER#{entity:02}"),
                    VERSION_LATEST,
                )
                .with_attribute("round", json!(round)),
                &Invoker::default(),
            )
            .await
            .expect("publish")
            .expect("written");
    }
}

/// Rounds of `projector` until one finds nothing to do; how many records it finished.
async fn until_idle(projector: &Projector) -> u64 {
    let mut total = 0;
    loop {
        let done = projector.run_once().await.expect("round");
        if done == 0 {
            return total;
        }
        total += done;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_projectors_never_both_apply_a_version() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables.clone());
    for round in 0..4 {
        publish(&service, 10, round).await;
    }
    let model = Arc::new(Counting::default());
    let first = Arc::new(projector(
        &client,
        &streams,
        &tables,
        &model,
        Duration::from_secs(30),
    ));
    let second = Arc::new(projector(
        &client,
        &streams,
        &tables,
        &model,
        Duration::from_secs(30),
    ));
    let (a, b) = tokio::join!(until_idle(&first), until_idle(&second));
    // What one left (a shard the other held) the other does not take while the lease
    // lasts: every version was applied by exactly one of them.
    let _ = (until_idle(&first).await, until_idle(&second).await);
    let deliveries = model.deliveries();
    assert_eq!(
        deliveries.len(),
        40,
        "every version delivered ({a} + {b} finished)"
    );
    assert!(
        deliveries.iter().all(|n| *n == 1),
        "a version was delivered twice: {deliveries:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dead_projectors_shards_are_taken_over_after_its_lease() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables.clone());
    let model = Arc::new(Counting::default());
    let lease = Duration::from_millis(600);
    publish(&service, 8, 0).await;
    let dying = projector(&client, &streams, &tables, &model, lease);
    assert_eq!(until_idle(&dying).await, 8);
    // It dies holding every shard it read; more is published meanwhile.
    drop(dying);
    publish(&service, 8, 1).await;
    let heir = projector(&client, &streams, &tables, &model, lease);
    assert_eq!(
        heir.run_once().await.expect("round"),
        0,
        "the shards are still leased to the dead projector"
    );
    tokio::time::sleep(lease + Duration::from_millis(200)).await;
    assert_eq!(until_idle(&heir).await, 8, "taken over from the checkpoint");
    let deliveries = model.deliveries();
    assert_eq!(deliveries.len(), 16);
    assert!(deliveries.iter().all(|n| *n == 1), "{deliveries:?}");
}
