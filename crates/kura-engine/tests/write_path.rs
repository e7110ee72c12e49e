//! The write path's promises, proven with fault-injecting and instrumented stores:
//! a failed sync poisons the engine; concurrent writers share syncs; reads never wait on a
//! commit in progress; a deleted table's items are purged and never resurface.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use kura_engine::api::*;
use kura_engine::storage::{MemoryStore, Snapshot, Store, StoreError, WriteBatch};
use kura_engine::{Engine, EngineError, Health, RequestContext};

/// A memory store that can fail commits, count them, and hold them at a gate.
#[derive(Default)]
struct Instrumented {
    inner: MemoryStore,
    fail: AtomicBool,
    commits: AtomicUsize,
    delay: gates::Delay,
}

mod gates {
    use std::sync::Mutex;
    use std::time::Duration;
    /// A pause applied inside each commit (to let writers pile up), or a barrier pair to
    /// hold one commit until the test releases it.
    #[derive(Default)]
    pub struct Delay {
        pub pause: Mutex<Option<Duration>>,
        pub gate: Mutex<
            Option<(
                std::sync::Arc<std::sync::Barrier>,
                std::sync::Arc<std::sync::Barrier>,
            )>,
        >,
    }
}

impl Store for Instrumented {
    fn snapshot(&self) -> Result<Box<dyn Snapshot>, StoreError> {
        self.inner.snapshot()
    }
    fn commit(&self, batch: WriteBatch) -> Result<(), StoreError> {
        if let Some(p) = *self.delay.pause.lock().expect("lock") {
            std::thread::sleep(p);
        }
        let gate = self.delay.gate.lock().expect("lock").take();
        if let Some((entered, release)) = gate {
            entered.wait();
            release.wait();
        }
        if self.fail.load(Ordering::SeqCst) {
            return Err(StoreError("injected fsync failure".into()));
        }
        self.commits.fetch_add(1, Ordering::SeqCst);
        self.inner.commit(batch)
    }
    fn is_durable(&self) -> bool {
        true
    }
}

fn input<T: serde::de::DeserializeOwned>(json: &str) -> T {
    serde_json::from_str(json).expect("input JSON")
}

async fn create(engine: &Engine, name: &str) {
    let json = format!(
        r#"{{"TableName":"{name}","AttributeDefinitions":[{{"AttributeName":"pk","AttributeType":"S"}}],
            "KeySchema":[{{"AttributeName":"pk","KeyType":"HASH"}}],"BillingMode":"PAY_PER_REQUEST"}}"#
    );
    engine
        .create_table(&RequestContext::default(), input(&json))
        .await
        .expect("create");
}

async fn put(engine: &Engine, table: &str, pk: &str) -> Result<PutItemOutput, EngineError> {
    engine
        .put_item(input(&format!(
            r#"{{"TableName":"{table}","Item":{{"pk":{{"S":"{pk}"}}}}}}"#
        )))
        .await
}

fn get(engine: &Engine, table: &str, pk: &str) -> Option<kura_model::Item> {
    engine
        .get_item(input(&format!(
            r#"{{"TableName":"{table}","Key":{{"pk":{{"S":"{pk}"}}}}}}"#
        )))
        .expect("get")
        .item
}

