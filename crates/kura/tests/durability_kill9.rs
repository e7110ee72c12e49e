//! Durability: every acknowledged write survives `kill -9`.
//!
//! Concurrent clients put items and record each acknowledgement; the server is killed with
//! SIGKILL while writes are in flight; after a restart on the same data directory every
//! acknowledged item must be there with its acknowledged value, and ItemCount must agree.

mod common;

use std::sync::Arc;
use std::time::Duration;

use acks::Acked;
use aws_sdk_dynamodb::types::AttributeValue as Av;
use common::KuraProcess;

mod acks {
    use std::sync::Mutex;
    /// Acknowledged writes: (writer, sequence number).
    #[derive(Default)]
    pub struct Acked(pub Mutex<Vec<(usize, u64)>>);
}

const WRITERS: usize = 8;
const CYCLES: usize = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn acknowledged_writes_survive_kill9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut expected: Vec<(usize, u64)> = Vec::new();
    for cycle in 0..CYCLES {
        let server = KuraProcess::start(Some(dir.path()));
        let client = server.client();
        if cycle == 0 {
            create_table_with_index(&client).await;
        }
        // Every item acknowledged in earlier cycles is still there.
        verify(&client, &expected).await;

        let acked = Arc::new(Acked::default());
        let mut tasks = Vec::new();
        for writer in 0..WRITERS {
            let client = client.clone();
            let acked = acked.clone();
            tasks.push(tokio::spawn(async move {
                for seq in 0u64.. {
                    let result = client
                        .put_item()
                        .table_name("Durable")
                        .item("pk", Av::S(format!("c{cycle}-w{writer}-{seq}")))
                        .item("seq", Av::N(seq.to_string()))
                        .item("grp", Av::S(format!("w{writer}")))
                        .item("pad", Av::S("x".repeat(512)))
                        .send()
                        .await;
                    match result {
                        Ok(_) => acked
                            .0
                            .lock()
                            .expect("lock")
                            .push((cycle * 100 + writer, seq)),
                        Err(_) => break, // the server is gone
                    }
                }
            }));
        }
        // Let writes flow, then kill in the middle of them.
        let pause = 300 + (cycle as u64 * 137) % 400;
        tokio::time::sleep(Duration::from_millis(pause)).await;
        // A loaded machine may not have acknowledged anything yet: kill only after one.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while acked.0.lock().expect("lock").is_empty() {
            assert!(
                std::time::Instant::now() < deadline,
                "cycle {cycle}: no write acknowledged within 60 s"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        server.kill9();
        for t in tasks {
            t.await.expect("writer task");
        }
        let acked = std::mem::take(&mut *acked.0.lock().expect("lock"));
        assert!(
            !acked.is_empty(),
            "cycle {cycle}: some writes must have been acknowledged"
        );
        expected.extend(acked);
    }
    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    verify(&client, &expected).await;
    let count = client
        .describe_table()
        .table_name("Durable")
        .send()
        .await
        .expect("describe")
        .table()
        .and_then(|t| t.item_count())
        .expect("count");
    // Unacknowledged writes may have landed too, so the count is at least the acknowledged.
    assert!(
        count >= expected.len() as i64,
        "ItemCount {count} < acknowledged {}",
        expected.len()
    );
    // Index entries commit with their items: after every crash the GSI holds exactly one
    // entry per item.
    assert_eq!(scan_count(&client, None).await, count);
    assert_eq!(scan_count(&client, Some("byGroup")).await, count);
}

async fn create_table_with_index(client: &aws_sdk_dynamodb::Client) {
    use aws_sdk_dynamodb::types::{
        BillingMode, GlobalSecondaryIndex, KeyType, Projection, ProjectionType, ScalarAttributeType,
    };
    client
        .create_table()
        .table_name("Durable")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(common::def("pk", ScalarAttributeType::S))
        .attribute_definitions(common::def("grp", ScalarAttributeType::S))
        .attribute_definitions(common::def("seq", ScalarAttributeType::N))
        .key_schema(common::key("pk", KeyType::Hash))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("byGroup")
                .key_schema(common::key("grp", KeyType::Hash))
                .key_schema(common::key("seq", KeyType::Range))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::KeysOnly)
                        .build(),
                )
                .build()
                .expect("index"),
        )
        .send()
        .await
        .expect("create table");
}

/// Items in the table or one of its indexes, by a paged Scan with Select COUNT.
async fn scan_count(client: &aws_sdk_dynamodb::Client, index: Option<&str>) -> i64 {
    let mut total = 0i64;
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name("Durable")
            .set_index_name(index.map(str::to_owned))
            .select(aws_sdk_dynamodb::types::Select::Count)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("scan");
        total += i64::from(page.count());
        match page.last_evaluated_key() {
            Some(key) => start = Some(key.clone()),
            None => return total,
        }
    }
}

async fn verify(client: &aws_sdk_dynamodb::Client, expected: &[(usize, u64)]) {
    for &(tag, seq) in expected {
        let (cycle, writer) = (tag / 100, tag % 100);
        let pk = format!("c{cycle}-w{writer}-{seq}");
        let got = client
            .get_item()
            .table_name("Durable")
            .key("pk", Av::S(pk.clone()))
            .consistent_read(true)
            .send()
            .await
            .expect("get");
        let item = got
            .item()
            .unwrap_or_else(|| panic!("acknowledged item {pk} lost"));
        assert_eq!(item.get("seq"), Some(&Av::N(seq.to_string())), "item {pk}");
    }
}

/// A TransactWriteItems retried with its ClientRequestToken after `kill -9` returns the
/// first answer and applies nothing twice; the token still refuses another request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_request_token_survives_kill9() {
    use aws_sdk_dynamodb::types::{
        BillingMode, KeyType, ReturnConsumedCapacity, ScalarAttributeType, TransactWriteItem,
        Update,
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    client
        .create_table()
        .table_name("Tokens")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(common::def("pk", ScalarAttributeType::S))
        .key_schema(common::key("pk", KeyType::Hash))
        .send()
        .await
        .expect("create table");
    let add = |client: &aws_sdk_dynamodb::Client, by: i64| {
        client
            .transact_write_items()
            .client_request_token("order-42")
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .transact_items(
                TransactWriteItem::builder()
                    .update(
                        Update::builder()
                            .table_name("Tokens")
                            .key("pk", Av::S("c".into()))
                            .update_expression("ADD n :by")
                            .expression_attribute_values(":by", Av::N(by.to_string()))
                            .build()
                            .expect("update"),
                    )
                    .build(),
            )
            .send()
    };
    let first = add(&client, 1).await.expect("first");
    server.kill9();

    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    let again = add(&client, 1).await.expect("retry after kill -9");
    assert_eq!(again.consumed_capacity(), first.consumed_capacity());
    let n = client
        .get_item()
        .table_name("Tokens")
        .key("pk", Av::S("c".into()))
        .send()
        .await
        .expect("get")
        .item()
        .and_then(|i| i.get("n").cloned());
    assert_eq!(n, Some(Av::N("1".into())), "applied once");
    let err = add(&client, 2)
        .await
        .expect_err("another request, same token");
    assert_eq!(common::code(&err), "IdempotentParameterMismatchException");
}
