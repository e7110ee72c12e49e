//! The projector through aws-sdk-dynamodb and aws-sdk-dynamodbstreams (against Kura in
//! process, or the endpoint in `KURA_ENDPOINT`): the data table and a read model end
//! equal to the command log; a poison record is parked while the others flow;
//! redelivery after lost checkpoints changes nothing; commands published in sync are not
//! applied twice to the data table, and reach the handlers their publisher lacked.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kura_cqrs::keys::VERSION_LATEST;
use kura_cqrs::names;
use kura_cqrs::{
    CommandInput, CommandModel, CommandService, Invoker, Projector, ProjectorOptions, SyncHandler,
    ensure_tables,
};
use serde_json::json;

/// A read model: the latest version and total of each entity, idempotent by version.
#[derive(Default)]
struct ReadModel {
    rows: Mutex<BTreeMap<String, (i64, serde_json::Value)>>,
    deliveries: Mutex<u64>,
}

impl SyncHandler for ReadModel {
    fn id(&self) -> &str {
        "read-model"
    }

    fn up<'a>(&'a self, command: &'a CommandModel) -> kura_cqrs::sync::HandlerFuture<'a> {
        Box::pin(async move {
            *self.deliveries.lock().expect("lock") += 1;
            if command.pk == "ORDER#poison" {
                return Err("this read model cannot store poison".into());
            }
            let mut rows = self.rows.lock().expect("lock");
            let entry = rows
                .entry(command.id.clone())
                .or_insert((0, serde_json::Value::Null));
            if command.version > entry.0 {
                *entry = (command.version.get(), command.attributes["total"].clone());
            }
            Ok(())
        })
    }
}

fn command(pk: &str, sk: &str, version: impl Into<kura_cqrs::Version>, total: i64) -> CommandInput {
    CommandInput::new(pk, sk, version)
        .with_name("order")
        .with_tenant_code("tenant001")
        .with_kind("ORDER")
        .with_attribute("total", json!(total))
}

