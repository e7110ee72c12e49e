//! Streams and TTL on an engine whose clock the test moves: records per change in order,
//! shard rollover with lineage, iterator expiry, 24-hour trimming, disable and re-enable;
//! several open shards by key hash, splits with exact lineage, per-shard trimming; TTL
//! expiry through the TTL index with its stream records and index updates.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kura_engine::clock::ManualClock;
use kura_engine::storage::MemoryStore;
use kura_engine::streams::ShardShape;
use kura_engine::writer::WriteLimits;
use kura_engine::{Engine, EngineError, EngineOptions, RequestContext};
use serde_json::{Value, json};

const START_MS: i64 = 1_800_000_000_000;
const SHARD_AGE_MS: i64 = 60_000;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

/// An engine whose streams open one shard, so that the chain tests follow one chain.
fn engine(clock: Arc<ManualClock>) -> Arc<Engine> {
    engine_with(
        clock,
        ShardShape {
            initial: 1,
            max_age_ms: SHARD_AGE_MS,
            ..ShardShape::default()
        },
    )
}

fn engine_with(clock: Arc<ManualClock>, shards: ShardShape) -> Arc<Engine> {
    let options = EngineOptions {
        limits: WriteLimits {
            shards,
            ..WriteLimits::default()
        },
        clock,
        sweep_interval: Duration::from_millis(5),
        ..EngineOptions::default()
    };
    Engine::with_options(Arc::new(MemoryStore::new()), options).expect("open")
}

fn to_json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).expect("json")
}

async fn create(engine: &Engine, extra: Value) {
    let mut req = json!({
        "TableName": "Tbl",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    });
    for (k, v) in extra.as_object().expect("object") {
        req[k] = v.clone();
    }
    engine
        .create_table(&RequestContext::default(), input(req))
        .await
        .expect("create");
}

async fn put(engine: &Engine, item: Value) {
    engine
        .put_item(input(json!({"TableName": "Tbl", "Item": item})))
        .await
        .expect("put");
}

fn stream_arn(engine: &Engine) -> String {
    let out = to_json(
        engine
            .list_streams(
                &RequestContext::default(),
                input(json!({"TableName": "Tbl"})),
            )
            .expect("list"),
    );
    out["Streams"][0]["StreamArn"]
        .as_str()
        .expect("a stream")
        .to_owned()
}

