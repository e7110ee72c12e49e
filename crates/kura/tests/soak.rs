//! A soak: `kura serve` on disk under steady mixed load (puts, conditional updates, gets,
//! queries on a GSI, scan pages, deletes, batches, transactions, expiring items, and a
//! stream consumer), with the server's resident memory, open file descriptors and threads
//! sampled. After the warm-up (the first quarter) each stays flat: the largest sample of
//! the second half is at most the largest of the first half plus a margin (RSS: a quarter
//! and 16 MB; descriptors and threads: 16). Every call must succeed.
//!
//! `KURA_SOAK_SECONDS` (default 20) sets the length; the long form (an hour) and its
//! result are in docs/reliability.md.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as Av, BillingMode, GlobalSecondaryIndex, KeyType, Projection, ProjectionType,
    PutRequest, ScalarAttributeType, StreamSpecification, StreamViewType, TransactWriteItem,
    Update, WriteRequest,
};
use common::KuraProcess;

const TABLE: &str = "Soak";
const KEYS: u64 = 20_000;
const CLIENTS: u64 = 8;

#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    at_s: f64,
    rss_kb: u64,
    fds: u64,
    threads: u64,
}

fn sample(pid: u32, started: Instant) -> Option<Sample> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    Some(Sample {
        at_s: started.elapsed().as_secs_f64(),
        rss_kb: field("VmRSS:")?,
        threads: field("Threads:")?,
        fds: std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count() as u64,
    })
}

async fn create_table(client: &Client) {
    client
        .create_table()
        .table_name(TABLE)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(common::def("pk", ScalarAttributeType::S))
        .attribute_definitions(common::def("grp", ScalarAttributeType::S))
        .attribute_definitions(common::def("n", ScalarAttributeType::N))
        .key_schema(common::key("pk", KeyType::Hash))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("byGroup")
                .key_schema(common::key("grp", KeyType::Hash))
                .key_schema(common::key("n", KeyType::Range))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::KeysOnly)
                        .build(),
                )
                .build()
                .expect("index"),
        )
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewAndOldImages)
                .build()
                .expect("stream"),
        )
        .send()
        .await
        .expect("create table");
    common::enable_ttl(client, TABLE, "exp").await;
}

fn key(i: u64) -> Av {
    Av::S(format!("k{i:06}"))
}

/// One client's mixed load until `stop`; the calls it made.
async fn run_client(client: Client, id: u64, stop: Arc<AtomicBool>, calls: Arc<AtomicU64>) {
    let mut rng = fastrand::Rng::with_seed(id);
    while !stop.load(Ordering::Relaxed) {
        let i = rng.u64(0..KEYS);
        let grp = Av::S(format!("g{}", i % 64));
        let n = Av::N(rng.u32(..).to_string());
        match rng.u32(0..100) {
            0..30 => {
                client
                    .put_item()
                    .table_name(TABLE)
                    .item("pk", key(i))
                    .item("grp", grp)
                    .item("n", n)
                    .item("pad", Av::S("p".repeat(rng.usize(100..1_000))))
                    .send()
                    .await
                    .expect("put");
            }
            30..45 => {
                client
                    .update_item()
                    .table_name(TABLE)
                    .key("pk", key(i))
                    .update_expression("SET grp = :g, n = :n ADD hits :one")
                    .condition_expression("attribute_not_exists(locked)")
                    .expression_attribute_values(":g", grp)
                    .expression_attribute_values(":n", n)
                    .expression_attribute_values(":one", Av::N("1".into()))
                    .send()
                    .await
                    .expect("update");
            }
            45..70 => {
                client
                    .get_item()
                    .table_name(TABLE)
                    .key("pk", key(i))
                    .send()
                    .await
                    .expect("get");
            }
            70..80 => {
                client
                    .query()
                    .table_name(TABLE)
                    .index_name("byGroup")
                    .key_condition_expression("grp = :g")
                    .expression_attribute_values(":g", grp)
                    .limit(25)
                    .send()
                    .await
                    .expect("query");
            }
            80..83 => {
                client
                    .scan()
                    .table_name(TABLE)
                    .exclusive_start_key("pk", key(i))
                    .limit(100)
                    .send()
                    .await
                    .expect("scan page");
            }
            83..88 => {
                client
                    .delete_item()
                    .table_name(TABLE)
                    .key("pk", key(i))
                    .send()
                    .await
                    .expect("delete");
            }
            88..93 => {
                let requests: Vec<WriteRequest> = (0..10)
                    .map(|j| {
                        let put = PutRequest::builder()
                            .item("pk", key((i + j * 997) % KEYS))
                            .item("grp", Av::S(format!("g{}", j % 64)))
                            .item("n", Av::N(j.to_string()))
                            .build()
                            .expect("put request");
                        WriteRequest::builder().put_request(put).build()
                    })
                    .collect();
                client
                    .batch_write_item()
                    .request_items(TABLE, requests)
                    .send()
                    .await
                    .expect("batch");
            }
            93..97 => {
                let update = |k: u64| {
                    TransactWriteItem::builder()
                        .update(
                            Update::builder()
                                .table_name(TABLE)
                                .key("pk", key(k))
                                .update_expression("ADD moved :one")
                                .expression_attribute_values(":one", Av::N("1".into()))
                                .build()
                                .expect("update"),
                        )
                        .build()
                };
                client
                    .transact_write_items()
                    .transact_items(update(i))
                    .transact_items(update((i + 1) % KEYS))
                    .send()
                    .await
                    .expect("transaction");
            }
            _ => {
                // Already expired: the sweeper deletes it.
                let past = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .expect("clock")
                    .as_secs()
                    - 60;
                client
                    .put_item()
                    .table_name(TABLE)
                    .item("pk", Av::S(format!("x{id}-{}", rng.u32(0..1_000))))
                    .item("exp", Av::N(past.to_string()))
                    .send()
                    .await
                    .expect("expiring put");
            }
        }
        calls.fetch_add(1, Ordering::Relaxed);
    }
}

