//! The backup and point-in-time recovery requests (UpdateContinuousBackups,
//! DescribeContinuousBackups, CreateBackup, DescribeBackup, ListBackups, DeleteBackup,
//! RestoreTableFromBackup, RestoreTableToPointInTime) run against a live in-memory engine
//! whose table has PITR, items and a backup: every input gets an answer or an error, never
//! a panic, and a restore it accepts ends ACTIVE with the source's items.
#![no_main]
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use kura_engine::api::*;
use kura_engine::{Engine, RequestContext};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

const ITEMS: u64 = 5;

struct World {
    rt: tokio::runtime::Runtime,
    engine: Arc<Engine>,
    backup_arn: String,
}

static WORLD: LazyLock<World> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let engine = Engine::in_memory();
    let ctx = RequestContext::default();
    let backup_arn = rt.block_on(async {
        let create: CreateTableInput = serde_json::from_value(json!({
            "TableName": "Base", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}))
        .expect("create request");
        engine.create_table(&ctx, create).await.expect("base table");
        let pitr: UpdateContinuousBackupsInput = serde_json::from_value(json!({
            "TableName": "Base",
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}))
        .expect("pitr request");
        engine.update_continuous_backups(pitr).await.expect("pitr");
        for i in 0..ITEMS {
            let put: PutItemInput = serde_json::from_value(json!({
                "TableName": "Base", "Item": {"pk": {"S": format!("k{i}")}}}))
            .expect("put request");
            engine.put_item(put).await.expect("put");
        }
        let backup: CreateBackupInput =
            serde_json::from_value(json!({"TableName": "Base", "BackupName": "seed"}))
                .expect("backup request");
        engine
            .create_backup(&ctx, backup)
            .await
            .expect("backup")
            .backup_details
            .backup_arn
    });
    World {
        rt,
        engine,
        backup_arn,
    }
});

/// Waits for a restore the engine accepted, checks it, and deletes the table.
fn settle(world: &World, target: &str) {
    let ctx = RequestContext::default();
    let named = || TableNameInput {
        table_name: Some(target.to_owned()),
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let table = world
            .rt
            .block_on(world.engine.describe_table(&ctx, named()))
            .expect("a restored table describes")
            .table;
        if table.table_status == "ACTIVE" {
            assert_eq!(table.item_count, ITEMS, "a restore holds the source's items");
            break;
        }
        assert!(Instant::now() < deadline, "a restore did not finish");
        std::thread::sleep(Duration::from_millis(1));
    }
    world
        .rt
        .block_on(world.engine.delete_table(&ctx, named()))
        .expect("a restored table deletes");
}

fuzz_target!(|data: &[u8]| {
    let world = &*WORLD;
    let (rt, engine) = (&world.rt, &world.engine);
    let ctx = RequestContext::default();
    if let Ok(mut input) = serde_json::from_slice::<UpdateContinuousBackupsInput>(data) {
        input.table_name = Some("Base".into());
        // Keep PITR on: the restores below need it.
        if let Some(spec) = input.point_in_time_recovery_specification.as_mut() {
            spec.point_in_time_recovery_enabled = Some(true);
        }
        let _ = rt.block_on(engine.update_continuous_backups(input));
    }
    if let Ok(input) = serde_json::from_slice::<DescribeContinuousBackupsInput>(data) {
        let _ = engine.describe_continuous_backups(input);
    }
    if let Ok(mut input) = serde_json::from_slice::<CreateBackupInput>(data) {
        input.table_name = Some("Base".into());
        if let Ok(out) = rt.block_on(engine.create_backup(&ctx, input)) {
            let delete = BackupArnInput {
                backup_arn: Some(out.backup_details.backup_arn),
            };
            rt.block_on(engine.delete_backup(&ctx, delete))
                .expect("a new backup deletes");
        }
    }
    if let Ok(input) = serde_json::from_slice::<BackupArnInput>(data) {
        let _ = engine.describe_backup(&ctx, input);
    }
    if let Ok(input) = serde_json::from_slice::<ListBackupsInput>(data) {
        let _ = engine.list_backups(&ctx, input);
    }
    if let Ok(mut input) = serde_json::from_slice::<RestoreTableFromBackupInput>(data) {
        input.target_table_name = Some("FromBackup".into());
        input.backup_arn = Some(world.backup_arn.clone());
        if rt.block_on(engine.restore_table_from_backup(&ctx, input)).is_ok() {
            settle(world, "FromBackup");
        }
    }
    if let Ok(mut input) = serde_json::from_slice::<RestoreTableToPointInTimeInput>(data) {
        input.target_table_name = Some("AtTime".into());
        input.source_table_arn = None;
        input.source_table_name = Some("Base".into());
        if rt.block_on(engine.restore_table_to_point_in_time(&ctx, input)).is_ok() {
            settle(world, "AtTime");
        }
    }
});
