//! Storage faults, seen from a client:
//!
//! - a failed sync poisons the server: the write gets InternalServerError, later writes
//!   are refused, `/ready` answers 503 and says why, reads go on; after a restart the
//!   data holds either the whole write or none of it, index entries included;
//! - a write torn at the last sync (the journal cut anywhere inside the last batch, or
//!   followed by garbage) is recovered: the server starts, every earlier acknowledged write
//!   is there, the torn one is wholly absent, and new writes are taken.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as Av, BillingMode, GlobalSecondaryIndex, KeyType, Projection, ProjectionType,
    ScalarAttributeType,
};
use common::KuraProcess;
use kura_engine::storage::FjallStore;
use kura_engine::{Engine, storage::Store};
use kura_testkit::failing_store::{Fault, FaultyStore};

const TABLE: &str = "Faults";

async fn create_table(client: &Client) {
    client
        .create_table()
        .table_name(TABLE)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(common::def("pk", ScalarAttributeType::S))
        .attribute_definitions(common::def("grp", ScalarAttributeType::S))
        .key_schema(common::key("pk", KeyType::Hash))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("byGroup")
                .key_schema(common::key("grp", KeyType::Hash))
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

async fn put(client: &Client, pk: &str) -> Result<(), String> {
    client
        .put_item()
        .table_name(TABLE)
        .item("pk", Av::S(pk.to_owned()))
        .item("grp", Av::S("g".into()))
        .item("pad", Av::S("x".repeat(300)))
        .send()
        .await
        .map(|_| ())
        .map_err(|e| common::code(&e))
}

async fn exists(client: &Client, pk: &str) -> bool {
    client
        .get_item()
        .table_name(TABLE)
        .key("pk", Av::S(pk.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .expect("get")
        .item()
        .is_some()
}

/// Items in the table and in its GSI (they must agree).
async fn counts(client: &Client) -> (i32, i32) {
    let mut out = [0, 0];
    for (i, index) in [None, Some("byGroup")].into_iter().enumerate() {
        let mut start = None;
        loop {
            let page = client
                .scan()
                .table_name(TABLE)
                .set_index_name(index.map(str::to_owned))
                .select(aws_sdk_dynamodb::types::Select::Count)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .expect("scan");
            out[i] += page.count();
            match page.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => break,
            }
        }
    }
    (out[0], out[1])
}

async fn ready(endpoint: &str) -> (u16, String) {
    let url = format!("{}/ready", endpoint.trim_end_matches('/'));
    let uri: http::Uri = url.parse().expect("uri");
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<http_body_util::Empty<bytes::Bytes>>();
    let response = client.get(uri).await.expect("GET /ready");
    let status = response.status().as_u16();
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await
        .expect("body")
        .to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// A server task and the way to stop it.
struct Serving {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Serving {
    /// Stops the server and waits until it has let go of the engine.
    async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

/// Serves `engine` on a loopback port; returns the endpoint and the server.
async fn serve(engine: Arc<Engine>) -> (String, Serving) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let endpoint = format!("http://{}", listener.local_addr().expect("addr"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(kura_server::serve(listener, engine, async {
        let _ = stopped.await;
    }));
    (endpoint, Serving { stop, task })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_sync_poisons_the_server_and_the_write_is_atomic() {
    for fault in [Fault::SyncFailsBeforeWrite, Fault::SyncFailsAfterWrite] {
        let dir = tempfile::tempdir().expect("tempdir");
        {
            let fjall: Arc<dyn Store> = Arc::new(FjallStore::open(dir.path()).expect("open"));
            let store = FaultyStore::new(fjall);
            let engine = Engine::with_store(store.clone()).expect("engine");
            let (endpoint, server) = serve(engine.clone()).await;
            let client = kura_testkit::endpoint_client(&endpoint);
            create_table(&client).await;
            put(&client, "before").await.expect("put before the fault");
            assert_eq!(ready(&endpoint).await.0, 200);

            store.inject(fault);
            assert_eq!(
                put(&client, "during").await,
                Err("InternalServerError".into())
            );
            let (status, body) = ready(&endpoint).await;
            assert_eq!(status, 503, "{fault:?}");
            assert!(body.contains("poisoned"), "{body}");

            // The disk is fine again, but the durable state is unknown: no more writes.
            store.inject(Fault::None);
            assert_eq!(
                put(&client, "after").await,
                Err("InternalServerError".into())
            );
            assert!(exists(&client, "before").await, "reads go on");
            // The server shuts the engine down once it has stopped.
            server.stop().await;
            drop(engine);
        }
        // A restart starts clean, with the write in flight wholly there or wholly not.
        let server = KuraProcess::start(Some(dir.path()));
        let client = server.client();
        assert_eq!(ready(&server.endpoint).await.0, 200);
        assert!(exists(&client, "before").await);
        assert!(!exists(&client, "after").await);
        let during = exists(&client, "during").await;
        assert_eq!(during, fault == Fault::SyncFailsAfterWrite, "{fault:?}");
        let (items, entries) = counts(&client).await;
        assert_eq!(items, entries, "{fault:?}: the GSI agrees with its table");
        assert_eq!(items, 1 + i32::from(during));
        put(&client, "later").await.expect("writes are taken again");
    }
}

/// The newest journal file of a data directory, and where its data ends. fjall
/// preallocates journal files with zeros, so the end is after the last non-zero byte
/// (every batch ends with a non-zero trailer).
fn newest_journal(dir: &Path) -> (PathBuf, u64) {
    let mut journals: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .expect("read data dir")
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            let n = path
                .file_name()?
                .to_str()?
                .strip_suffix(".jnl")?
                .parse()
                .ok()?;
            Some((n, path))
        })
        .collect();
    journals.sort();
    let (_, path) = journals.pop().expect("a journal file");
    let bytes = std::fs::read(&path).expect("read journal");
    let end = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
    (path, end as u64)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tear {
    /// The batch's tail is still the file's preallocated zeros.
    Zeroed,
    /// The file ends inside the batch.
    Truncated,
    /// The batch is whole, and garbage follows it.
    GarbageAfter,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_torn_at_the_last_sync_is_recovered() {
    let original = tempfile::tempdir().expect("tempdir");
    let acknowledged = 40;
    let (journal, before_last, after_last) = {
        let server = KuraProcess::start(Some(original.path()));
        let client = server.client();
        create_table(&client).await;
        for i in 0..acknowledged {
            put(&client, &format!("acked-{i}")).await.expect("put");
        }
        let (journal, before_last) = newest_journal(original.path());
        put(&client, "last").await.expect("the last put");
        let (same, after_last) = newest_journal(original.path());
        assert_eq!(same, journal, "the last write went to the same journal");
        assert!(after_last > before_last);
        server.kill9();
        (journal, before_last, after_last)
    };
    let journal_name = journal.file_name().expect("name").to_owned();

    // Tear the last batch at several points: the rest never reached the disk, either as
    // preallocated zeros or as a file cut short. Separately, leave garbage after it.
    let span = after_last - before_last;
    let mut tears: Vec<(Tear, u64)> = Vec::new();
    for cut in [1, 2, span / 3, span / 2, span - 1] {
        if cut > 0 && cut < span {
            tears.push((Tear::Zeroed, before_last + cut));
            tears.push((Tear::Truncated, before_last + cut));
        }
    }
    tears.push((Tear::GarbageAfter, after_last));
    for (tear, at) in tears {
        let copy = tempfile::tempdir().expect("tempdir");
        copy_dir(original.path(), copy.path());
        let torn = copy.path().join(&journal_name);
        {
            use std::io::{Seek, SeekFrom, Write};
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .open(&torn)
                .expect("open journal");
            match tear {
                Tear::Zeroed => {
                    file.seek(SeekFrom::Start(at)).expect("seek");
                    file.write_all(&vec![0; (after_last - at) as usize])
                        .expect("zero");
                }
                Tear::Truncated => file.set_len(at).expect("truncate"),
                Tear::GarbageAfter => {
                    file.seek(SeekFrom::Start(at)).expect("seek");
                    file.write_all(&[0x5A; 97]).expect("garbage");
                }
            }
        }
        let cut = (tear, at);
        let last_expected = tear == Tear::GarbageAfter;
        let server = KuraProcess::start(Some(copy.path()));
        let client = server.client();
        for i in 0..acknowledged {
            assert!(
                exists(&client, &format!("acked-{i}")).await,
                "cut {cut:?}: acked-{i} lost"
            );
        }
        let last = exists(&client, "last").await;
        assert_eq!(last, last_expected, "cut {cut:?}: the torn write is gone");
        let (items, entries) = counts(&client).await;
        assert_eq!(items, entries, "cut {cut:?}: the GSI agrees with its table");
        assert_eq!(items, acknowledged + i32::from(last));
        put(&client, "after-recovery")
            .await
            .expect("writes are taken after recovery");
        // And that write survives the next crash too.
        server.kill9();
        let server = KuraProcess::start(Some(copy.path()));
        assert!(
            exists(&server.client(), "after-recovery").await,
            "cut {cut:?}"
        );
    }
}