fn shards(engine: &Engine, arn: &str) -> Vec<Value> {
    let out = to_json(
        engine
            .describe_stream(&RequestContext::default(), input(json!({"StreamArn": arn})))
            .expect("describe stream"),
    );
    out["StreamDescription"]["Shards"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn iterator(
    engine: &Engine,
    arn: &str,
    shard: &str,
    kind: &str,
    seq: Option<&str>,
) -> Result<String, EngineError> {
    let mut req = json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": kind});
    if let Some(seq) = seq {
        req["SequenceNumber"] = json!(seq);
    }
    engine
        .get_shard_iterator(input(req))
        .map(|o| o.shard_iterator)
}

fn records(engine: &Engine, iterator: &str) -> Result<(Vec<Value>, Option<String>), EngineError> {
    let out = engine.get_records(
        &RequestContext::default(),
        input(json!({"ShardIterator": iterator})),
    )?;
    let next = out.next_shard_iterator.clone();
    let out = to_json(out);
    Ok((out["Records"].as_array().cloned().unwrap_or_default(), next))
}

/// Every record of the stream, shard after shard (parents first), each shard from its
/// trim horizon to its end (a closed shard) or to the present (the open one).
fn all_records(engine: &Engine, arn: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for shard in shards(engine, arn) {
        let id = shard["ShardId"].as_str().expect("id");
        let mut it = Some(iterator(engine, arn, id, "TRIM_HORIZON", None).expect("iterator"));
        while let Some(current) = it.take() {
            let (got, next) = records(engine, &current).expect("records");
            let empty = got.is_empty();
            out.extend(got);
            if !empty {
                it = next;
            }
        }
    }
    out
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Every shard's records, shards in DescribeStream's order (parents before children), with
/// the shard each came from.
fn records_by_shard(engine: &Engine, arn: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for shard in shards(engine, arn) {
        let id = shard["ShardId"].as_str().expect("id").to_owned();
        let mut it = Some(iterator(engine, arn, &id, "TRIM_HORIZON", None).expect("iterator"));
        while let Some(current) = it.take() {
            let (got, next) = records(engine, &current).expect("records");
            let empty = got.is_empty();
            out.extend(got.into_iter().map(|r| (id.clone(), r)));
            if !empty {
                it = next;
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_of_one_item_stay_in_one_shard_in_order_across_splits() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let engine = engine_with(
        clock.clone(),
        ShardShape {
            initial: 4,
            split_after_records: 40,
            max_open: 8,
            max_age_ms: SHARD_AGE_MS,
        },
    );
    let spec =
        json!({"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}});
    create(&engine, spec).await;
    let arn = stream_arn(&engine);
    let first = shards(&engine, &arn);
    assert_eq!(first.len(), 4, "a new stream has four open shards");
    assert!(first.iter().all(|s| s.get("ParentShardId").is_none()));

    // 60 items written 5 times each, round-robin: 300 records, enough to split.
    for version in 1..=5 {
        for key in 0..60 {
            put(
                &engine,
                json!({"pk": {"S": format!("item-{key}")}, "v": {"N": version.to_string()}}),
            )
            .await;
        }
    }
    let all = shards(&engine, &arn);
    let open: Vec<&Value> = all
        .iter()
        .filter(|s| {
            s["SequenceNumberRange"]
                .get("EndingSequenceNumber")
                .is_none()
        })
        .collect();
    assert_eq!(open.len(), 8, "splits stop at the open limit: {all:#?}");
    // Lineage: every parent is listed before its children; a split parent has two.
    let mut split_parents = 0;
    for (i, shard) in all.iter().enumerate() {
        let Some(parent) = shard.get("ParentShardId") else {
            continue;
        };
        assert!(all[..i].iter().any(|s| &s["ShardId"] == parent));
        let siblings = all
            .iter()
            .filter(|s| s.get("ParentShardId") == Some(parent))
            .count();
        assert!(siblings == 1 || siblings == 2, "{siblings} children");
        if siblings == 2 {
            split_parents += 1;
        }
    }
    assert!(split_parents >= 4, "the four first shards split: {all:#?}");

    // Each item's records: one shard at a time, versions 1..=5 in order.
    let read = records_by_shard(&engine, &arn);
    assert_eq!(read.len(), 300);
    let mut per_item: std::collections::BTreeMap<String, Vec<(String, i64)>> = Default::default();
    for (shard, record) in &read {
        let key = record["dynamodb"]["Keys"]["pk"]["S"]
            .as_str()
            .expect("pk")
            .to_owned();
        let v = record["dynamodb"]["NewImage"]["v"]["N"]
            .as_str()
            .expect("v");
        per_item
            .entry(key)
            .or_default()
            .push((shard.clone(), v.parse().expect("number")));
    }
    assert_eq!(per_item.len(), 60);
    let mut shards_used = std::collections::BTreeSet::new();
    for (key, seen) in &per_item {
        let versions: Vec<i64> = seen.iter().map(|(_, v)| *v).collect();
        assert_eq!(versions, [1, 2, 3, 4, 5], "{key}");
        // Shards an item's records went to: a chain of one lineage (parent, then child).
        for pair in seen.windows(2) {
            if pair[0].0 != pair[1].0 {
                let child = all
                    .iter()
                    .find(|s| s["ShardId"] == json!(pair[1].0))
                    .expect("child");
                assert_eq!(
                    child["ParentShardId"],
                    json!(pair[0].0),
                    "{key} skipped a generation"
                );
            }
        }
        shards_used.insert(seen[0].0.clone());
    }
    assert_eq!(
        shards_used.len(),
        4,
        "items spread over the four first shards"
    );
    // Sequence numbers grow within every shard.
    for shard in &all {
        let id = shard["ShardId"].as_str().expect("id");
        let seqs: Vec<u128> = read
            .iter()
            .filter(|(s, _)| s == id)
            .map(|(_, r)| {
                r["dynamodb"]["SequenceNumber"]
                    .as_str()
                    .expect("seq")
                    .parse()
                    .expect("n")
            })
            .collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{id}: {seqs:?}");
    }

    // After 24 hours the closed shards are gone and the open ones are empty.
    clock.advance_ms(24 * 3600 * 1000 + 1);
    wait_until("the trim", || shards(&engine, &arn).len() == 8);
    assert!(records_by_shard(&engine, &arn).is_empty());
    // The next write rolls the day-old open shards over; the sweeper forgets the empty
    // parents (the test waits for that, so that no shard goes between its calls).
    put(&engine, json!({"pk": {"S": "item-0"}})).await;
    wait_until("the empty parents forgotten", || {
        shards(&engine, &arn).iter().all(|s| {
            s["SequenceNumberRange"]
                .get("EndingSequenceNumber")
                .is_none()
        })
    });
    assert_eq!(shards(&engine, &arn).len(), 8);
    assert_eq!(records_by_shard(&engine, &arn).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_records_shards_expiry_and_trimming() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let engine = engine(clock.clone());
    let spec = json!({"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}});
    create(&engine, spec).await;
    let described = to_json(
        engine
            .describe_table(
                &RequestContext::default(),
                input(json!({"TableName": "Tbl"})),
            )
            .await
            .expect("describe"),
    );
    assert_eq!(
        described["Table"]["StreamSpecification"],
        json!({"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    );
    let arn = stream_arn(&engine);
    assert_eq!(described["Table"]["LatestStreamArn"], json!(arn));
    assert!(arn.ends_with("/stream/2027-01-15T08:00:00.000"), "{arn}");

    put(&engine, json!({"pk": {"S": "a"}, "v": {"N": "1"}})).await;
    put(&engine, json!({"pk": {"S": "a"}, "v": {"N": "2"}})).await;
    put(&engine, json!({"pk": {"S": "a"}, "v": {"N": "2"}})).await; // no change: no record
    engine
        .delete_item(input(
            json!({"TableName": "Tbl", "Key": {"pk": {"S": "a"}}}),
        ))
        .await
        .expect("delete");
    engine
        .delete_item(input(
            json!({"TableName": "Tbl", "Key": {"pk": {"S": "zz"}}}),
        ))
        .await
        .expect("delete nothing"); // no record either

    let first = shards(&engine, &arn);
    assert_eq!(first.len(), 1);
    let shard0 = first[0]["ShardId"].as_str().expect("id").to_owned();
    assert!(
        first[0]["SequenceNumberRange"]
            .get("EndingSequenceNumber")
            .is_none()
    );
    let it = iterator(&engine, &arn, &shard0, "TRIM_HORIZON", None).expect("iterator");
    let (got, next) = records(&engine, &it).expect("records");
    let names: Vec<&str> = got
        .iter()
        .map(|r| r["eventName"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["INSERT", "MODIFY", "REMOVE"]);
    assert_eq!(got[0]["dynamodb"]["NewImage"]["v"], json!({"N": "1"}));
    assert!(got[0]["dynamodb"].get("OldImage").is_none());
    assert_eq!(got[1]["dynamodb"]["OldImage"]["v"], json!({"N": "1"}));
    assert_eq!(got[1]["dynamodb"]["NewImage"]["v"], json!({"N": "2"}));
    assert_eq!(got[2]["dynamodb"]["Keys"], json!({"pk": {"S": "a"}}));
    assert!(got[2]["dynamodb"].get("NewImage").is_none());
    assert_eq!(got[0]["eventSource"], "aws:dynamodb");
    assert_eq!(got[0]["eventVersion"], "1.1");
    assert!(got.iter().all(|r| r.get("userIdentity").is_none()));
    let seqs: Vec<&str> = got
        .iter()
        .map(|r| r["dynamodb"]["SequenceNumber"].as_str().expect("seq"))
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let next = next.expect("an open shard has a next iterator");
    assert!(records(&engine, &next).expect("empty read").0.is_empty());

    // AT and AFTER a sequence number.
    let at = iterator(&engine, &arn, &shard0, "AT_SEQUENCE_NUMBER", Some(seqs[1])).expect("at");
    assert_eq!(records(&engine, &at).expect("at").0.len(), 2);
    let after = iterator(
        &engine,
        &arn,
        &shard0,
        "AFTER_SEQUENCE_NUMBER",
        Some(seqs[1]),
    )
    .expect("after");
    assert_eq!(records(&engine, &after).expect("after").0.len(), 1);
    let latest = iterator(&engine, &arn, &shard0, "LATEST", None).expect("latest");

    // The shard rolls over once older than its age limit; the child names its parent.
    clock.advance_ms(SHARD_AGE_MS);
    put(&engine, json!({"pk": {"S": "b"}})).await;
    let both = shards(&engine, &arn);
    assert_eq!(both.len(), 2);
    assert_eq!(both[1]["ParentShardId"], json!(shard0));
    assert!(
        both[0]["SequenceNumberRange"]
            .get("EndingSequenceNumber")
            .is_some()
    );
    // ShardFilter CHILD_SHARDS lists the children of a shard only.
    let children = |of: &Value| {
        let out = to_json(
            engine
                .describe_stream(
                    &RequestContext::default(),
                    input(json!({"StreamArn": arn,
                        "ShardFilter": {"Type": "CHILD_SHARDS", "ShardId": of}})),
                )
                .expect("describe stream with a filter"),
        );
        out["StreamDescription"]["Shards"].clone()
    };
    assert_eq!(children(&json!(shard0)), json!([both[1].clone()]));
    assert_eq!(
        children(&both[1]["ShardId"]),
        json!([]),
        "an open shard has none"
    );
    let err = engine
        .describe_stream(
            &RequestContext::default(),
            input(json!({"StreamArn": arn, "ShardFilter": {"Type": "PARENT", "ShardId": shard0}})),
        )
        .unwrap_err();
    assert!(err.to_string().contains("shardFilter.type"), "{err}");
    // A reader at the end of the closed parent gets no next iterator and moves on.
    let (nothing, next) = records(&engine, &latest).expect("latest");
    assert!(nothing.is_empty());
    assert!(next.is_none(), "a finished closed shard ends the chain");
    let child = both[1]["ShardId"].as_str().expect("id");
    let it = iterator(&engine, &arn, child, "TRIM_HORIZON", None).expect("child");
    let (got, _) = records(&engine, &it).expect("child records");
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["dynamodb"]["Keys"], json!({"pk": {"S": "b"}}));

    // Iterators expire after 15 minutes.
    clock.advance_ms(15 * 60 * 1000 + 1);
    assert!(matches!(
        records(&engine, &it),
        Err(EngineError::ExpiredIterator(_))
    ));

    // After 24 hours the records are trimmed.
    let old = iterator(&engine, &arn, child, "TRIM_HORIZON", None).expect("fresh");
    clock.advance_ms(24 * 3600 * 1000);
    wait_until("the trim", || shards(&engine, &arn).len() == 1);
    let (got, _) = records(
        &engine,
        &iterator(&engine, &arn, child, "TRIM_HORIZON", None).expect("it"),
    )
    .expect("after trim");
    assert!(got.is_empty());
    let _ = old; // issued before the trim and now too old anyway
    assert!(matches!(
        iterator(&engine, &arn, child, "AT_SEQUENCE_NUMBER", Some(seqs[0])),
        Err(EngineError::Validation(_)) | Err(EngineError::TrimmedDataAccess(_))
    ));

    // Disable: DescribeTable keeps the latest ARN but no specification; re-enabling
    // starts a new stream.
    let disable = json!({"TableName": "Tbl", "StreamSpecification": {"StreamEnabled": false}});
    engine
        .update_table(&RequestContext::default(), input(disable.clone()))
        .await
        .expect("disable");
    let err = engine
        .update_table(&RequestContext::default(), input(disable))
        .await
        .expect_err("disable twice");
    assert_eq!(
        err.to_string(),
        "Table has no stream to disable: TableName: Tbl"
    );
    let described = to_json(
        engine
            .describe_table(
                &RequestContext::default(),
                input(json!({"TableName": "Tbl"})),
            )
            .await
            .expect("describe"),
    );
    assert!(described["Table"].get("StreamSpecification").is_none());
    assert_eq!(described["Table"]["LatestStreamArn"], json!(arn));
    let status = to_json(
        engine
            .describe_stream(&RequestContext::default(), input(json!({"StreamArn": arn})))
            .expect("describe"),
    );
    assert_eq!(status["StreamDescription"]["StreamStatus"], "DISABLED");
    // Re-enabled in the same millisecond: still a new stream with its own ARN.
    let enable = json!({"TableName": "Tbl", "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}});
    engine
        .update_table(&RequestContext::default(), input(enable.clone()))
        .await
        .expect("enable");
    let err = engine
        .update_table(&RequestContext::default(), input(enable))
        .await
        .expect_err("enable twice");
    assert_eq!(
        err.to_string(),
        "Table already has an enabled stream: TableName: Tbl"
    );
    let listed = to_json(
        engine
            .list_streams(
                &RequestContext::default(),
                input(json!({"TableName": "Tbl"})),
            )
            .expect("list"),
    );
    let arns: Vec<&str> = listed["Streams"]
        .as_array()
        .expect("streams")
        .iter()
        .map(|s| s["StreamArn"].as_str().expect("arn"))
        .collect();
    assert_eq!(arns.len(), 2);
    assert_ne!(arns[0], arns[1], "each stream has its own ARN");
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttl_deletes_due_items_only() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let engine = engine(clock.clone());
    let extra = json!({
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        "GlobalSecondaryIndexes": [{
            "IndexName": "byG",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }],
        "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "OLD_IMAGE"},
    });
    create(&engine, extra).await;
    let now_s = START_MS / 1000;
    // An item written before TTL was enabled must be found too.
    put(
        &engine,
        json!({"pk": {"S": "before"}, "g": {"S": "x"}, "exp": {"N": (now_s - 10).to_string()}}),
    )
    .await;
    let enable = json!({"TableName": "Tbl", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "exp"}});
    let out = to_json(
        engine
            .update_time_to_live(input(enable.clone()))
            .await
            .expect("enable"),
    );
    assert_eq!(
        out["TimeToLiveSpecification"],
        json!({"Enabled": true, "AttributeName": "exp"})
    );
    let err = engine
        .update_time_to_live(input(enable))
        .await
        .expect_err("twice");
    assert_eq!(err.to_string(), "TimeToLive is already enabled");
    // One change an hour.
    let too_soon = json!({"TableName": "Tbl", "TimeToLiveSpecification": {"Enabled": false, "AttributeName": "exp"}});
    let err = engine
        .update_time_to_live(input(too_soon))
        .await
        .expect_err("too soon");
    assert_eq!(
        err.to_string(),
        "Time to live has been modified multiple times within a fixed interval"
    );
    let described = to_json(
        engine
            .describe_time_to_live(input(json!({"TableName": "Tbl"})))
            .expect("describe"),
    );
    assert_eq!(
        described["TimeToLiveDescription"],
        json!({"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"})
    );
    let items = [
        ("past", json!({"N": (now_s - 100).to_string()})),
        ("future", json!({"N": (now_s + 3600).to_string()})),
        ("text", json!({"S": (now_s - 100).to_string()})),
        (
            "ancient",
            json!({"N": (now_s - 6 * 365 * 86_400).to_string()}),
        ),
        ("nested", json!({"M": {"exp": {"N": "1"}}})),
    ];
    for (pk, exp) in &items {
        put(
            &engine,
            json!({"pk": {"S": pk}, "g": {"S": "x"}, "exp": exp}),
        )
        .await;
    }
    put(&engine, json!({"pk": {"S": "none"}, "g": {"S": "x"}})).await;
    let present = |pk: &str| {
        engine
            .get_item(input(json!({"TableName": "Tbl", "Key": {"pk": {"S": pk}}})))
            .expect("get")
            .item
            .is_some()
    };
    wait_until("expiry", || !present("past") && !present("before"));
    for pk in ["future", "text", "ancient", "nested", "none"] {
        assert!(present(pk), "{pk} must stay");
    }
    // The GSI lost the expired items with them.
    let scanned = to_json(
        engine
            .scan(input(json!({"TableName": "Tbl", "IndexName": "byG"})))
            .expect("scan"),
    );
    assert_eq!(scanned["Count"], 5);
    // Time passes: the future item expires too.
    clock.advance_ms(3601 * 1000);
    wait_until("the future item", || !present("future"));
    // The stream says the TTL service deleted them.
    let arn = stream_arn(&engine);
    let got = all_records(&engine, &arn);
    let removes: Vec<&Value> = got.iter().filter(|r| r["eventName"] == "REMOVE").collect();
    assert_eq!(removes.len(), 3);
    for r in removes {
        assert_eq!(
            r["userIdentity"],
            json!({"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"})
        );
        assert!(r["dynamodb"]["OldImage"]["exp"].get("N").is_some());
    }
    // The attribute is checked before the one-change-an-hour rule.
    let disable = json!({"TableName": "Tbl", "TimeToLiveSpecification": {"Enabled": false, "AttributeName": "exp"}});
    let other = json!({"TableName": "Tbl", "TimeToLiveSpecification": {"Enabled": false, "AttributeName": "other"}});
    let err = engine
        .update_time_to_live(input(other))
        .await
        .expect_err("other attribute");
    assert_eq!(
        err.to_string(),
        "TimeToLive is active on a different AttributeName: current AttributeName is exp"
    );
    engine
        .update_time_to_live(input(disable))
        .await
        .expect("disable");
    let described = to_json(
        engine
            .describe_time_to_live(input(json!({"TableName": "Tbl"})))
            .expect("describe"),
    );
    assert_eq!(
        described["TimeToLiveDescription"],
        json!({"TimeToLiveStatus": "DISABLED"})
    );
    engine.shutdown();
}

/// Shard iterators are signed with a key of the data directory's own: one survives a
/// restart (as it would a DynamoDB failover), and another data directory's engine, with
/// the same stream, shard and position, refuses it (ValidationException). An iterator of
/// the unsigned version 1, held across an upgrade, is told it expired.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iterators_are_signed_by_their_data_directory_and_survive_a_restart() {
    let spec =
        json!({"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}});
    let open = |dir: &std::path::Path| Engine::open(dir).expect("open");
    let first_dir = tempfile::tempdir().expect("tempdir");
    let engine = open(first_dir.path());
    create(&engine, spec.clone()).await;
    put(&engine, json!({"pk": {"S": "a"}})).await;
    let arn = stream_arn(&engine);
    let issued: Vec<String> = shards(&engine, &arn)
        .iter()
        .map(|shard| {
            let id = shard["ShardId"].as_str().expect("id");
            iterator(&engine, &arn, id, "TRIM_HORIZON", None).expect("iterator")
        })
        .collect();
    engine.shutdown();
    drop(engine);

    let engine = open(first_dir.path());
    let read: usize = issued
        .iter()
        .map(|it| {
            records(&engine, it)
                .expect("the iterator outlives the restart")
                .0
                .len()
        })
        .sum();
    assert_eq!(
        read, 1,
        "the one record, through iterators issued before the restart"
    );
    engine.shutdown();
    drop(engine);

    // The same stream id, shards and positions in another data directory.
    let other_dir = tempfile::tempdir().expect("tempdir");
    let other = open(other_dir.path());
    create(&other, spec).await;
    put(&other, json!({"pk": {"S": "a"}})).await;
    for it in &issued {
        match records(&other, it) {
            Err(EngineError::Validation(message)) => {
                assert_eq!(message, "Invalid ShardIterator")
            }
            other => panic!("expected ValidationException, got {other:?}"),
        }
    }
    let version_1 = format!("01{}", "0a".repeat(32));
    match records(&other, &version_1) {
        Err(EngineError::ExpiredIterator(_)) => {}
        other => panic!("expected ExpiredIteratorException, got {other:?}"),
    }
    other.shutdown();
}
