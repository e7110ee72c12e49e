//! `ClientRequestToken` on a durable store with a clock the test moves: a retry inside 10
//! minutes returns the first answer and applies nothing, also after the engine is closed
//! and reopened; another request with the token is a mismatch; a cancelled transaction
//! leaves its token free; after 10 minutes the token is free again and its record is
//! deleted by the sweeper.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kura_engine::clock::ManualClock;
use kura_engine::storage::{Direction, FjallStore, KeyRange, Space, Store};
use kura_engine::{Engine, EngineError, EngineOptions, RequestContext};
use serde_json::{Value, json};

const START_MS: i64 = 1_800_000_000_000;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

fn open(dir: &Path, clock: Arc<ManualClock>) -> Arc<Engine> {
    let options = EngineOptions {
        clock,
        sweep_interval: Duration::from_millis(5),
        ..EngineOptions::default()
    };
    Engine::open_with_options(dir, options).expect("open")
}

fn add(by: i64, token: &str) -> Value {
    json!({
        "ClientRequestToken": token,
        "ReturnConsumedCapacity": "TOTAL",
        "TransactItems": [{"Update": {
            "TableName": "Counters", "Key": {"pk": {"S": "c"}},
            "UpdateExpression": "ADD n :by",
            "ExpressionAttributeValues": {":by": {"N": by.to_string()}}
        }}]
    })
}

async fn counter(engine: &Engine) -> Value {
    let out = engine
        .get_item(input(
            json!({"TableName": "Counters", "Key": {"pk": {"S": "c"}}}),
        ))
        .expect("get");
    serde_json::to_value(out.item.expect("item")["n"].clone()).expect("json")
}

async fn transact(engine: &Engine, request: Value) -> Result<Value, EngineError> {
    engine
        .transact_write_items(input(request))
        .await
        .map(|out| serde_json::to_value(out).expect("json"))
}

fn token_keys(dir: &Path) -> usize {
    let store = FjallStore::open(dir).expect("store");
    let snapshot = store.snapshot().expect("snapshot");
    let count = snapshot
        .range(Space::Meta, KeyRange::prefix(b"txtok/"), Direction::Forward)
        .count()
        + snapshot
            .range(Space::Meta, KeyRange::prefix(b"txexp/"), Direction::Forward)
            .count();
    drop(snapshot);
    count
}

#[tokio::test]
async fn tokens_are_durable_for_ten_minutes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let clock = Arc::new(ManualClock::new(START_MS));
    let engine = open(dir.path(), clock.clone());
    engine
        .create_table(
            &RequestContext::default(),
            input(json!({
                "TableName": "Counters", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]
            })),
        )
        .await
        .expect("create");

    let first = transact(&engine, add(1, "token-1")).await.expect("first");
    assert_eq!(counter(&engine).await, json!({"N": "1"}));
    // A retry: the first answer, nothing applied.
    assert_eq!(
        transact(&engine, add(1, "token-1")).await.expect("retry"),
        first
    );
    assert_eq!(counter(&engine).await, json!({"N": "1"}));
    // Another request under the same token.
    let err = transact(&engine, add(2, "token-1")).await.unwrap_err();
    assert!(
        matches!(err, EngineError::IdempotentParameterMismatch(_)),
        "{err:?}"
    );

    // A cancelled transaction does not take its token.
    let failing = json!({
        "ClientRequestToken": "token-2",
        "TransactItems": [{"ConditionCheck": {
            "TableName": "Counters", "Key": {"pk": {"S": "c"}},
            "ConditionExpression": "n = :ten", "ExpressionAttributeValues": {":ten": {"N": "10"}}
        }}]
    });
    let err = transact(&engine, failing).await.unwrap_err();
    assert!(
        matches!(err, EngineError::TransactionCanceled { .. }),
        "{err:?}"
    );
    transact(&engine, add(5, "token-2"))
        .await
        .expect("token-2 is free");
    assert_eq!(counter(&engine).await, json!({"N": "6"}));

    // Closed and reopened (as after a crash, the record came with the batch).
    engine.shutdown();
    drop(engine);
    clock.advance_ms(9 * 60 * 1000);
    let engine = open(dir.path(), clock.clone());
    assert_eq!(
        transact(&engine, add(1, "token-1"))
            .await
            .expect("retry after reopen"),
        first
    );
    assert_eq!(counter(&engine).await, json!({"N": "6"}));
    let err = transact(&engine, add(3, "token-1")).await.unwrap_err();
    assert!(
        matches!(err, EngineError::IdempotentParameterMismatch(_)),
        "{err:?}"
    );

    // Ten minutes after its use the token is free: the same request applies again.
    clock.advance_ms(60 * 1000);
    transact(&engine, add(1, "token-1"))
        .await
        .expect("a new use");
    assert_eq!(counter(&engine).await, json!({"N": "7"}));

    // Once every use is older than 10 minutes the sweeper deletes the records.
    clock.advance_ms(10 * 60 * 1000 + 1);
    let deadline = Instant::now() + Duration::from_secs(30);
    while engine.internals().meta_count(b"txtok/") > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    engine.shutdown();
    drop(engine);
    assert_eq!(
        token_keys(dir.path()),
        0,
        "expired token records are deleted"
    );
}
