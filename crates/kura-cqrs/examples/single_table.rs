//! Seed 003's single-table design on Kura with the plain AWS SDK: user profiles and orders
//! in one table (`PK`/`SK`), a GSI `GSI1` for date and status queries, optimistic locking
//! on a `version` attribute.
//!
//! Run against a Kura server (`kura serve` in another terminal):
//!
//! ```sh
//! cargo run -p kura-cqrs --example single_table
//! ```
//!
//! `KURA_ENDPOINT` picks another endpoint (default `http://127.0.0.1:8000`; DynamoDB Local
//! works too). On AWS, build the client with `aws-config` instead of
//! `kura_cqrs::endpoint`; nothing else changes.
#![allow(clippy::print_stdout)] // an example's output is the point

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue as V, BillingMode, GlobalSecondaryIndex, KeySchemaElement,
    KeyType, Projection, ProjectionType, ScalarAttributeType,
};

const TABLE: &str = "example-main";

fn s(v: &str) -> V {
    V::S(v.to_owned())
}

fn key(name: &str, kind: KeyType) -> Result<KeySchemaElement, Box<dyn std::error::Error>> {
    Ok(KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()?)
}

fn def(name: &str) -> Result<AttributeDefinition, Box<dyn std::error::Error>> {
    Ok(AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()?)
}

async fn create_table(client: &Client) -> Result<(), Box<dyn std::error::Error>> {
    let exists = client
        .describe_table()
        .table_name(TABLE)
        .send()
        .await
        .is_ok();
    if exists {
        return Ok(());
    }
    client
        .create_table()
        .table_name(TABLE)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("PK")?)
        .attribute_definitions(def("SK")?)
        .attribute_definitions(def("GSI1PK")?)
        .attribute_definitions(def("GSI1SK")?)
        .key_schema(key("PK", KeyType::Hash)?)
        .key_schema(key("SK", KeyType::Range)?)
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("GSI1")
                .key_schema(key("GSI1PK", KeyType::Hash)?)
                .key_schema(key("GSI1SK", KeyType::Range)?)
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()?,
        )
        .send()
        .await?;
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let endpoint =
        std::env::var("KURA_ENDPOINT").unwrap_or_else(|_| "http://127.0.0.1:8000".into());
    let client = kura_cqrs::endpoint::dynamodb_client(&endpoint);
    create_table(&client).await?;

    // A profile (no GSI1 attributes: the index stays sparse) and its orders.
    client
        .put_item()
        .table_name(TABLE)
        .item("PK", s("USER#123"))
        .item("SK", s("PROFILE"))
        .item("name", s("Aiko"))
        .item("version", V::N("1".into()))
        .send()
        .await?;
    let statuses = ["pending", "shipped", "delivered", "shipped"];
    for (i, status) in statuses.iter().enumerate() {
        let created = format!("2026-03-{:02}T09:00:00Z", 10 + i);
        let order_id = format!("ord{i}");
        let item: HashMap<String, V> = HashMap::from([
            ("PK".into(), s("USER#123")),
            ("SK".into(), s(&format!("ORDER#{order_id}"))),
            ("GSI1PK".into(), s("ORDER")),
            ("GSI1SK".into(), s(&format!("{created}#{order_id}"))),
            ("status".into(), s(status)),
            ("total".into(), V::N(format!("{}", 1000 * (i + 1)))),
            ("createdAt".into(), s(&created)),
        ]);
        client
            .put_item()
            .table_name(TABLE)
            .set_item(Some(item))
            .send()
            .await?;
    }

    // Optimistic locking: update the profile only if nobody changed it meanwhile. The
    // first update is based on version 1 and applies; the second, still based on 1, is a
    // conflict (and nothing else is taken for one).
    assert!(
        update_profile(&client, "Aiko T.", 1).await?,
        "version 1 applies"
    );
    assert!(
        !update_profile(&client, "Aiko X.", 1).await?,
        "a stale version is a conflict"
    );
    let profile = client
        .get_item()
        .table_name(TABLE)
        .key("PK", s("USER#123"))
        .key("SK", s("PROFILE"))
        .consistent_read(true)
        .send()
        .await?;
    let profile = profile.item().ok_or("the profile is gone")?;
    assert_eq!(profile.get("name"), Some(&s("Aiko T.")));
    assert_eq!(profile.get("version"), Some(&V::N("2".into())));
    println!("profile: updated at version 1, a stale update refused");

    // All orders, newest first (GSI1).
    let newest = client
        .query()
        .table_name(TABLE)
        .index_name("GSI1")
        .key_condition_expression("GSI1PK = :pk")
        .expression_attribute_values(":pk", s("ORDER"))
        .scan_index_forward(false)
        .send()
        .await?;
    let order_keys: Vec<_> = newest.items().iter().filter_map(|o| o.get("SK")).collect();
    assert_eq!(
        order_keys,
        [
            s("ORDER#ord3"),
            s("ORDER#ord2"),
            s("ORDER#ord1"),
            s("ORDER#ord0")
        ]
        .iter()
        .collect::<Vec<_>>(),
        "newest first; the profile has no GSI1 keys"
    );
    println!("orders newest first: {order_keys:?}");
    // Shipped orders in a date range.
    let shipped = client
        .query()
        .table_name(TABLE)
        .index_name("GSI1")
        .key_condition_expression("GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to")
        .filter_expression("#status = :status")
        .expression_attribute_names("#status", "status")
        .expression_attribute_values(":pk", s("ORDER"))
        .expression_attribute_values(":from", s("2026-03-10#"))
        .expression_attribute_values(":to", s("2026-03-31#~"))
        .expression_attribute_values(":status", s("shipped"))
        .send()
        .await?;
    assert_eq!(shipped.count(), 2, "ord1 and ord3 shipped in March");
    assert_eq!(
        shipped.scanned_count(),
        4,
        "the filter reads every order of the range"
    );
    println!("shipped in March: {}", shipped.count());
    Ok(())
}

/// Renames the profile if it is still at `expected`: `true` when applied, `false` on a
/// version conflict; any other error is returned as it is.
async fn update_profile(
    client: &Client,
    name: &str,
    expected: u64,
) -> Result<bool, Box<dyn std::error::Error>> {
    let updated = client
        .update_item()
        .table_name(TABLE)
        .key("PK", s("USER#123"))
        .key("SK", s("PROFILE"))
        .update_expression("SET #name = :name, version = version + :one")
        .condition_expression("version = :expected")
        .expression_attribute_names("#name", "name")
        .expression_attribute_values(":name", s(name))
        .expression_attribute_values(":one", V::N("1".into()))
        .expression_attribute_values(":expected", V::N(expected.to_string()))
        .send()
        .await;
    match updated {
        Ok(_) => Ok(true),
        Err(e)
            if e.as_service_error()
                .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
        {
            Ok(false)
        }
        Err(e) => Err(e.into()),
    }
}
