//! Index behaviours at their edges: pages of LSI reads that fetch big items from the table
//! stop at 1 MB, and a provisioned table's GSIs always have throughput of their own.

use kura_engine::{Engine, EngineError, RequestContext};
use serde_json::{Value, json};

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

fn key_schema(hash: &str, range: &str) -> Value {
    json!([{"AttributeName": hash, "KeyType": "HASH"}, {"AttributeName": range, "KeyType": "RANGE"}])
}

#[tokio::test]
async fn lsi_fetches_count_toward_the_page_limit() {
    let engine = Engine::in_memory();
    let create = json!({
        "TableName": "Big",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "at", "AttributeType": "N"},
        ],
        "KeySchema": key_schema("pk", "sk"),
        "LocalSecondaryIndexes": [{
            "IndexName": "byAt",
            "KeySchema": key_schema("pk", "at"),
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }],
    });
    engine
        .create_table(&RequestContext::default(), input(create))
        .await
        .expect("create");
    for i in 0..20 {
        let item = json!({"pk": {"S": "p"}, "sk": {"N": i.to_string()}, "at": {"N": i.to_string()},
                          "pad": {"S": "x".repeat(200_000)}});
        engine
            .put_item(input(json!({"TableName": "Big", "Item": item})))
            .await
            .expect("put");
    }
    let query = |start: Option<Value>| {
        let mut req = json!({
            "TableName": "Big", "IndexName": "byAt", "Select": "ALL_ATTRIBUTES",
            "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}},
        });
        if let Some(start) = start {
            req["ExclusiveStartKey"] = start;
        }
        serde_json::to_value(engine.query(input(req)).expect("query")).expect("json")
    };
    // 200 KB items: the entries are tiny, but the fetched items fill 1 MB after 6.
    let mut pages = 0;
    let mut seen = 0;
    let mut start = None;
    loop {
        let page = query(start.take());
        let count = page["Count"].as_u64().expect("count");
        assert!(count <= 6, "a page returned {count} items of 200 KB");
        seen += count;
        pages += 1;
        match page.get("LastEvaluatedKey") {
            Some(key) => start = Some(key.clone()),
            None => break,
        }
    }
    assert_eq!(seen, 20);
    assert!(pages >= 4);
    engine.shutdown();
}

#[tokio::test]
async fn provisioned_tables_need_gsi_throughput() {
    let engine = Engine::in_memory();
    let ctx = RequestContext::default();
    let create = json!({
        "TableName": "Modes",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "byG",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
        }],
    });
    engine
        .create_table(&ctx, input(create))
        .await
        .expect("create");
    let throughput = json!({"ReadCapacityUnits": 5, "WriteCapacityUnits": 5});
    let to_provisioned = json!({"TableName": "Modes", "BillingMode": "PROVISIONED", "ProvisionedThroughput": throughput});
    match engine
        .update_table(&ctx, input(to_provisioned.clone()))
        .await
    {
        Err(EngineError::Validation(m)) => assert_eq!(
            m,
            "One or more parameter values were invalid: ProvisionedThroughput is not specified for index: byG"
        ),
        other => panic!("expected a validation error, got {other:?}"),
    }
    let mut with_gsi = to_provisioned;
    with_gsi["GlobalSecondaryIndexUpdates"] = json!([{"Update": {
        "IndexName": "byG",
        "ProvisionedThroughput": {"ReadCapacityUnits": 3, "WriteCapacityUnits": 2},
    }}]);
    let out = engine
        .update_table(&ctx, input(with_gsi))
        .await
        .expect("switch");
    let out = serde_json::to_value(out).expect("json");
    let gsi = &out["TableDescription"]["GlobalSecondaryIndexes"][0];
    assert_eq!(gsi["ProvisionedThroughput"]["ReadCapacityUnits"], 3);
    assert_eq!(gsi["ProvisionedThroughput"]["WriteCapacityUnits"], 2);
    // Back to on demand: the GSI's throughput goes with the table's.
    let back = json!({"TableName": "Modes", "BillingMode": "PAY_PER_REQUEST"});
    let out = engine.update_table(&ctx, input(back)).await.expect("back");
    let out = serde_json::to_value(out).expect("json");
    let gsi = &out["TableDescription"]["GlobalSecondaryIndexes"][0];
    assert_eq!(gsi["ProvisionedThroughput"]["ReadCapacityUnits"], 0);
    engine.shutdown();
}
