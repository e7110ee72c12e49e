//! Exports and imports on an engine whose clock the test moves, with buckets in memory:
//! a full export in DynamoDB's layout (objects, manifests and their checksums, data lines)
//! in both formats imports back equal to its table, index included; an incremental
//! export holds, per item changed in its window, the state at each end, checked against
//! a recorded history; files in the shapes AWS documents import; refused items are
//! counted with their lines; the errors of both operations.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kura_engine::clock::ManualClock;
use kura_engine::objects::{MemoryBuckets, Objects};
use kura_engine::storage::MemoryStore;
use kura_engine::{Engine, EngineError, EngineOptions, RequestContext};
use serde_json::{Value, json};

const START_MS: i64 = 1_800_000_000_000;
const MINUTE: i64 = 60_000;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

fn to_json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).expect("json")
}

fn ctx() -> RequestContext {
    RequestContext::default()
}

fn engine(clock: Arc<ManualClock>, buckets: Arc<MemoryBuckets>) -> Arc<Engine> {
    let options = EngineOptions {
        clock,
        sweep_interval: Duration::from_secs(3600),
        objects: Some(buckets),
        ..EngineOptions::default()
    };
    Engine::with_options(Arc::new(MemoryStore::new()), options).expect("open")
}

fn table_request(name: &str) -> Value {
    json!({
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
    })
}

async fn create_with_pitr(engine: &Engine, name: &str) {
    engine
        .create_table(&ctx(), input(table_request(name)))
        .await
        .expect("create");
    engine
        .update_continuous_backups(input(json!({"TableName": name,
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}})))
        .await
        .expect("pitr");
}

async fn put(engine: &Engine, table: &str, item: Value) {
    engine
        .put_item(input(json!({"TableName": table, "Item": item})))
        .await
        .expect("put");
}

/// Every item of `table` (or its index), keyed by pk/sk.
fn scan_all(engine: &Engine, table: &str, index: Option<&str>) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let mut start: Option<Value> = None;
    loop {
        let mut req = json!({"TableName": table, "Limit": 9});
        if let Some(index) = index {
            req["IndexName"] = json!(index);
        }
        if let Some(start) = start.take() {
            req["ExclusiveStartKey"] = start;
        }
        let page = to_json(engine.scan(input(req)).expect("scan"));
        for item in page["Items"].as_array().expect("items") {
            out.insert(format!("{}/{}", item["pk"], item["sk"]), item.clone());
        }
        match page.get("LastEvaluatedKey") {
            Some(k) => start = Some(k.clone()),
            None => return out,
        }
    }
}

fn arn(table: &str) -> String {
    ctx().table_arn(table)
}

async fn export(engine: &Engine, body: Value) -> Value {
    let out = to_json(
        engine
            .export_table_to_point_in_time(&ctx(), input(body))
            .await
            .expect("export"),
    );
    let export_arn = out["ExportDescription"]["ExportArn"].clone();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let d = to_json(
            engine
                .describe_export(input(json!({"ExportArn": export_arn})))
                .expect("describe export"),
        )["ExportDescription"]
            .clone();
        if d["ExportStatus"] != "IN_PROGRESS" {
            return d;
        }
        assert!(Instant::now() < deadline, "export did not finish");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn import(engine: &Engine, body: Value) -> Value {
    let out = to_json(
        engine
            .import_table(&ctx(), input(body))
            .await
            .expect("import"),
    );
    let import_arn = out["ImportTableDescription"]["ImportArn"].clone();
    assert_eq!(out["ImportTableDescription"]["ImportStatus"], "IN_PROGRESS");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let d = to_json(
            engine
                .describe_import(input(json!({"ImportArn": import_arn})))
                .expect("describe import"),
        )["ImportTableDescription"]
            .clone();
        if d["ImportStatus"] != "IN_PROGRESS" {
            return d;
        }
        assert!(Instant::now() < deadline, "import did not finish");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn gunzip(bytes: &[u8]) -> String {
    let mut out = String::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_string(&mut out)
        .expect("gzip");
    out
}

fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(text.as_bytes()).expect("gzip");
    encoder.finish().expect("gzip")
}

fn md5_base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    use md5::Digest as _;
    base64::engine::general_purpose::STANDARD.encode(md5::Md5::digest(bytes))
}

