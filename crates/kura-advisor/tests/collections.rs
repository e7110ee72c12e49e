//! `index.lsi-collection-size` on a real engine: an LSI table's largest item collection
//! at 80% of its limit is reported, below it is not, and a table without LSIs never is.
//! The engine's limit is lowered from 10 GB so the test can reach it.

use std::sync::Arc;

use kura_engine::storage::MemoryStore;
use kura_engine::writer::WriteLimits;
use kura_engine::{Engine, EngineOptions, RequestContext};
use serde_json::{Value, json};

const LIMIT: u64 = 10_000;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

async fn create(engine: &Engine, name: &str, lsi: bool) {
    let mut create = json!({
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": "user_id", "AttributeType": "S"},
            {"AttributeName": "order_id", "AttributeType": "S"},
            {"AttributeName": "ordered_at", "AttributeType": "S"},
        ],
        "KeySchema": [{"AttributeName": "user_id", "KeyType": "HASH"},
                      {"AttributeName": "order_id", "KeyType": "RANGE"}],
    });
    if lsi {
        create["LocalSecondaryIndexes"] = json!([{
            "IndexName": "by_ordered_at",
            "KeySchema": [{"AttributeName": "user_id", "KeyType": "HASH"},
                          {"AttributeName": "ordered_at", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }]);
    } else {
        create["AttributeDefinitions"]
            .as_array_mut()
            .expect("definitions")
            .pop();
    }
    engine
        .create_table(&RequestContext::default(), input(create))
        .await
        .expect("create");
}

async fn fill(engine: &Engine, table: &str, user: &str, items: u32) {
    for n in 0..items {
        let put = json!({"TableName": table, "Item": {
            "user_id": {"S": user}, "order_id": {"S": format!("o{n:03}")},
            "ordered_at": {"S": "2026-11-29T10:00:00Z"}, "note": {"S": "x".repeat(900)}}});
        engine.put_item(input(put)).await.expect("put");
    }
}

fn collection_findings(engine: &Engine) -> Vec<(String, String)> {
    kura_advisor::advise(engine)
        .findings
        .into_iter()
        .filter(|f| f.rule == "index.lsi-collection-size")
        .map(|f| (f.table, f.evidence))
        .collect()
}

#[tokio::test]
async fn an_lsi_collection_near_its_limit_is_reported_once() {
    let options = EngineOptions {
        limits: WriteLimits {
            max_item_collection_bytes: LIMIT,
            ..WriteLimits::default()
        },
        ..EngineOptions::default()
    };
    let engine = Engine::with_options(Arc::new(MemoryStore::new()), options).expect("open");
    create(&engine, "dev-shop-orders", true).await;
    create(&engine, "dev-shop-plain", false).await;
    // Seven items of about 1 KB (and their LSI entries): under 80% of 10,000 bytes.
    fill(&engine, "dev-shop-orders", "u1", 7).await;
    fill(&engine, "dev-shop-plain", "u1", 12).await;
    assert_eq!(collection_findings(&engine), []);
    // Eight: past 80%, in one partition key; another key's small collection changes nothing.
    fill(&engine, "dev-shop-orders", "u1", 8).await;
    fill(&engine, "dev-shop-orders", "u2", 2).await;
    let found = collection_findings(&engine);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "dev-shop-orders");
    assert!(
        found[0]
            .1
            .contains("of the 10000-byte limit on a table with LSIs"),
        "{found:?}"
    );
}
