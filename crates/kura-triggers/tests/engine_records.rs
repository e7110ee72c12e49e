//! The engine's stream records, shaped as Lambda's event, against FilterCriteria written as
//! they would be for AWS: the patterns users copy from AWS's documentation must select the
//! same records here.

use kura_engine::{Engine, RequestContext};
use kura_triggers::FilterCriteria;
use kura_triggers::event::{batches, lambda_event, lambda_record};
use serde_json::{Value, json};

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

#[tokio::test]
async fn filter_patterns_select_engine_records_as_on_aws() {
    let engine = Engine::in_memory();
    let ctx = RequestContext::default();
    engine
        .create_table(
            &ctx,
            input(json!({
                "TableName": "orders", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}
            })),
        )
        .await
        .expect("table");
    for (pk, status) in [("o1", "pending"), ("o2", "shipped"), ("o3", "shipped")] {
        engine
            .put_item(input(json!({"TableName": "orders",
                "Item": {"pk": {"S": pk}, "status": {"S": status}, "total": {"N": "10"}}})))
            .await
            .expect("put");
    }
    engine
        .update_item(input(
            json!({"TableName": "orders", "Key": {"pk": {"S": "o1"}},
            "UpdateExpression": "SET #s = :s", "ExpressionAttributeNames": {"#s": "status"},
            "ExpressionAttributeValues": {":s": {"S": "shipped"}}}),
        ))
        .await
        .expect("update");
    engine
        .delete_item(input(
            json!({"TableName": "orders", "Key": {"pk": {"S": "o3"}}}),
        ))
        .await
        .expect("delete");

    let arn = engine
        .list_streams(&ctx, input(json!({"TableName": "orders"})))
        .expect("streams")
        .streams[0]
        .stream_arn
        .clone();
    // Every shard's records, in sequence number order (one item's are in one shard).
    let mut raw = Vec::new();
    for shard in engine
        .describe_stream(&ctx, input(json!({"StreamArn": arn})))
        .expect("describe")
        .stream_description
        .shards
    {
        let iterator = engine
            .get_shard_iterator(input(json!({"StreamArn": arn, "ShardId": shard.shard_id,
                "ShardIteratorType": "TRIM_HORIZON"})))
            .expect("iterator")
            .shard_iterator;
        let page = engine
            .get_records(&ctx, input(json!({"ShardIterator": iterator})))
            .expect("records");
        raw.extend(page.records);
    }
    raw.sort_by(|a, b| a.dynamodb.sequence_number.cmp(&b.dynamodb.sequence_number));
    let records: Vec<Value> = raw
        .iter()
        .map(|r| lambda_record(&serde_json::to_value(r).expect("json"), &arn))
        .collect();
    assert_eq!(records.len(), 5);
    assert!(records.iter().all(|r| r["eventSourceARN"] == arn.as_str()));

    let selected = |patterns: &[&str]| -> Vec<String> {
        let criteria = FilterCriteria::parse(patterns.iter().copied()).expect("criteria");
        records
            .iter()
            .filter(|r| criteria.passes(r))
            .map(|r| {
                format!(
                    "{} {}",
                    r["eventName"].as_str().unwrap_or_default(),
                    r["dynamodb"]["Keys"]["pk"]["S"]
                        .as_str()
                        .unwrap_or_default()
                )
            })
            .collect()
    };
    // Inserts only.
    assert_eq!(
        selected(&[r#"{"eventName": ["INSERT"]}"#]),
        ["INSERT o1", "INSERT o2", "INSERT o3"]
    );
    // Items whose new image says shipped (an insert and the update).
    assert_eq!(
        selected(&[r#"{"dynamodb": {"NewImage": {"status": {"S": ["shipped"]}}}}"#]),
        ["INSERT o2", "INSERT o3", "MODIFY o1"]
    );
    // Status changed from pending: old image has it, new image does not.
    assert_eq!(
        selected(
            &[r#"{"dynamodb": {"OldImage": {"status": {"S": ["pending"]}},
                                    "NewImage": {"status": {"S": [{"anything-but": ["pending"]}]}}}}"#]
        ),
        ["MODIFY o1"]
    );
    // Removals, or anything on o2.
    assert_eq!(
        selected(&[
            r#"{"eventName": ["REMOVE"]}"#,
            r#"{"dynamodb": {"Keys": {"pk": {"S": [{"prefix": "o2"}]}}}}"#
        ]),
        ["INSERT o2", "REMOVE o3"]
    );
    // Numbers are strings in DynamoDB JSON: equals matches them, numeric does not.
    assert_eq!(
        selected(&[r#"{"dynamodb": {"NewImage": {"total": {"N": ["10"]}}}}"#]).len(),
        4
    );
    assert!(
        selected(&[r#"{"dynamodb": {"NewImage": {"total": {"N": [{"numeric": [">", 1]}]}}}}"#])
            .is_empty()
    );

    // One event of all five, in order.
    let event = lambda_event(&batches(records.clone(), 100)[0]);
    assert_eq!(event["Records"].as_array().map(Vec::len), Some(5));
    assert_eq!(
        event["Records"][0]["dynamodb"]["StreamViewType"],
        "NEW_AND_OLD_IMAGES"
    );
    engine.shutdown();
}
