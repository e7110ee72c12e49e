//! The account's table quota (`WriteLimits::max_tables`, `kura serve --max-tables`): past
//! it CreateTable and RestoreTableFromBackup get LimitExceededException with DynamoDB's
//! message, nothing is created, and a deleted table makes room again.

use std::sync::Arc;

use kura_engine::error::EngineError;
use kura_engine::storage::MemoryStore;
use kura_engine::writer::WriteLimits;
use kura_engine::{Engine, EngineOptions, RequestContext};
use serde_json::{Value, json};

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

fn table(name: &str) -> Value {
    json!({
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
    })
}

#[tokio::test]
async fn tables_past_the_quota_are_refused_until_one_is_deleted() {
    let options = EngineOptions {
        limits: WriteLimits {
            max_tables: 3,
            ..WriteLimits::default()
        },
        ..EngineOptions::default()
    };
    let engine = Engine::with_options(Arc::new(MemoryStore::new()), options).expect("open");
    let ctx = RequestContext::default();
    for name in ["t-a", "t-b", "t-c"] {
        engine
            .create_table(&ctx, input(table(name)))
            .await
            .expect("within the quota");
    }
    let refused = engine
        .create_table(&ctx, input(table("t-d")))
        .await
        .expect_err("past the quota");
    match &refused {
        EngineError::LimitExceeded(message) => assert_eq!(
            message,
            "Subscriber limit exceeded: There is a limit of 3 tables per subscriber"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(engine.design().table_designs().len(), 3, "nothing created");

    // A restore creates a table too.
    let backup = engine
        .create_backup(
            &ctx,
            input(json!({"TableName": "t-a", "BackupName": "t-a-1"})),
        )
        .await
        .expect("backup");
    let arn = backup.backup_details.backup_arn;
    let restore = json!({"TargetTableName": "t-a-restored", "BackupArn": arn});
    let refused = engine
        .restore_table_from_backup(&ctx, input(restore.clone()))
        .await
        .expect_err("past the quota");
    assert!(
        matches!(refused, EngineError::LimitExceeded(_)),
        "{refused:?}"
    );

    engine
        .delete_table(&ctx, input(json!({"TableName": "t-c"})))
        .await
        .expect("delete");
    engine
        .restore_table_from_backup(&ctx, input(restore))
        .await
        .expect("room again");
    let refused = engine
        .create_table(&ctx, input(table("t-e")))
        .await
        .expect_err("full again");
    assert!(
        matches!(refused, EngineError::LimitExceeded(_)),
        "{refused:?}"
    );
}