/// Follows the stream until `stop`, as a consumer written for AWS does: the shards open at
/// the start from LATEST, every shard opened since (a split, a roll-over) from
/// TRIM_HORIZON, found by listing the shards again whenever one of ours ends; the records
/// it read.
async fn consume_stream(
    client: Client,
    streams: aws_sdk_dynamodbstreams::Client,
    stop: Arc<AtomicBool>,
    read: Arc<AtomicU64>,
) {
    use aws_sdk_dynamodbstreams::types::ShardIteratorType;
    let arn = client
        .describe_table()
        .table_name(TABLE)
        .send()
        .await
        .expect("describe")
        .table()
        .and_then(|t| t.latest_stream_arn())
        .expect("stream")
        .to_owned();
    let mut seen = std::collections::HashSet::new();
    let mut iterators: Vec<String> = Vec::new();
    let mut from = ShardIteratorType::Latest;
    let mut relist = true;
    while !stop.load(Ordering::Relaxed) {
        if relist {
            let mut after: Option<String> = None;
            loop {
                let page = streams
                    .describe_stream()
                    .stream_arn(&arn)
                    .set_exclusive_start_shard_id(after.take())
                    .send()
                    .await
                    .expect("describe stream");
                let description = page.stream_description().expect("description");
                for shard in description.shards() {
                    let id = shard.shard_id().expect("id").to_owned();
                    let closed = shard
                        .sequence_number_range()
                        .and_then(|r| r.ending_sequence_number())
                        .is_some();
                    // At the start, closed shards are history; after it, each new one is read.
                    if !seen.insert(id.clone()) || from == ShardIteratorType::Latest && closed {
                        continue;
                    }
                    let it = streams
                        .get_shard_iterator()
                        .stream_arn(&arn)
                        .shard_id(&id)
                        .shard_iterator_type(from.clone())
                        .send()
                        .await
                        .expect("iterator");
                    iterators.extend(it.shard_iterator().map(str::to_owned));
                }
                match description.last_evaluated_shard_id() {
                    Some(last) => after = Some(last.to_owned()),
                    None => break,
                }
            }
            from = ShardIteratorType::TrimHorizon;
        }
        let before = iterators.len();
        let mut next = Vec::new();
        for it in std::mem::take(&mut iterators) {
            let page = streams
                .get_records()
                .shard_iterator(it)
                .send()
                .await
                .expect("records");
            read.fetch_add(page.records().len() as u64, Ordering::Relaxed);
            next.extend(page.next_shard_iterator().map(str::to_owned));
        }
        relist = next.len() < before;
        iterators = next;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn memory_descriptors_and_threads_stay_flat_under_steady_load() {
    let seconds: u64 = std::env::var("KURA_SOAK_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let dir = tempfile::tempdir().expect("tempdir");
    // Shards split every 5,000 records, so the consumer follows splits even in 20 s.
    let server = KuraProcess::start_with(Some(dir.path()), &["--stream-split-records", "5000"]);
    let client = server.client();
    create_table(&client).await;
    let pid = server.pid();
    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicU64::new(0));
    let records = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for id in 0..CLIENTS {
        tasks.push(tokio::spawn(run_client(
            client.clone(),
            id,
            stop.clone(),
            calls.clone(),
        )));
    }
    tasks.push(tokio::spawn(consume_stream(
        client.clone(),
        server.streams_client(),
        stop.clone(),
        records.clone(),
    )));
    let started = Instant::now();
    let every = Duration::from_secs((seconds / 40).max(1));
    let mut samples = Vec::new();
    while started.elapsed() < Duration::from_secs(seconds) {
        tokio::time::sleep(every).await;
        samples.push(sample(pid, started).expect("the server is alive"));
        if tasks.iter().any(|t| t.is_finished()) {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await.expect("every call succeeded");
    }
    let calls = calls.load(Ordering::Relaxed);
    eprintln!(
        "soak: {seconds} s, {calls} calls ({:.0}/s), {} stream records read",
        calls as f64 / started.elapsed().as_secs_f64(),
        records.load(Ordering::Relaxed)
    );
    for s in samples.iter().step_by((samples.len() / 10).max(1)) {
        eprintln!(
            "soak: {:>6.0} s  RSS {:>4} MB  fds {:>4}  threads {:>3}",
            s.at_s,
            s.rss_kb / 1024,
            s.fds,
            s.threads
        );
    }
    let warm = samples.len() / 4;
    let middle = samples.len() / 2;
    let (first, second) = (&samples[warm..middle], &samples[middle..]);
    assert!(!first.is_empty() && !second.is_empty(), "too few samples");
    let max = |part: &[Sample], f: fn(&Sample) -> u64| part.iter().map(f).max().unwrap_or(0);
    let (rss1, rss2) = (max(first, |s| s.rss_kb), max(second, |s| s.rss_kb));
    assert!(
        rss2 <= rss1 + rss1 / 4 + 16 * 1024,
        "RSS grew: {} MB after warm-up, then {} MB",
        rss1 / 1024,
        rss2 / 1024
    );
    for (what, f) in [
        (
            "file descriptors",
            (|s: &Sample| s.fds) as fn(&Sample) -> u64,
        ),
        ("threads", |s: &Sample| s.threads),
    ] {
        assert!(
            max(second, f) <= max(first, f) + 16,
            "{what} grew: {} after warm-up, then {}",
            max(first, f),
            max(second, f)
        );
    }
}
