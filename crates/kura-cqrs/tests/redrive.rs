//! Redrive and resync: failed commands (parked by the projector, refused by a sync
//! handler in publish_sync) listed with their errors and replayed once the cause is
//! fixed; a new read model fed from the data table, an interrupted backfill going on from
//! its checkpoint.
mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use kura_cqrs::keys::VERSION_LATEST;
use kura_cqrs::redrive::{failed, redrive, resync};
use kura_cqrs::{
    CommandInput, CommandModel, CommandService, CqrsError, HandlerFuture, Invoker, Notifier,
    Projector, ProjectorOptions, SyncHandler, ensure_tables,
};
use serde_json::json;

/// A read model that refuses poison until it is fixed, and can stop after a number of
/// deliveries (an interrupted backfill).
#[derive(Default)]
struct Model {
    fixed: AtomicBool,
    stop_after: AtomicU64,
    delivered: AtomicU64,
    rows: Mutex<BTreeMap<String, i64>>,
}

impl SyncHandler for Model {
    fn id(&self) -> &str {
        "model"
    }

    fn up<'a>(&'a self, command: &'a CommandModel) -> HandlerFuture<'a> {
        Box::pin(async move {
            if command.pk.ends_with("poison") && !self.fixed.load(Ordering::SeqCst) {
                return Err("poison is not stored yet".into());
            }
            let limit = self.stop_after.load(Ordering::SeqCst);
            if limit > 0 && self.delivered.load(Ordering::SeqCst) >= limit {
                return Err("interrupted".into());
            }
            self.delivered.fetch_add(1, Ordering::SeqCst);
            let mut rows = self.rows.lock().expect("lock");
            let seen = rows.entry(command.id.clone()).or_default();
            *seen = (*seen).max(command.version.get());
            Ok(())
        })
    }
}

