//! The command side through aws-sdk-dynamodb (against Kura in process, or the endpoint in
//! `KURA_ENDPOINT`): tables created or checked, optimistic locking under concurrent
//! publishers, the latest version past 9, the "not dirty" rule, and sync publishing into
//! data and history.

mod common;

use std::sync::Arc;

use kura_cqrs::keys::{VERSION_FIRST, VERSION_LATEST};
use kura_cqrs::{CommandInput, CommandService, CqrsError, Invoker, TableNames, ensure_tables};
use serde_json::json;

async fn service() -> CommandService {
    let client = common::client().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    // A second start finds and checks them.
    ensure_tables(&client, &tables).await.expect("tables again");
    CommandService::new(client, tables)
}

fn order(version: impl Into<kura_cqrs::Version>, total: i64) -> CommandInput {
    CommandInput::new(
        "ORDER#tenant001",
        "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M",
        version,
    )
    .with_code("A-1")
    .with_name("order")
    .with_attribute("total", json!(total))
}

fn invoker(user: &str) -> Invoker {
    Invoker {
        user_id: user.into(),
        ip: "127.0.0.1".into(),
        request_id: "req".into(),
        source: "test".into(),
    }
}

#[tokio::test]
async fn tables_are_named_and_checked() {
    let names = TableNames::new("dev", "app", "mod");
    assert_eq!(
        [
            names.command,
            names.data,
            names.history,
            names.projector,
            names.dead_letter
        ],
        [
            "dev-app-mod-command",
            "dev-app-mod-data",
            "dev-app-mod-history",
            "dev-app-mod-projector",
            "dev-app-mod-dead-letter"
        ]
    );
    let client = common::client().await;
    let app = common::unique_app();
    let tables = TableNames::new(&common::test_env(), &app, "mod");
    ensure_tables(&client, &tables).await.expect("create");
    let command = client
        .describe_table()
        .table_name(&tables.command)
        .send()
        .await
        .expect("describe");
    let spec = command
        .table()
        .and_then(|t| t.stream_specification())
        .expect("stream");
    assert!(spec.stream_enabled());
    let ttl = client
        .describe_time_to_live()
        .table_name(&tables.data)
        .send()
        .await
        .expect("ttl");
    assert_eq!(
        ttl.time_to_live_description()
            .and_then(|d| d.attribute_name()),
        Some(kura_cqrs::names::TTL)
    );
    // A table of the right name but the wrong shape is refused, not silently used.
    let other = TableNames::new(&common::test_env(), &app, "other");
    create_table_keyed_by_id(&client, &other.data).await;
    let err = ensure_tables(&client, &other)
        .await
        .expect_err("wrong shape");
    assert!(matches!(err, CqrsError::TableMismatch { .. }), "{err}");
}

async fn create_table_keyed_by_id(client: &aws_sdk_dynamodb::Client, name: &str) {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    };
    client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("id")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .expect("def"),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("id")
                .key_type(KeyType::Hash)
                .build()
                .expect("key"),
        )
        .send()
        .await
        .expect("create");
}

#[tokio::test]
async fn versions_and_the_latest_past_nine() {
    let service = service().await;
    let first = service
        .publish_async(&order(VERSION_FIRST, 0), &invoker("alice"))
        .await
        .expect("create")
        .expect("written");
    assert_eq!(first.version.get(), 1);
    assert_eq!(first.sk, "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M@1");
    assert_eq!(first.id, "ORDER#tenant001#ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M");
    for total in 1..12 {
        service
            .publish_async(&order(VERSION_LATEST, total), &invoker("bob"))
            .await
            .expect("publish")
            .expect("written");
    }
    let latest = service
        .latest_command("ORDER#tenant001", "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M")
        .await
        .expect("latest")
        .expect("exists");
    assert_eq!(
        latest.version, 12,
        "@12 is the latest although it sorts before @9"
    );
    assert_eq!(latest.attributes["total"], json!(11));
    // created* come from the first version, updated* from the last.
    assert_eq!(latest.audit.created_by, "alice");
    assert_eq!(latest.audit.updated_by, "bob");
    assert_eq!(latest.audit.created_at, first.audit.created_at);
    assert_eq!(
        service
            .next_version("ORDER#tenant001", "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M")
            .await
            .expect("next"),
        13
    );
    // Not dirty: the same content writes nothing.
    let same = service
        .publish_async(&order(VERSION_LATEST, 11), &invoker("bob"))
        .await
        .expect("publish");
    assert!(same.is_none());
    // A stale version is a typed conflict.
    let err = service
        .publish_async(&order(5, 99), &invoker("carol"))
        .await
        .expect_err("stale");
    assert!(
        matches!(
            err,
            CqrsError::VersionConflict { expected, actual } if (expected.get(), actual.get()) == (5, 12)
        ),
        "{err}"
    );
}

