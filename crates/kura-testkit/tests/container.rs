//! The testcontainers image (`kura_testkit::container`) against the real image built by
//! `scripts/image.sh` (`$KURA_IMAGE`, else `kura:latest`). Ignored in the workspace's test
//! run, which comes before the image; the test command runs them after building it:
//! `cargo test --workspace --features kura/clients,kura-testkit/testcontainers --test
//! container -- --ignored` (the workspace's one feature set, scripts/workspace-build.sh).

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType,
};
use kura_testkit::container::{self, Kura};
use testcontainers::runners::AsyncRunner;

async fn create_and_put(client: &aws_sdk_dynamodb::Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .expect("definition"),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()
                .expect("key"),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("CreateTable");
    client
        .put_item()
        .table_name(table)
        .item("pk", AttributeValue::S("u1".into()))
        .item("name", AttributeValue::S("Ada".into()))
        .send()
        .await
        .expect("PutItem");
}

async fn name_of_u1(client: &aws_sdk_dynamodb::Client, table: &str) -> Option<String> {
    let got = client
        .get_item()
        .table_name(table)
        .key("pk", AttributeValue::S("u1".into()))
        .send()
        .await
        .expect("GetItem");
    got.item()
        .and_then(|item| item.get("name"))
        .and_then(|name| name.as_s().ok())
        .cloned()
}

#[tokio::test]
#[ignore = "needs Docker and the image scripts/image.sh builds; the test command runs it with --ignored"]
async fn in_memory_container_serves_the_sdk_and_resets() {
    let kura = Kura::default()
        .start()
        .await
        .expect("the Kura container starts");
    let client = container::client(&kura).await.expect("endpoint");
    create_and_put(&client, "Users").await;
    assert_eq!(name_of_u1(&client, "Users").await.as_deref(), Some("Ada"));

    container::reset(&kura).await.expect("reset");
    let tables = client.list_tables().send().await.expect("ListTables");
    assert!(tables.table_names().is_empty(), "{tables:?}");
}

#[tokio::test]
#[ignore = "needs Docker and the image scripts/image.sh builds; the test command runs it with --ignored"]
async fn durable_container_keeps_its_data_across_a_restart() {
    let kura = Kura::default()
        .durable()
        .start()
        .await
        .expect("the Kura container starts");
    let client = container::client(&kura).await.expect("endpoint");
    create_and_put(&client, "Kept").await;
    assert!(
        container::reset(&kura).await.is_err(),
        "a durable server has no reset"
    );

    kura.stop().await.expect("stop");
    kura.start().await.expect("start again");
    // The host port may change with the restart; ask again and wait for the server.
    let client = container::client(&kura).await.expect("endpoint");
    let mut answer = None;
    for _ in 0..100 {
        if client.list_tables().send().await.is_ok() {
            answer = name_of_u1(&client, "Kept").await;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(answer.as_deref(), Some("Ada"));
}
