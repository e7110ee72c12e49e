//! DynamoDB Streams through the AWS SDKs: concurrent writers on many items; a consumer
//! following shard lineage from TRIM_HORIZON reads every change exactly once, in order per
//! item, with images that match the items' history, in process and across kill -9.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::KuraProcess;
use common::streams::{
    check_exactly_once, create_streamed_table, final_counters, read_all, write_counters,
};
use kura_engine::streams::ShardShape;
use kura_engine::writer::WriteLimits;
use kura_engine::{Engine, EngineOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exactly_once_in_order_across_shards() {
    let engine = Engine::in_memory_with_options(EngineOptions {
        limits: WriteLimits {
            shards: ShardShape {
                max_age_ms: 150,
                ..ShardShape::default()
            },
            ..WriteLimits::default()
        },
        ..EngineOptions::default()
    });
    let client = kura_testkit::in_process_client(engine.clone());
    let streams = kura_testkit::in_process_streams_client(engine.clone());
    create_streamed_table(&client, "Counters").await;
    let acked = Arc::new(Mutex::new(BTreeMap::new()));
    write_counters(
        &client,
        "Counters",
        "",
        Duration::from_millis(1500),
        acked.clone(),
    )
    .await;
    let (records, shards) = read_all(&client, &streams, "Counters").await;
    assert!(
        shards > 2,
        "the stream rolled over to child shards ({shards})"
    );
    let finals = final_counters(&client, "Counters").await;
    let acked = acked.lock().expect("lock").clone();
    assert!(!records.is_empty());
    check_exactly_once(&records, &finals, &acked);
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exactly_once_across_kill9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = ["--stream-shard-seconds", "0.3"];
    let acked = Arc::new(Mutex::new(BTreeMap::new()));
    for cycle in 0..3u64 {
        let server = KuraProcess::start_with(Some(dir.path()), &args);
        let client = server.client();
        if cycle == 0 {
            create_streamed_table(&client, "Durable").await;
        }
        let writers = {
            let client = client.clone();
            let acked = acked.clone();
            tokio::spawn(async move {
                write_counters(&client, "Durable", "", Duration::from_secs(30), acked).await;
            })
        };
        tokio::time::sleep(Duration::from_millis(400 + cycle * 150)).await;
        server.kill9();
        writers.await.expect("writers");
    }
    let server = KuraProcess::start_with(Some(dir.path()), &args);
    let client = server.client();
    let (records, _) = read_all(&client, &server.streams_client(), "Durable").await;
    let finals = final_counters(&client, "Durable").await;
    let acked = acked.lock().expect("lock").clone();
    assert!(
        acked.values().map(Vec::len).sum::<usize>() > 0,
        "some writes were acknowledged"
    );
    check_exactly_once(&records, &finals, &acked);
}
