//! Item collections on tables with local secondary indexes: their size (items plus LSI
//! entries) is tracked per partition key, reported as ItemCollectionMetrics, and capped
//! (10 GB in DynamoDB; lowered here so the test can reach it).

use std::sync::Arc;

use kura_engine::storage::MemoryStore;
use kura_engine::writer::WriteLimits;
use kura_engine::{Engine, EngineError, EngineOptions, RequestContext};
use serde_json::{Value, json};

const LIMIT: u64 = 4_000;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

fn put(pk: &str, sk: u32, pad: usize) -> Value {
    json!({
        "TableName": "Coll",
        "Item": {"pk": {"S": pk}, "sk": {"N": sk.to_string()}, "rank": {"N": "1"}, "pad": {"S": "x".repeat(pad)}},
        "ReturnItemCollectionMetrics": "SIZE",
    })
}

#[tokio::test]
async fn collections_are_measured_and_capped() {
    let options = EngineOptions {
        limits: WriteLimits {
            max_item_collection_bytes: LIMIT,
            ..WriteLimits::default()
        },
        ..EngineOptions::default()
    };
    let engine = Engine::with_options(Arc::new(MemoryStore::new()), options).expect("open");
    let create = json!({
        "TableName": "Coll",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "rank", "AttributeType": "N"},
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "LocalSecondaryIndexes": [{
            "IndexName": "byRank",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "rank", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"},
        }],
    });
    engine
        .create_table(&RequestContext::default(), input(create))
        .await
        .expect("create");

    let out = engine.put_item(input(put("a", 1, 900))).await.expect("put");
    let metrics = serde_json::to_value(out.item_collection_metrics).expect("json");
    assert_eq!(
        metrics,
        json!({"ItemCollectionKey": {"pk": {"S": "a"}}, "SizeEstimateRangeGB": [0.0, 1.0]})
    );
    // Each ~920-byte item counts twice (the item and its ALL-projected LSI entry): the
    // third one would pass 4,000 bytes.
    engine
        .put_item(input(put("a", 2, 900)))
        .await
        .expect("second");
    let err = engine
        .put_item(input(put("a", 3, 900)))
        .await
        .expect_err("over the limit");
    assert!(
        matches!(err, EngineError::ItemCollectionSizeLimitExceeded(_)),
        "{err:?}"
    );
    // Another partition has its own collection; shrinking is always allowed.
    engine
        .put_item(input(put("b", 1, 900)))
        .await
        .expect("other partition");
    engine
        .put_item(input(put("a", 2, 10)))
        .await
        .expect("shrink");
    engine
        .put_item(input(put("a", 3, 900)))
        .await
        .expect("fits again");

    // In a transaction the overflow cancels, with the reason at its action.
    let tx = json!({"TransactItems": [
        {"Put": {"TableName": "Coll", "Item": {"pk": {"S": "b"}, "sk": {"N": "9"}}}},
        {"Put": put("a", 4, 900)},
    ]});
    match engine.transact_write_items(input(tx)).await {
        Err(EngineError::TransactionCanceled { reasons }) => {
            let codes: Vec<&str> = reasons.iter().map(|r| r.code.as_str()).collect();
            assert_eq!(codes, ["None", "ItemCollectionSizeLimitExceeded"]);
        }
        other => panic!("expected a cancellation, got {other:?}"),
    }
    let get = json!({"TableName": "Coll", "Key": {"pk": {"S": "b"}, "sk": {"N": "9"}}});
    assert!(
        engine.get_item(input(get)).expect("get").item.is_none(),
        "nothing applied"
    );

    // Deleting every item empties the collection.
    for (pk, sk) in [("a", 1), ("a", 2), ("a", 3), ("b", 1)] {
        let del = json!({"TableName": "Coll", "Key": {"pk": {"S": pk}, "sk": {"N": sk.to_string()}}, "ReturnItemCollectionMetrics": "SIZE"});
        engine.delete_item(input(del)).await.expect("delete");
    }
    engine
        .put_item(input(put("a", 5, 1800)))
        .await
        .expect("room again");
    engine.shutdown();
}
