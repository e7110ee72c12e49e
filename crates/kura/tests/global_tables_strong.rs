//! Global tables with multi-region strong consistency (MRSC) through aws-sdk-dynamodb, one
//! client per region, on `kura serve --regions separate`: three replicas (or two and a
//! witness) made from an empty table, a write readable at once with a strongly consistent
//! read in every region, concurrent writes in three regions to one item that lose nothing
//! acknowledged, `ReplicatedWriteConflictException`, the majority rule under the drill's
//! isolation, and the operations and changes MRSC refuses, in DynamoDB's words.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as Av, CreateGlobalTableWitnessGroupMemberAction,
    DeleteGlobalTableWitnessGroupMemberAction, DeleteReplicationGroupMemberAction,
    GlobalTableWitnessGroupUpdate, MultiRegionConsistency, Put, ReplicationGroupUpdate,
    TransactWriteItem,
};
use common::{KuraProcess, create_replica, create_table, in_region, regions_command};

const TABLE: &str = "Ledger";

fn witness(region: &str) -> GlobalTableWitnessGroupUpdate {
    GlobalTableWitnessGroupUpdate::builder()
        .create(
            CreateGlobalTableWitnessGroupMemberAction::builder()
                .region_name(region)
                .build()
                .expect("witness"),
        )
        .build()
}

fn delete_witness(region: &str) -> GlobalTableWitnessGroupUpdate {
    GlobalTableWitnessGroupUpdate::builder()
        .delete(
            DeleteGlobalTableWitnessGroupMemberAction::builder()
                .region_name(region)
                .build()
                .expect("witness"),
        )
        .build()
}

fn delete_replica(region: &str) -> ReplicationGroupUpdate {
    ReplicationGroupUpdate::builder()
        .delete(
            DeleteReplicationGroupMemberAction::builder()
                .region_name(region)
                .build()
                .expect("delete action"),
        )
        .build()
}

/// `n` of item `pk` with a strongly consistent read (None: no such item).
async fn counter(client: &Client, pk: &str) -> Option<u64> {
    let item = client
        .get_item()
        .table_name(TABLE)
        .key("pk", Av::S(pk.into()))
        .consistent_read(true)
        .send()
        .await
        .expect("strongly consistent read")
        .item?;
    Some(item["n"].as_n().expect("n").parse().expect("a number"))
}

