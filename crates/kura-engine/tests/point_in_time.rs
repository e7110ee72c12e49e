//! Backups and point-in-time restores against a recorded history of writes: a table with
//! a GSI takes random puts, updates and deletes while a clock the test moves ticks one
//! second per step; restoring to every recorded second must give exactly the table as it
//! was then, index included. Also: a backup is the table at its moment whatever happens
//! after, it outlives its table, retention drops history nobody can restore to, and a
//! deleted table with point-in-time recovery leaves a SYSTEM backup.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kura_engine::clock::ManualClock;
use kura_engine::storage::MemoryStore;
use kura_engine::{Engine, EngineError, EngineOptions, RequestContext};
use serde_json::{Value, json};

const START_MS: i64 = 1_800_000_000_000;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

fn to_json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).expect("json")
}

fn ctx() -> RequestContext {
    RequestContext::default()
}

fn engine(clock: Arc<ManualClock>) -> Arc<Engine> {
    let options = EngineOptions {
        clock,
        sweep_interval: Duration::from_secs(3600),
        ..EngineOptions::default()
    };
    Engine::with_options(Arc::new(MemoryStore::new()), options).expect("open")
}

async fn create(engine: &Engine, name: &str) {
    engine
        .create_table(
            &ctx(),
            input(json!({
                "TableName": name,
                "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [
                    {"AttributeName": "pk", "AttributeType": "S"},
                    {"AttributeName": "sk", "AttributeType": "N"},
                    {"AttributeName": "g", "AttributeType": "S"},
                ],
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "sk", "KeyType": "RANGE"},
                ],
                "GlobalSecondaryIndexes": [{
                    "IndexName": "byG",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }],
            })),
        )
        .await
        .expect("create");
}

/// Items keyed by their key's JSON.
type Rows = BTreeMap<String, Value>;

/// Every item of `table`, keyed by its JSON key, by a paged Scan.
fn scan_all(engine: &Engine, table: &str, index: Option<&str>) -> Rows {
    let mut out = BTreeMap::new();
    let mut start: Option<Value> = None;
    loop {
        let mut req = json!({"TableName": table, "Limit": 7});
        if let Some(index) = index {
            req["IndexName"] = json!(index);
        }
        if let Some(start) = start.take() {
            req["ExclusiveStartKey"] = start;
        }
        let page = to_json(engine.scan(input(req)).expect("scan"));
        for item in page["Items"].as_array().expect("items") {
            let key = format!("{}/{}", item["pk"], item["sk"]);
            out.insert(key, item.clone());
        }
        match page.get("LastEvaluatedKey") {
            Some(k) => start = Some(k.clone()),
            None => return out,
        }
    }
}

async fn wait_active(engine: &Engine, table: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let d = to_json(
            engine
                .describe_table(&ctx(), input(json!({"TableName": table})))
                .await
                .expect("describe"),
        );
        if d["Table"]["TableStatus"] == "ACTIVE" {
            assert!(d["Table"].get("RestoreSummary").is_none(), "{d}");
            return;
        }
        assert!(Instant::now() < deadline, "restore did not finish: {d}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn enable_pitr(engine: &Engine, table: &str) -> Value {
    to_json(
        engine
            .update_continuous_backups(input(json!({
                "TableName": table,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true},
            })))
            .await
            .expect("enable pitr"),
    )
}

/// A small deterministic generator, so a failure names its seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restore_to_every_second_equals_the_recorded_table() {
    // Several histories; KURA_PITR_SEEDS runs more (the long form).
    let seeds: u64 = std::env::var("KURA_PITR_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    for n in 0..seeds {
        restore_every_second(0x9e37_79b9_7f4a_7c15_u64 ^ (START_MS as u64) ^ (n << 32)).await;
    }
}

