//! Global tables (version 2019.11.21) through aws-sdk-dynamodb, one client per region, on
//! `kura serve --regions separate`: a replica made from a table with data, writes in both
//! regions at once (last writer wins, every replica equal at the end, nothing acknowledged
//! lost), a `kill -9` in the middle of replication (it resumes after the restart), three
//! regions, removing a replica, and DynamoDB's refusals.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as Av, DeleteReplicationGroupMemberAction, ReplicationGroupUpdate, TableStatus,
};
use common::{KuraProcess, create_replica as create, create_table, in_region, regions_command};

const TABLE: &str = "Orders";

fn delete(region: &str) -> ReplicationGroupUpdate {
    ReplicationGroupUpdate::builder()
        .delete(
            DeleteReplicationGroupMemberAction::builder()
                .region_name(region)
                .build()
                .expect("delete action"),
        )
        .build()
}

/// Adds a replica of [`TABLE`] in `region` and waits until it and the source are ACTIVE.
async fn add_replica(source: &Client, replica: &Client, region: &str) {
    source
        .update_table()
        .table_name(TABLE)
        .replica_updates(create(region))
        .send()
        .await
        .expect("add replica");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let replica_status = match replica.describe_table().table_name(TABLE).send().await {
            Ok(d) => d.table().and_then(|t| t.table_status().cloned()),
            Err(_) => None,
        };
        let source_status = source
            .describe_table()
            .table_name(TABLE)
            .send()
            .await
            .expect("describe source")
            .table()
            .and_then(|t| t.table_status().cloned());
        if replica_status == Some(TableStatus::Active) && source_status == Some(TableStatus::Active)
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the replica in {region} did not become ACTIVE"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every item of [`TABLE`]: `pk` → `v`.
async fn contents(client: &Client) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut pages = client
        .scan()
        .table_name(TABLE)
        .consistent_read(true)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        for item in page.expect("scan").items() {
            out.insert(
                item["pk"].as_s().expect("pk").clone(),
                item["v"].as_s().expect("v").clone(),
            );
        }
    }
    out
}

