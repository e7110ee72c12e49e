//! Large attributes: an entity too large for a DynamoDB item (400 KB) is published, in
//! sync and async, with its attributes kept in a bucket; the rows refer to the object,
//! and every read (data, lists, history, the latest command, a sync handler, a resync)
//! hands back the entity as published. Without a store the same publish is refused by
//! DynamoDB, and a reader without one refuses the row rather than return it empty. The
//! buckets: a local directory on every endpoint, and a real S3-compatible server (moto's,
//! when `moto_server` is on PATH, as the test command's venv puts it).
mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use kura_cqrs::keys::{self, VERSION_LATEST};
use kura_cqrs::objects::ObjectStore;
use kura_cqrs::{
    CommandInput, CommandModel, CommandService, CqrsError, DataService, DirectoryStore,
    HandlerFuture, Invoker, LargeAttributes, ListOptions, PartialUpdate, Projector,
    ProjectorOptions, SyncHandler, ensure_tables,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Document {
    title: String,
    body: String,
    pages: u32,
}

fn document(title: &str, kilobytes: usize) -> Document {
    // Not one repeated byte: the body must really be that large on the wire.
    let body = (0..kilobytes * 1024)
        .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
        .collect();
    Document {
        title: title.into(),
        body,
        pages: kilobytes as u32,
    }
}

fn scratch_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("kura-cqrs-large-{}", ulid::Ulid::new()))
}

/// The raw `attributes` of a row, as DynamoDB holds it.
async fn raw_attributes(
    client: &aws_sdk_dynamodb::Client,
    table: &str,
    pk: &str,
    sk: &str,
) -> AttributeValue {
    let got = client
        .get_item()
        .table_name(table)
        .key("pk", AttributeValue::S(pk.into()))
        .key("sk", AttributeValue::S(sk.into()))
        .consistent_read(true)
        .send()
        .await
        .expect("get");
    got.item()
        .and_then(|i| i.get("attributes"))
        .cloned()
        .expect("a row with attributes")
}

fn is_reference(value: &AttributeValue) -> bool {
    matches!(value, AttributeValue::S(text) if text.starts_with("s3://"))
}