async fn add_one(client: &Client, pk: &str) -> Result<(), String> {
    client
        .update_item()
        .table_name(TABLE)
        .key("pk", Av::S(pk.into()))
        .update_expression("ADD n :one")
        .expression_attribute_values(":one", Av::N("1".into()))
        .send()
        .await
        .map(|_| ())
        .map_err(|e| common::code(&e))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_replicas_read_their_writes_everywhere_and_lose_no_increment() {
    let server = KuraProcess::start_with(None, &["--regions", "separate"]);
    let east = server.client();
    let ohio = in_region(&east, "us-east-2");
    let oregon = in_region(&east, "us-west-2");
    create_table(&east, TABLE, "pk", None).await;
    let made = east
        .update_table()
        .table_name(TABLE)
        .replica_updates(create_replica("us-east-2"))
        .replica_updates(create_replica("us-west-2"))
        .multi_region_consistency(MultiRegionConsistency::Strong)
        .send()
        .await
        .expect("MRSC global table");
    let table = made.table_description().expect("description");
    assert_eq!(
        table.multi_region_consistency(),
        Some(&MultiRegionConsistency::Strong)
    );
    for (client, mut others) in [
        (&east, vec!["us-east-2", "us-west-2"]),
        (&ohio, vec!["us-east-1", "us-west-2"]),
        (&oregon, vec!["us-east-1", "us-east-2"]),
    ] {
        let d = client.describe_table().table_name(TABLE).send().await;
        let d = d.expect("describe");
        let t = d.table().expect("table");
        assert_eq!(
            t.multi_region_consistency(),
            Some(&MultiRegionConsistency::Strong)
        );
        let mut regions: Vec<&str> = t
            .replicas()
            .iter()
            .filter_map(|r| r.region_name())
            .collect();
        regions.sort();
        others.sort();
        assert_eq!(regions, others);
        assert!(t.global_table_witnesses().is_empty());
    }
    // A write acknowledged in one region is there for a strongly consistent read in every
    // other at once: no waiting.
    let clients = [&east, &ohio, &oregon];
    for i in 0..30u64 {
        let writer = clients[i as usize % 3];
        let reader = clients[(i as usize + 1) % 3];
        writer
            .put_item()
            .table_name(TABLE)
            .item("pk", Av::S("seen".into()))
            .item("n", Av::N(i.to_string()))
            .send()
            .await
            .expect("put");
        assert_eq!(counter(reader, "seen").await, Some(i));
    }
    // Writers in three regions add to one item at once; a conflict is refused (and
    // retried), so every acknowledged increment is counted, in every region.
    let acknowledged = Arc::new(AtomicU64::new(0));
    let conflicts = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for (i, client) in [&east, &ohio, &oregon].into_iter().enumerate() {
        for _ in 0..4 {
            let client = common::without_retries(client);
            let (acknowledged, conflicts) = (acknowledged.clone(), conflicts.clone());
            tasks.push(tokio::spawn(async move {
                for _ in 0..20 + i {
                    match add_one(&client, "hot").await {
                        Ok(()) => {
                            acknowledged.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(code) if code == "ReplicatedWriteConflictException" => {
                            conflicts.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(other) => panic!("unexpected refusal {other}"),
                    }
                }
            }));
        }
    }
    for task in tasks {
        task.await.expect("writer");
    }
    let acknowledged = acknowledged.load(Ordering::Relaxed);
    assert!(acknowledged > 0);
    for client in clients {
        assert_eq!(
            counter(client, "hot").await,
            Some(acknowledged),
            "{} conflicts refused",
            conflicts.load(Ordering::Relaxed)
        );
    }
    // Transactions are refused on an MRSC replica; TTL too; so is deleting one replica.
    let refused = east
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(TABLE)
                        .item("pk", Av::S("tx".into()))
                        .build()
                        .expect("put"),
                )
                .build(),
        )
        .send()
        .await
        .expect_err("no transactions on MRSC");
    assert_eq!(common::code(&refused), "ValidationException");
    assert!(common::message(&refused).contains("MultiRegionConsistency set to STRONG"));
    let refused = ohio
        .execute_transaction()
        .transact_statements(
            aws_sdk_dynamodb::types::ParameterizedStatement::builder()
                .statement(format!("INSERT INTO \"{TABLE}\" VALUE {{'pk': 'tx'}}"))
                .build()
                .expect("statement"),
        )
        .send()
        .await
        .expect_err("no PartiQL transactions on MRSC");
    assert_eq!(common::code(&refused), "ValidationException");
    let refused = oregon
        .delete_table()
        .table_name(TABLE)
        .send()
        .await
        .expect_err("one replica alone");
    assert_eq!(
        common::message(&refused),
        "Deletion of only one table replica is not supported for global tables with MultiRegionConsistency set to STRONG."
    );
    let refused = east
        .update_table()
        .table_name(TABLE)
        .replica_updates(delete_replica("us-west-2"))
        .send()
        .await
        .expect_err("one replica alone");
    assert!(common::message(&refused).starts_with("Deletion of only one table replica"));
    let refused = east
        .update_table()
        .table_name(TABLE)
        .replica_updates(create_replica("eu-west-1"))
        .send()
        .await
        .expect_err("no new replicas");
    assert_eq!(
        common::message(&refused),
        "Cannot add replicas to a global table with strong MultiRegionConsistency"
    );
    // A PartiQL write is acknowledged the same way.
    ohio.execute_statement()
        .statement(format!("UPDATE \"{TABLE}\" SET n = 7 WHERE pk = 'seen'"))
        .send()
        .await
        .expect("PartiQL update");
    assert_eq!(counter(&oregon, "seen").await, Some(7));
    // Both others deleted at once: the table is a table again.
    let plain = east
        .update_table()
        .table_name(TABLE)
        .replica_updates(delete_replica("us-east-2"))
        .replica_updates(delete_replica("us-west-2"))
        .send()
        .await
        .expect("delete every replica");
    let t = plain.table_description().expect("description");
    assert!(t.multi_region_consistency().is_none());
    assert!(t.replicas().is_empty());
    assert!(
        ohio.describe_table()
            .table_name(TABLE)
            .send()
            .await
            .is_err()
    );
    east.delete_table()
        .table_name(TABLE)
        .send()
        .await
        .expect("a table again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_witness_keeps_the_majority_and_the_refusals_are_dynamodbs() {
    // The replication delay stands for the round trip an MRSC write waits for.
    let server = KuraProcess::start_with(
        None,
        &[
            "--regions",
            "separate",
            "--test-controls",
            "--replication-delay-ms",
            "400",
        ],
    );
    let east = common::without_retries(&server.client());
    let ohio = in_region(&east, "us-east-2");
    create_table(&east, TABLE, "pk", None).await;
    let refusal =
        |update: aws_sdk_dynamodb::operation::update_table::builders::UpdateTableFluentBuilder| async move {
            let e = update.send().await.expect_err("refused");
            assert_eq!(common::code(&e), "ValidationException");
            common::message(&e)
        };
    let strong = || {
        east.update_table()
            .table_name(TABLE)
            .multi_region_consistency(MultiRegionConsistency::Strong)
    };
    assert_eq!(
        refusal(strong().replica_updates(create_replica("us-east-2"))).await,
        "Unsupported replica count for global tables with MultiRegionConsistency set to STRONG."
    );
    assert_eq!(
        refusal(
            east.update_table()
                .table_name(TABLE)
                .replica_updates(create_replica("us-east-2"))
                .global_table_witness_updates(witness("us-west-2"))
        )
        .await,
        "MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates parameter is present."
    );
    assert_eq!(
        refusal(
            strong()
                .replica_updates(create_replica("us-west-1"))
                .global_table_witness_updates(witness("us-west-2"))
        )
        .await,
        "Unsupported Region(s) specified for global tables with MultiRegionConsistency set to STRONG: [us-west-1]."
    );
    assert_eq!(
        refusal(
            strong()
                .replica_updates(create_replica("us-east-2"))
                .global_table_witness_updates(witness("us-east-2"))
        )
        .await,
        "Cannot add a witness in the same region as an existing replica when creating a global table with MultiRegionConsistency set to STRONG."
    );
    east.put_item()
        .table_name(TABLE)
        .item("pk", Av::S("early".into()))
        .send()
        .await
        .expect("put");
    let not_empty = refusal(
        strong()
            .replica_updates(create_replica("us-east-2"))
            .global_table_witness_updates(witness("us-west-2")),
    )
    .await;
    assert!(not_empty.contains("must be empty"), "{not_empty}");
    east.delete_item()
        .table_name(TABLE)
        .key("pk", Av::S("early".into()))
        .send()
        .await
        .expect("delete");
    let made = strong()
        .replica_updates(create_replica("us-east-2"))
        .global_table_witness_updates(witness("us-west-2"))
        .send()
        .await
        .expect("two replicas and a witness");
    let t = made.table_description().expect("description");
    let witnesses = t.global_table_witnesses();
    assert_eq!(witnesses.len(), 1);
    assert_eq!(witnesses[0].region_name(), Some("us-west-2"));
    assert_eq!(
        witnesses[0].witness_status().map(|s| s.as_str()),
        Some("ACTIVE")
    );
    assert_eq!(
        refusal(strong().replica_updates(create_replica("eu-west-1"))).await,
        "MultiRegionConsistency parameter is unsupported on existing global table"
    );
    let ttl = east
        .update_time_to_live()
        .table_name(TABLE)
        .time_to_live_specification(
            aws_sdk_dynamodb::types::TimeToLiveSpecification::builder()
                .enabled(true)
                .attribute_name("expires")
                .build()
                .expect("ttl"),
        )
        .send()
        .await
        .expect_err("no TTL on MRSC");
    assert_eq!(common::code(&ttl), "ValidationException");

    // A write holds its item for the round trip: the same item written from the other
    // region meanwhile is a conflict (whichever of the two got there first wins), which
    // succeeds once retried.
    let slow = {
        let east = east.clone();
        tokio::spawn(async move { add_one(&east, "contended").await })
    };
    tokio::time::sleep(Duration::from_millis(150)).await;
    let second = add_one(&ohio, "contended").await;
    let first = slow.await.expect("task");
    let mut outcomes = [first.clone(), second.clone()];
    outcomes.sort();
    assert_eq!(
        outcomes,
        [Ok(()), Err("ReplicatedWriteConflictException".into())],
        "{first:?} {second:?}"
    );
    add_one(&ohio, "contended").await.expect("the retry");
    assert_eq!(counter(&east, "contended").await, Some(2));

    // With the other replica out, this region and the witness are a majority.
    regions_command(&server.endpoint, &["isolate", "us-east-2"]);
    for _ in 0..3 {
        add_one(&east, "during")
            .await
            .expect("a majority with the witness");
    }
    // With the witness out too, only eventually consistent reads are served.
    regions_command(&server.endpoint, &["isolate", "us-west-2"]);
    assert_eq!(
        add_one(&east, "during").await,
        Err("ServiceUnavailable".into())
    );
    let strong_read = east
        .get_item()
        .table_name(TABLE)
        .key("pk", Av::S("during".into()))
        .consistent_read(true)
        .send()
        .await
        .expect_err("no majority");
    assert_eq!(common::code(&strong_read), "ServiceUnavailable");
    let eventual = east
        .get_item()
        .table_name(TABLE)
        .key("pk", Av::S("during".into()))
        .send()
        .await
        .expect("an eventually consistent read");
    let item = eventual.item.expect("item");
    assert_eq!(item["n"].as_n().map(String::as_str), Ok("3"));
    regions_command(&server.endpoint, &["heal", "us-west-2"]);
    add_one(&east, "during").await.expect("a majority again");
    // The replica that was out catches up before it serves again.
    regions_command(&server.endpoint, &["heal", "us-east-2"]);
    assert_eq!(counter(&ohio, "during").await, Some(4));
    // A write acknowledged with the witness alone, then its region lost: the other
    // replica and the witness are the majority now, and that write is there.
    regions_command(&server.endpoint, &["isolate", "us-east-2"]);
    add_one(&east, "late")
        .await
        .expect("a majority with the witness");
    regions_command(&server.endpoint, &["isolate", "us-east-1"]);
    regions_command(&server.endpoint, &["heal", "us-east-2"]);
    assert_eq!(counter(&ohio, "late").await, Some(1));
    add_one(&ohio, "late")
        .await
        .expect("the survivors take writes");
    regions_command(&server.endpoint, &["heal", "us-east-1"]);
    assert_eq!(counter(&east, "late").await, Some(2));

    // The replica alone, without the witness, cannot be deleted; both together can.
    assert_eq!(
        refusal(
            east.update_table()
                .table_name(TABLE)
                .replica_updates(delete_replica("us-east-2"))
        )
        .await,
        "Update table delete operation does not include all witnesses."
    );
    east.update_table()
        .table_name(TABLE)
        .replica_updates(delete_replica("us-east-2"))
        .global_table_witness_updates(delete_witness("us-west-2"))
        .send()
        .await
        .expect("the replica and the witness");
    let t = east.describe_table().table_name(TABLE).send().await;
    let t = t.expect("describe");
    assert!(
        t.table()
            .expect("table")
            .global_table_witnesses()
            .is_empty()
    );
}

/// Every item of [`TABLE`] in `client`'s region, read strongly: `pk` → `n`.
async fn items(client: &Client) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let mut pages = client
        .scan()
        .table_name(TABLE)
        .consistent_read(true)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        for item in page.expect("scan").items() {
            let n = item.get("n").and_then(|n| n.as_n().ok()).cloned();
            out.insert(
                item["pk"].as_s().expect("pk").clone(),
                n.unwrap_or_default(),
            );
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn acknowledged_mrsc_writes_survive_kill9_in_every_region() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = ["--regions", "separate"];
    let server = KuraProcess::start_with(Some(dir.path()), &args);
    let east = server.client();
    create_table(&east, TABLE, "pk", None).await;
    east.update_table()
        .table_name(TABLE)
        .replica_updates(create_replica("us-east-2"))
        .replica_updates(create_replica("us-west-2"))
        .multi_region_consistency(MultiRegionConsistency::Strong)
        .send()
        .await
        .expect("MRSC global table");
    // Writers in all three regions: their own keys, and one item they all add to.
    let acked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let added = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut tasks = Vec::new();
    for region in ["us-east-1", "us-east-2", "us-west-2"] {
        for writer in 0..2 {
            let client = common::without_retries(&in_region(&east, region));
            let (acked, added, stop) = (acked.clone(), added.clone(), stop.clone());
            tasks.push(tokio::spawn(async move {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let pk = format!("{region}-{writer}-{i}");
                    i += 1;
                    let put = client
                        .put_item()
                        .table_name(TABLE)
                        .item("pk", Av::S(pk.clone()))
                        .item("n", Av::N(i.to_string()))
                        .send()
                        .await;
                    if put.is_ok() {
                        acked.lock().expect("lock").push((pk, i.to_string()));
                    }
                    if add_one(&client, "hot").await.is_ok() {
                        added.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }));
        }
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    server.kill9();
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await.expect("writer");
    }
    let acked = acked.lock().expect("lock").clone();
    let added = added.load(Ordering::Relaxed);
    assert!(acked.len() > 50, "only {} writes acknowledged", acked.len());

    // After the restart every region has every acknowledged write, read strongly at once.
    let server = KuraProcess::start_with(Some(dir.path()), &args);
    let east = server.client();
    for region in ["us-east-1", "us-east-2", "us-west-2"] {
        let client = in_region(&east, region);
        let held = items(&client).await;
        for (pk, n) in &acked {
            assert_eq!(
                held.get(pk),
                Some(n),
                "acknowledged write {pk} lost in {region}"
            );
        }
        let hot: u64 = held["hot"].parse().expect("a count");
        assert!(
            hot >= added,
            "{hot} increments in {region}, {added} acknowledged"
        );
    }
    eprintln!(
        "{} acknowledged puts and {added} acknowledged increments in all three regions after kill -9",
        acked.len()
    );
}
