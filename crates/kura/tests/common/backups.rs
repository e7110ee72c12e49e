//! Backups and point-in-time recovery through aws-sdk-dynamodb: every operation, its
//! answer's shape, paging and filters, restores that equal their source, and the errors
//! with DynamoDB's types and texts.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::primitives::DateTime;
use aws_sdk_dynamodb::types::{
    AttributeValue, BackupTypeFilter, BillingMode, PointInTimeRecoverySpecification,
    ScalarAttributeType, TableStatus,
};

use super::{code, create_table, message};

/// Every item of `table`, keyed by `pk`.
async fn items(client: &Client, table: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut pages = client
        .scan()
        .table_name(table)
        .limit(13)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        for item in page.expect("scan").items() {
            let pk = item["pk"].as_s().expect("pk").clone();
            let v = item
                .get("v")
                .and_then(|v| v.as_n().ok())
                .cloned()
                .unwrap_or_default();
            out.insert(pk, v);
        }
    }
    out
}

async fn put(client: &Client, table: &str, pk: &str, v: i64) {
    client
        .put_item()
        .table_name(table)
        .item("pk", AttributeValue::S(pk.to_owned()))
        .item("v", AttributeValue::N(v.to_string()))
        .send()
        .await
        .expect("put");
}

/// Turns point-in-time recovery on for `table`.
pub async fn enable_pitr(client: &Client, table: &str) {
    client
        .update_continuous_backups()
        .table_name(table)
        .point_in_time_recovery_specification(
            PointInTimeRecoverySpecification::builder()
                .point_in_time_recovery_enabled(true)
                .build()
                .expect("spec"),
        )
        .send()
        .await
        .expect("enable point-in-time recovery");
}

