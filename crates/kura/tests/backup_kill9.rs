//! Backups and restores across `kill -9`: an acknowledged backup survives; a restore
//! killed part way through resumes after restart (the table stays CREATING, never
//! half-visible as ACTIVE) and ends equal to its backup; a point-in-time restore killed
//! part way does the same; history recorded before the kill restores after it.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue as Av, PutRequest, TableStatus, WriteRequest};
use common::backups::{enable_pitr, wait_active};
use common::{KuraProcess, create_table};

const ITEMS: usize = 20_000;

async fn load(client: &Client, table: &str, version: &str) {
    let mut batch = Vec::new();
    for i in 0..ITEMS {
        let put = PutRequest::builder()
            .item("pk", Av::S(format!("k{i:05}")))
            .item("version", Av::S(version.to_owned()))
            .item("pad", Av::S("p".repeat(200)))
            .build()
            .expect("put");
        batch.push(WriteRequest::builder().put_request(put).build());
        if batch.len() == 25 {
            let out = client
                .batch_write_item()
                .request_items(table, std::mem::take(&mut batch))
                .send()
                .await
                .expect("batch write");
            assert!(out.unprocessed_items().is_none_or(|u| u.is_empty()));
        }
    }
}

/// `pk` → `version` of every item.
async fn contents(client: &Client, table: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut pages = client.scan().table_name(table).into_paginator().send();
    while let Some(page) = pages.next().await {
        for item in page.expect("scan").items() {
            out.insert(
                item["pk"].as_s().expect("pk").clone(),
                item["version"].as_s().expect("version").clone(),
            );
        }
    }
    out
}

/// Kills the server once the restore into `target` has started filling it (or has
/// finished: a fast machine may get there first, which the test allows).
async fn kill_mid_restore(server: KuraProcess, client: &Client, target: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let t = client
            .describe_table()
            .table_name(target)
            .send()
            .await
            .expect("describe");
        let t = t.table().expect("table");
        // Data operations are refused while the table fills.
        if t.table_status() == Some(&TableStatus::Creating) {
            let err = client
                .get_item()
                .table_name(target)
                .key("pk", Av::S("k00000".into()))
                .send()
                .await
                .expect_err("a CREATING table refuses reads");
            assert_eq!(common::code(&err), "ResourceNotFoundException");
        }
        if t.table_status() == Some(&TableStatus::Active) || t.item_count().unwrap_or(0) > 0 {
            eprintln!(
                "kill -9 with {target} {:?}, {} of {ITEMS} items restored",
                t.table_status(),
                t.item_count().unwrap_or(0)
            );
            break;
        }
        assert!(Instant::now() < deadline, "restore never started");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    server.kill9();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restores_resume_after_kill9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    create_table(&client, "Src", "pk", None).await;
    enable_pitr(&client, "Src").await;
    load(&client, "Src", "v1").await;
    let v1 = contents(&client, "Src").await;
    let backup = client
        .create_backup()
        .table_name("Src")
        .backup_name("before-v2")
        .send()
        .await
        .expect("backup");
    let arn = backup
        .backup_details()
        .expect("details")
        .backup_arn()
        .to_owned();
    // Overwrite everything: the backup must now come from history.
    load(&client, "Src", "v2").await;
    let v2 = contents(&client, "Src").await;

    client
        .restore_table_from_backup()
        .target_table_name("FromBackup")
        .backup_arn(&arn)
        .send()
        .await
        .expect("restore");
    kill_mid_restore(server, &client, "FromBackup").await;

    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    let listed = client.list_backups().send().await.expect("list");
    assert_eq!(
        listed.backup_summaries().len(),
        1,
        "the acknowledged backup survives"
    );
    wait_active(&client, "FromBackup").await;
    assert_eq!(contents(&client, "FromBackup").await, v1);

    client
        .restore_table_to_point_in_time()
        .source_table_name("Src")
        .target_table_name("Latest")
        .use_latest_restorable_time(true)
        .send()
        .await
        .expect("restore to point in time");
    kill_mid_restore(server, &client, "Latest").await;

    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    wait_active(&client, "Latest").await;
    assert_eq!(contents(&client, "Latest").await, v2);
    let described = client
        .describe_table()
        .table_name("Latest")
        .send()
        .await
        .expect("describe");
    assert_eq!(
        described.table().and_then(|t| t.item_count()),
        Some(ITEMS as i64)
    );
}

