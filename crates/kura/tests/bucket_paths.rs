//! Exports and imports cannot reach outside the buckets directory, whatever a client
//! names: `..` in a bucket or a prefix, absolute prefixes, and symbolic links under the
//! buckets directory that lead out of it. Each such export or import fails with S3's
//! error code (DescribeExport/DescribeImport's FailureCode) and nothing is written or read
//! outside. Through `kura serve` and the SDK.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as Av, BillingMode, InputFormat, KeyType, S3BucketSource, ScalarAttributeType,
    TableCreationParameters,
};
use common::KuraProcess;
use common::backups::enable_pitr;

const TABLE_ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/Src";

/// An export's end: its status and failure code.
async fn export(client: &Client, bucket: &str, prefix: Option<&str>) -> (String, String) {
    let started = client
        .export_table_to_point_in_time()
        .table_arn(TABLE_ARN)
        .s3_bucket(bucket)
        .set_s3_prefix(prefix.map(str::to_owned))
        .send()
        .await;
    let arn = match started {
        Ok(out) => out
            .export_description()
            .and_then(|d| d.export_arn())
            .expect("arn")
            .to_owned(),
        Err(e) => return ("REFUSED".into(), common::code(&e)),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let d = client
            .describe_export()
            .export_arn(&arn)
            .send()
            .await
            .expect("describe export");
        let d = d.export_description().expect("description");
        let status = d
            .export_status()
            .map(|s| s.as_str().to_owned())
            .unwrap_or_default();
        if status != "IN_PROGRESS" {
            return (status, d.failure_code().unwrap_or_default().to_owned());
        }
        assert!(Instant::now() < deadline, "export still running");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// An import's end: its status, failure code and items imported.
async fn import(client: &Client, table: &str, bucket: &str, prefix: &str) -> (String, String, i64) {
    let started = client
        .import_table()
        .s3_bucket_source(
            S3BucketSource::builder()
                .s3_bucket(bucket)
                .s3_key_prefix(prefix)
                .build()
                .expect("source"),
        )
        .input_format(InputFormat::DynamodbJson)
        .table_creation_parameters(
            TableCreationParameters::builder()
                .table_name(table)
                .billing_mode(BillingMode::PayPerRequest)
                .attribute_definitions(common::def("pk", ScalarAttributeType::S))
                .key_schema(common::key("pk", KeyType::Hash))
                .build()
                .expect("parameters"),
        )
        .send()
        .await;
    let arn = match started {
        Ok(out) => out
            .import_table_description()
            .and_then(|d| d.import_arn())
            .expect("arn")
            .to_owned(),
        Err(e) => return ("REFUSED".into(), common::code(&e), 0),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let d = client
            .describe_import()
            .import_arn(&arn)
            .send()
            .await
            .expect("describe import");
        let d = d.import_table_description().expect("description");
        let status = d
            .import_status()
            .map(|s| s.as_str().to_owned())
            .unwrap_or_default();
        if status != "IN_PROGRESS" {
            return (
                status,
                d.failure_code().unwrap_or_default().to_owned(),
                d.imported_item_count(),
            );
        }
        assert!(Instant::now() < deadline, "import still running");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn files_under(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| entries.count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exports_and_imports_stay_inside_the_buckets_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let buckets = dir.path().join("buckets");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(buckets.join("good-bucket")).expect("bucket");
    std::fs::create_dir_all(&outside).expect("outside");
    // Something to steal, and links that lead to it.
    std::fs::write(
        outside.join("stolen.json"),
        br#"{"Item":{"pk":{"S":"stolen"}}}"#,
    )
    .expect("secret");
    std::os::unix::fs::symlink(&outside, buckets.join("linked-bucket")).expect("link");
    std::os::unix::fs::symlink(&outside, buckets.join("good-bucket").join("out")).expect("link");
    let server = KuraProcess::start_with(
        Some(&data),
        &["--buckets-dir", buckets.to_str().expect("utf-8 path")],
    );
    let client = server.client();
    common::create_table(&client, "Src", "pk", None).await;
    enable_pitr(&client, "Src").await;
    client
        .put_item()
        .table_name("Src")
        .item("pk", Av::S("a".into()))
        .send()
        .await
        .expect("put");

    let before = files_under(&outside);
    for (bucket, prefix, refused_with) in [
        ("good-bucket", Some("../../escape"), "S3InvalidKey"),
        ("good-bucket", Some("/tmp/escape"), "S3InvalidKey"),
        ("good-bucket", Some("out"), "S3AccessDenied"),
        ("linked-bucket", None, "S3AccessDenied"),
        ("..", None, "S3InvalidBucketName"),
    ] {
        let (status, code) = export(&client, bucket, prefix).await;
        assert!(
            status == "FAILED" && code == refused_with
                || status == "REFUSED" && code == "ValidationException",
            "export to {bucket} {prefix:?}: {status} {code}"
        );
    }
    assert_eq!(files_under(&outside), before, "nothing written outside");
    let (status, _) = export(&client, "good-bucket", Some("fine")).await;
    assert_eq!(status, "COMPLETED", "a plain export still works");

    for (i, (bucket, prefix)) in [
        ("linked-bucket", ""),
        ("good-bucket", "out/"),
        ("good-bucket", "../outside/"),
        ("..", ""),
    ]
    .into_iter()
    .enumerate()
    {
        let (status, code, imported) = import(&client, &format!("Imp{i}"), bucket, prefix).await;
        assert_eq!(
            imported, 0,
            "import from {bucket} {prefix:?} read {imported} items"
        );
        if status != "REFUSED" {
            assert!(
                status == "FAILED" || status == "COMPLETED",
                "import from {bucket} {prefix:?}: {status} {code}"
            );
        }
        if let Ok(d) = client
            .describe_table()
            .table_name(format!("Imp{i}"))
            .send()
            .await
        {
            let scanned = client
                .scan()
                .table_name(format!("Imp{i}"))
                .send()
                .await
                .map(|s| s.count())
                .unwrap_or(0);
            assert_eq!(scanned, 0, "{d:?}");
        }
    }
}