/// Waits until a restored table is ACTIVE.
pub async fn wait_active(client: &Client, table: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let t = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .expect("describe");
        let t = t.table().expect("table");
        if t.table_status() == Some(&TableStatus::Active) {
            assert!(
                t.restore_summary().is_none(),
                "RestoreSummary only while CREATING"
            );
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{table} stayed {:?}",
            t.table_status()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// On-demand backups: create, describe, list with filters and paging, restore with an
/// override, delete; the errors of each.
pub async fn on_demand(client: &Client, prefix: &str) {
    let table = format!("{prefix}Src");
    create_table(client, &table, "pk", None).await;
    for i in 0..50 {
        put(client, &table, &format!("k{i:02}"), i).await;
    }
    let before = items(client, &table).await;
    let mut arns = Vec::new();
    for n in 0..3 {
        let out = client
            .create_backup()
            .table_name(&table)
            .backup_name(format!("nightly-{n}"))
            .send()
            .await
            .expect("create backup");
        let details = out.backup_details().expect("details");
        assert_eq!(details.backup_status().as_str(), "CREATING");
        assert_eq!(details.backup_type().as_str(), "USER");
        assert!(details.backup_expiry_date_time().is_none());
        let arn = details.backup_arn().to_owned();
        assert!(arn.contains(&format!(":table/{table}/backup/")), "{arn}");
        let id = arn.rsplit('/').next().expect("id");
        assert_eq!(id.len(), 23, "{id}");
        arns.push(arn);
    }
    // Changes after the first backup are not in it.
    for i in 0..20 {
        client
            .delete_item()
            .table_name(&table)
            .key("pk", AttributeValue::S(format!("k{i:02}")))
            .send()
            .await
            .expect("delete");
    }
    put(client, &table, "later", 1).await;

    let described = client
        .describe_backup()
        .backup_arn(&arns[0])
        .send()
        .await
        .expect("describe backup");
    let d = described.backup_description().expect("description");
    assert_eq!(
        d.backup_details()
            .expect("details")
            .backup_status()
            .as_str(),
        "AVAILABLE"
    );
    let source = d.source_table_details().expect("source");
    assert_eq!(source.table_name(), table);
    assert_eq!(source.item_count(), Some(50));
    assert_eq!(
        source.billing_mode().map(|b| b.as_str()),
        Some("PAY_PER_REQUEST")
    );

    let all = client
        .list_backups()
        .table_name(&table)
        .send()
        .await
        .expect("list");
    assert_eq!(all.backup_summaries().len(), 3);
    assert!(all.last_evaluated_backup_arn().is_none());
    let first = client
        .list_backups()
        .table_name(&table)
        .limit(2)
        .send()
        .await
        .expect("list page");
    assert_eq!(first.backup_summaries().len(), 2);
    let next = first.last_evaluated_backup_arn().expect("more").to_owned();
    let rest = client
        .list_backups()
        .table_name(&table)
        .exclusive_start_backup_arn(next)
        .send()
        .await
        .expect("list rest");
    assert_eq!(rest.backup_summaries().len(), 1);
    assert_eq!(
        rest.backup_summaries()[0].backup_arn(),
        Some(arns[2].as_str())
    );
    let none = client
        .list_backups()
        .table_name(&table)
        .backup_type(BackupTypeFilter::System)
        .send()
        .await
        .expect("list system");
    assert!(none.backup_summaries().is_empty());
    let future = client
        .list_backups()
        .table_name(&table)
        .time_range_lower_bound(DateTime::from_secs(4_000_000_000))
        .send()
        .await
        .expect("list future");
    assert!(future.backup_summaries().is_empty());

    let target = format!("{prefix}Restored");
    let restored = client
        .restore_table_from_backup()
        .target_table_name(&target)
        .backup_arn(&arns[0])
        .billing_mode_override(BillingMode::Provisioned)
        .provisioned_throughput_override(
            aws_sdk_dynamodb::types::ProvisionedThroughput::builder()
                .read_capacity_units(5)
                .write_capacity_units(7)
                .build()
                .expect("throughput"),
        )
        .send()
        .await
        .expect("restore from backup");
    let t = restored.table_description().expect("table");
    assert_eq!(t.table_status(), Some(&TableStatus::Creating));
    let summary = t.restore_summary().expect("summary");
    assert_eq!(summary.source_backup_arn(), Some(arns[0].as_str()));
    assert!(summary.restore_in_progress());
    wait_active(client, &target).await;
    assert_eq!(items(client, &target).await, before);
    let t = client
        .describe_table()
        .table_name(&target)
        .send()
        .await
        .expect("describe");
    let t = t.table().expect("table");
    assert_eq!(t.item_count(), Some(50));
    let throughput = t.provisioned_throughput().expect("throughput");
    assert_eq!(throughput.write_capacity_units(), Some(7));

    let err = client
        .restore_table_from_backup()
        .target_table_name(&target)
        .backup_arn(&arns[1])
        .send()
        .await
        .expect_err("target exists");
    assert_eq!(code(&err), "TableAlreadyExistsException");
    assert_eq!(message(&err), format!("Table already exists: {target}"));
    let err = client
        .create_backup()
        .table_name("NoSuchTable")
        .backup_name("x-1")
        .send()
        .await
        .expect_err("no table");
    assert_eq!(code(&err), "TableNotFoundException");
    assert_eq!(message(&err), "Table not found: NoSuchTable");
    let err = client
        .create_backup()
        .table_name(&table)
        .backup_name("no spaces")
        .send()
        .await
        .expect_err("bad name");
    assert_eq!(code(&err), "ValidationException");
    assert_eq!(
        message(&err),
        "1 validation error detected: Value 'no spaces' at 'backupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
    );

    let deleted = client
        .delete_backup()
        .backup_arn(&arns[1])
        .send()
        .await
        .expect("delete backup");
    let status = deleted
        .backup_description()
        .and_then(|d| d.backup_details())
        .map(|d| d.backup_status().as_str().to_owned());
    assert_eq!(status.as_deref(), Some("DELETED"));
    let err = client
        .describe_backup()
        .backup_arn(&arns[1])
        .send()
        .await
        .expect_err("deleted");
    assert_eq!(code(&err), "BackupNotFoundException");
    assert_eq!(message(&err), format!("Backup not found: {}", arns[1]));
    let err = client
        .describe_backup()
        .backup_arn(format!(
            "arn:aws:dynamodb:us-east-1:000000000000:table/{table}"
        ))
        .send()
        .await
        .expect_err("not a backup arn");
    assert_eq!(code(&err), "ValidationException");
    assert_eq!(message(&err), "Invalid Backup ARN");
}

/// Point-in-time recovery: enable with a period, describe the window, restore to a past
/// second and to the latest time, disable; the errors.
pub async fn point_in_time(client: &Client, prefix: &str) {
    let table = format!("{prefix}Pitr");
    create_table(client, &table, "pk", Some(("sk", ScalarAttributeType::N))).await;
    let err = client
        .restore_table_to_point_in_time()
        .source_table_name(&table)
        .target_table_name(format!("{prefix}Nope"))
        .use_latest_restorable_time(true)
        .send()
        .await
        .expect_err("pitr off");
    assert_eq!(code(&err), "PointInTimeRecoveryUnavailableException");
    assert_eq!(
        message(&err),
        format!("Point in time recovery is not enabled for table '{table}'")
    );
    let out = client
        .update_continuous_backups()
        .table_name(&table)
        .point_in_time_recovery_specification(
            PointInTimeRecoverySpecification::builder()
                .point_in_time_recovery_enabled(true)
                .recovery_period_in_days(7)
                .build()
                .expect("spec"),
        )
        .send()
        .await
        .expect("enable");
    let pitr = out
        .continuous_backups_description()
        .and_then(|d| d.point_in_time_recovery_description())
        .expect("pitr");
    assert_eq!(
        pitr.point_in_time_recovery_status().map(|s| s.as_str()),
        Some("ENABLED")
    );
    assert_eq!(pitr.recovery_period_in_days(), Some(7));
    let earliest = pitr
        .earliest_restorable_date_time()
        .expect("earliest")
        .as_secs_f64();

    let put_sk = |pk: &'static str, sk: i64| {
        client
            .put_item()
            .table_name(&table)
            .item("pk", AttributeValue::S(pk.to_owned()))
            .item("sk", AttributeValue::N(sk.to_string()))
            .send()
    };
    for sk in 0..10 {
        put_sk("a", sk).await.expect("put");
    }
    // Past the second the first ten went in, then more changes.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let mid = DateTime::from_secs_f64(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("time")
            .as_secs_f64()
            .floor()
            - 0.001,
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    for sk in 10..15 {
        put_sk("b", sk).await.expect("put");
    }
    client
        .delete_item()
        .table_name(&table)
        .key("pk", AttributeValue::S("a".into()))
        .key("sk", AttributeValue::N("0".into()))
        .send()
        .await
        .expect("delete");

    let at_mid = format!("{prefix}AtMid");
    let restored = client
        .restore_table_to_point_in_time()
        .source_table_name(&table)
        .target_table_name(&at_mid)
        .restore_date_time(mid)
        .send()
        .await
        .expect("restore to a second");
    let summary = restored
        .table_description()
        .and_then(|t| t.restore_summary())
        .expect("summary");
    assert!(summary.source_backup_arn().is_none());
    assert!(
        summary
            .source_table_arn()
            .expect("source table arn")
            .ends_with(&format!(":table/{table}"))
    );
    wait_active(client, &at_mid).await;
    let count = |name: String| async move {
        client
            .scan()
            .table_name(name)
            .send()
            .await
            .expect("scan")
            .count()
    };
    assert_eq!(count(at_mid.clone()).await, 10);

    let latest = format!("{prefix}Latest");
    client
        .restore_table_to_point_in_time()
        .source_table_name(&table)
        .target_table_name(&latest)
        .use_latest_restorable_time(true)
        .send()
        .await
        .expect("restore latest");
    wait_active(client, &latest).await;
    assert_eq!(count(latest.clone()).await, 14);
    // A restored table has no point-in-time recovery of its own.
    let restored_pitr = client
        .describe_continuous_backups()
        .table_name(&latest)
        .send()
        .await
        .expect("describe");
    assert_eq!(
        restored_pitr
            .continuous_backups_description()
            .and_then(|d| d.point_in_time_recovery_description())
            .and_then(|p| p.point_in_time_recovery_status())
            .map(|s| s.as_str()),
        Some("DISABLED")
    );

    let err = client
        .restore_table_to_point_in_time()
        .source_table_name(&table)
        .target_table_name(format!("{prefix}TooEarly"))
        .restore_date_time(DateTime::from_secs_f64(earliest - 3600.0))
        .send()
        .await
        .expect_err("before the window");
    assert_eq!(code(&err), "InvalidRestoreTimeException");
    assert!(
        message(&err).starts_with("RestoreDateTime '"),
        "{}",
        message(&err)
    );
    let err = client
        .restore_table_to_point_in_time()
        .source_table_name(&table)
        .target_table_name(format!("{prefix}Neither"))
        .send()
        .await
        .expect_err("no time");
    assert_eq!(code(&err), "ValidationException");
    assert_eq!(
        message(&err),
        "Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not both"
    );
    let err = client
        .update_continuous_backups()
        .table_name(&table)
        .point_in_time_recovery_specification(
            PointInTimeRecoverySpecification::builder()
                .point_in_time_recovery_enabled(true)
                .recovery_period_in_days(36)
                .build()
                .expect("spec"),
        )
        .send()
        .await
        .expect_err("36 days");
    assert_eq!(
        message(&err),
        "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35"
    );
    let off = client
        .update_continuous_backups()
        .table_name(&table)
        .point_in_time_recovery_specification(
            PointInTimeRecoverySpecification::builder()
                .point_in_time_recovery_enabled(false)
                .build()
                .expect("spec"),
        )
        .send()
        .await
        .expect("disable");
    let pitr = off
        .continuous_backups_description()
        .and_then(|d| d.point_in_time_recovery_description())
        .expect("pitr");
    assert_eq!(
        pitr.point_in_time_recovery_status().map(|s| s.as_str()),
        Some("DISABLED")
    );
    assert!(pitr.earliest_restorable_date_time().is_none());
    assert!(pitr.recovery_period_in_days().is_none());
}
