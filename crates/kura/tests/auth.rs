//! `kura serve --auth FILE`: SigV4 through real clients (aws-sdk-dynamodb, the Streams
//! SDK, aws-sigv4 for requests the SDK will not make, boto3 and the AWS CLI when present),
//! and the credentials file reloaded on SIGHUP.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::Credentials;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sigv4::http_request::{
    SignableBody, SignableRequest, SignatureLocation, SigningSettings, sign,
};
use aws_sigv4::sign::v4;
use bytes::Bytes;
use common::{KuraProcess, code, message};
use http_body_util::{BodyExt, Full};

const FILE: &str = r#"{"Credentials": [
  {"AccessKeyId": "AKIDALICE", "SecretAccessKey": "alice-secret", "User": "alice", "Account": "123456789012"},
  {"AccessKeyId": "ASIAROLE", "SecretAccessKey": "role-secret", "SessionToken": "the-token",
   "Expiration": "2099-01-01T00:00:00Z", "Role": "deployer", "Account": "123456789012"},
  {"AccessKeyId": "ASIAOLD", "SecretAccessKey": "old-secret", "SessionToken": "old-token",
   "Expiration": "2020-01-01T00:00:00Z", "Role": "deployer", "Account": "123456789012"}]}"#;

const MISMATCH: &str = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";
const INVALID_TOKEN: &str = "The security token included in the request is invalid.";

fn write_file(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("credentials.json");
    std::fs::write(&path, text).expect("write credentials");
    path
}

fn start(path: &Path) -> KuraProcess {
    KuraProcess::start_with(None, &["--auth", path.to_str().expect("utf-8 path")])
}

fn client(kura: &KuraProcess, key: &str, secret: &str, token: Option<&str>) -> Client {
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
        .retry_config(RetryConfig::disabled())
        .build();
    Client::from_conf(config)
}

async fn list_error(client: &Client) -> (String, String) {
    let err = client.list_tables().send().await.expect_err("refused");
    (code(&err), message(&err))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_clients_with_right_and_wrong_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kura = start(&write_file(dir.path(), FILE));

    let alice = client(&kura, "AKIDALICE", "alice-secret", None);
    common::create_table(&alice, "tbl", "pk", None).await;
    alice
        .put_item()
        .table_name("tbl")
        .item("pk", AttributeValue::S("a".into()))
        .send()
        .await
        .expect("put with the right keys");
    let got = alice
        .get_item()
        .table_name("tbl")
        .key("pk", AttributeValue::S("a".into()))
        .send()
        .await
        .expect("get");
    assert!(got.item().is_some());

    let role = client(&kura, "ASIAROLE", "role-secret", Some("the-token"));
    assert_eq!(
        role.list_tables().send().await.expect("role").table_names(),
        ["tbl"]
    );

    assert_eq!(
        list_error(&client(&kura, "AKIDALICE", "wrong", None)).await,
        ("InvalidSignatureException".into(), MISMATCH.into())
    );
    for (key, secret, token) in [
        ("AKIDNOBODY", "x", None),
        ("ASIAROLE", "role-secret", None),
        ("ASIAROLE", "role-secret", Some("wrong-token")),
        ("AKIDALICE", "alice-secret", Some("stray-token")),
    ] {
        assert_eq!(
            list_error(&client(&kura, key, secret, token)).await,
            ("UnrecognizedClientException".into(), INVALID_TOKEN.into()),
            "{key} {token:?}"
        );
    }
    assert_eq!(
        list_error(&client(&kura, "ASIAOLD", "old-secret", Some("old-token"))).await,
        (
            "ExpiredTokenException".into(),
            "The security token included in the request is expired".into()
        )
    );

    // DynamoDB Streams is signed for `dynamodb` too, and checked the same way.
    let streams = kura.streams_client();
    let streams_config = streams
        .config()
        .to_builder()
        .credentials_provider(aws_sdk_dynamodbstreams::config::Credentials::new(
            "AKIDALICE",
            "alice-secret",
            None,
            None,
            "test",
        ))
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(streams_config)
        .list_streams()
        .send()
        .await
        .expect("streams with the right keys");
    let err = streams
        .list_streams()
        .send()
        .await
        .expect_err("testkit keys are unknown");
    assert_eq!(
        err.as_service_error()
            .and_then(aws_sdk_dynamodbstreams::error::ProvideErrorMetadata::code),
        Some("UnrecognizedClientException")
    );
}

struct Reply {
    status: u16,
    json: serde_json::Value,
}

impl Reply {
    fn error(&self) -> (&str, &str) {
        let t = self.json["__type"].as_str().unwrap_or_default();
        (
            t.rsplit('#').next().unwrap_or_default(),
            self.json["message"].as_str().unwrap_or_default(),
        )
    }
}

