//! Shared helpers for black-box tests: spawning `kura serve`, building tables.

#![allow(dead_code)] // each test file uses a different subset

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};

/// A `kura serve` child process on a random loopback port.
pub struct KuraProcess {
    child: Child,
    pub endpoint: String,
}

/// The `kura` these tests start: `KURA_TEST_BIN` when set (a long run that must not see
/// the binary rebuilt under it, or a release build), else the one cargo built with them.
pub fn kura_binary() -> std::path::PathBuf {
    std::env::var_os("KURA_TEST_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_kura").into())
}

impl KuraProcess {
    /// Starts the server on `data_dir` (or in memory) and waits for its readiness line.
    pub fn start(data_dir: Option<&Path>) -> KuraProcess {
        KuraProcess::start_with(data_dir, &[])
    }

    /// [`KuraProcess::start`] with more `kura serve` arguments.
    pub fn start_with(data_dir: Option<&Path>, args: &[&str]) -> KuraProcess {
        let mut cmd = Command::new(kura_binary());
        cmd.args(["serve", "--port", "0"]).args(args);
        match data_dir {
            Some(dir) => cmd.arg("--data-dir").arg(dir),
            None => cmd.arg("--in-memory"),
        };
        cmd.env("KURA_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn kura");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if !sent && let Some(rest) = line.split("kura ready on ").nth(1) {
                    let endpoint = rest.split_whitespace().next().unwrap_or_default();
                    let _ = tx.send(endpoint.to_owned());
                    sent = true;
                }
            }
        });
        let endpoint = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("kura did not become ready");
        KuraProcess { child, endpoint }
    }

    pub fn client(&self) -> Client {
        kura_testkit::endpoint_client(&self.endpoint)
    }

    pub fn streams_client(&self) -> aws_sdk_dynamodbstreams::Client {
        kura_testkit::endpoint_streams_client(&self.endpoint)
    }

    /// The child's process id (to send it signals).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `kill -9`: no shutdown code runs.
    pub fn kill9(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("wait");
    }

    /// SIGTERM and wait for a clean exit.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill -TERM");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "kura did not stop after SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for KuraProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `client` with the SDK's retries off: a call fails at once when the server is gone or
/// refuses it (tests that kill the server, or count refusals).
pub fn without_retries(client: &Client) -> Client {
    Client::from_conf(
        client
            .config()
            .to_builder()
            .retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled())
            .build(),
    )
}

/// `client` signing for `region` (`kura serve --regions separate` keeps regions apart).
pub fn in_region(client: &Client, region: &str) -> Client {
    Client::from_conf(
        client
            .config()
            .to_builder()
            .region(aws_sdk_dynamodb::config::Region::new(region.to_owned()))
            .build(),
    )
}

/// UpdateTable's `ReplicaUpdates` entry creating a replica in `region`.
pub fn create_replica(region: &str) -> aws_sdk_dynamodb::types::ReplicationGroupUpdate {
    aws_sdk_dynamodb::types::ReplicationGroupUpdate::builder()
        .create(
            aws_sdk_dynamodb::types::CreateReplicationGroupMemberAction::builder()
                .region_name(region)
                .build()
                .expect("create action"),
        )
        .build()
}

/// `kura regions ...` against `endpoint`: its JSON answer.
pub fn regions_command(endpoint: &str, args: &[&str]) -> serde_json::Value {
    let out = std::process::Command::new(kura_binary())
        .arg("regions")
        .args(args)
        .args(["--endpoint", endpoint])
        .output()
        .expect("kura regions");
    assert!(
        out.status.success(),
        "kura regions {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON answer")
}

/// Turns TTL on for `table`, on `attribute`.
pub async fn enable_ttl(client: &Client, table: &str, attribute: &str) {
    client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(
            aws_sdk_dynamodb::types::TimeToLiveSpecification::builder()
                .enabled(true)
                .attribute_name(attribute)
                .build()
                .expect("ttl specification"),
        )
        .send()
        .await
        .expect("enable TTL");
}

/// Creates an on-demand table with a string partition key and optional sort key.
pub async fn create_table(
    client: &Client,
    name: &str,
    pk: &str,
    sk: Option<(&str, ScalarAttributeType)>,
) {
    let mut req = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def(pk, ScalarAttributeType::S))
        .key_schema(key(pk, KeyType::Hash));
    if let Some((sk, ty)) = sk {
        req = req
            .attribute_definitions(def(sk, ty))
            .key_schema(key(sk, KeyType::Range));
    }
    req.send().await.expect("create table");
}

pub fn def(name: &str, ty: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ty)
        .build()
        .expect("definition")
}

pub fn key(name: &str, ty: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(ty)
        .build()
        .expect("key")
}

/// The error code (`__type` after '#') of an SDK error.
pub fn code<E, R>(err: &aws_sdk_dynamodb::error::SdkError<E, R>) -> String
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata,
{
    err.as_service_error()
        .and_then(|e| e.code())
        .unwrap_or("<not a service error>")
        .to_owned()
}

pub fn message<E, R>(err: &aws_sdk_dynamodb::error::SdkError<E, R>) -> String
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata,
{
    err.as_service_error()
        .and_then(|e| e.message())
        .unwrap_or("")
        .to_owned()
}
pub mod backups;
pub mod batches;
pub mod expressions;
pub mod fidelity;
pub mod fidelity_iii;
pub mod fidelity_iii_items;
pub mod indexes;
pub mod multi_keys;
pub mod partiql;
pub mod raw_http;
pub mod reads;
pub mod scenarios;
pub mod streams;
pub mod transactions;
pub mod vectors;