/// Publishes, reads and updates a large entity in sync through `store`.
async fn round_trip_in_sync(store: Arc<dyn ObjectStore>, bucket: &str) {
    let client = common::client().await;
    let tables = common::unique_names("doc");
    ensure_tables(&client, &tables).await.expect("tables");
    let large = LargeAttributes::new(store, bucket);
    let service =
        CommandService::new(client.clone(), tables.clone()).with_large_attributes(large.clone());
    let data = DataService::new(client.clone(), tables.clone()).with_large_attributes(large);
    let invoker = Invoker::default();
    let key = keys::parent("DOC", "tenant1", "manual").expect("key");
    let big = document("manual", 500);
    let input = CommandInput::for_key(&key, VERSION_LATEST)
        .with_entity(&big)
        .expect("a map");

    let stored = service
        .publish_sync(&input, &invoker)
        .await
        .expect("publish");
    let stored = stored.expect("written");
    assert!(stored.attributes_ref.is_some(), "offloaded");
    assert!(is_reference(
        &raw_attributes(&client, &tables.data, &key.pk, &key.sk).await
    ));
    let read = data.get::<Document>(&key).await.expect("get").expect("row");
    assert_eq!(*read, big);

    // The same input again is not dirty: the stored attributes were read back to compare.
    let again = service.publish_sync(&input, &invoker).await.expect("again");
    assert!(again.is_none(), "unchanged input writes nothing");

    // A partial update keeps the large body, and version 1 goes to history intact.
    let patch = PartialUpdate::new(&key, VERSION_LATEST)
        .with_patch(&json!({"pages": 501}))
        .expect("patch");
    let updated = service
        .publish_partial_update_sync(&patch, &invoker)
        .await
        .expect("update")
        .expect("written");
    assert_eq!(updated.version.get(), 2);
    let read = data.get::<Document>(&key).await.expect("get").expect("row");
    assert_eq!(read.pages, 501);
    assert_eq!(read.body, big.body);
    let history = data.history(&key.pk, &key.sk, 1, 1).await.expect("history");
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].entity::<Document>().expect("typed"), big);
    let listed = data
        .list_items_by_pk(&key.pk, &ListOptions::default())
        .await
        .expect("list");
    assert_eq!(listed.items.len(), 1);
    assert_eq!(
        listed.items[0].entity::<Document>().expect("typed").pages,
        501
    );
    let latest = service
        .latest_command(&key.pk, &key.sk)
        .await
        .expect("latest")
        .expect("row");
    assert_eq!(latest.attributes, read.row.attributes);

    // A small entity stays in its row.
    let small_key = keys::parent("DOC", "tenant1", "note").expect("key");
    let small = CommandInput::for_key(&small_key, VERSION_LATEST)
        .with_entity(&document("note", 1))
        .expect("a map");
    service.publish_sync(&small, &invoker).await.expect("small");
    assert!(matches!(
        raw_attributes(&client, &tables.data, &small_key.pk, &small_key.sk).await,
        AttributeValue::M(_)
    ));

    // A reader without the store refuses the large row, and still reads the small one.
    let blind = DataService::new(client.clone(), tables.clone());
    let refused = blind.get_item(&key.pk, &key.sk).await.expect_err("refused");
    assert!(matches!(refused, CqrsError::Object { .. }), "{refused}");
    assert!(
        blind
            .get_item(&small_key.pk, &small_key.sk)
            .await
            .expect("small")
            .is_some()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_entity_round_trips_through_a_directory() {
    let root = scratch_dir();
    round_trip_in_sync(Arc::new(DirectoryStore::new(&root)), "kura-cqrs-attributes").await;
    let tables = std::fs::read_dir(root.join("kura-cqrs-attributes")).expect("bucket");
    let objects: usize = tables
        .map(|table| {
            std::fs::read_dir(table.expect("entry").path())
                .expect("dir")
                .count()
        })
        .sum();
    assert_eq!(objects, 2, "one object a large version");
    let _cleanup = std::fs::remove_dir_all(root);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_store_dynamodb_refuses_the_item() {
    let client = common::client().await;
    let tables = common::unique_names("doc");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client, tables);
    let key = keys::parent("DOC", "tenant1", "manual").expect("key");
    let input = CommandInput::for_key(&key, VERSION_LATEST)
        .with_entity(&document("manual", 500))
        .expect("a map");
    let refused = service
        .publish_sync(&input, &Invoker::default())
        .await
        .expect_err("too large");
    // DynamoDB refuses the request before the transaction (item size), as it would any
    // item over 400 KB: not a version conflict, nothing to retry.
    assert_eq!(refused.code(), Some("ValidationException"), "{refused}");
    assert!(!refused.is_retryable());
}

/// Records what each delivery carried.
#[derive(Default)]
struct Pages(Mutex<BTreeMap<String, (i64, usize)>>);

impl SyncHandler for Pages {
    fn id(&self) -> &str {
        "pages"
    }

    fn up<'a>(&'a self, command: &'a CommandModel) -> HandlerFuture<'a> {
        Box::pin(async move {
            let body = command
                .attributes
                .get("body")
                .and_then(|b| b.as_str())
                .map_or(0, str::len);
            self.0
                .lock()
                .expect("lock")
                .insert(command.id.clone(), (command.version.get(), body));
            Ok(())
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_publishes_reach_handlers_and_resyncs_whole() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("doc");
    ensure_tables(&client, &tables).await.expect("tables");
    let root = scratch_dir();
    let large =
        LargeAttributes::new(Arc::new(DirectoryStore::new(&root)), "attrs").with_threshold(100_000);
    let service =
        CommandService::new(client.clone(), tables.clone()).with_large_attributes(large.clone());
    let mut projector = Projector::new(
        client.clone(),
        streams,
        tables.clone(),
        ProjectorOptions::default(),
    )
    .with_large_attributes(large.clone());
    let pages = Arc::new(Pages::default());
    projector.register(pages.clone());
    let invoker = Invoker::default();
    let mut published = Vec::new();
    for (name, kilobytes) in [("a", 150), ("b", 2), ("c", 300)] {
        let key = keys::parent("DOC", "tenant1", name).expect("key");
        let input = CommandInput::for_key(&key, VERSION_LATEST)
            .with_entity(&document(name, kilobytes))
            .expect("a map");
        let model = service
            .publish_async(&input, &invoker)
            .await
            .expect("publish")
            .expect("written");
        published.push((model, kilobytes * 1024));
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    for (model, _) in &published {
        loop {
            projector.run_once().await.expect("round");
            let status = service
                .status(&model.pk, model.base_sk(), model.version)
                .await
                .expect("status");
            if status.as_deref() == Some(kura_cqrs::status::FINISHED) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{} not finished: {status:?}",
                model.id
            );
        }
    }
    let seen = pages.0.lock().expect("lock").clone();
    for (model, body) in &published {
        assert_eq!(seen.get(&model.id), Some(&(1, *body)), "{}", model.id);
    }
    let data =
        DataService::new(client.clone(), tables.clone()).with_large_attributes(large.clone());
    let listed = data
        .list_all_by_pk(&published[0].0.pk, &ListOptions::default())
        .await
        .expect("list");
    let bodies: Vec<usize> = listed
        .iter()
        .map(|row| row.attributes["body"].as_str().map_or(0, str::len))
        .collect();
    assert_eq!(bodies, vec![150 * 1024, 2 * 1024, 300 * 1024]);

    // A new read model backfilled from the data table sees the whole entities too.
    let fresh = Pages::default();
    let fed = kura_cqrs::redrive::resync(&client, &tables, &fresh, 2, Some(&large))
        .await
        .expect("resync");
    assert_eq!(fed, 3);
    assert_eq!(*fresh.0.lock().expect("lock"), seen);
    let _cleanup = std::fs::remove_dir_all(root);
}

#[cfg(feature = "s3")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_entity_round_trips_through_an_s3_compatible_server() {
    let Some(moto) = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("moto_server"))
            .find(|path| path.is_file())
    }) else {
        common::not_checked(
            "large attributes on an S3-compatible server",
            "moto_server is not on PATH (scripts/test.sh puts its venv there)",
        );
        return;
    };
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
        listener.local_addr().expect("addr").port()
    };
    let mut server = std::process::Command::new(moto)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("moto_server");
    let endpoint = format!("http://127.0.0.1:{port}");
    let hyper = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http();
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(aws_sdk_s3::config::BehaviorVersion::latest())
        .region(aws_sdk_s3::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_s3::config::Credentials::new(
            "testing", "testing", None, None, "test",
        ))
        .endpoint_url(&endpoint)
        .force_path_style(true)
        .http_client(kura_cqrs::endpoint::sdk_http_client(hyper))
        .build();
    let s3 = aws_sdk_s3::Client::from_conf(config);
    let deadline = Instant::now() + Duration::from_secs(60);
    while s3
        .create_bucket()
        .bucket("cqrs-large")
        .send()
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "moto_server did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    round_trip_in_sync(
        Arc::new(kura_cqrs::objects::S3Store::new(s3.clone())),
        "cqrs-large",
    )
    .await;
    let listed = s3
        .list_objects_v2()
        .bucket("cqrs-large")
        .send()
        .await
        .expect("list");
    assert_eq!(listed.contents().len(), 2, "one object a large version");
    let _ = server.kill();
    let _ = server.wait();
}