async fn send(request: http::Request<Full<Bytes>>) -> Reply {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<Bytes>>();
    let response = client.request(request).await.expect("send");
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    Reply {
        status,
        json: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
    }
}

/// A ListTables request signed by aws-sigv4 at `time`, in the header or as a presigned
/// query string.
fn signed_list_tables(
    endpoint: &str,
    key: &str,
    secret: &str,
    time: SystemTime,
    presign: Option<Duration>,
) -> http::Request<Full<Bytes>> {
    signed_request(endpoint, key, secret, time, presign, b"{}".to_vec(), None)
}

fn signed_request(
    endpoint: &str,
    key: &str,
    secret: &str,
    time: SystemTime,
    presign: Option<Duration>,
    body: Vec<u8>,
    encoding: Option<&str>,
) -> http::Request<Full<Bytes>> {
    let host = endpoint.trim_start_matches("http://");
    let mut builder = http::Request::post(format!("{endpoint}/"))
        .header("host", host)
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", "DynamoDB_20120810.ListTables");
    if let Some(encoding) = encoding {
        builder = builder.header("content-encoding", encoding);
    }
    let mut request = builder
        .body(Full::new(Bytes::from(body.clone())))
        .expect("request");
    let identity = aws_credential_types::Credentials::new(key, secret, None, None, "test").into();
    let mut settings = SigningSettings::default();
    if let Some(expires) = presign {
        settings.signature_location = SignatureLocation::QueryParams;
        settings.expires_in = Some(expires);
    }
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region("us-east-1")
        .name("dynamodb")
        .time(time)
        .settings(settings)
        .build()
        .expect("params")
        .into();
    let uri = request.uri().to_string();
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                v.to_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let signable = SignableRequest::new(
        "POST",
        &uri,
        headers.iter().map(|(n, v)| (n.as_str(), v.as_str())),
        SignableBody::Bytes(&body),
    )
    .expect("signable");
    let (instructions, _) = sign(signable, &params).expect("sign").into_parts();
    instructions.apply_to_request_http1x(&mut request);
    request
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_requests_skew_presigned_and_missing_authorization() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kura = start(&write_file(dir.path(), FILE));
    let endpoint = kura.endpoint.clone();
    let now = SystemTime::now();

    let ok = send(signed_list_tables(
        &endpoint,
        "AKIDALICE",
        "alice-secret",
        now,
        None,
    ))
    .await;
    assert_eq!(ok.status, 200, "{}", ok.json);

    // A compressed body is signed as sent, before Kura inflates it.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, b"{}").expect("gzip");
    let gzipped = gz.finish().expect("gzip");
    let request = signed_request(
        &endpoint,
        "AKIDALICE",
        "alice-secret",
        now,
        None,
        gzipped,
        Some("gzip"),
    );
    let reply = send(request).await;
    assert_eq!(reply.status, 200, "{}", reply.json);

    let unsigned = http::Request::post(format!("{endpoint}/"))
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", "DynamoDB_20120810.ListTables")
        .body(Full::new(Bytes::from_static(b"{}")))
        .expect("request");
    let reply = send(unsigned).await;
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.error(),
        (
            "MissingAuthenticationTokenException",
            "Request is missing Authentication Token"
        )
    );
    assert_eq!(
        reply.json["__type"],
        "com.amazon.coral.service#MissingAuthenticationTokenException"
    );

    let sixteen = Duration::from_secs(16 * 60);
    let old = send(signed_list_tables(
        &endpoint,
        "AKIDALICE",
        "alice-secret",
        now - sixteen,
        None,
    ))
    .await;
    assert_eq!(old.status, 400);
    assert_eq!(old.error().0, "InvalidSignatureException");
    assert!(
        old.error().1.starts_with("Signature expired: "),
        "{}",
        old.json
    );
    assert!(old.error().1.ends_with(" - 15 min.)"), "{}", old.json);
    let ahead = send(signed_list_tables(
        &endpoint,
        "AKIDALICE",
        "alice-secret",
        now + sixteen,
        None,
    ))
    .await;
    assert_eq!(ahead.error().0, "InvalidSignatureException");
    assert!(
        ahead.error().1.starts_with("Signature not yet current: "),
        "{}",
        ahead.json
    );
    assert!(ahead.error().1.ends_with(" + 15 min.)"), "{}", ahead.json);

    let presigned = signed_list_tables(
        &endpoint,
        "AKIDALICE",
        "alice-secret",
        now,
        Some(Duration::from_secs(300)),
    );
    assert!(presigned.headers().get("authorization").is_none());
    assert!(
        presigned
            .uri()
            .query()
            .unwrap_or_default()
            .contains("X-Amz-Signature=")
    );
    let reply = send(presigned).await;
    assert_eq!(reply.status, 200, "{}", reply.json);
    let stale = signed_list_tables(
        &endpoint,
        "AKIDALICE",
        "alice-secret",
        now - Duration::from_secs(600),
        Some(Duration::from_secs(300)),
    );
    let reply = send(stale).await;
    assert_eq!(
        reply.error().0,
        "InvalidSignatureException",
        "{}",
        reply.json
    );
    let wrong = signed_list_tables(
        &endpoint,
        "AKIDALICE",
        "wrong",
        now,
        Some(Duration::from_secs(300)),
    );
    assert_eq!(
        send(wrong).await.error(),
        ("InvalidSignatureException", MISMATCH)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_reloads_the_credentials_file_and_keeps_it_when_broken() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_file(dir.path(), FILE);
    let kura = start(&path);
    let hup = |kura: &KuraProcess| {
        std::process::Command::new("kill")
            .args(["-HUP", &kura.pid().to_string()])
            .status()
            .expect("kill -HUP");
    };
    let bob = client(&kura, "AKIDBOB", "bob-secret", None);
    assert_eq!(list_error(&bob).await.0, "UnrecognizedClientException");

    write_file(
        dir.path(),
        r#"{"Credentials": [{"AccessKeyId": "AKIDBOB", "SecretAccessKey": "bob-secret", "User": "bob"}]}"#,
    );
    hup(&kura);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while bob.list_tables().send().await.is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the reload did not take"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let alice = client(&kura, "AKIDALICE", "alice-secret", None);
    assert_eq!(list_error(&alice).await.0, "UnrecognizedClientException");

    write_file(dir.path(), "{ not json");
    hup(&kura);
    tokio::time::sleep(Duration::from_millis(300)).await;
    bob.list_tables()
        .send()
        .await
        .expect("the old keys stay when the file is broken");
}

