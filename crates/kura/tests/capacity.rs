//! ConsumedCapacity against the Developer Guide's rules ("Read/write capacity units" and
//! "Read consumption for Query and Scan"): reads per 4 KB rounded up, halved when
//! eventually consistent; writes per 1 KB; Query and Scan round the total read once;
//! BatchGetItem rounds each item; transactions cost double.

mod common;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as V, KeysAndAttributes, Put, ReturnConsumedCapacity as Rcc, TransactWriteItem,
};

fn s(v: &str) -> V {
    V::S(v.to_owned())
}

/// An item of exactly `bytes` bytes: "pk" (2) + its value (1) + "d" (1) + padding.
async fn put_sized(client: &Client, pk: &str, bytes: usize) -> f64 {
    let out = client
        .put_item()
        .table_name("Cap")
        .item("pk", s(pk))
        .item("d", s(&"x".repeat(bytes - 4)))
        .return_consumed_capacity(Rcc::Total)
        .send()
        .await
        .expect("put");
    out.consumed_capacity()
        .and_then(|c| c.capacity_units())
        .expect("units")
}

async fn get_units(client: &Client, pk: &str, consistent: bool) -> f64 {
    client
        .get_item()
        .table_name("Cap")
        .key("pk", s(pk))
        .consistent_read(consistent)
        .return_consumed_capacity(Rcc::Total)
        .send()
        .await
        .expect("get")
        .consumed_capacity()
        .and_then(|c| c.capacity_units())
        .expect("units")
}

#[tokio::test]
async fn capacity_follows_the_documented_rules() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    common::create_table(&client, "Cap", "pk", None).await;

    // Writes: 1 KB units of the item written.
    assert_eq!(put_sized(&client, "a", 1024).await, 1.0);
    assert_eq!(put_sized(&client, "b", 1500).await, 2.0);
    // Reads: a 3.5 KB item is 1 unit strongly consistent, half eventually consistent;
    // 4.5 KB is 2 units.
    assert_eq!(put_sized(&client, "c", 3584).await, 4.0);
    assert_eq!(get_units(&client, "c", true).await, 1.0);
    assert_eq!(get_units(&client, "c", false).await, 0.5);
    assert_eq!(put_sized(&client, "d", 4608).await, 5.0);
    assert_eq!(get_units(&client, "d", true).await, 2.0);
    // A missing item still costs the minimum read.
    assert_eq!(get_units(&client, "missing", true).await, 1.0);

    // Scan rounds the total once: 1024 + 1500 + 3584 + 4608 = 10716 bytes -> 3 units.
    let scan = client
        .scan()
        .table_name("Cap")
        .consistent_read(true)
        .return_consumed_capacity(Rcc::Total)
        .send()
        .await
        .expect("scan");
    assert_eq!(
        scan.consumed_capacity().and_then(|c| c.capacity_units()),
        Some(3.0)
    );

    // BatchGetItem rounds each item: 1 + 1 + 1 + 2 = 5 units strongly consistent.
    let keys = ["a", "b", "c", "d"]
        .iter()
        .map(|k| std::collections::HashMap::from([("pk".to_owned(), s(k))]))
        .collect();
    let batch = client
        .batch_get_item()
        .request_items(
            "Cap",
            KeysAndAttributes::builder()
                .set_keys(Some(keys))
                .consistent_read(true)
                .build()
                .expect("keys"),
        )
        .return_consumed_capacity(Rcc::Total)
        .send()
        .await
        .expect("batch get");
    let units: f64 = batch
        .consumed_capacity()
        .iter()
        .filter_map(|c| c.capacity_units())
        .sum();
    assert_eq!(units, 5.0);

    // A transactional write of a 1 KB item costs 2 units.
    let tx = client
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name("Cap")
                        .item("pk", s("e"))
                        .item("d", s(&"x".repeat(1020)))
                        .build()
                        .expect("put"),
                )
                .build(),
        )
        .return_consumed_capacity(Rcc::Total)
        .send()
        .await
        .expect("transaction");
    let units: f64 = tx
        .consumed_capacity()
        .iter()
        .filter_map(|c| c.capacity_units())
        .sum();
    assert_eq!(units, 2.0);
}