fn import_request(table: &str, prefix: &str, format: &str, compression: &str) -> Value {
    let mut creation = table_request(table);
    creation.as_object_mut().expect("object");
    json!({
        "S3BucketSource": {"S3Bucket": "exports-1", "S3KeyPrefix": prefix},
        "InputFormat": format,
        "InputCompressionType": compression,
        "TableCreationParameters": creation,
    })
}

/// An item of every attribute type.
fn rich_item(i: usize) -> Value {
    json!({
        "pk": {"S": format!("p{}", i % 7)}, "sk": {"N": i.to_string()}, "g": {"S": format!("g{}", i % 3)},
        "s": {"S": "quote \" newline \n tab \t é ✓"}, "n": {"N": "-12.5e3"}, "b": {"B": "AAEC/w=="},
        "t": {"BOOL": i.is_multiple_of(2)}, "z": {"NULL": true},
        "l": {"L": [{"S": "x"}, {"N": "1"}, {"M": {"odd name": {"SS": ["a", "b"]}}}]},
        "m": {"M": {"null": {"NS": ["1", "2.5"]}, "bs": {"BS": ["AQ==", "Ag=="]}}},
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_export_has_dynamodbs_layout_and_imports_back_equal() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let buckets = Arc::new(MemoryBuckets::new());
    let engine = engine(clock.clone(), buckets.clone());
    create_with_pitr(&engine, "Src").await;
    for i in 0..250 {
        put(&engine, "Src", rich_item(i)).await;
    }
    let source = scan_all(&engine, "Src", None);
    let source_index = scan_all(&engine, "Src", Some("byG"));
    for (format, extension) in [("DYNAMODB_JSON", "json.gz"), ("ION", "ion.gz")] {
        let prefix = format!("full/{format}");
        let d = export(
            &engine,
            json!({"TableArn": arn("Src"), "S3Bucket": "exports-1", "S3Prefix": prefix, "ExportFormat": format}),
        )
        .await;
        assert_eq!(d["ExportStatus"], "COMPLETED", "{d}");
        assert_eq!(d["ItemCount"], 250);
        let id = d["ExportArn"]
            .as_str()
            .expect("arn")
            .rsplit('/')
            .next()
            .expect("id")
            .to_owned();
        let dir = format!("{prefix}/AWSDynamoDB/{id}/");
        assert_eq!(d["ExportManifest"], format!("{dir}manifest-summary.json"));
        let keys = buckets.list("exports-1", &dir, usize::MAX).expect("list");
        for name in [
            "_started",
            "manifest-files.json",
            "manifest-files.md5",
            "manifest-summary.json",
            "manifest-summary.md5",
        ] {
            assert!(keys.contains(&format!("{dir}{name}")), "{name} in {keys:?}");
        }
        let summary_bytes = buckets
            .get(
                "exports-1",
                &format!("{dir}manifest-summary.json"),
                u64::MAX,
            )
            .expect("summary");
        assert_eq!(
            buckets
                .get("exports-1", &format!("{dir}manifest-summary.md5"), u64::MAX)
                .expect("md5"),
            md5_base64(&summary_bytes).as_bytes()
        );
        let summary: Value = serde_json::from_slice(&summary_bytes).expect("summary json");
        assert_eq!(summary["version"], "2020-06-30");
        assert_eq!(summary["itemCount"], 250);
        assert_eq!(summary["outputFormat"], format);
        assert_eq!(summary["s3SseKmsKeyId"], Value::Null);
        assert!(summary.get("exportType").is_none() && summary.get("outputView").is_none());
        let order: Vec<&str> = summary_bytes
            .split(|b| *b == b'"')
            .skip(1)
            .step_by(2)
            .filter_map(|k| std::str::from_utf8(k).ok())
            .take(2)
            .collect();
        assert_eq!(order, ["version", "2020-06-30"]);
        let listing = buckets
            .get("exports-1", &format!("{dir}manifest-files.json"), u64::MAX)
            .expect("files");
        assert_eq!(
            buckets
                .get("exports-1", &format!("{dir}manifest-files.md5"), u64::MAX)
                .expect("md5"),
            md5_base64(&listing).as_bytes()
        );
        let mut lines = 0;
        for line in String::from_utf8(listing).expect("utf8").lines() {
            let file: Value = serde_json::from_str(line).expect("manifest line");
            let key = file["dataFileS3Key"].as_str().expect("key");
            assert!(
                key.starts_with(&format!("{dir}data/")) && key.ends_with(extension),
                "{key}"
            );
            let body = buckets.get("exports-1", key, u64::MAX).expect("data file");
            assert_eq!(file["md5Checksum"], md5_base64(&body));
            assert!(file["etag"].as_str().expect("etag").ends_with("-1"));
            let text = gunzip(&body);
            assert_eq!(
                text.lines().count() as u64,
                file["itemCount"].as_u64().expect("count")
            );
            for line in text.lines() {
                match format {
                    "ION" => assert!(line.starts_with("$ion_1_0 {Item:{"), "{line}"),
                    _ => assert!(line.starts_with("{\"Item\":{"), "{line}"),
                }
            }
            lines += text.lines().count();
        }
        assert_eq!(lines, 250);

        let target = format!("From{}", if format == "ION" { "Ion" } else { "Json" });
        let d = import(
            &engine,
            import_request(&target, &format!("{dir}data/"), format, "GZIP"),
        )
        .await;
        assert_eq!(d["ImportStatus"], "COMPLETED", "{d}");
        assert_eq!(
            (
                d["ProcessedItemCount"].as_u64(),
                d["ImportedItemCount"].as_u64()
            ),
            (Some(250), Some(250))
        );
        assert_eq!(scan_all(&engine, &target, None), source, "{format}");
        assert_eq!(
            scan_all(&engine, &target, Some("byG")),
            source_index,
            "{format}"
        );
    }
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_incremental_export_holds_each_items_state_at_both_ends_of_its_window() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let buckets = Arc::new(MemoryBuckets::new());
    let engine = engine(clock.clone(), buckets.clone());
    create_with_pitr(&engine, "Src").await;
    let item = |pk: &str, v: i64| json!({"pk": {"S": pk}, "sk": {"N": "1"}, "g": {"S": "g"}, "v": {"N": v.to_string()}});
    // Before the window.
    for pk in ["keep", "update", "delete", "flip"] {
        put(&engine, "Src", item(pk, 0)).await;
    }
    clock.advance_ms(MINUTE);
    let from = START_MS + MINUTE;
    // Inside it.
    put(&engine, "Src", item("update", 1)).await;
    clock.advance_ms(MINUTE);
    put(&engine, "Src", item("update", 2)).await;
    engine
        .delete_item(input(
            json!({"TableName": "Src", "Key": {"pk": {"S": "delete"}, "sk": {"N": "1"}}}),
        ))
        .await
        .expect("delete");
    put(&engine, "Src", item("insert", 1)).await;
    put(&engine, "Src", item("transient", 1)).await;
    engine
        .delete_item(input(
            json!({"TableName": "Src", "Key": {"pk": {"S": "transient"}, "sk": {"N": "1"}}}),
        ))
        .await
        .expect("delete");
    engine
        .delete_item(input(
            json!({"TableName": "Src", "Key": {"pk": {"S": "flip"}, "sk": {"N": "1"}}}),
        ))
        .await
        .expect("delete");
    put(&engine, "Src", item("flip", 9)).await;
    let last_write = START_MS + 2 * MINUTE;
    clock.advance_ms(20 * MINUTE);
    let to = START_MS + 20 * MINUTE;
    // After it: not in the export.
    put(&engine, "Src", item("update", 3)).await;
    clock.advance_ms(MINUTE);

    let window = |view: &str| {
        json!({"TableArn": arn("Src"), "S3Bucket": "exports-1", "S3Prefix": format!("inc-{view}"),
            "ExportType": "INCREMENTAL_EXPORT",
            "IncrementalExportSpecification": {"ExportFromTime": from as f64 / 1000.0,
                "ExportToTime": to as f64 / 1000.0, "ExportViewType": view}})
    };
    let d = export(&engine, window("NEW_AND_OLD_IMAGES")).await;
    assert_eq!(d["ExportStatus"], "COMPLETED", "{d}");
    assert_eq!(d["ExportType"], "INCREMENTAL_EXPORT");
    assert!(d.get("ExportTime").is_none());
    let records = incremental_records(&buckets, "inc-NEW_AND_OLD_IMAGES");
    let v = |image: &Value| image["v"]["N"].as_str().map(str::to_owned);
    let summary: BTreeMap<String, (Option<String>, Option<String>)> = records
        .iter()
        .map(|r| {
            (
                r["Keys"]["pk"]["S"].as_str().expect("pk").to_owned(),
                (r.get("OldImage").and_then(v), r.get("NewImage").and_then(v)),
            )
        })
        .collect();
    let expected: BTreeMap<String, (Option<String>, Option<String>)> = [
        ("update", (Some("0"), Some("2"))),
        ("delete", (Some("0"), None)),
        ("insert", (None, Some("1"))),
        ("flip", (Some("0"), Some("9"))),
    ]
    .into_iter()
    .map(|(k, (o, n))| (k.to_owned(), (o.map(str::to_owned), n.map(str::to_owned))))
    .collect();
    assert_eq!(summary, expected, "{records:?}");
    for r in &records {
        let micros: i64 = r["Metadata"]["WriteTimestampMicros"]["N"]
            .as_str()
            .expect("micros")
            .parse()
            .expect("number");
        assert!(
            micros >= from * 1000 && micros <= last_write * 1000 + 999,
            "{r}"
        );
    }
    let d = export(&engine, window("NEW_IMAGE")).await;
    assert_eq!(d["ExportStatus"], "COMPLETED");
    let records = incremental_records(&buckets, "inc-NEW_IMAGE");
    assert_eq!(records.len(), 4);
    assert!(records.iter().all(|r| r.get("OldImage").is_none()));
    let deleted = records
        .iter()
        .find(|r| r["Keys"]["pk"]["S"] == "delete")
        .expect("delete record");
    assert!(deleted.get("NewImage").is_none());

    // A window under 15 minutes, one that starts before the table's history.
    let mut short = window("NEW_IMAGE");
    short["IncrementalExportSpecification"]["ExportToTime"] =
        json!((from + 10 * MINUTE) as f64 / 1000.0);
    let err = engine
        .export_table_to_point_in_time(&ctx(), input(short))
        .await
        .expect_err("short");
    assert_eq!(
        err.to_string(),
        "Difference between export period from time and export period to time is less than 15 minutes"
    );
    let mut early = window("NEW_IMAGE");
    early["IncrementalExportSpecification"]["ExportFromTime"] =
        json!((START_MS - 60 * MINUTE) as f64 / 1000.0);
    let err = engine
        .export_table_to_point_in_time(&ctx(), input(early))
        .await
        .expect_err("early");
    assert!(matches!(err, EngineError::InvalidExportTime(_)), "{err:?}");
    assert!(err.to_string().starts_with(
        "Incremental export period from time cannot be less than the table creation time : "
    ));
    engine.shutdown();
}

/// Every record of the incremental exports under `prefix`.
fn incremental_records(buckets: &MemoryBuckets, prefix: &str) -> Vec<Value> {
    let keys = buckets
        .list(
            "exports-1",
            &format!("{prefix}/AWSDynamoDB/data/"),
            usize::MAX,
        )
        .expect("list");
    let mut records = Vec::new();
    for key in keys {
        let text = gunzip(&buckets.get("exports-1", &key, u64::MAX).expect("data"));
        records.extend(
            text.lines()
                .map(|l| serde_json::from_str::<Value>(l).expect("record")),
        );
    }
    records
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_errors_follow_dynamodb() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let buckets = Arc::new(MemoryBuckets::new());
    let engine = engine(clock.clone(), buckets.clone());
    engine
        .create_table(&ctx(), input(table_request("Src")))
        .await
        .expect("create");
    let base = json!({"TableArn": arn("Src"), "S3Bucket": "exports-1"});
    let refused = |body: Value| {
        let engine = engine.clone();
        async move {
            engine
                .export_table_to_point_in_time(&ctx(), input(body))
                .await
                .expect_err("refused")
        }
    };
    let err = refused(base.clone()).await;
    assert!(matches!(
        err,
        EngineError::PointInTimeRecoveryUnavailable(_)
    ));
    assert_eq!(
        err.to_string(),
        "Point in time recovery is not enabled for table 'Src'"
    );
    let err = refused(json!({"TableArn": arn("Nope"), "S3Bucket": "exports-1"})).await;
    assert_eq!(err.to_string(), format!("Table not found: {}", arn("Nope")));
    let err = refused(json!({"TableArn": "Src", "S3Bucket": "exports-1"})).await;
    assert_eq!(
        err.to_string(),
        "One or more parameter values were invalid: tableArn is not a valid ARN"
    );
    let err =
        refused(json!({"TableArn": arn("Src"), "S3Bucket": "exports-1", "ExportFormat": "CSV"}))
            .await;
    assert_eq!(
        err.to_string(),
        "1 validation error detected: Value 'CSV' at 'exportFormat' failed to satisfy constraint: Member must satisfy enum value set: [ION, DYNAMODB_JSON]"
    );
    let err = refused(json!({"TableArn": arn("Src"), "S3Bucket": "exports-1",
        "IncrementalExportSpecification": {"ExportFromTime": 1.0}}))
    .await;
    assert_eq!(
        err.to_string(),
        "Invalid Request: Export Type expected to be Incremental Export when incremental export specification is provided"
    );
    engine
        .update_continuous_backups(input(json!({"TableName": "Src",
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}})))
        .await
        .expect("pitr");
    let mut future = base.clone();
    future["ExportTime"] = json!((START_MS + 60_000) as f64 / 1000.0);
    assert_eq!(refused(future).await.to_string(), "Export Time is invalid");
    // A ClientToken repeats a request; with other parameters it conflicts.
    let mut first = base.clone();
    first["ClientToken"] = json!("token-1");
    let a = to_json(
        engine
            .export_table_to_point_in_time(&ctx(), input(first.clone()))
            .await
            .expect("export"),
    );
    let b = to_json(
        engine
            .export_table_to_point_in_time(&ctx(), input(first.clone()))
            .await
            .expect("again"),
    );
    assert_eq!(
        a["ExportDescription"]["ExportArn"],
        b["ExportDescription"]["ExportArn"]
    );
    first["S3Prefix"] = json!("other");
    let err = refused(first).await;
    assert!(matches!(err, EngineError::ExportConflict(_)), "{err:?}");
    // A bucket that cannot be written: FAILED with S3's code.
    let d = export(
        &engine,
        json!({"TableArn": arn("Src"), "S3Bucket": "No_Such.Bucket"}),
    )
    .await;
    assert_eq!(d["ExportStatus"], "FAILED");
    assert_eq!(d["FailureCode"], "S3NoSuchBucket");
    let err = engine
        .describe_export(input(
            json!({"ExportArn": format!("{}/export/01800000000000-00000000", arn("Src"))}),
        ))
        .expect_err("missing");
    assert!(
        err.to_string()
            .starts_with("Export not found: Export not found: ")
    );
    let listed = to_json(
        engine
            .list_exports(input(json!({"TableArn": arn("Src"), "MaxResults": 1})))
            .expect("list"),
    );
    assert_eq!(listed["ExportSummaries"].as_array().map(Vec::len), Some(1));
    let token = listed["NextToken"].as_str().expect("token").to_owned();
    let rest = to_json(
        engine
            .list_exports(input(json!({"NextToken": token})))
            .expect("next page"),
    );
    assert_eq!(rest["ExportSummaries"].as_array().map(Vec::len), Some(1));
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_in_awss_documented_shapes_import_and_bad_lines_are_counted() {
    let clock = Arc::new(ManualClock::new(START_MS));
    let buckets = Arc::new(MemoryBuckets::new());
    let engine = engine(clock.clone(), buckets.clone());
    // The Developer Guide's examples ("DynamoDB table export output format"), with the
    // table's key added, and one broken line among them.
    let json_lines = r#"{"Item":{"pk":{"S":"b1"},"sk":{"N":"1"},"Authors":{"SS":["Author1","Author2"]},"Dimensions":{"S":"8.5 x 11.0 x 1.5"},"ISBN":{"S":"333-3333333333"},"Id":{"N":"103"},"InPublication":{"BOOL":false},"PageCount":{"N":"600"},"Price":{"N":"2000"},"ProductCategory":{"S":"Book"},"Title":{"S":"Book 103 Title"}}}
{"Item":{"pk":{"S":"b2"},"sk":{"N":"1"},"Id":{"N":"104"}}}
this line is not JSON
{"Item":{"sk":{"N":"1"},"Id":{"N":"105"}}}
"#;
    buckets
        .put("exports-1", "aws/data/one.json.gz", &gzip(json_lines))
        .expect("put");
    let d = import(
        &engine,
        import_request("FromJson", "aws/data/", "DYNAMODB_JSON", "GZIP"),
    )
    .await;
    assert_eq!(d["ImportStatus"], "FAILED");
    assert_eq!(d["FailureCode"], "ItemValidationError");
    assert_eq!(
        (
            d["ProcessedItemCount"].as_u64(),
            d["ImportedItemCount"].as_u64(),
            d["ErrorCount"].as_u64()
        ),
        (Some(4), Some(2), Some(2))
    );
    // The table keeps the valid items and is ACTIVE, as on DynamoDB.
    let t = to_json(
        engine
            .describe_table(&ctx(), input(json!({"TableName": "FromJson"})))
            .await
            .expect("describe"),
    );
    assert_eq!(t["Table"]["TableStatus"], "ACTIVE");
    assert_eq!(scan_all(&engine, "FromJson", None).len(), 2);

    let ion = "$ion_1_0 {Item:{pk:\"i1\",sk:1.,Authors:$dynamodb_SS::[\"Author1\",\"Author2\"],Id:103.,InPublication:false,PageCount:6d2,Price:2d3,Title:\"Book 103 Title\"}}\n";
    let compressed = ruzstd::encoding::compress_to_vec(
        ion.as_bytes(),
        ruzstd::encoding::CompressionLevel::Fastest,
    );
    buckets
        .put("exports-1", "ion/one.ion.zst", &compressed)
        .expect("put");
    let d = import(&engine, import_request("FromIon", "ion/", "ION", "ZSTD")).await;
    assert_eq!(d["ImportStatus"], "COMPLETED", "{d}");
    let items = scan_all(&engine, "FromIon", None);
    let item = items.values().next().expect("one item");
    assert_eq!(item["PageCount"], json!({"N": "600"}));
    assert_eq!(item["Authors"], json!({"SS": ["Author1", "Author2"]}));

    buckets
        .put("exports-1", "csv/rows.csv", b"p1|1|g1|x|\np2|2|g2|y|z\n")
        .expect("put");
    let mut request = import_request("FromCsv", "csv/", "CSV", "NONE");
    request["InputFormatOptions"] =
        json!({"Csv": {"Delimiter": "|", "HeaderList": ["pk", "sk", "g", "a", "b"]}});
    let d = import(&engine, request).await;
    assert_eq!(d["ImportStatus"], "COMPLETED", "{d}");
    let rows = scan_all(&engine, "FromCsv", None);
    let row = |pk: &str| {
        rows.values()
            .find(|r| r["pk"]["S"] == pk)
            .expect("row")
            .clone()
    };
    assert_eq!(row("p1")["sk"], json!({"N": "1"}));
    assert!(row("p1").get("b").is_none());
    assert_eq!(row("p2")["b"], json!({"S": "z"}));
    assert_eq!(scan_all(&engine, "FromCsv", Some("byG")).len(), 2);

    // A bucket that does not exist: FAILED, and no table.
    let mut missing = import_request("Nowhere", "x/", "DYNAMODB_JSON", "NONE");
    missing["S3BucketSource"]["S3Bucket"] = json!("no-such-bucket");
    let d = import(&engine, missing).await;
    assert_eq!(
        (d["ImportStatus"].as_str(), d["FailureCode"].as_str()),
        (Some("FAILED"), Some("S3NoSuchBucket"))
    );
    let err = engine
        .describe_table(&ctx(), input(json!({"TableName": "Nowhere"})))
        .await
        .expect_err("no table");
    assert!(matches!(err, EngineError::ResourceNotFound(_)));
    // More objects under the prefix than DynamoDB's 50,000 an import takes: FAILED
    // before any is read, and no table.
    for n in 0..=kura_engine::imports::MAX_IMPORT_OBJECTS {
        buckets
            .put("exports-1", &format!("many/{n:06}.json"), b"")
            .expect("put");
    }
    let d = import(
        &engine,
        import_request("TooMany", "many/", "DYNAMODB_JSON", "NONE"),
    )
    .await;
    assert_eq!(
        (d["ImportStatus"].as_str(), d["FailureCode"].as_str()),
        (Some("FAILED"), Some("TooManyObjects"))
    );
    assert!(
        d["FailureMessage"]
            .as_str()
            .is_some_and(|m| m.contains("more than 50000 objects")),
        "{d}"
    );
    let err = engine
        .describe_table(&ctx(), input(json!({"TableName": "TooMany"})))
        .await
        .expect_err("no table");
    assert!(matches!(err, EngineError::ResourceNotFound(_)));
    // An existing table refuses an import.
    let err = engine
        .import_table(
            &ctx(),
            input(import_request("FromCsv", "csv/", "CSV", "NONE")),
        )
        .await
        .expect_err("exists");
    assert_eq!(err.to_string(), "Table already exists: FromCsv");
    let listed = to_json(
        engine
            .list_imports(input(json!({"PageSize": 2})))
            .expect("list"),
    );
    assert_eq!(
        listed["ImportSummaryList"].as_array().map(Vec::len),
        Some(2)
    );
    assert!(listed["NextToken"].as_str().expect("token").len() >= 112);
    engine.shutdown();
}
