//! The test kit as a Rust application uses it: an isolated server per test, real
//! `aws-sdk-dynamodb` clients, and the controls — capacity emulation the SDK's retries get
//! through, injected faults the SDK sees, snapshots, reset and a manual clock.

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ProvisionedThroughput, ScalarAttributeType, TimeToLiveSpecification,
};
use kura_testkit::{FaultSpec, TestKura, ThrottleOptions};

async fn create_table(client: &aws_sdk_dynamodb::Client, name: &str, capacity: Option<(i64, i64)>) {
    let mut request = client
        .create_table()
        .table_name(name)
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()
                .expect("a complete builder"),
        )
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .expect("a complete builder"),
        );
    request = match capacity {
        Some((read, write)) => request.provisioned_throughput(
            ProvisionedThroughput::builder()
                .read_capacity_units(read)
                .write_capacity_units(write)
                .build()
                .expect("a complete builder"),
        ),
        None => request.billing_mode(BillingMode::PayPerRequest),
    };
    request.send().await.expect("CreateTable");
}

async fn put(client: &aws_sdk_dynamodb::Client, table: &str, key: &str) -> Result<(), String> {
    client
        .put_item()
        .table_name(table)
        .item("pk", AttributeValue::S(key.into()))
        .send()
        .await
        .map(|_| ())
        .map_err(|e| {
            use aws_sdk_dynamodb::error::ProvideErrorMetadata;
            e.code().unwrap_or("unknown").to_owned()
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_is_throttled_and_its_retries_get_through() {
    let kura = TestKura::builder()
        .enforce_capacity(ThrottleOptions {
            burst_seconds: 1.0,
            ..ThrottleOptions::default()
        })
        .start()
        .await
        .unwrap();
    // No retries: the throttle is seen as DynamoDB's error.
    let config = kura
        .client()
        .config()
        .to_builder()
        .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled())
        .build();
    let impatient = aws_sdk_dynamodb::Client::from_conf(config);
    create_table(&impatient, "orders", Some((10, 5))).await;
    let mut refused = None;
    for i in 0..20 {
        if let Err(code) = put(&impatient, "orders", &format!("k{i}")).await {
            refused = Some((i, code));
            break;
        }
    }
    let (written, code) = refused.expect("throttled within 20 writes");
    assert_eq!(code, "ProvisionedThroughputExceededException");
    assert!(
        (5..=7).contains(&written),
        "{written} writes before the throttle"
    );
    // The SDK's standard retries get through. With its default of 3 attempts they did
    // not always: two backoffs drawn under the 0.2 s a write's unit takes to refill at
    // 5 WCU failed the test now and then; 10 attempts, as a suite that expects
    // throttling configures, always wait long enough.
    let retrying = kura
        .client()
        .config()
        .to_builder()
        .retry_config(
            aws_sdk_dynamodb::config::retry::RetryConfig::standard().with_max_attempts(10),
        )
        .build();
    let patient = aws_sdk_dynamodb::Client::from_conf(retrying);
    for i in 0..5 {
        put(&patient, "orders", &format!("r{i}")).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn injected_faults_reach_the_sdk_and_snapshots_isolate_cases() {
    let kura = TestKura::start().await.unwrap();
    let client = kura.client();
    create_table(&client, "users", None).await;
    put(&client, "users", "u1").await.unwrap();
    kura.snapshot("one-user").unwrap();

    let rule = kura
        .inject(FaultSpec {
            error: Some("RequestLimitExceeded".into()),
            operation: Some("PutItem".into()),
            key_prefix: Some("blocked".into()),
            count: Some(10),
            ..FaultSpec::default()
        })
        .unwrap();
    // RequestLimitExceeded is a throttling error to the SDK: it retries, and fails after
    // its three attempts.
    assert_eq!(
        put(&client, "users", "blocked-1").await.unwrap_err(),
        "RequestLimitExceeded"
    );
    assert_eq!(kura.faults()[0].injected, 3, "rule {}", rule.id);
    put(&client, "users", "free").await.unwrap();
    kura.clear_faults();
    put(&client, "users", "blocked-1").await.unwrap();

    // Back to one user, then to nothing.
    kura.restore("one-user").unwrap();
    let count = client
        .scan()
        .table_name("users")
        .send()
        .await
        .unwrap()
        .count();
    assert_eq!(count, 1);
    kura.reset().unwrap();
    let tables = client.list_tables().send().await.unwrap();
    assert!(tables.table_names().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manual_clock_expires_items_on_demand() {
    let kura = TestKura::builder().manual_clock().start().await.unwrap();
    let client = kura.client();
    create_table(&client, "sessions", None).await;
    client
        .update_time_to_live()
        .table_name("sessions")
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .enabled(true)
                .attribute_name("expires")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let now = kura.engine().now_ms() / 1000;
    client
        .put_item()
        .table_name("sessions")
        .item("pk", AttributeValue::S("s1".into()))
        .item("expires", AttributeValue::N((now + 3600).to_string()))
        .send()
        .await
        .unwrap();
    kura.advance(Duration::from_secs(3599)).await.unwrap();
    let get = || {
        client
            .get_item()
            .table_name("sessions")
            .key("pk", AttributeValue::S("s1".into()))
    };
    assert!(get().send().await.unwrap().item().is_some());
    kura.advance(Duration::from_secs(2)).await.unwrap();
    assert!(get().send().await.unwrap().item().is_none());
}
