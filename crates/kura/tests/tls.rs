//! `kura serve --tls-cert PEM --tls-key PEM`: HTTPS on the same port, with a self-signed
//! certificate made here (rcgen). aws-sdk-dynamodb over a rustls connector that trusts it,
//! boto3 with `verify=` and the AWS CLI with `--ca-bundle` when the interop virtualenv is
//! there, graceful shutdown; plain HTTP without the flags is covered by every other
//! spawned test.

mod common;

use std::path::Path;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use common::KuraProcess;
use rustls::pki_types::pem::PemObject;

struct Certificate {
    cert_pem: String,
    cert: std::path::PathBuf,
}

/// A self-signed certificate for `localhost` and 127.0.0.1, written with its key to `dir`.
fn certificate(dir: &Path) -> (Certificate, std::path::PathBuf) {
    let rcgen::CertifiedKey { cert, key_pair } =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()])
            .expect("generate a certificate");
    let cert_path = dir.join("cert.pem");
    let key_path = dir.join("key.pem");
    std::fs::write(&cert_path, cert.pem()).expect("write cert");
    std::fs::write(&key_path, key_pair.serialize_pem()).expect("write key");
    (
        Certificate {
            cert_pem: cert.pem(),
            cert: cert_path,
        },
        key_path,
    )
}

fn start(cert: &Certificate, key: &Path, extra: &[&str]) -> KuraProcess {
    let mut args = vec![
        "--tls-cert",
        cert.cert.to_str().expect("utf-8"),
        "--tls-key",
        key.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    KuraProcess::start_with(None, &args)
}

/// An SDK client over rustls that trusts only `cert`.
fn https_client(endpoint: &str, cert: &Certificate) -> aws_sdk_dynamodb::Client {
    let mut roots = rustls::RootCertStore::empty();
    let der = rustls::pki_types::CertificateDer::from_pem_slice(cert.cert_pem.as_bytes())
        .expect("parse cert");
    roots.add(der).expect("trust the test certificate");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_only()
        .enable_http1()
        .build();
    let hyper = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build(connector);
    kura_testkit::endpoint_client_with(endpoint, hyper)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_round_trip_over_https_and_graceful_shutdown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (cert, key) = certificate(dir.path());
    let audit = dir.path().join("audit.log");
    let kura = start(&cert, &key, &["--audit", audit.to_str().expect("utf-8")]);
    assert!(
        kura.endpoint.starts_with("https://127.0.0.1:"),
        "{}",
        kura.endpoint
    );
    let client = https_client(&kura.endpoint, &cert);
    common::create_table(&client, "tbl", "pk", None).await;
    client
        .put_item()
        .table_name("tbl")
        .item("pk", AttributeValue::S("a".into()))
        .item("v", AttributeValue::N("1".into()))
        .send()
        .await
        .expect("put over https");
    let got = client
        .get_item()
        .table_name("tbl")
        .key("pk", AttributeValue::S("a".into()))
        .send()
        .await
        .expect("get over https");
    assert_eq!(
        got.item().and_then(|i| i.get("v")),
        Some(&AttributeValue::N("1".into()))
    );

    // The peer address reaches the handlers over TLS too.
    let line = std::fs::read_to_string(&audit).expect("audit log");
    let first: serde_json::Value =
        serde_json::from_str(line.lines().next().expect("a line")).expect("JSON");
    assert_eq!(first["eventName"], "CreateTable");
    assert_eq!(first["sourceIPAddress"], "127.0.0.1");

    // A client that does not trust the certificate is refused by its own TLS check.
    let other = {
        let dir2 = tempfile::tempdir().expect("tempdir");
        certificate(dir2.path()).0
    };
    https_client(&kura.endpoint, &other)
        .list_tables()
        .send()
        .await
        .expect_err("an untrusted certificate");
    // Plain HTTP to the HTTPS port gets no DynamoDB answer.
    let plain = kura.endpoint.replacen("https://", "http://", 1);
    kura_testkit::endpoint_client(&plain)
        .list_tables()
        .send()
        .await
        .expect_err("plain HTTP on the TLS port");
    // The server still serves after the failed handshakes.
    client.list_tables().send().await.expect("still serving");

    let status = kura.terminate();
    assert!(status.success(), "clean exit after SIGTERM: {status:?}");
}

/// boto3 with `verify=` and the AWS CLI with `--ca-bundle`, when the interop virtualenv
/// (made by scripts/test.sh) is there.
#[test]
fn boto3_and_the_aws_cli_with_the_ca_bundle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (cert, key) = certificate(dir.path());
    let kura = start(&cert, &key, &[]);
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin");
    let python = venv.join("python");
    if !python.exists() {
        eprintln!("skipped: no .venv (run scripts/test.sh to make it)");
        return;
    }
    let script = r#"
import sys, boto3
c = boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1",
    aws_access_key_id="k", aws_secret_access_key="s", verify=sys.argv[2])
c.create_table(TableName="tbl", BillingMode="PAY_PER_REQUEST",
    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
c.put_item(TableName="tbl", Item={"pk": {"S": "x"}})
print(c.get_item(TableName="tbl", Key={"pk": {"S": "x"}})["Item"]["pk"]["S"])
"#;
    let out = std::process::Command::new(&python)
        .args([
            "-c",
            script,
            &kura.endpoint,
            cert.cert.to_str().expect("utf-8"),
        ])
        .output()
        .expect("run python");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "x",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let aws = if venv.join("aws").exists() {
        venv.join("aws")
    } else {
        "aws".into()
    };
    let cli = |extra: &[&str]| {
        std::process::Command::new(&aws)
            .args(["dynamodb", "list-tables", "--endpoint-url", &kura.endpoint])
            .args(extra)
            .env("AWS_ACCESS_KEY_ID", "k")
            .env("AWS_SECRET_ACCESS_KEY", "s")
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .env("AWS_MAX_ATTEMPTS", "1")
            .env("AWS_CONFIG_FILE", dir.path().join("aws-config"))
            .env(
                "AWS_SHARED_CREDENTIALS_FILE",
                dir.path().join("aws-credentials"),
            )
            .env_remove("AWS_CA_BUNDLE")
            .env_remove("AWS_PROFILE")
            .output()
    };
    match cli(&["--ca-bundle", cert.cert.to_str().expect("utf-8")]) {
        Err(error) => eprintln!("skipped the AWS CLI: {error}"),
        Ok(out) => {
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && stdout.contains("\"tbl\""),
                "{stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let refused = cli(&[]).expect("aws");
            assert!(!refused.status.success(), "the CLI refuses an unknown CA");
        }
    }
}