fn options() -> ProjectorOptions {
    ProjectorOptions {
        retry_for: Duration::from_millis(5),
        first_backoff: Duration::from_millis(1),
        page: 7,
        ..ProjectorOptions::default()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn projection_matches_the_command_log() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables.clone());
    let invoker = Invoker::default();
    for entity in 0..10 {
        for total in 0..4 {
            service
                .publish_async(
                    &command(
                        "ORDER#tenant001",
                        &format!("ORDER#{entity}"),
                        VERSION_LATEST,
                        total,
                    ),
                    &invoker,
                )
                .await
                .expect("publish");
        }
    }
    service
        .publish_async(
            &command("ORDER#poison", "ORDER#p", VERSION_LATEST, 1),
            &invoker,
        )
        .await
        .expect("publish poison");
    // Published in sync: already in the data table when the projector reads it.
    service
        .publish_sync(&command("ORDER#tenant001", "ORDER#sync", 0, 7), &invoker)
        .await
        .expect("sync");

    assert_eq!(
        service
            .status("ORDER#tenant001", "ORDER#0", 1)
            .await
            .expect("status")
            .as_deref(),
        Some("projection:STARTED")
    );
    assert_eq!(
        service
            .status("ORDER#tenant001", "ORDER#sync", 1)
            .await
            .expect("status")
            .as_deref(),
        Some("finish:FINISHED"),
        "a sync publish is finished when it returns"
    );
    let model = Arc::new(ReadModel::default());
    let mut projector = Projector::new(client.clone(), streams.clone(), tables.clone(), options());
    projector.register(model.clone());
    let finished = run_until_idle(&projector).await;
    assert_eq!(finished, 42, "40 versions, the poison one and the sync one");

    // The data table holds every entity's latest version, history the earlier ones.
    for entity in 0..10 {
        let sk = format!("ORDER#{entity}");
        let row = service
            .data_row("ORDER#tenant001", &sk)
            .await
            .expect("data")
            .expect("row");
        assert_eq!(
            (row.version.get(), row.attributes["total"].clone()),
            (4, json!(3))
        );
        assert_eq!(row.sk, sk);
        for version in 1..4 {
            let old = service
                .history_row("ORDER#tenant001", &sk, version)
                .await
                .expect("history")
                .expect("history row");
            assert_eq!(old.attributes["total"], json!(version - 1));
        }
        let id = format!("ORDER#tenant001#{sk}");
        assert_eq!(model.rows.lock().expect("lock")[&id], (4, json!(3)));
    }
    let sync_row = service
        .data_row("ORDER#tenant001", "ORDER#sync")
        .await
        .expect("data")
        .expect("row");
    assert_eq!(sync_row.version.get(), 1);
    // Published in sync by a service without the read model's handler: the projector
    // runs it, so the read model misses no version.
    assert_eq!(
        model.rows.lock().expect("lock")["ORDER#tenant001#ORDER#sync"],
        (1, json!(7))
    );
    // The poison record is parked with its error; everything else flowed past it.
    let parked = client
        .scan()
        .table_name(&tables.dead_letter)
        .send()
        .await
        .expect("scan");
    assert_eq!(parked.count(), 1);
    let error = match parked.items()[0].get(names::ERROR) {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(e)) => e.clone(),
        other => panic!("no error: {other:?}"),
    };
    assert!(error.contains("read-model"), "{error}");
    assert_eq!(
        service
            .status("ORDER#tenant001", "ORDER#0", 4)
            .await
            .expect("status")
            .as_deref(),
        Some("finish:FINISHED")
    );
    assert_eq!(
        service
            .status("ORDER#poison", "ORDER#p", 1)
            .await
            .expect("status")
            .as_deref(),
        Some("finish:FAILED")
    );
    let stats = projector.stats();
    assert_eq!(
        stats
            .dead_lettered
            .load(std::sync::atomic::Ordering::Relaxed),
        1
    );
    let lag = stats.lag().expect("a lag once records are finished");
    // The lag is measured from ApproximateCreationDateTime, which AWS and Kura round down
    // to the second but DynamoDB Local to the minute: up to a minute more there.
    assert!(lag < Duration::from_secs(120), "{lag:?}");

    // Nothing new: a second round finishes nothing.
    assert_eq!(run_until_idle(&projector).await, 0);

    // Checkpoints lost (a crash before the write): a restarted projector redelivers
    // everything, and the data table and the read model stay as they were.
    let checkpoints = client
        .scan()
        .table_name(&tables.projector)
        .send()
        .await
        .expect("scan");
    for item in checkpoints.items() {
        client
            .delete_item()
            .table_name(&tables.projector)
            .key(names::PK, item[names::PK].clone())
            .key(names::SK, item[names::SK].clone())
            .send()
            .await
            .expect("delete checkpoint");
    }
    let before = *model.deliveries.lock().expect("lock");
    let mut projector = Projector::new(client.clone(), streams, tables.clone(), options());
    projector.register(model.clone());
    assert_eq!(run_until_idle(&projector).await, 42);
    assert!(
        *model.deliveries.lock().expect("lock") > before,
        "handlers see redeliveries"
    );
    for entity in 0..10 {
        let row = service
            .data_row("ORDER#tenant001", &format!("ORDER#{entity}"))
            .await
            .expect("data")
            .expect("row");
        assert_eq!(
            row.version.get(),
            4,
            "a redelivered version changes nothing"
        );
    }

    // Running in the background: a client publishes and waits for its command to finish.
    let projector = Arc::new(projector);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let worker = {
        let projector = projector.clone();
        tokio::spawn(async move {
            projector
                .run(Duration::from_millis(10), async {
                    let _ = stopped.await;
                })
                .await
        })
    };
    let published = service
        .publish_async(
            &command("ORDER#tenant001", "ORDER#0", VERSION_LATEST, 99),
            &invoker,
        )
        .await
        .expect("publish")
        .expect("written");
    let status = service
        .wait_finished(
            "ORDER#tenant001",
            "ORDER#0",
            published.version,
            Duration::from_millis(5),
            Duration::from_secs(10),
        )
        .await
        .expect("finished");
    assert_eq!(status, "finish:FINISHED");
    let row = service
        .data_row("ORDER#tenant001", "ORDER#0")
        .await
        .expect("data")
        .expect("row");
    assert_eq!(
        (row.version.get(), row.attributes["total"].clone()),
        (5, json!(99))
    );
    let _ = stop.send(());
    worker.await.expect("worker");
}
