//! Kinesis Data Streams and DynamoDB's Kinesis streaming destination driven by the AWS SDK
//! for Rust against `kura serve` (issue 57): streams, puts routed by partition key, every
//! record read back through lineage after a split and a merge, and a table's changes in
//! Kinesis as DynamoDB's JSON, in order per item.

mod common;

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_kinesis::primitives::Blob;
use aws_sdk_kinesis::types::{ShardIteratorType, StreamModeDetails};
use common::KuraProcess;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

fn kinesis_client(endpoint: &str) -> aws_sdk_kinesis::Client {
    use aws_sdk_kinesis::config::{BehaviorVersion, Credentials, Region};
    let hyper = HyperClient::builder(TokioExecutor::new()).build(HttpConnector::new());
    let config = aws_sdk_kinesis::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("kura", "kura", None, None, "test"))
        .endpoint_url(endpoint)
        .http_client(kura_cqrs::endpoint::sdk_http_client(hyper))
        .build();
    aws_sdk_kinesis::Client::from_conf(config)
}

/// Every record of the stream, reading each shard once all its parents are read.
async fn read_in_lineage(
    kinesis: &aws_sdk_kinesis::Client,
    stream: &str,
) -> Vec<(String, Vec<u8>)> {
    let shards = kinesis
        .list_shards()
        .stream_name(stream)
        .send()
        .await
        .expect("shards")
        .shards
        .unwrap_or_default();
    let mut done: Vec<String> = Vec::new();
    let mut out = Vec::new();
    while done.len() < shards.len() {
        for shard in &shards {
            let parents: Vec<&str> = shard
                .parent_shard_id()
                .into_iter()
                .chain(shard.adjacent_parent_shard_id())
                .collect();
            if done.iter().any(|d| d == shard.shard_id())
                || !parents.iter().all(|p| done.iter().any(|d| d == p))
            {
                continue;
            }
            let mut iterator = kinesis
                .get_shard_iterator()
                .stream_name(stream)
                .shard_id(shard.shard_id())
                .shard_iterator_type(ShardIteratorType::TrimHorizon)
                .send()
                .await
                .expect("iterator")
                .shard_iterator;
            let closed = shard
                .sequence_number_range()
                .and_then(|r| r.ending_sequence_number())
                .is_some();
            while let Some(it) = iterator.take() {
                let page = kinesis
                    .get_records()
                    .shard_iterator(it)
                    .send()
                    .await
                    .expect("records");
                let empty = page.records().is_empty();
                for r in page.records() {
                    out.push((
                        r.partition_key().unwrap_or_default().to_owned(),
                        r.data().clone().into_inner(),
                    ));
                }
                if !closed && empty {
                    break;
                }
                if page.next_shard_iterator().is_none() {
                    assert!(
                        !page.child_shards().is_empty(),
                        "a closed shard names its children"
                    );
                }
                iterator = page.next_shard_iterator().map(str::to_owned);
            }
            done.push(shard.shard_id().to_owned());
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rust_sdk_drives_kinesis_and_the_tables_destination() {
    let kura = KuraProcess::start(None);
    let kinesis = kinesis_client(&kura.endpoint);
    kinesis
        .create_stream()
        .stream_name("events")
        .shard_count(2)
        .send()
        .await
        .expect("create");
    let summary = kinesis
        .describe_stream_summary()
        .stream_name("events")
        .send()
        .await
        .expect("summary");
    let summary = summary.stream_description_summary().expect("summary");
    assert_eq!(summary.open_shard_count(), 2);
    let arn = summary.stream_arn().to_owned();

    // Puts, a split, more puts, a merge, more puts: every record read back once, in order
    // per partition key.
    let mut sent: BTreeMap<String, Vec<Vec<u8>>> = BTreeMap::new();
    for phase in 0..3 {
        for i in 0..30 {
            let key = format!("key-{}", i % 5);
            let data = format!("{phase}-{i}").into_bytes();
            let out = kinesis
                .put_record()
                .stream_name("events")
                .partition_key(&key)
                .data(Blob::new(data.clone()))
                .send()
                .await
                .expect("put");
            assert_eq!(out.sequence_number().len(), 56);
            sent.entry(key).or_default().push(data);
        }
        match phase {
            0 => {
                kinesis
                    .split_shard()
                    .stream_name("events")
                    .shard_to_split("shardId-000000000000")
                    .new_starting_hash_key((1u128 << 126).to_string())
                    .send()
                    .await
                    .expect("split");
            }
            1 => {
                kinesis
                    .merge_shards()
                    .stream_arn(&arn)
                    .shard_to_merge("shardId-000000000003")
                    .adjacent_shard_to_merge("shardId-000000000001")
                    .send()
                    .await
                    .expect("merge");
            }
            _ => {}
        }
    }
    let mut read: BTreeMap<String, Vec<Vec<u8>>> = BTreeMap::new();
    for (key, data) in read_in_lineage(&kinesis, "events").await {
        read.entry(key).or_default().push(data);
    }
    assert_eq!(read, sent);
    let refused = kinesis
        .describe_stream()
        .stream_name("missing")
        .send()
        .await
        .expect_err("no such stream");
    assert!(
        refused
            .as_service_error()
            .is_some_and(|e| e.is_resource_not_found_exception()),
        "{refused:?}"
    );

    // A table's changes to a Kinesis stream, through the DynamoDB SDK.
    kinesis
        .create_stream()
        .stream_name("orders-cdc")
        .stream_mode_details(
            StreamModeDetails::builder()
                .stream_mode(aws_sdk_kinesis::types::StreamMode::OnDemand)
                .build()
                .expect("mode"),
        )
        .send()
        .await
        .expect("create");
    let ddb = kura.client();
    ddb.create_table()
        .table_name("orders")
        .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
        .attribute_definitions(
            aws_sdk_dynamodb::types::AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(aws_sdk_dynamodb::types::ScalarAttributeType::S)
                .build()
                .expect("definition"),
        )
        .key_schema(
            aws_sdk_dynamodb::types::KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(aws_sdk_dynamodb::types::KeyType::Hash)
                .build()
                .expect("key"),
        )
        .send()
        .await
        .expect("table");
    let enabled = ddb
        .enable_kinesis_streaming_destination()
        .table_name("orders")
        .stream_arn(arn.replace("events", "orders-cdc"))
        .send()
        .await
        .expect("enable");
    assert_eq!(
        enabled.destination_status(),
        Some(&aws_sdk_dynamodb::types::DestinationStatus::Enabling)
    );
    for version in 1..=5 {
        for item in ["a", "b", "c"] {
            ddb.put_item()
                .table_name("orders")
                .item("pk", AttributeValue::S(item.to_owned()))
                .item("v", AttributeValue::N(version.to_string()))
                .send()
                .await
                .expect("put");
        }
    }
    ddb.delete_item()
        .table_name("orders")
        .key("pk", AttributeValue::S("a".to_owned()))
        .send()
        .await
        .expect("delete");
    let described = ddb
        .describe_kinesis_streaming_destination()
        .table_name("orders")
        .send()
        .await
        .expect("describe");
    assert_eq!(
        described.kinesis_data_stream_destinations()[0].destination_status(),
        Some(&aws_sdk_dynamodb::types::DestinationStatus::Active)
    );
    let mut changes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, data) in read_in_lineage(&kinesis, "orders-cdc").await {
        let record: Value = serde_json::from_slice(&data).expect("a JSON change record");
        assert_eq!(record["tableName"], "orders");
        assert_eq!(record["eventSource"], "aws:dynamodb");
        let key = record["dynamodb"]["Keys"]["pk"]["S"]
            .as_str()
            .expect("key")
            .to_owned();
        let event = record["eventName"].as_str().expect("event");
        let version = record["dynamodb"]["NewImage"]["v"]["N"]
            .as_str()
            .unwrap_or("-");
        changes
            .entry(key)
            .or_default()
            .push(format!("{event} {version}"));
    }
    let history = |last: &str| {
        let mut h = vec!["INSERT 1".to_owned()];
        h.extend((2..=5).map(|v| format!("MODIFY {v}")));
        if !last.is_empty() {
            h.push(last.to_owned());
        }
        h
    };
    assert_eq!(changes["a"], history("REMOVE -"));
    assert_eq!(changes["b"], history(""));
    assert_eq!(changes["c"], history(""));
}
