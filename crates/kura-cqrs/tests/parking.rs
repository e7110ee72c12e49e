//! A version DynamoDB refuses to store in the data table (here: one that fits the command
//! table's 400 KB but not the data row's, which names its command) is parked, and the
//! projector goes on: the dead-letter row is kept even when the command is too large to
//! copy (its attributes are then read from the command table), history keeps a row for
//! the parked version, and redrive replays it from the command table.

mod common;

use std::time::Duration;

use kura_cqrs::keys::VERSION_LATEST;
use kura_cqrs::{
    CommandInput, CommandService, Invoker, Projector, ProjectorOptions, ensure_tables, redrive,
    status,
};
use serde_json::json;

const PK: &str = "ORDER#tenant001";
/// A long sort key (300 bytes): the data row carries it twice (`sk` and `csk`), the
/// command row once.
fn sk() -> String {
    format!("ORDER#{}", "k".repeat(294))
}

fn order(version: impl Into<kura_cqrs::Version>, text: String) -> CommandInput {
    CommandInput::new(PK, sk(), version)
        .with_name("order")
        .with_tenant_code("tenant001")
        .with_kind("ORDER")
        .with_attribute("text", json!(text))
}

/// Nearly the longest `text` a command may carry, found by publishing first versions of
/// entities with keys as long as the test's (less a margin for what a second version
/// carries more, far below the 300 bytes its data row carries more).
async fn largest_accepted(service: &CommandService) -> usize {
    let (mut fits, mut too_big) = (1usize, 500_000usize);
    let mut probe = 0;
    while too_big - fits > 1 {
        let mid = (fits + too_big) / 2;
        probe += 1;
        let probe_sk = format!("ORDER#{probe:04}{}", "k".repeat(290));
        let input = CommandInput::new("PROBE#tenant001", probe_sk, 0)
            .with_name("order")
            .with_tenant_code("tenant001")
            .with_kind("ORDER")
            .with_attribute("text", json!("x".repeat(mid)));
        match service.publish_async(&input, &Invoker::default()).await {
            Ok(_) => fits = mid,
            Err(_) => too_big = mid,
        }
    }
    fits - 64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_too_large_for_the_data_table_is_parked_and_the_projector_goes_on() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("parking");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables.clone());
    let invoker = Invoker::default();
    let largest = largest_accepted(&service).await;
    service
        .publish_async(&order(0, "first".into()), &invoker)
        .await
        .expect("v1");
    service
        .publish_async(&order(VERSION_LATEST, "y".repeat(largest)), &invoker)
        .await
        .expect("v2, as large as a command may be");
    service
        .publish_async(&order(VERSION_LATEST, "third".into()), &invoker)
        .await
        .expect("v3");

    let options = ProjectorOptions {
        retry_for: Duration::from_millis(5),
        first_backoff: Duration::from_millis(1),
        ..ProjectorOptions::default()
    };
    let projector = Projector::new(client.clone(), streams, tables.clone(), options);
    for _ in 0..50 {
        if projector.run_once().await.expect("a round") == 0 {
            break;
        }
    }
    // v2 parked, v3 applied past it.
    let row = service
        .data_row(PK, &sk())
        .await
        .expect("data")
        .expect("row");
    assert_eq!(
        (row.version.get(), row.attributes["text"].clone()),
        (3, json!("third"))
    );
    assert_eq!(
        service
            .status(PK, &sk(), 2)
            .await
            .expect("status")
            .as_deref(),
        Some(status::FAILED)
    );
    let failed = redrive::failed(&client, &tables).await.expect("failed");
    let parked: Vec<_> = failed.iter().filter(|f| f.command.pk == PK).collect();
    assert_eq!(parked.len(), 1, "{failed:?}");
    assert_eq!(parked[0].command.version, 2);
    assert_eq!(
        parked[0].command.attributes["text"].as_str().map(str::len),
        Some(largest),
        "the attributes read back from the command table"
    );
    // History has no gap: v1 as the data row it was, v2 as parked.
    let first = service
        .history_row(PK, &sk(), 1)
        .await
        .expect("h1")
        .expect("v1");
    assert_eq!(first.attributes["text"], json!("first"));
    let second = client
        .get_item()
        .table_name(&tables.history)
        .key("pk", aws_sdk_dynamodb::types::AttributeValue::S(PK.into()))
        .key(
            "sk",
            aws_sdk_dynamodb::types::AttributeValue::S(format!("{}@2", sk())),
        )
        .consistent_read(true)
        .send()
        .await
        .expect("h2");
    let second = second.item().expect("a history row for the parked version");
    assert_eq!(
        second.get("status"),
        Some(&aws_sdk_dynamodb::types::AttributeValue::S(
            status::FAILED.into()
        ))
    );

    // Redrive replays it from the command table: superseded by v3, it is finished
    // without moving the data row back.
    let projector = Projector::new(
        client.clone(),
        common::clients().await.1,
        tables.clone(),
        ProjectorOptions::default(),
    );
    let report = redrive::redrive(&projector).await.expect("redrive");
    assert_eq!(report.replayed, 1, "{report:?}");
    assert_eq!(
        service
            .status(PK, &sk(), 2)
            .await
            .expect("status")
            .as_deref(),
        Some(status::FINISHED)
    );
    let row = service
        .data_row(PK, &sk())
        .await
        .expect("data")
        .expect("row");
    assert_eq!(row.version.get(), 3);
}
