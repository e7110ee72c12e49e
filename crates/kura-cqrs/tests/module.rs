//! One `Module` value builds the publisher, the reader and the projector alike (against
//! Kura in process, or the endpoint in `KURA_ENDPOINT`): what one writes through the
//! module's indexes, handlers and sessions, the others see.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use kura_cqrs::keys::{self, VERSION_FIRST, VERSION_LATEST};
use kura_cqrs::names::TENANT_CODE;
use kura_cqrs::{
    CommandInput, CommandModel, Index, IndexKey, IndexQuery, Indexes, Invoker, Module,
    ProjectorOptions, SyncHandler,
};
use serde_json::json;

/// The versions a read model saw, by entity.
#[derive(Default)]
struct Seen(Mutex<BTreeMap<String, Vec<i64>>>);

impl SyncHandler for Seen {
    fn id(&self) -> &str {
        "seen"
    }

    fn up<'a>(&'a self, command: &'a CommandModel) -> kura_cqrs::sync::HandlerFuture<'a> {
        Box::pin(async move {
            self.0
                .lock()
                .expect("lock")
                .entry(command.id.clone())
                .or_default()
                .push(command.version.get());
            Ok(())
        })
    }
}

fn by_status() -> Index {
    Index::new("by-status")
        .partition(
            IndexKey::string("gsi1pk")
                .with_field(TENANT_CODE)
                .with_attribute("status"),
        )
        .sort(IndexKey::string("gsi1sk").with_attribute("placedAt"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_module_configures_publisher_reader_and_projector_alike() {
    let (client, streams) = common::clients().await;
    let seen = Arc::new(Seen::default());
    let module = Module::new(client, &common::test_env(), &common::unique_app(), "order")
        .with_indexes(Indexes::new([by_status()]).expect("indexes"))
        .with_sync_handler(seen.clone())
        .with_sessions();
    module
        .ensure_tables()
        .await
        .expect("tables")
        .wait()
        .await
        .expect("indexes");
    let commands = module.commands();
    let data = module.data();
    let aiko = Invoker {
        user_id: "aiko".into(),
        ..Invoker::default()
    };
    let key = keys::parent("ORDER", "tenant001", "o1").expect("key");
    let placed = |status: &str| {
        CommandInput::for_key(&key, VERSION_LATEST)
            .with_attribute("status", json!(status))
            .with_attribute("placedAt", json!("2026-12-04T10:00:00Z"))
    };
    commands
        .publish_sync(&placed("OPEN").with_version(VERSION_FIRST), &aiko)
        .await
        .expect("sync");
    commands
        .publish_async(&placed("SHIPPED"), &aiko)
        .await
        .expect("async");
    // Her own async write is merged into her reads before the projector runs.
    let mine = data
        .get_item_for("aiko", &key.pk, &key.sk)
        .await
        .expect("get")
        .expect("row");
    assert_eq!(mine.version.get(), 2);

    let projector = module.projector(streams, ProjectorOptions::default());
    while projector.run_once().await.expect("round") > 0 {}
    // The handler saw each version once: the first from publish_sync, the second from
    // the projector, which did not run it again for the first.
    assert_eq!(
        seen.0.lock().expect("lock").get(&key.id()).cloned(),
        Some(vec![1, 2])
    );
    // The index keys came with the publisher from the module's declaration.
    let shipped = data
        .query_index(&IndexQuery::new(&by_status(), ["tenant001", "SHIPPED"]))
        .await
        .expect("query");
    assert_eq!(shipped.items.len(), 1);
    // The same query built from the declaration, its values named as the parts are.
    let named = module
        .indexes()
        .query(
            "by-status",
            &json!({"tenantCode": "tenant001", "status": "SHIPPED"}),
        )
        .expect("declared");
    assert_eq!(named.partition, ["tenant001", "SHIPPED"]);
    let by_name = data.query_index(&named).await.expect("query by name");
    assert_eq!(by_name.items, shipped.items);
    // Refused before any request: an undeclared index, a missing or unknown part, and a
    // query on an index the module declares otherwise (its key computed another way).
    let refusals = [
        module.indexes().query("by-state", &json!({})).err(),
        module
            .indexes()
            .query("by-status", &json!({"status": "SHIPPED"}))
            .err(),
        module
            .indexes()
            .query(
                "by-status",
                &json!({"tenantCode": "t", "status": "S", "colour": "red"}),
            )
            .err(),
    ];
    let texts: Vec<String> = refusals
        .iter()
        .map(|e| e.as_ref().expect("refused").to_string())
        .collect();
    assert!(texts[0].contains("[\"by-status\"]"), "{}", texts[0]);
    assert!(texts[1].contains("tenantCode"), "{}", texts[1]);
    assert!(texts[2].contains("colour"), "{}", texts[2]);
    let otherwise = Index::new("by-status")
        .partition(IndexKey::string("gsi1pk").with_attribute("status"))
        .sort(IndexKey::string("gsi1sk").with_attribute("placedAt"));
    let refused = data
        .query_index(&IndexQuery::new(&otherwise, ["SHIPPED"]))
        .await;
    assert!(
        matches!(&refused, Err(kura_cqrs::CqrsError::InvalidKey(text)) if text.contains("otherwise")),
        "{refused:?}"
    );
    assert_eq!(module.handler_ids(), ["seen"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_protected_module_has_point_in_time_recovery_and_deletion_protection() {
    let client = common::client().await;
    let module = Module::new(
        client.clone(),
        &common::test_env(),
        &common::unique_app(),
        "ledger",
    )
    .with_protection();
    match module.ensure_tables().await {
        Err(kura_cqrs::CqrsError::Dynamo { code, .. }) if code == "UnknownOperationException" => {
            common::not_checked(
                "a protected module",
                "DynamoDB Local has no continuous backups (point-in-time recovery) API",
            );
            return;
        }
        other => drop(other.expect("tables")),
    }
    module
        .ensure_tables()
        .await
        .expect("again, at the next start");
    for table in [
        &module.tables().command,
        &module.tables().data,
        &module.tables().history,
    ] {
        let backups = client
            .describe_continuous_backups()
            .table_name(table)
            .send()
            .await
            .expect("backups");
        let pitr = backups
            .continuous_backups_description()
            .and_then(|d| d.point_in_time_recovery_description())
            .and_then(|p| p.point_in_time_recovery_status())
            .cloned();
        assert_eq!(
            pitr,
            Some(aws_sdk_dynamodb::types::PointInTimeRecoveryStatus::Enabled),
            "{table}"
        );
        let refused = client.delete_table().table_name(table).send().await;
        assert!(refused.is_err(), "{table} deleted despite its protection");
    }
}
