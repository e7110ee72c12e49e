//! Versions published in sync reach every handler of the projector exactly as their
//! publisher left them (against Kura in process, or the endpoint in `KURA_ENDPOINT`):
//! handlers the publisher ran are not run again, handlers it lacked are, and a publisher
//! that died after its transaction, before its handlers were done, has them run by the
//! projector after `sync_grace`.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kura_cqrs::{
    CommandInput, CommandModel, CommandService, Invoker, Projector, ProjectorOptions, SyncHandler,
    ensure_tables, status,
};
use serde_json::json;

/// A read model that counts how often it saw each version.
struct Counting {
    id: &'static str,
    seen: Mutex<BTreeMap<(String, i64), u32>>,
}

impl Counting {
    fn new(id: &'static str) -> Arc<Counting> {
        Arc::new(Counting {
            id,
            seen: Mutex::new(BTreeMap::new()),
        })
    }

    fn seen(&self) -> BTreeMap<(String, i64), u32> {
        self.seen.lock().expect("lock").clone()
    }
}

impl SyncHandler for Counting {
    fn id(&self) -> &str {
        self.id
    }

    fn up<'a>(&'a self, command: &'a CommandModel) -> kura_cqrs::sync::HandlerFuture<'a> {
        Box::pin(async move {
            *self
                .seen
                .lock()
                .expect("lock")
                .entry((command.sk.clone(), command.version.get()))
                .or_default() += 1;
            Ok(())
        })
    }
}

/// A handler that never finishes: its publisher is stopped while it runs, as a process
/// killed between its transaction and its handlers would be.
struct Hanging {
    started: Arc<tokio::sync::Notify>,
}

impl SyncHandler for Hanging {
    fn id(&self) -> &str {
        "search"
    }

    fn up<'a>(&'a self, _command: &'a CommandModel) -> kura_cqrs::sync::HandlerFuture<'a> {
        Box::pin(async move {
            self.started.notify_one();
            std::future::pending::<()>().await;
            Ok(())
        })
    }
}

fn order(sk: &str, version: impl Into<kura_cqrs::Version>, total: i64) -> CommandInput {
    CommandInput::new("ORDER#tenant001", sk, version)
        .with_name("order")
        .with_tenant_code("tenant001")
        .with_kind("ORDER")
        .with_attribute("total", json!(total))
}

fn options(sync_grace: Duration) -> ProjectorOptions {
    ProjectorOptions {
        retry_for: Duration::from_millis(5),
        first_backoff: Duration::from_millis(1),
        sync_grace,
        ..ProjectorOptions::default()
    }
}

async fn run_until_idle(projector: &Projector) {
    while projector.run_once().await.expect("projector round") > 0 {}
}

fn once_each(sk: &str, versions: std::ops::RangeInclusive<i64>) -> BTreeMap<(String, i64), u32> {
    versions.map(|v| ((format!("{sk}@{v}"), v), 1)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_the_publisher_ran_are_not_run_again_and_the_others_are() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("handoff");
    ensure_tables(&client, &tables).await.expect("tables");
    let search = Counting::new("search");
    let mail = Counting::new("mail");
    let service =
        CommandService::new(client.clone(), tables.clone()).with_sync_handler(search.clone());
    let invoker = Invoker::default();
    for version in 0..5 {
        service
            .publish_sync(&order("ORDER#1", version, version), &invoker)
            .await
            .expect("publish");
    }
    assert_eq!(
        service
            .status("ORDER#tenant001", "ORDER#1", 5)
            .await
            .expect("status")
            .as_deref(),
        Some(status::FINISHED),
        "finished when publish_sync returns"
    );
    assert_eq!(search.seen(), once_each("ORDER#1", 1..=5));

    // The module's projector runs both handlers; "search" ran in the publisher already.
    let mut projector = Projector::new(
        client.clone(),
        streams,
        tables.clone(),
        options(Duration::from_secs(30)),
    );
    projector.register(search.clone());
    projector.register(mail.clone());
    run_until_idle(&projector).await;
    assert_eq!(search.seen(), once_each("ORDER#1", 1..=5), "not run again");
    assert_eq!(
        mail.seen(),
        once_each("ORDER#1", 1..=5),
        "the one it lacked"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_publisher_that_dies_before_its_handlers_are_done_is_taken_over() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("handoff");
    ensure_tables(&client, &tables).await.expect("tables");
    let started = Arc::new(tokio::sync::Notify::new());
    let dying =
        CommandService::new(client.clone(), tables.clone()).with_sync_handler(Arc::new(Hanging {
            started: started.clone(),
        }));
    let publish = tokio::spawn(async move {
        dying
            .publish_sync(&order("ORDER#2", 0, 1), &Invoker::default())
            .await
    });
    started.notified().await;
    publish.abort(); // the publisher is gone with its handler half done
    let _ = publish.await;

    let service = CommandService::new(client.clone(), tables.clone());
    assert_eq!(
        service
            .command_status("ORDER#tenant001", "ORDER#2", 1)
            .await
            .expect("status"),
        Some(kura_cqrs::CommandStatus::Handling)
    );
    let data = service
        .data_row("ORDER#tenant001", "ORDER#2")
        .await
        .expect("data")
        .expect("applied by the transaction");
    assert_eq!(data.version.get(), 1);

    let search = Counting::new("search");
    let mut projector = Projector::new(
        client.clone(),
        streams,
        tables.clone(),
        options(Duration::from_millis(300)),
    );
    projector.register(search.clone());
    run_until_idle(&projector).await;
    assert_eq!(search.seen(), once_each("ORDER#2", 1..=1));
    assert_eq!(
        service
            .status("ORDER#tenant001", "ORDER#2", 1)
            .await
            .expect("status")
            .as_deref(),
        Some(status::FINISHED)
    );
}