/// Waits until every client sees the same items, and returns them.
async fn converged(clients: &[&Client]) -> BTreeMap<String, String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut seen = Vec::new();
        for client in clients {
            seen.push(contents(client).await);
        }
        if seen.windows(2).all(|w| w[0] == w[1]) {
            return seen.swap_remove(0);
        }
        assert!(
            Instant::now() < deadline,
            "the replicas did not converge: {:?}",
            seen.iter().map(BTreeMap::len).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Writers in `region`: each puts keys of its own (recorded once acknowledged) and
/// overwrites a few hot keys every region writes, until `stop`.
fn spawn_writers(
    client: &Client,
    region: &'static str,
    writers: usize,
    acked: &Arc<Mutex<BTreeMap<String, String>>>,
    stop: &Arc<std::sync::atomic::AtomicBool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..writers)
        .map(|w| {
            let client = common::without_retries(client);
            let (acked, stop) = (acked.clone(), stop.clone());
            tokio::spawn(async move {
                let mut i = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let (pk, v) = (format!("{region}-{w}-{i}"), format!("{region}:{i}"));
                    let put = client
                        .put_item()
                        .table_name(TABLE)
                        .item("pk", Av::S(pk.clone()))
                        .item("v", Av::S(v.clone()))
                        .send()
                        .await;
                    if put.is_ok() {
                        acked.lock().expect("lock").insert(pk, v);
                    }
                    let hot = format!("hot-{}", i % 7);
                    let _ = client
                        .put_item()
                        .table_name(TABLE)
                        .item("pk", Av::S(hot))
                        .item("v", Av::S(format!("{region}-{w}:{i}")))
                        .send()
                        .await;
                    i += 1;
                }
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn replicas_converge_under_writes_in_both_regions_across_kill9() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Changes wait 300 ms before they are sent, so the kill finds some not yet sent.
    let args = ["--regions", "separate", "--replication-delay-ms", "300"];
    let server = KuraProcess::start_with(Some(dir.path()), &args);
    let east = server.client();
    let west = in_region(&east, "eu-west-1");
    create_table(&east, TABLE, "pk", None).await;
    // A table with data becomes global: the replica is filled from it.
    for i in 0..300 {
        east.put_item()
            .table_name(TABLE)
            .item("pk", Av::S(format!("before-{i}")))
            .item("v", Av::S("before".into()))
            .send()
            .await
            .expect("put");
    }
    assert!(
        west.list_tables()
            .send()
            .await
            .expect("list")
            .table_names()
            .is_empty(),
        "a region is its own namespace"
    );
    add_replica(&east, &west, "eu-west-1").await;
    let described = east
        .describe_table()
        .table_name(TABLE)
        .send()
        .await
        .expect("describe");
    let table = described.table().expect("table");
    assert_eq!(table.global_table_version(), Some("2019.11.21"));
    let regions: Vec<&str> = table
        .replicas()
        .iter()
        .filter_map(|r| r.region_name())
        .collect();
    assert_eq!(regions, ["eu-west-1"]);

    // Both regions write at once; the server is killed while they do.
    let acked = Arc::new(Mutex::new(BTreeMap::new()));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut writers = spawn_writers(&east, "us-east-1", 4, &acked, &stop);
    writers.extend(spawn_writers(&west, "eu-west-1", 4, &acked, &stop));
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let sent = contents(&west).await;
    let unsent = acked
        .lock()
        .expect("lock")
        .keys()
        .filter(|k| k.starts_with("us-east-1") && !sent.contains_key(*k))
        .count();
    assert!(unsent > 0, "replication was not behind at the kill");
    server.kill9();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for writer in writers {
        writer.await.expect("writer");
    }
    let acked = acked.lock().expect("lock").clone();
    assert!(
        acked.len() > 100,
        "only {} writes were acknowledged",
        acked.len()
    );

    // After the restart the other region is opened again and replication resumes.
    let server = KuraProcess::start_with(Some(dir.path()), &args);
    let east = server.client();
    let west = in_region(&east, "eu-west-1");
    let items = converged(&[&east, &west]).await;
    for (pk, v) in &acked {
        assert_eq!(items.get(pk), Some(v), "acknowledged write {pk} lost");
    }
    assert_eq!(
        items.keys().filter(|k| k.starts_with("before-")).count(),
        300
    );
    for hot in (0..7).map(|i| format!("hot-{i}")) {
        assert!(items.contains_key(&hot), "{hot} missing");
    }
    eprintln!(
        "{} acknowledged writes ({unsent} not yet replicated shortly before the kill), {} items equal in both regions after kill -9",
        acked.len(),
        items.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_regions_then_one_removed() {
    let server = KuraProcess::start_with(None, &["--regions", "separate"]);
    let east = server.client();
    let west = in_region(&east, "us-west-2");
    let europe = in_region(&east, "eu-central-1");
    create_table(&east, TABLE, "pk", None).await;
    add_replica(&east, &west, "us-west-2").await;
    add_replica(&east, &europe, "eu-central-1").await;
    // The third replica knows both others, and they know it.
    for (client, others) in [
        (&east, ["eu-central-1", "us-west-2"]),
        (&west, ["eu-central-1", "us-east-1"]),
        (&europe, ["us-east-1", "us-west-2"]),
    ] {
        let d = client
            .describe_table()
            .table_name(TABLE)
            .send()
            .await
            .expect("describe");
        let mut regions: Vec<&str> = d
            .table()
            .expect("table")
            .replicas()
            .iter()
            .filter_map(|r| r.region_name())
            .collect();
        regions.sort();
        assert_eq!(regions, others);
    }
    for (i, client) in [&east, &west, &europe].into_iter().enumerate() {
        client
            .put_item()
            .table_name(TABLE)
            .item("pk", Av::S(format!("from-{i}")))
            .item("v", Av::S("x".into()))
            .send()
            .await
            .expect("put");
    }
    // The same key written in two regions: one value wins everywhere.
    for client in [&west, &europe] {
        client
            .put_item()
            .table_name(TABLE)
            .item("pk", Av::S("both".into()))
            .item("v", Av::S(format!("{:?}", client.config().region())))
            .send()
            .await
            .expect("put");
    }
    // A delete in one region removes the item everywhere (once the put has arrived: a
    // delete of an item a region does not have yet changes nothing, as in DynamoDB).
    converged(&[&east, &west, &europe]).await;
    west.delete_item()
        .table_name(TABLE)
        .key("pk", Av::S("from-0".into()))
        .send()
        .await
        .expect("delete");
    let items = converged(&[&east, &west, &europe]).await;
    assert_eq!(
        items.keys().map(String::as_str).collect::<Vec<_>>(),
        ["both", "from-1", "from-2"]
    );

    east.update_table()
        .table_name(TABLE)
        .replica_updates(delete("us-west-2"))
        .send()
        .await
        .expect("remove replica");
    assert!(
        west.list_tables()
            .send()
            .await
            .expect("list")
            .table_names()
            .is_empty()
    );
    let d = europe
        .describe_table()
        .table_name(TABLE)
        .send()
        .await
        .expect("describe");
    let regions: Vec<&str> = d
        .table()
        .expect("table")
        .replicas()
        .iter()
        .filter_map(|r| r.region_name())
        .collect();
    assert_eq!(regions, ["us-east-1"]);
}

#[tokio::test]
async fn replica_updates_are_refused_as_dynamodb_refuses_them() {
    let server = KuraProcess::start_with(None, &["--regions", "separate"]);
    let east = server.client();
    create_table(&east, TABLE, "pk", None).await;
    let local = east
        .update_table()
        .table_name(TABLE)
        .replica_updates(create("us-east-1"))
        .send()
        .await
        .expect_err("the local region");
    assert_eq!(common::code(&local), "ValidationException");
    assert_eq!(
        common::message(&local),
        "Cannot add, delete, or update the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required."
    );
    let missing = east
        .update_table()
        .table_name(TABLE)
        .replica_updates(delete("eu-west-1"))
        .send()
        .await
        .expect_err("no such replica");
    assert_eq!(common::code(&missing), "ValidationException");
    let bad = east
        .update_table()
        .table_name(TABLE)
        .replica_updates(create("../../etc"))
        .send()
        .await
        .expect_err("not a region");
    assert_eq!(common::code(&bad), "ValidationException");
    let nothing = east
        .update_table()
        .table_name("Missing")
        .replica_updates(create("eu-west-1"))
        .send()
        .await
        .expect_err("no such table");
    assert_eq!(common::code(&nothing), "ResourceNotFoundException");

    let empty = east
        .update_table()
        .table_name(TABLE)
        .replica_updates(ReplicationGroupUpdate::builder().build())
        .send()
        .await
        .expect_err("an update without an action");
    assert_eq!(common::code(&empty), "ValidationException");
    // A table of that name already in the other region is not made a replica.
    let west = in_region(&east, "eu-west-1");
    create_table(&west, TABLE, "pk", None).await;
    let taken = east
        .update_table()
        .table_name(TABLE)
        .replica_updates(create("eu-west-1"))
        .send()
        .await
        .expect_err("a table of that name in the region");
    assert_eq!(common::code(&taken), "ValidationException");
    // A replica's changes are its stream's records with both images.
    create_table(&east, "KeysOnly", "pk", None).await;
    east.update_table()
        .table_name("KeysOnly")
        .stream_specification(
            aws_sdk_dynamodb::types::StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(aws_sdk_dynamodb::types::StreamViewType::KeysOnly)
                .build()
                .expect("stream"),
        )
        .send()
        .await
        .expect("enable the stream");
    let keys_only = east
        .update_table()
        .table_name("KeysOnly")
        .replica_updates(create("ap-south-1"))
        .send()
        .await
        .expect_err("a stream without both images");
    assert_eq!(common::code(&keys_only), "ValidationException");
    // A replica already there.
    create_table(&east, "Twice", "pk", None).await;
    east.update_table()
        .table_name("Twice")
        .replica_updates(create("ap-south-1"))
        .send()
        .await
        .expect("a replica");
    let again = east
        .update_table()
        .table_name("Twice")
        .replica_updates(create("ap-south-1"))
        .send()
        .await
        .expect_err("the same replica twice");
    assert_eq!(common::code(&again), "ValidationException");
    // Regions are bounded: a client cannot make Kura open an engine per name it signs with.
    let mut refused = None;
    for i in 0..20 {
        let region = format!("test-region-{i}");
        if let Err(e) = in_region(&east, &region).list_tables().send().await {
            refused = Some(common::code(&e));
            break;
        }
    }
    assert_eq!(refused.as_deref(), Some("LimitExceededException"));

    // With one namespace for every region there is nowhere to put a replica.
    let shared = KuraProcess::start_with(None, &[]);
    let client = shared.client();
    create_table(&client, TABLE, "pk", None).await;
    let refused = client
        .update_table()
        .table_name(TABLE)
        .replica_updates(create("eu-west-1"))
        .send()
        .await
        .expect_err("shared regions");
    assert_eq!(common::code(&refused), "ValidationException");
    assert!(common::message(&refused).contains("--regions separate"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_drill_isolates_a_region_reports_its_backlog_and_heals_it() {
    let server = KuraProcess::start_with(
        None,
        &[
            "--regions",
            "separate",
            "--test-controls",
            "--replication-delay-ms",
            "1500",
        ],
    );
    let east = common::without_retries(&server.client());
    let west = in_region(&east, "eu-west-1");
    create_table(&east, TABLE, "pk", None).await;
    add_replica(&east, &west, "eu-west-1").await;
    for i in 0..10 {
        east.put_item()
            .table_name(TABLE)
            .item("pk", Av::S(format!("east-{i}")))
            .item("v", Av::S("1".into()))
            .send()
            .await
            .expect("put");
    }
    // The region goes down before its last writes were sent: they are its RPO.
    let isolated = regions_command(&server.endpoint, &["isolate", "us-east-1"]);
    let at_risk: u64 = isolated["backlog"]
        .as_array()
        .expect("backlog")
        .iter()
        .filter(|b| b["from"] == "us-east-1" && b["to"] == "eu-west-1")
        .map(|b| b["changes"].as_u64().expect("changes"))
        .sum();
    assert_eq!(at_risk, 10, "{isolated}");
    let refused = east
        .get_item()
        .table_name(TABLE)
        .key("pk", Av::S("east-0".into()))
        .send()
        .await
        .expect_err("an isolated region is unreachable");
    assert_eq!(common::code(&refused), "ServiceUnavailable");
    // The application fails over to the other region, which takes writes.
    for i in 0..5 {
        west.put_item()
            .table_name(TABLE)
            .item("pk", Av::S(format!("west-{i}")))
            .item("v", Av::S("1".into()))
            .send()
            .await
            .expect("put in the surviving region");
    }
    tokio::time::sleep(Duration::from_millis(1600)).await;
    assert_eq!(
        contents(&west).await.len(),
        5,
        "nothing crossed while isolated"
    );
    let status = regions_command(&server.endpoint, &[]);
    assert_eq!(status["outages"][0]["region"], "us-east-1", "{status}");
    assert!(status["outages"][0]["healed_ms"].is_null());

    let healed = regions_command(&server.endpoint, &["heal", "us-east-1"]);
    assert!(healed["outage"]["duration_ms"].as_i64().expect("duration") >= 1600);
    let items = converged(&[&east, &west]).await;
    assert_eq!(items.len(), 15);
    let status = regions_command(&server.endpoint, &["status"]);
    assert_eq!(status["backlog"], serde_json::json!([]), "{status}");
}