/// Waits until `status()` is no longer IN_PROGRESS; returns it.
async fn settled<F, Fut>(status: F) -> String
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = String>,
{
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = status().await;
        if s != "IN_PROGRESS" {
            return s;
        }
        assert!(Instant::now() < deadline, "still IN_PROGRESS");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exports_and_imports_finish_after_kill9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    create_table(&client, "Src", "pk", None).await;
    enable_pitr(&client, "Src").await;
    load(&client, "Src", "v1").await;
    let source = contents(&client, "Src").await;
    let export = client
        .export_table_to_point_in_time()
        .table_arn("arn:aws:dynamodb:us-east-1:000000000000:table/Src")
        .s3_bucket("kill-bucket")
        .send()
        .await
        .expect("export");
    let export_arn = export
        .export_description()
        .and_then(|d| d.export_arn())
        .expect("arn")
        .to_owned();
    // Killed while the export may still be writing.
    server.kill9();

    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    let status = settled(|| {
        let client = client.clone();
        let arn = export_arn.clone();
        async move {
            let d = client
                .describe_export()
                .export_arn(arn)
                .send()
                .await
                .expect("describe");
            d.export_description()
                .and_then(|d| d.export_status())
                .map(|s| s.as_str().to_owned())
                .unwrap_or_default()
        }
    })
    .await;
    assert_eq!(status, "COMPLETED");
    let described = client
        .describe_export()
        .export_arn(&export_arn)
        .send()
        .await
        .expect("describe");
    assert_eq!(
        described.export_description().and_then(|d| d.item_count()),
        Some(ITEMS as i64)
    );
    let id = export_arn.rsplit('/').next().expect("id");
    let started = client
        .import_table()
        .s3_bucket_source(
            aws_sdk_dynamodb::types::S3BucketSource::builder()
                .s3_bucket("kill-bucket")
                .s3_key_prefix(format!("AWSDynamoDB/{id}/data/"))
                .build()
                .expect("source"),
        )
        .input_format(aws_sdk_dynamodb::types::InputFormat::DynamodbJson)
        .input_compression_type(aws_sdk_dynamodb::types::InputCompressionType::Gzip)
        .table_creation_parameters(
            aws_sdk_dynamodb::types::TableCreationParameters::builder()
                .table_name("Imported")
                .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
                .attribute_definitions(common::def(
                    "pk",
                    aws_sdk_dynamodb::types::ScalarAttributeType::S,
                ))
                .key_schema(common::key("pk", aws_sdk_dynamodb::types::KeyType::Hash))
                .build()
                .expect("parameters"),
        )
        .send()
        .await
        .expect("import");
    let import_arn = started
        .import_table_description()
        .and_then(|d| d.import_arn())
        .expect("arn")
        .to_owned();
    // While the import runs the table is not there for data operations.
    if let Ok(d) = client.describe_table().table_name("Imported").send().await
        && d.table().and_then(|t| t.table_status()) == Some(&TableStatus::Creating)
    {
        let err = client
            .scan()
            .table_name("Imported")
            .send()
            .await
            .expect_err("a CREATING table refuses reads");
        assert_eq!(common::code(&err), "ResourceNotFoundException");
    }
    server.kill9();

    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    let status = settled(|| {
        let client = client.clone();
        let arn = import_arn.clone();
        async move {
            let d = client
                .describe_import()
                .import_arn(arn)
                .send()
                .await
                .expect("describe");
            d.import_table_description()
                .and_then(|d| d.import_status())
                .map(|s| s.as_str().to_owned())
                .unwrap_or_default()
        }
    })
    .await;
    assert_eq!(status, "COMPLETED");
    wait_active(&client, "Imported").await;
    assert_eq!(contents(&client, "Imported").await, source);
}