#[tokio::test]
async fn a_failed_sync_poisons_the_engine() {
    let store = Arc::new(Instrumented::default());
    let engine = Engine::with_store(store.clone()).expect("open");
    create(&engine, "Poison").await;
    put(&engine, "Poison", "before")
        .await
        .expect("put before the fault");

    store.fail.store(true, Ordering::SeqCst);
    let failed = put(&engine, "Poison", "during").await;
    assert!(
        matches!(failed, Err(EngineError::Internal(_))),
        "{failed:?}"
    );
    assert_eq!(engine.health(), Health::Poisoned);

    // Even with the disk healthy again, no further write is taken.
    store.fail.store(false, Ordering::SeqCst);
    assert!(matches!(
        put(&engine, "Poison", "after").await,
        Err(EngineError::Poisoned)
    ));
    // Reads go on, and see only what was durably committed.
    assert!(get(&engine, "Poison", "before").is_some());
    assert!(get(&engine, "Poison", "during").is_none());
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_share_syncs() {
    let store = Arc::new(Instrumented::default());
    let engine = Engine::with_store(store.clone()).expect("open");
    create(&engine, "Group").await;
    // A slow "fsync" lets writers queue up behind it, as on a real disk.
    *store.delay.pause.lock().expect("lock") = Some(Duration::from_millis(5));
    let before = store.commits.load(Ordering::SeqCst);
    let writers = 64;
    let mut tasks = Vec::new();
    for i in 0..writers {
        let engine = engine.clone();
        tasks.push(tokio::spawn(async move {
            put(&engine, "Group", &format!("k{i}")).await
        }));
    }
    for t in tasks {
        t.await.expect("task").expect("put");
    }
    let commits = store.commits.load(Ordering::SeqCst) - before;
    assert!(
        commits < writers,
        "{writers} writes took {commits} commits: no sync was shared"
    );
    for i in 0..writers {
        assert!(get(&engine, "Group", &format!("k{i}")).is_some());
    }
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reads_do_not_wait_for_a_commit_in_progress() {
    let store = Arc::new(Instrumented::default());
    let engine = Engine::with_store(store.clone()).expect("open");
    create(&engine, "Reads").await;
    put(&engine, "Reads", "old").await.expect("put");

    let entered = Arc::new(Barrier::new(2));
    let release = Arc::new(Barrier::new(2));
    *store.delay.gate.lock().expect("lock") = Some((entered.clone(), release.clone()));
    let writer = {
        let engine = engine.clone();
        tokio::spawn(async move { put(&engine, "Reads", "new").await })
    };
    // The commit of "new" is now held inside the store.
    tokio::task::spawn_blocking(move || entered.wait())
        .await
        .expect("entered");
    assert!(
        get(&engine, "Reads", "old").is_some(),
        "a read completes during the commit"
    );
    assert!(
        get(&engine, "Reads", "new").is_none(),
        "and does not see the uncommitted write"
    );
    tokio::task::spawn_blocking(move || release.wait())
        .await
        .expect("released");
    writer.await.expect("task").expect("put");
    assert!(get(&engine, "Reads", "new").is_some());
    engine.shutdown();
}

#[tokio::test]
async fn deleted_tables_are_purged_and_names_reused_cleanly() {
    let engine = Engine::in_memory();
    let ctx = RequestContext::default();
    create(&engine, "Cycle").await;
    for i in 0..2500 {
        put(&engine, "Cycle", &format!("k{i}")).await.expect("put");
    }
    engine
        .delete_table(&ctx, input(r#"{"TableName":"Cycle"}"#))
        .await
        .expect("delete");
    create(&engine, "Cycle").await;
    assert!(
        get(&engine, "Cycle", "k1").is_none(),
        "a new table with an old name starts empty"
    );
    let described = engine
        .describe_table(&ctx, input(r#"{"TableName":"Cycle"}"#))
        .await
        .expect("describe");
    assert_eq!(described.table.item_count, 0);
    // The purge runs in the background; wait for the old items to be gone from storage.
    // The new table is empty, so any stored item is a leftover of the old one.
    let store_is_clean = || engine.internals().item_count() == 0;
    for _ in 0..200 {
        if store_is_clean() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(store_is_clean(), "the deleted table's items must be purged");
    engine.shutdown();
}

/// Read-modify-writes stay serial when groups pile up behind a slow sync: many writers
/// add to one counter and race to create the same items; the sum is exact and each item
/// has exactly one creator.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_read_modify_writes_are_serial() {
    let store = Arc::new(Instrumented::default());
    // A slow "fsync", so that groups pile up behind it.
    *store.delay.pause.lock().expect("lock") = Some(Duration::from_millis(2));
    let engine = Engine::with_store(store.clone()).expect("open");
    create(&engine, "Pipe").await;
    const WRITERS: usize = 16;
    const ROUNDS: usize = 25;
    let mut tasks = Vec::new();
    for writer in 0..WRITERS {
        let engine = engine.clone();
        tasks.push(tokio::spawn(async move {
            let mut created = 0;
            for round in 0..ROUNDS {
                engine
                    .update_item(input(
                        r#"{"TableName":"Pipe","Key":{"pk":{"S":"counter"}},
                            "UpdateExpression":"ADD n :one",
                            "ExpressionAttributeValues":{":one":{"N":"1"}}}"#,
                    ))
                    .await
                    .expect("add");
                let claim = engine
                    .put_item(input(&format!(
                        r#"{{"TableName":"Pipe","Item":{{"pk":{{"S":"claim-{round}"}},"by":{{"N":"{writer}"}}}},
                            "ConditionExpression":"attribute_not_exists(pk)"}}"#
                    )))
                    .await;
                match claim {
                    Ok(_) => created += 1,
                    Err(EngineError::ConditionalCheckFailed { .. }) => {}
                    Err(e) => panic!("claim: {e:?}"),
                }
            }
            created
        }));
    }
    let mut created = 0;
    for task in tasks {
        created += task.await.expect("writer");
    }
    assert_eq!(created, ROUNDS, "each item has exactly one creator");
    let counter = get(&engine, "Pipe", "counter").expect("counter");
    assert_eq!(
        counter.get("n"),
        Some(&kura_model::AttributeValue::N(
            kura_model::Number::from_i64((WRITERS * ROUNDS) as i64)
        ))
    );
    let described = engine
        .describe_table(&RequestContext::default(), input(r#"{"TableName":"Pipe"}"#))
        .await
        .expect("describe");
    let described = serde_json::to_value(described).expect("json");
    assert_eq!(described["Table"]["ItemCount"], (ROUNDS + 1) as u64);
    // Groups did pile up: far fewer syncs than the 425 writes.
    assert!(store.commits.load(Ordering::SeqCst) < WRITERS * ROUNDS / 2);
    engine.shutdown();
}

/// A new store gets its format marker with its first write, not when it opens (so a new
/// data directory creates no key space before it is used); a store with a marker of
/// another format is refused.
#[tokio::test]
async fn the_format_marker_comes_with_the_first_write() {
    use kura_engine::storage::Space;
    let store = Arc::new(Instrumented::default());
    let marker = |store: &Instrumented| {
        store
            .snapshot()
            .expect("snapshot")
            .get(Space::Meta, b"format")
            .expect("get")
    };
    let engine = Engine::with_store(store.clone()).expect("open");
    assert_eq!(
        store.commits.load(Ordering::SeqCst),
        0,
        "opening commits nothing"
    );
    assert_eq!(marker(&store), None);
    engine.shutdown();
    drop(engine);

    let engine = Engine::with_store(store.clone()).expect("reopen");
    create(&engine, "fmt").await;
    assert_eq!(marker(&store), Some(1u32.to_be_bytes().to_vec()));
    put(&engine, "fmt", "a").await.expect("put");
    engine.shutdown();
    drop(engine);

    let engine = Engine::with_store(store.clone()).expect("reopen with the marker");
    assert!(get(&engine, "fmt", "a").is_some());
    engine.shutdown();
    drop(engine);

    let mut batch = WriteBatch::default();
    batch.put(
        Space::Meta,
        b"format".to_vec(),
        99u32.to_be_bytes().to_vec(),
    );
    store.commit(batch).expect("commit");
    let refused = Engine::with_store(store.clone())
        .err()
        .expect("another format");
    assert!(refused.to_string().contains("store format"), "{refused}");
}

/// Issue 51: an item request reads its table from the catalog once, with every option that
/// reads the table on (capacity emulation, condition, return values, consumed capacity,
/// item collection metrics). The write job's last-moment check that the table is still the
/// same costs no read while the request's copy is the published one. Counted on this
/// thread, where the in-memory engine runs each write job, in debug builds.
#[tokio::test]
async fn an_item_request_reads_its_table_from_the_catalog_once() {
    use kura_engine::catalog::reads;
    let engine = Engine::in_memory_with_options(kura_engine::EngineOptions {
        throttle: Some(kura_engine::throttle::ThrottleOptions::default()),
        ..Default::default()
    });
    create(&engine, "orders").await;
    let options = r#""ReturnConsumedCapacity":"TOTAL","ReturnItemCollectionMetrics":"SIZE""#;
    let reads_of = |before: u64| reads::on_this_thread() - before;

    let before = reads::on_this_thread();
    engine
        .put_item(input(&format!(
            r#"{{"TableName":"orders","Item":{{"pk":{{"S":"a"}},"n":{{"N":"1"}}}},
                "ConditionExpression":"attribute_not_exists(pk)","ReturnValues":"ALL_OLD",{options}}}"#
        )))
        .await
        .expect("put");
    let put = reads_of(before);

    let before = reads::on_this_thread();
    engine
        .update_item(input(&format!(
            r#"{{"TableName":"orders","Key":{{"pk":{{"S":"a"}}}},"UpdateExpression":"ADD n :one",
                "ExpressionAttributeValues":{{":one":{{"N":"1"}}}},"ReturnValues":"ALL_NEW",{options}}}"#
        )))
        .await
        .expect("update");
    let update = reads_of(before);

    let before = reads::on_this_thread();
    let got = engine
        .get_item(input(
            r#"{"TableName":"orders","Key":{"pk":{"S":"a"}},"ReturnConsumedCapacity":"TOTAL"}"#,
        ))
        .expect("get");
    let get = reads_of(before);
    assert!(got.item.is_some());

    let before = reads::on_this_thread();
    engine
        .delete_item(input(&format!(
            r#"{{"TableName":"orders","Key":{{"pk":{{"S":"a"}}}},"ReturnValues":"ALL_OLD",{options}}}"#
        )))
        .await
        .expect("delete");
    let delete = reads_of(before);

    if cfg!(debug_assertions) {
        assert_eq!(
            (put, update, get, delete),
            (1, 1, 1, 1),
            "catalog reads of PutItem, UpdateItem, GetItem, DeleteItem"
        );
    }
}

async fn put_item(engine: &Engine, table: &str, item: &str) {
    engine
        .put_item(input(&format!(
            r#"{{"TableName":"{table}","Item":{item}}}"#
        )))
        .await
        .expect("put");
}

/// A replacement that changes nothing, then one that drops an attribute.
async fn replace_twice(engine: &Engine, table: &str, pk: &str) {
    let full = format!(r#"{{"pk":{{"S":"{pk}"}},"v":{{"S":"1"}}}}"#);
    put_item(engine, table, &full).await;
    put_item(engine, table, &full).await;
    put_item(engine, table, &format!(r#"{{"pk":{{"S":"{pk}"}}}}"#)).await;
}

/// What only the write job sees, the item a PutItem replaces, reaches the design advisor's
/// figures through the request that made the write (`write_evidence.rs`): a replacement
/// that changes nothing on a table with a stream, and one that drops an attribute, are
/// counted as the application's, and the same Puts made for the console
/// (`counted_apart`) are counted apart, though the durable write job runs on the writer
/// thread.
#[tokio::test]
async fn a_puts_evidence_is_counted_by_the_request_that_made_it() {
    let store = Arc::new(Instrumented::default());
    let engine = Engine::with_store(store.clone()).expect("open");
    let json = r#"{"TableName":"Evidence","BillingMode":"PAY_PER_REQUEST",
        "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
        "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
        "StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"}}"#;
    engine
        .create_table(&RequestContext::default(), input(json))
        .await
        .expect("create");
    let figures = |counters: Option<Arc<kura_engine::counters::TableCounters>>| {
        let traffic = counters.expect("figures").traffic.snapshot();
        (traffic.unchanged_puts, traffic.dropping_puts)
    };
    replace_twice(&engine, "Evidence", "app").await;
    assert!(store.commits.load(Ordering::SeqCst) >= 3, "durable commits");
    let application = || figures(engine.telemetry().existing("Evidence"));
    assert_eq!(application(), (1, 1));
    kura_engine::counters::counted_apart(replace_twice(&engine, "Evidence", "console")).await;
    assert_eq!(
        application(),
        (1, 1),
        "the console's Puts are not the application's"
    );
    assert_eq!(figures(engine.telemetry().console("Evidence")), (1, 1));
}
