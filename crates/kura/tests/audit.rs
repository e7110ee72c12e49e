//! `kura serve --audit FILE`: CloudTrail-shaped lines for control-plane calls always, for
//! data-plane calls with --audit-data-events, errors with errorCode/errorMessage, the
//! authenticated principal, rotation by size, and a write's line in the file by the time
//! its response arrives.

mod common;

use std::path::Path;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::Credentials;
use aws_sdk_dynamodb::types::AttributeValue;
use common::KuraProcess;
use serde_json::Value;

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

fn start(path: &Path, extra: &[&str]) -> KuraProcess {
    let mut args = vec!["--audit", path.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    KuraProcess::start_with(None, &args)
}

async fn put(client: &Client, pk: &str) {
    client
        .put_item()
        .table_name("tbl")
        .item("pk", AttributeValue::S(pk.into()))
        .item("secret", AttributeValue::S("do-not-log".into()))
        .send()
        .await
        .expect("put");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_plane_only_by_default() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.log");
    let kura = start(&path, &[]);
    let client = kura.client();
    common::create_table(&client, "tbl", "pk", None).await;
    put(&client, "a").await;
    client.list_tables().send().await.expect("list");
    let err = client
        .describe_table()
        .table_name("missing")
        .send()
        .await
        .expect_err("no such table");
    let request_id = err
        .raw_response()
        .and_then(|r| r.headers().get("x-amzn-requestid"))
        .map(str::to_owned)
        .expect("a request id");

    let records = lines(&path);
    let names: Vec<&str> = records
        .iter()
        .map(|r| r["eventName"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["CreateTable", "ListTables", "DescribeTable"]);
    let create = &records[0];
    assert_eq!(create["eventSource"], "dynamodb.amazonaws.com");
    assert_eq!(create["eventCategory"], "Management");
    assert_eq!(create["managementEvent"], true);
    assert_eq!(create["readOnly"], false);
    assert_eq!(create["awsRegion"], "us-east-1");
    assert_eq!(create["sourceIPAddress"], "127.0.0.1");
    assert_eq!(create["requestParameters"]["tableName"], "tbl");
    assert_eq!(create["userIdentity"]["type"], "Anonymous");
    assert!(
        create["eventTime"]
            .as_str()
            .unwrap_or_default()
            .ends_with('Z')
    );
    assert_eq!(create["eventID"].as_str().unwrap_or_default().len(), 36);
    assert!(create.get("errorCode").is_none());
    assert!(
        create["userAgent"]
            .as_str()
            .unwrap_or_default()
            .contains("aws-sdk-rust")
    );

    let failed = &records[2];
    assert_eq!(failed["readOnly"], true);
    assert_eq!(failed["errorCode"], "ResourceNotFoundException");
    assert!(
        failed["errorMessage"]
            .as_str()
            .unwrap_or_default()
            .contains("not found"),
        "{failed}"
    );
    assert_eq!(failed["requestID"], request_id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_events_with_the_key_and_never_the_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.log");
    let kura = start(&path, &["--audit-data-events"]);
    let client = kura.client();
    common::create_table(&client, "tbl", "pk", None).await;
    for n in 0..20 {
        let pk = format!("k{n}");
        put(&client, &pk).await;
        // Acknowledged means written: the line is there when the response is.
        let last = lines(&path).pop().expect("a line");
        assert_eq!(last["eventName"], "PutItem");
        assert_eq!(last["requestParameters"]["tableName"], "tbl");
        assert_eq!(
            last["requestParameters"]["item"],
            serde_json::json!(["pk", "secret"])
        );
        // The key is split out of the item by the table's key schema.
        assert_eq!(
            last["requestParameters"]["key"],
            serde_json::json!({"pk": {"S": pk}})
        );
    }
    client
        .get_item()
        .table_name("tbl")
        .key("pk", AttributeValue::S("k1".into()))
        .send()
        .await
        .expect("get");
    client
        .batch_write_item()
        .request_items(
            "tbl",
            vec![
                aws_sdk_dynamodb::types::WriteRequest::builder()
                    .put_request(
                        aws_sdk_dynamodb::types::PutRequest::builder()
                            .item("pk", AttributeValue::S("b1".into()))
                            .item("secret", AttributeValue::S("do-not-log".into()))
                            .build()
                            .expect("put request"),
                    )
                    .build(),
            ],
        )
        .send()
        .await
        .expect("batch write");
    let batch = lines(&path).pop().expect("batch line");
    assert_eq!(batch["eventName"], "BatchWriteItem");
    let action = &batch["requestParameters"]["requestItems"][0];
    assert_eq!(action["operation"], "Put");
    assert_eq!(action["tableName"], "tbl");
    assert_eq!(action["key"]["pk"]["S"], "b1");
    client
        .get_item()
        .table_name("tbl")
        .key("pk", AttributeValue::S("k1".into()))
        .send()
        .await
        .expect("get");
    let records = lines(&path);
    let get = records.last().expect("get line");
    assert_eq!(get["eventName"], "GetItem");
    assert_eq!(get["eventCategory"], "Data");
    assert_eq!(get["managementEvent"], false);
    assert_eq!(get["readOnly"], true);
    assert_eq!(get["responseElements"], Value::Null);
    assert_eq!(get["requestParameters"]["key"]["pk"]["S"], "k1");
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(!text.contains("do-not-log"), "item values stay out");
    assert_eq!(records.len(), 1 + 20 + 1 + 1 + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authenticated_principal_in_user_identity() {
    let dir = tempfile::tempdir().expect("tempdir");
    let creds = dir.path().join("credentials.json");
    std::fs::write(
        &creds,
        r#"{"Credentials": [
  {"AccessKeyId": "AKIDALICE", "SecretAccessKey": "alice-secret", "User": "alice", "Account": "123456789012"},
  {"AccessKeyId": "ASIAROLE", "SecretAccessKey": "role-secret", "SessionToken": "the-token",
   "Expiration": "2099-01-01T00:00:00Z", "Role": "deployer", "Account": "123456789012"}]}"#,
    )
    .expect("write credentials");
    let path = dir.path().join("audit.log");
    let kura = start(
        &path,
        &[
            "--auth",
            creds.to_str().expect("utf-8"),
            "--audit-data-events",
        ],
    );
    let with = |key: &str, secret: &str, token: Option<&str>| {
        let config = kura
            .client()
            .config()
            .to_builder()
            .credentials_provider(Credentials::new(
                key,
                secret,
                token.map(str::to_owned),
                None,
                "test",
            ))
            .region(aws_sdk_dynamodb::config::Region::new("eu-west-1"))
            .build();
        Client::from_conf(config)
    };
    let alice = with("AKIDALICE", "alice-secret", None);
    alice.list_tables().send().await.expect("list");
    let role = with("ASIAROLE", "role-secret", Some("the-token"));
    role.list_tables().send().await.expect("list as the role");
    with("AKIDALICE", "wrong", None)
        .list_tables()
        .send()
        .await
        .expect_err("wrong secret");

    let records = lines(&path);
    assert_eq!(records.len(), 3);
    let user = &records[0]["userIdentity"];
    assert_eq!(user["type"], "IAMUser");
    assert_eq!(user["arn"], "arn:aws:iam::123456789012:user/alice");
    assert_eq!(user["accountId"], "123456789012");
    assert_eq!(user["accessKeyId"], "AKIDALICE");
    assert_eq!(records[0]["awsRegion"], "eu-west-1");
    assert_eq!(records[0]["recipientAccountId"], "123456789012");
    let assumed = &records[1]["userIdentity"];
    assert_eq!(assumed["type"], "AssumedRole");
    assert_eq!(assumed["accessKeyId"], "ASIAROLE");
    assert_eq!(records[2]["errorCode"], "InvalidSignatureException");
    assert_eq!(records[2]["userIdentity"]["type"], "Anonymous");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotated_by_size() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.log");
    let kura = start(&path, &["--audit-data-events", "--audit-max-bytes", "2000"]);
    let client = kura.client();
    common::create_table(&client, "tbl", "pk", None).await;
    for n in 0..60 {
        put(&client, &format!("k{n}")).await;
    }
    let rotated = |n: usize| dir.path().join(format!("audit.log.{n}"));
    for n in 1..=5 {
        assert!(rotated(n).exists(), "audit.log.{n}");
        let size = std::fs::metadata(rotated(n)).expect("size").len();
        assert!(size <= 2000, "audit.log.{n} is {size} bytes");
    }
    assert!(!rotated(6).exists(), "five rotated files kept");
    let current = lines(&path);
    assert!(!current.is_empty());
    assert_eq!(current.last().expect("line")["eventName"], "PutItem");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_audit_file_without_the_flag() {
    let kura = KuraProcess::start(None);
    let client = kura.client();
    common::create_table(&client, "tbl", "pk", None).await;
    put(&client, "a").await;
}
