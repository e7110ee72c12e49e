//! The design advisor's sample (`Engine::sample_items`): spread across a large table's key
//! space rather than its first partitions in storage order, a small table read whole, the
//! byte bound kept.

use kura_engine::{Engine, RequestContext};
use serde_json::{Value, json};

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

async fn table_with(engine: &Engine, name: &str, items: u32) {
    let create = json!({
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
    });
    engine
        .create_table(&RequestContext::default(), input(create))
        .await
        .expect("create");
    for id in 0..items {
        let put = json!({"TableName": name, "Item": {"id": {"N": id.to_string()}, "pad": {"S": "x".repeat(100)}}});
        engine.put_item(input(put)).await.expect("put");
    }
}

fn ids(sample: &[kura_model::Item]) -> Vec<u32> {
    let mut ids: Vec<u32> = sample
        .iter()
        .filter_map(|item| match item.get("id") {
            Some(kura_model::AttributeValue::N(n)) => n.to_string().parse().ok(),
            _ => None,
        })
        .collect();
    ids.sort_unstable();
    ids
}

#[tokio::test]
async fn the_sample_comes_from_the_whole_key_space() {
    let engine = Engine::in_memory();
    table_with(&engine, "big", 4000).await;
    table_with(&engine, "small", 300).await;
    let designs = engine.design().table_designs();
    let design = |name: &str| designs.iter().find(|d| d.name == name).expect("table");

    let sample = engine
        .design()
        .sample_items(design("big"), 1000, 16 << 20)
        .expect("sample");
    let taken = ids(&sample);
    assert_eq!(taken.len(), 1000);
    taken
        .windows(2)
        .for_each(|w| assert!(w[0] < w[1], "no item twice"));
    // Every slice of the partition-hash space is in it (the first 1,000 items in storage
    // order would be the lowest quarter of the hashes only).
    let mut per_slice = [0usize; 16];
    for item in &sample {
        let mut encoded = Vec::new();
        kura_model::keycode::encode_key_value(&item["id"], &mut encoded).expect("key");
        per_slice[(kura_engine::keys::partition_hash(&encoded) >> 28) as usize] += 1;
    }
    assert!(
        per_slice.iter().all(|n| (40..=80).contains(n)),
        "{per_slice:?}"
    );

    let whole = engine
        .design()
        .sample_items(design("small"), 1000, 16 << 20)
        .expect("sample");
    assert_eq!(
        ids(&whole),
        (0..300).collect::<Vec<_>>(),
        "a small table is read whole"
    );

    let bounded = engine
        .design()
        .sample_items(design("big"), 1000, 10_000)
        .expect("sample");
    assert!(bounded.len() < 100, "{} items in 10 KB", bounded.len());
}

/// A few large partitions: 8 partition values of 250 items each. Read in key order, a
/// slice holding two of them gave its whole share to the first (the advisor saw 5 of 8);
/// the first pass takes a few items of each partition before moving on, and the second
/// fills the sample.
#[tokio::test]
async fn the_sample_spreads_over_partitions_of_one_slice() {
    let engine = Engine::in_memory();
    let create = json!({
        "TableName": "shops",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "shop", "AttributeType": "S"},
                                 {"AttributeName": "order", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "shop", "KeyType": "HASH"},
                      {"AttributeName": "order", "KeyType": "RANGE"}],
    });
    engine
        .create_table(&RequestContext::default(), input(create))
        .await
        .expect("create");
    for order in 0..2000u32 {
        let put = json!({"TableName": "shops", "Item": {
            "shop": {"S": format!("shop-{}", order % 8)}, "order": {"N": order.to_string()}}});
        engine.put_item(input(put)).await.expect("put");
    }
    let designs = engine.design().table_designs();
    let sample = engine
        .design()
        .sample_items(&designs[0], 1000, 16 << 20)
        .expect("sample");
    assert_eq!(sample.len(), 1000);
    let shops: std::collections::BTreeSet<String> = sample
        .iter()
        .filter_map(|item| match item.get("shop") {
            Some(kura_model::AttributeValue::S(s)) => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(shops.len(), 8, "{shops:?}");
    let keys: std::collections::BTreeSet<String> = sample
        .iter()
        .map(|item| format!("{:?}", item.get("order")))
        .collect();
    assert_eq!(keys.len(), 1000, "no item twice");
    assert_eq!(
        engine
            .design()
            .distinct_partitions(&designs[0], None, 1024)
            .expect("count"),
        (8, true)
    );
    assert_eq!(
        engine
            .design()
            .distinct_partitions(&designs[0], None, 5)
            .expect("count"),
        (5, false)
    );
}