async fn restore_every_second(seed: u64) {
    let clock = Arc::new(ManualClock::new(START_MS));
    let engine = engine(clock.clone());
    create(&engine, "Src").await;
    // Writes before PITR: the restore's base must include them.
    for i in 0..5 {
        engine
            .put_item(input(json!({"TableName": "Src", "Item": {
                "pk": {"S": format!("p{i}")}, "sk": {"N": "0"}, "g": {"S": "early"}}})))
            .await
            .expect("put");
    }
    clock.advance_ms(1000);
    let enabled = enable_pitr(&engine, "Src").await;
    let pitr = &enabled["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"];
    assert_eq!(pitr["PointInTimeRecoveryStatus"], "ENABLED");
    assert_eq!(pitr["RecoveryPeriodInDays"], 35);

    let mut rng = Rng(seed);
    let mut recorded: Vec<(i64, Rows, Rows)> = Vec::new();
    for step in 0..40 {
        clock.advance_ms(1000);
        for _ in 0..(1 + rng.next(6)) {
            let pk = format!("p{}", rng.next(8));
            let sk = rng.next(3).to_string();
            let key = json!({"pk": {"S": pk}, "sk": {"N": sk}});
            match rng.next(4) {
                0 | 1 => {
                    let mut item = key.clone();
                    item["g"] = json!({"S": format!("g{}", rng.next(3))});
                    item["v"] = json!({"N": step.to_string()});
                    engine
                        .put_item(input(json!({"TableName": "Src", "Item": item})))
                        .await
                        .expect("put");
                }
                2 => {
                    engine
                        .update_item(input(json!({"TableName": "Src", "Key": key,
                            "UpdateExpression": "ADD n :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}})))
                        .await
                        .expect("update");
                }
                _ => {
                    engine
                        .delete_item(input(json!({"TableName": "Src", "Key": key})))
                        .await
                        .expect("delete");
                }
            }
        }
        recorded.push((
            kura_engine::clock::Clock::now_ms(clock.as_ref()),
            scan_all(&engine, "Src", None),
            scan_all(&engine, "Src", Some("byG")),
        ));
    }
    for (i, (at_ms, table, index)) in recorded.iter().enumerate().step_by(3) {
        let target = format!("At{i}");
        let out = to_json(
            engine
                .restore_table_to_point_in_time(
                    &ctx(),
                    input(json!({"SourceTableName": "Src", "TargetTableName": target,
                        "RestoreDateTime": *at_ms as f64 / 1000.0})),
                )
                .await
                .expect("restore"),
        );
        let summary = &out["TableDescription"]["RestoreSummary"];
        assert_eq!(summary["RestoreInProgress"], true, "{out}");
        assert_eq!(out["TableDescription"]["TableStatus"], "CREATING");
        wait_active(&engine, &target).await;
        assert_eq!(
            &scan_all(&engine, &target, None),
            table,
            "seed {seed}, step {i}"
        );
        assert_eq!(
            &scan_all(&engine, &target, Some("byG")),
            index,
            "seed {seed}, step {i}"
        );
    }
    // The latest restorable time is now.
    engine
        .restore_table_to_point_in_time(
            &ctx(),
            input(
                json!({"SourceTableName": "Src", "TargetTableName": "Latest",
                "UseLatestRestorableTime": true}),
            ),
        )
        .await
        .expect("restore latest");
    wait_active(&engine, "Latest").await;
    assert_eq!(
        scan_all(&engine, "Latest", None),
        scan_all(&engine, "Src", None)
    );
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restore_time_outside_the_window_and_without_pitr_is_refused() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let engine = engine(clock.clone());
    create(&engine, "Src").await;
    let restore = |body: Value| {
        let engine = engine.clone();
        async move {
            engine
                .restore_table_to_point_in_time(&ctx(), input(body))
                .await
        }
    };
    let err = restore(json!({"SourceTableName": "Src", "TargetTableName": "Tgt",
        "UseLatestRestorableTime": true}))
    .await
    .expect_err("no pitr");
    assert!(
        matches!(err, EngineError::PointInTimeRecoveryUnavailable(_)),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "Point in time recovery is not enabled for table 'Src'"
    );
    enable_pitr(&engine, "Src").await;
    clock.advance_ms(10_000);
    let err = restore(json!({"SourceTableName": "Src", "TargetTableName": "Tgt",
        "RestoreDateTime": (START_MS - 5000) as f64 / 1000.0}))
    .await
    .expect_err("before the window");
    assert!(matches!(err, EngineError::InvalidRestoreTime(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "RestoreDateTime '2027-01-15T07:59:55Z' must be within EarliestRestorableDateTime '2027-01-15T08:00:00Z' and LatestRestorableDateTime '2027-01-15T08:00:10Z'"
    );
    let err = restore(json!({"SourceTableName": "Nope", "TargetTableName": "Tgt",
        "UseLatestRestorableTime": true}))
    .await
    .expect_err("no source");
    assert_eq!(err.to_string(), "Table not found: Nope");
    let err = restore(json!({"SourceTableName": "Src", "TargetTableName": "Src",
        "UseLatestRestorableTime": true}))
    .await
    .expect_err("target exists");
    assert!(matches!(err, EngineError::TableAlreadyExists(_)), "{err:?}");
    let err = restore(json!({"SourceTableName": "Src", "TargetTableName": "Tgt",
        "UseLatestRestorableTime": true, "RestoreDateTime": 1.0}))
    .await
    .expect_err("both times");
    assert!(
        err.to_string()
            .starts_with("Invalid Request: Both RestoreDateTime")
    );
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_is_its_moment_and_outlives_its_table() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let engine = engine(clock.clone());
    create(&engine, "Src").await;
    for i in 0..300 {
        engine
            .put_item(input(json!({"TableName": "Src", "Item": {
                "pk": {"S": format!("p{}", i % 17)}, "sk": {"N": i.to_string()},
                "g": {"S": format!("g{}", i % 3)}}})))
            .await
            .expect("put");
    }
    let before = scan_all(&engine, "Src", None);
    let created = to_json(
        engine
            .create_backup(
                &ctx(),
                input(json!({"TableName": "Src", "BackupName": "snap-1"})),
            )
            .await
            .expect("backup"),
    );
    let arn = created["BackupDetails"]["BackupArn"]
        .as_str()
        .expect("arn")
        .to_owned();
    assert!(arn.contains(":table/Src/backup/"), "{arn}");
    assert_eq!(created["BackupDetails"]["BackupType"], "USER");
    // Changes after the backup are not in it.
    for i in 0..100 {
        engine
            .delete_item(input(json!({"TableName": "Src", "Key": {
                "pk": {"S": format!("p{}", i % 17)}, "sk": {"N": i.to_string()}}})))
            .await
            .expect("delete");
    }
    engine
        .put_item(input(json!({"TableName": "Src", "Item": {
            "pk": {"S": "new"}, "sk": {"N": "1"}, "g": {"S": "x"}}})))
        .await
        .expect("put");
    assert!(engine.internals().history_count() > 0);
    let described = to_json(
        engine
            .describe_backup(&ctx(), input(json!({"BackupArn": arn})))
            .expect("describe backup"),
    );
    let d = &described["BackupDescription"];
    assert_eq!(d["BackupDetails"]["BackupStatus"], "AVAILABLE");
    assert_eq!(d["SourceTableDetails"]["ItemCount"], 300);
    assert_eq!(
        d["SourceTableFeatureDetails"]["GlobalSecondaryIndexes"][0]["IndexName"],
        "byG"
    );
    // The table goes; the backup still restores it.
    engine
        .delete_table(&ctx(), input(json!({"TableName": "Src"})))
        .await
        .expect("delete table");
    engine
        .restore_table_from_backup(
            &ctx(),
            input(json!({"TargetTableName": "Back", "BackupArn": arn})),
        )
        .await
        .expect("restore");
    wait_active(&engine, "Back").await;
    assert_eq!(scan_all(&engine, "Back", None), before);
    let index = scan_all(&engine, "Back", Some("byG"));
    assert_eq!(index.len(), 300);
    let described = to_json(
        engine
            .describe_table(&ctx(), input(json!({"TableName": "Back"})))
            .await
            .expect("describe"),
    );
    assert_eq!(described["Table"]["ItemCount"], 300);

    // Nothing is freed while the backup exists; once it is deleted, retention releases
    // the deleted table's items and history.
    tokio::task::block_in_place(|| engine.internals().run_retention()).expect("retention");
    assert!(engine.internals().history_count() > 0);
    let deleted = to_json(
        engine
            .delete_backup(&ctx(), input(json!({"BackupArn": arn})))
            .await
            .expect("delete backup"),
    );
    assert_eq!(
        deleted["BackupDescription"]["BackupDetails"]["BackupStatus"],
        "DELETED"
    );
    let err = engine
        .describe_backup(&ctx(), input(json!({"BackupArn": arn})))
        .expect_err("gone");
    assert!(matches!(err, EngineError::BackupNotFound(_)), "{err:?}");
    tokio::task::block_in_place(|| engine.internals().run_retention()).expect("retention");
    let deadline = Instant::now() + Duration::from_secs(10);
    while engine.internals().history_count() > 0 || engine.internals().item_count() > 300 {
        assert!(Instant::now() < deadline, "retired table not purged");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_stops_when_nothing_needs_it() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let engine = engine(clock.clone());
    // The sweeper's first pass runs retention too: let it end before the test's passes,
    // or it may stop the history between the test's steps (the next one is an hour off).
    assert!(tokio::task::block_in_place(|| engine
        .internals()
        .sweep_now()));
    create(&engine, "Src").await;
    enable_pitr(&engine, "Src").await;
    for i in 0..10 {
        engine
            .put_item(input(json!({"TableName": "Src", "Item": {
                "pk": {"S": "a"}, "sk": {"N": i.to_string()}, "g": {"S": "g"}}})))
            .await
            .expect("put");
    }
    assert_eq!(engine.internals().history_count(), 10);
    // Entries older than the recovery window go.
    clock.advance_ms(36 * 86_400_000);
    tokio::task::block_in_place(|| engine.internals().run_retention()).expect("retention");
    assert_eq!(engine.internals().history_count(), 0);
    engine
        .update_continuous_backups(input(json!({"TableName": "Src",
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": false}})))
        .await
        .expect("disable");
    engine
        .put_item(input(json!({"TableName": "Src", "Item": {
            "pk": {"S": "b"}, "sk": {"N": "1"}, "g": {"S": "g"}}})))
        .await
        .expect("put");
    assert_eq!(engine.internals().history_count(), 1);
    tokio::task::block_in_place(|| engine.internals().run_retention()).expect("retention");
    assert_eq!(engine.internals().history_count(), 0);
    // No longer recorded.
    engine
        .put_item(input(json!({"TableName": "Src", "Item": {
            "pk": {"S": "b"}, "sk": {"N": "2"}, "g": {"S": "g"}}})))
        .await
        .expect("put");
    assert_eq!(engine.internals().history_count(), 0);
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_table_with_pitr_leaves_a_system_backup() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let engine = engine(clock.clone());
    create(&engine, "Src").await;
    enable_pitr(&engine, "Src").await;
    engine
        .put_item(input(json!({"TableName": "Src", "Item": {
            "pk": {"S": "a"}, "sk": {"N": "1"}, "g": {"S": "g"}}})))
        .await
        .expect("put");
    clock.advance_ms(2000);
    engine
        .delete_table(&ctx(), input(json!({"TableName": "Src"})))
        .await
        .expect("delete");
    let user = to_json(engine.list_backups(&ctx(), input(json!({}))).expect("list"));
    assert_eq!(user["BackupSummaries"], json!([]));
    let system = to_json(
        engine
            .list_backups(&ctx(), input(json!({"BackupType": "SYSTEM"})))
            .expect("list"),
    );
    let backup = &system["BackupSummaries"][0];
    assert_eq!(backup["BackupName"], "Src$DeletedTableBackup");
    assert!(
        backup["BackupArn"]
            .as_str()
            .expect("arn")
            .ends_with("-00000000")
    );
    assert_eq!(
        backup["BackupExpiryDateTime"].as_f64().expect("expiry"),
        (START_MS + 2000 + 35 * 86_400_000) as f64 / 1000.0
    );
    let err = engine
        .delete_backup(&ctx(), input(json!({"BackupArn": backup["BackupArn"]})))
        .await
        .expect_err("system backups are not deleted by users");
    assert!(
        err.to_string()
            .starts_with("Invalid Request: User is not allowed to delete the system backup")
    );
    // The deleted table restores to a point in time by its ARN.
    engine
        .restore_table_to_point_in_time(
            &ctx(),
            input(
                json!({"SourceTableArn": ctx().table_arn("Src"), "TargetTableName": "Again",
                "UseLatestRestorableTime": true}),
            ),
        )
        .await
        .expect("restore deleted");
    wait_active(&engine, "Again").await;
    assert_eq!(scan_all(&engine, "Again", None).len(), 1);
    engine.shutdown();
}