/// Concurrent publishers of one entity, each on top of what it read: for every version
/// exactly one wins; the others get VersionConflict and nothing is lost or doubled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_publishers_one_winner_per_version() {
    let service = Arc::new(service().await);
    service
        .publish_async(&order(VERSION_FIRST, 0), &invoker("seed"))
        .await
        .expect("create");
    let mut tasks = Vec::new();
    for writer in 0..8i64 {
        let service = service.clone();
        tasks.push(tokio::spawn(async move {
            let mut won = Vec::new();
            let mut conflicts = 0;
            for round in 0..15i64 {
                let base = service
                    .latest_command("ORDER#tenant001", "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M")
                    .await
                    .expect("latest")
                    .map_or(0, |l| l.version.get());
                match service
                    .publish_async(&order(base, writer * 1000 + round), &invoker("w"))
                    .await
                {
                    Ok(Some(stored)) => won.push(stored.version),
                    Ok(None) => {}
                    Err(CqrsError::VersionConflict { .. }) => conflicts += 1,
                    Err(e) => panic!("unexpected error: {e}"),
                }
            }
            (won, conflicts)
        }));
    }
    let mut won = Vec::new();
    for task in tasks {
        let (w, _) = task.await.expect("task");
        won.extend(w);
    }
    won.sort_unstable();
    let latest = service
        .latest_command("ORDER#tenant001", "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M")
        .await
        .expect("latest")
        .expect("exists")
        .version
        .get();
    let expected: Vec<i64> = (2..=latest).collect();
    assert_eq!(
        won, expected,
        "every version after 1 has exactly one winner"
    );
    for version in 1..=latest {
        assert!(
            service
                .command(
                    "ORDER#tenant001",
                    "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M",
                    version
                )
                .await
                .expect("read")
                .is_some(),
            "version {version} is stored"
        );
    }
}

#[tokio::test]
async fn publish_sync_writes_command_history_and_data_together() {
    let service = service().await;
    let v1 = service
        .publish_sync(&order(VERSION_FIRST, 10), &invoker("alice"))
        .await
        .expect("create")
        .expect("written");
    let data = service
        .data_row("ORDER#tenant001", "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M")
        .await
        .expect("data")
        .expect("row");
    assert_eq!(data.version.get(), 1);
    assert_eq!(data.sk, "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M");
    assert_eq!(data.attributes["total"], json!(10));
    service
        .publish_sync(&order(1, 20), &invoker("bob"))
        .await
        .expect("update")
        .expect("written");
    let data = service
        .data_row("ORDER#tenant001", "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M")
        .await
        .expect("data")
        .expect("row");
    assert_eq!(
        (data.version.get(), data.attributes["total"].clone()),
        (2, json!(20))
    );
    assert_eq!(data.audit.created_by, "alice");
    assert_eq!(data.audit.updated_by, "bob");
    // The previous data row is in history at base@1.
    let history = service
        .history_row("ORDER#tenant001", "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M", 1)
        .await
        .expect("history")
        .expect("row");
    assert_eq!(history.sk, "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M@1");
    assert_eq!(history.attributes["total"], json!(10));
    assert_eq!(history.audit, v1.audit);
    let err = service
        .publish_sync(&order(1, 30), &invoker("carol"))
        .await
        .expect_err("stale");
    assert!(
        matches!(
            err,
            CqrsError::VersionConflict { expected, actual } if (expected.get(), actual.get()) == (1, 2)
        ),
        "{err}"
    );
    assert!(
        service
            .publish_sync(&order(2, 20), &invoker("bob"))
            .await
            .expect("same")
            .is_none(),
        "not dirty against the data row"
    );
}

/// Handlers registered with the command service run inside `publish_sync`; a failing one
/// is reported and marks the command `finish:FAILED`.
#[tokio::test]
async fn publish_sync_runs_the_sync_handlers() {
    use std::sync::Mutex;

    #[derive(Default)]
    struct Recorder(Mutex<Vec<(String, i64)>>);
    impl kura_cqrs::SyncHandler for Recorder {
        fn id(&self) -> &str {
            "recorder"
        }
        fn up<'a>(
            &'a self,
            command: &'a kura_cqrs::CommandModel,
        ) -> kura_cqrs::sync::HandlerFuture<'a> {
            Box::pin(async move {
                if command.attributes["total"] == json!(13) {
                    return Err("unlucky".into());
                }
                self.0
                    .lock()
                    .expect("lock")
                    .push((command.id.clone(), command.version.get()));
                Ok(())
            })
        }
    }
    let recorder = Arc::new(Recorder::default());
    let service = service().await.with_sync_handler(recorder.clone());
    service
        .publish_sync(&order(VERSION_FIRST, 1), &invoker("a"))
        .await
        .expect("v1");
    service
        .publish_sync(&order(1, 2), &invoker("a"))
        .await
        .expect("v2");
    let id = "ORDER#tenant001#ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M".to_owned();
    assert_eq!(
        *recorder.0.lock().expect("lock"),
        [(id.clone(), 1), (id, 2)]
    );
    let err = service
        .publish_sync(&order(2, 13), &invoker("a"))
        .await
        .expect_err("handler fails");
    assert!(
        matches!(&err, CqrsError::Handler { handler, .. } if handler == "recorder"),
        "{err}"
    );
    assert_eq!(
        service
            .status("ORDER#tenant001", "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M", 3)
            .await
            .expect("status")
            .as_deref(),
        Some("finish:FAILED")
    );
}

// Given a command DynamoDB refuses (its rows are over the 400 KB item limit), when it is
// published in sync, then the error says so and is not retryable: it is not a
// VersionConflict (only a failed version condition is), and nothing is written.
#[tokio::test]
async fn publish_sync_refused_is_not_a_version_conflict() {
    let service = service().await;
    let big = order(VERSION_FIRST, 1).with_attribute("pad", json!("x".repeat(410 * 1024)));
    let err = service
        .publish_sync(&big, &invoker("alice"))
        .await
        .expect_err("over the item limit");
    assert!(
        !matches!(err, CqrsError::VersionConflict { .. }) && !err.is_retryable(),
        "{err:?}"
    );
    assert!(err.to_string().contains("Validation"), "{err}");
    assert!(
        service
            .data_row(&big.pk, &big.sk)
            .await
            .expect("data")
            .is_none()
    );
    // The same entity still publishes, from version 0.
    service
        .publish_sync(&order(VERSION_FIRST, 1), &invoker("alice"))
        .await
        .expect("publish")
        .expect("written");
}