/// boto3 (the interop suite's virtualenv) and the AWS CLI, when this machine has them.
#[test]
fn boto3_and_the_aws_cli() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kura = start(&write_file(dir.path(), FILE));
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python");
    if python.exists() {
        let script = r#"
import sys, boto3, botocore
from botocore.config import Config
def client(key, secret):
    return boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1",
        aws_access_key_id=key, aws_secret_access_key=secret,
        config=Config(retries={"max_attempts": 1}))
print(client("AKIDALICE", "alice-secret").list_tables()["TableNames"])
for key, secret in [("AKIDALICE", "wrong"), ("AKIDNOBODY", "x")]:
    try:
        client(key, secret).list_tables()
        print("accepted")
    except botocore.exceptions.ClientError as e:
        print(e.response["Error"]["Code"])
"#;
        let out = std::process::Command::new(&python)
            .args(["-c", script, &kura.endpoint])
            .output()
            .expect("run python");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            stdout.lines().collect::<Vec<_>>(),
            [
                "[]",
                "InvalidSignatureException",
                "UnrecognizedClientException"
            ],
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let aws = |key: &str, secret: &str| {
        std::process::Command::new("aws")
            .args(["dynamodb", "list-tables", "--endpoint-url", &kura.endpoint])
            .env("AWS_ACCESS_KEY_ID", key)
            .env("AWS_SECRET_ACCESS_KEY", secret)
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .env("AWS_MAX_ATTEMPTS", "1")
            .env("AWS_CONFIG_FILE", dir.path().join("aws-config"))
            .env(
                "AWS_SHARED_CREDENTIALS_FILE",
                dir.path().join("aws-credentials"),
            )
            .env_remove("AWS_SESSION_TOKEN")
            .env_remove("AWS_PROFILE")
            .output()
    };
    if let Ok(out) = aws("AKIDALICE", "alice-secret") {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = aws("AKIDALICE", "wrong").expect("aws");
        assert!(!out.status.success());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("InvalidSignatureException"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Without --auth on a non-loopback address, Kura says so at start.
#[test]
fn open_on_the_network_is_announced() {
    use std::io::{BufRead, BufReader};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kura"))
        .args(["serve", "--in-memory", "--port", "0", "--bind", "0.0.0.0"])
        .env("KURA_LOG", "info")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let stderr = child.stderr.take().expect("stderr");
    let mut warned = false;
    for line in BufReader::new(stderr).lines() {
        let line = line.expect("line");
        if line.contains("anyone who can reach the port can read and write everything") {
            warned = true;
        }
        if line.contains("kura ready on ") {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(warned);
}
