//! BatchWriteItem and BatchGetItem through aws-sdk-dynamodb: limits at the boundary and one
//! past it, duplicate keys, several tables, projections, and the retry loop over
//! `UnprocessedKeys` when a response would pass 16 MB.

use std::collections::{BTreeSet, HashMap};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as V, DeleteRequest, KeysAndAttributes, PutRequest, ReturnConsumedCapacity,
    WriteRequest,
};

use super::{code, create_table, message};

fn s(v: &str) -> V {
    V::S(v.to_owned())
}

fn key(pk: &str) -> HashMap<String, V> {
    HashMap::from([("pk".to_owned(), s(pk))])
}

fn put(pk: &str, extra: &[(&str, V)]) -> WriteRequest {
    let mut item = key(pk);
    for (name, value) in extra {
        item.insert((*name).to_owned(), value.clone());
    }
    WriteRequest::builder()
        .put_request(
            PutRequest::builder()
                .set_item(Some(item))
                .build()
                .expect("put"),
        )
        .build()
}

fn delete(pk: &str) -> WriteRequest {
    WriteRequest::builder()
        .delete_request(
            DeleteRequest::builder()
                .set_key(Some(key(pk)))
                .build()
                .expect("delete"),
        )
        .build()
}

pub async fn batches(client: &Client, one: &str, two: &str) {
    create_table(client, one, "pk", None).await;
    create_table(client, two, "pk", None).await;

    // 25 requests over two tables is the limit; 26 is refused.
    let mut requests: Vec<WriteRequest> = (0..20)
        .map(|i| put(&format!("a{i}"), &[("n", V::N(i.to_string()))]))
        .collect();
    let others: Vec<WriteRequest> = (0..5).map(|i| put(&format!("b{i}"), &[])).collect();
    let written = client
        .batch_write_item()
        .request_items(one, requests.clone())
        .request_items(two, others.clone())
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("25 writes");
    assert!(written.unprocessed_items().is_none_or(|u| u.is_empty()));
    let capacity = written.consumed_capacity();
    assert_eq!(capacity.len(), 2);
    let units: f64 = capacity.iter().filter_map(|c| c.capacity_units()).sum();
    assert_eq!(units, 25.0, "one unit per small write");

    requests.push(put("a99", &[]));
    let too_many = client
        .batch_write_item()
        .request_items(one, requests)
        .request_items(two, others)
        .send()
        .await
        .expect_err("26 writes");
    assert_eq!(code(&too_many), "ValidationException");
    assert_eq!(
        message(&too_many),
        "Too many items requested for the BatchWriteItem call"
    );

    let duplicate = client
        .batch_write_item()
        .request_items(one, vec![put("a1", &[]), delete("a1")])
        .send()
        .await
        .expect_err("two requests on one item");
    assert_eq!(
        message(&duplicate),
        "Provided list of item keys contains duplicates"
    );

    client
        .batch_write_item()
        .request_items(one, vec![delete("a0"), delete("missing")])
        .send()
        .await
        .expect("deletes");

    // BatchGetItem over both tables with a projection on one.
    let keys_one: Vec<_> = (0..20).map(|i| key(&format!("a{i}"))).collect();
    let keys_two: Vec<_> = (0..5).map(|i| key(&format!("b{i}"))).collect();
    let got = client
        .batch_get_item()
        .request_items(
            one,
            KeysAndAttributes::builder()
                .set_keys(Some(keys_one))
                .projection_expression("n")
                .consistent_read(true)
                .build()
                .expect("keys"),
        )
        .request_items(
            two,
            KeysAndAttributes::builder()
                .set_keys(Some(keys_two))
                .build()
                .expect("keys"),
        )
        .send()
        .await
        .expect("batch get");
    let responses = got.responses().expect("responses");
    assert_eq!(responses[one].len(), 19, "a0 was deleted");
    assert!(
        responses[one]
            .iter()
            .all(|item| item.len() == 1 && item.contains_key("n"))
    );
    assert_eq!(responses[two].len(), 5);

    let dup = client
        .batch_get_item()
        .request_items(
            one,
            KeysAndAttributes::builder()
                .set_keys(Some(vec![key("a1"), key("a1")]))
                .build()
                .expect("keys"),
        )
        .send()
        .await
        .expect_err("duplicate keys");
    assert_eq!(
        message(&dup),
        "Provided list of item keys contains duplicates"
    );
    let hundred_one: Vec<_> = (0..101).map(|i| key(&format!("k{i}"))).collect();
    let over = client
        .batch_get_item()
        .request_items(
            one,
            KeysAndAttributes::builder()
                .set_keys(Some(hundred_one))
                .build()
                .expect("keys"),
        )
        .send()
        .await
        .expect_err("101 keys");
    // Over 100 keys for one table is a framework constraint on that table's Keys, in the
    // framework's 2026 wording (AWS, dynoxide issue #18 and PR #198); over 100 across
    // tables is "Too many items ...".
    assert_eq!(
        message(&over),
        format!(
            "1 validation error detected: Value at 'RequestItems.{one}.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100"
        )
    );

    unprocessed_keys(client, two).await;
}

/// 60 items of ~300 KB (18 MB) do not fit one 16 MB response: the rest comes back as
/// UnprocessedKeys, and retrying them returns every item exactly once.
async fn unprocessed_keys(client: &Client, table: &str) {
    let big = s(&"z".repeat(300 * 1024));
    for chunk in 0..6 {
        let requests: Vec<WriteRequest> = (0..10)
            .map(|i| {
                put(
                    &format!("big{}", chunk * 10 + i),
                    &[("payload", big.clone())],
                )
            })
            .collect();
        client
            .batch_write_item()
            .request_items(table, requests)
            .send()
            .await
            .expect("big writes");
    }
    let mut pending = KeysAndAttributes::builder()
        .set_keys(Some((0..60).map(|i| key(&format!("big{i}"))).collect()))
        .projection_expression("pk, payload")
        .build()
        .expect("keys");
    let mut seen = BTreeSet::new();
    let mut rounds = 0;
    loop {
        rounds += 1;
        let got = client
            .batch_get_item()
            .request_items(table, pending)
            .send()
            .await
            .expect("batch get");
        for item in got
            .responses()
            .and_then(|r| r.get(table))
            .into_iter()
            .flatten()
        {
            let Some(V::S(pk)) = item.get("pk") else {
                panic!("no pk")
            };
            assert!(seen.insert(pk.clone()), "an item returned twice");
        }
        match got.unprocessed_keys().and_then(|u| u.get(table)) {
            Some(rest) if !rest.keys().is_empty() => {
                assert_eq!(rest.projection_expression(), Some("pk, payload"));
                pending = rest.clone();
            }
            _ => break,
        }
    }
    assert!(rounds >= 2, "16 MB cannot hold 18 MB");
    assert_eq!(seen.len(), 60);
}