fn command(pk: &str, n: u32) -> CommandInput {
    CommandInput::new(pk, format!("ORDER#{n:02}"), VERSION_LATEST)
        .with_entity(&json!({"n": n}))
        .expect("a map")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_commands_are_listed_and_replayed() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    let model = Arc::new(Model::default());
    let notifier = Notifier::default();
    let mut notifications = notifier.subscribe();
    let sync = CommandService::new(client.clone(), tables.clone())
        .with_sync_handler(model.clone())
        .with_notifications(notifier.clone());
    let invoker = Invoker::default();
    // Refused in sync: written, marked failed with the handler's error.
    let refused = sync
        .publish_sync(&command("ORDER#sync-poison", 1), &invoker)
        .await;
    assert!(
        matches!(refused, Err(CqrsError::Handler { .. })),
        "{refused:?}"
    );
    // Parked by the projector; one good command beside it.
    let plain = CommandService::new(client.clone(), tables.clone());
    plain
        .publish_async(&command("ORDER#async-poison", 2), &invoker)
        .await
        .expect("publish");
    plain
        .publish_async(&command("ORDER#t1", 3), &invoker)
        .await
        .expect("publish");
    let mut projector = Projector::new(
        client.clone(),
        streams.clone(),
        tables.clone(),
        ProjectorOptions {
            retry_for: std::time::Duration::from_millis(5),
            first_backoff: std::time::Duration::from_millis(1),
            ..ProjectorOptions::default()
        },
    )
    .with_notifications(notifier);
    projector.register(model.clone());
    let mut done = 0;
    while done < 3 {
        let n = projector.run_once().await.expect("round");
        if n == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        done += n;
    }

    // Subscribers were told of each final status, failures with their error.
    let mut told = Vec::new();
    while let Ok(n) = notifications.try_recv() {
        told.push((n.pk, n.status, n.error.is_some()));
    }
    told.sort();
    assert_eq!(
        told,
        [
            ("ORDER#async-poison".into(), "finish:FAILED".into(), true),
            ("ORDER#sync-poison".into(), "finish:FAILED".into(), true),
            ("ORDER#t1".into(), "finish:FINISHED".into(), false),
        ]
    );

    let listed = failed(&client, &tables).await.expect("failed");
    // Both parked in the dead-letter table, each naming the handler that failed.
    let summary: Vec<(&str, bool, bool, Option<&str>)> = listed
        .iter()
        .map(|f| {
            (
                f.command.pk.as_str(),
                f.error
                    .as_deref()
                    .is_some_and(|e| e.contains("poison is not stored yet")),
                f.parked_at.is_some(),
                f.handler.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("ORDER#async-poison", true, true, Some("model")),
            ("ORDER#sync-poison", true, true, Some("model"))
        ]
    );

    // A projector without the handler that failed does not finish what it cannot
    // apply: the dead letters name the handler, and stay.
    let without = Projector::new(
        client.clone(),
        streams,
        tables.clone(),
        ProjectorOptions::default(),
    );
    let refused = redrive(&without).await.expect("redrive");
    assert_eq!(refused.replayed, 0);
    assert!(
        refused.still_failing.len() == 2
            && refused
                .still_failing
                .iter()
                .all(|(_, why)| why.contains("the handler model that failed is not registered")),
        "{refused:?}"
    );
    assert_eq!(failed(&client, &tables).await.expect("failed").len(), 2);

    // Not fixed yet: the redrive says so and changes nothing.
    let again = redrive(&projector).await.expect("redrive");
    assert_eq!((again.replayed, again.still_failing.len()), (0, 2));
    assert_eq!(failed(&client, &tables).await.expect("failed").len(), 2);

    model.fixed.store(true, Ordering::SeqCst);
    let fixed = redrive(&projector).await.expect("redrive");
    assert_eq!((fixed.replayed, fixed.still_failing.len()), (2, 0));
    assert!(failed(&client, &tables).await.expect("failed").is_empty());
    let stored: Vec<String> = model.rows.lock().expect("lock").keys().cloned().collect();
    assert_eq!(
        stored,
        [
            "ORDER#async-poison#ORDER#02",
            "ORDER#sync-poison#ORDER#01",
            "ORDER#t1#ORDER#03"
        ],
        "the read model has the replayed commands"
    );
    let status = plain
        .status("ORDER#async-poison", "ORDER#02", 1)
        .await
        .expect("status");
    assert_eq!(status.as_deref(), Some("finish:FINISHED"));
    let data = plain
        .data_row("ORDER#async-poison", "ORDER#02")
        .await
        .expect("data row");
    assert_eq!(
        data.map(|d| d.version.get()),
        Some(1),
        "the data row was written by the replay"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_read_model_is_backfilled_from_the_data_table() {
    let client = common::client().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    let commands = CommandService::new(client.clone(), tables.clone());
    let invoker = Invoker::default();
    for n in 0..7 {
        commands
            .publish_sync(&command("ORDER#t1", n), &invoker)
            .await
            .expect("publish");
    }
    // Entity 3 moves on to version 2.
    commands
        .publish_sync(&command("ORDER#t1", 3).with_name("v2"), &invoker)
        .await
        .expect("publish");

    let model = Model::default();
    model.stop_after.store(3, Ordering::SeqCst);
    let interrupted = resync(&client, &tables, &model, 2, None).await;
    assert!(
        matches!(&interrupted, Err(CqrsError::Handler { handler, .. }) if handler == "model"),
        "{interrupted:?}"
    );
    model.stop_after.store(0, Ordering::SeqCst);
    let fed = resync(&client, &tables, &model, 2, None)
        .await
        .expect("resume");
    // Resumed after the last whole page (two rows), not from the start.
    assert_eq!(fed, 5, "the seven rows less the first page");
    let rows = model.rows.lock().expect("lock").clone();
    assert_eq!(rows.len(), 7);
    assert_eq!(
        rows["ORDER#t1#ORDER#03"], 2,
        "the version the data row is at"
    );
    // A finished resync starts over.
    let again = resync(&client, &tables, &model, 100, None)
        .await
        .expect("again");
    assert_eq!(again, 7);
}
