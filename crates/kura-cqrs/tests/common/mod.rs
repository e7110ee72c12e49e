//! Where the framework's suite runs: against the DynamoDB endpoint in `KURA_ENDPOINT`
//! (a `kura serve`, Amazon DynamoDB Local, or AWS over HTTPS with the `tls` feature and
//! `KURA_STREAMS_ENDPOINT`: `scripts/cqrs-on-aws.sh`) when it is set, else against
//! Kura in process (through the SDK, no sockets). Every test takes its clients and table
//! names from here, so the whole suite runs unchanged on any endpoint.
#![allow(dead_code)] // each test file uses a part

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use kura_cqrs::TableNames;

/// The endpoint under test, if not Kura in process.
pub fn endpoint() -> Option<String> {
    std::env::var("KURA_ENDPOINT")
        .ok()
        .filter(|e| !e.is_empty())
}

/// A DynamoDB and a DynamoDB Streams client for the endpoint under test.
pub async fn clients() -> (aws_sdk_dynamodb::Client, aws_sdk_dynamodbstreams::Client) {
    match endpoint() {
        Some(endpoint) => {
            // AWS serves the Streams API on an endpoint of its own; Kura and DynamoDB
            // Local serve both on one.
            let streams = std::env::var("KURA_STREAMS_ENDPOINT")
                .ok()
                .filter(|e| !e.is_empty())
                .unwrap_or_else(|| endpoint.clone());
            (
                kura_cqrs::endpoint::dynamodb_client(&endpoint),
                kura_cqrs::endpoint::streams_client(&streams),
            )
        }
        None => {
            let engine = kura_engine::Engine::in_memory();
            (
                kura_testkit::in_process_client(engine.clone()),
                kura_testkit::in_process_streams_client(engine),
            )
        }
    }
}

/// Clients for Kura in process on an engine of the test's own (a manual clock, short
/// shard ages, ...), or `None` when the suite runs against an endpoint, whose engine a
/// test cannot configure.
pub fn in_process(
    engine: std::sync::Arc<kura_engine::Engine>,
) -> Option<(aws_sdk_dynamodb::Client, aws_sdk_dynamodbstreams::Client)> {
    if endpoint().is_some() {
        return None;
    }
    Some((
        kura_testkit::in_process_client(engine.clone()),
        kura_testkit::in_process_streams_client(engine),
    ))
}

/// The DynamoDB client alone.
pub async fn client() -> aws_sdk_dynamodb::Client {
    clients().await.0
}

/// Names no other test, run or process uses: `test-{run}{n}-{module}-…`, where `run` is
/// this process's random id and `n` counts the calls. A shared endpoint is safe, and a
/// re-run never meets the tables of an earlier one.
pub fn unique_names(module: &str) -> TableNames {
    TableNames::new(&test_env(), &unique_app(), module)
}

/// The environment part of every test table's name: `test`, or `KURA_CQRS_TEST_ENV`
/// (`scripts/cqrs-on-aws.sh` sets one of its own, to delete what it made, and only that).
pub fn test_env() -> String {
    std::env::var("KURA_CQRS_TEST_ENV")
        .ok()
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| "test".to_owned())
}

/// An app name of its own (for tests that build `TableNames` for several modules of one
/// app).
pub fn unique_app() -> String {
    static RUN: OnceLock<String> = OnceLock::new();
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let run = RUN.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut rng = fastrand::Rng::with_seed(
            u64::from(nanos) ^ u64::from(std::process::id()).rotate_left(32),
        );
        (0..8)
            .map(|_| rng.alphanumeric().to_ascii_lowercase())
            .collect()
    });
    format!("{run}{}", CALLS.fetch_add(1, Ordering::Relaxed))
}

/// Says, on stderr and in the log, what a test could not check on this endpoint and why.
pub fn not_checked(what: &str, why: &str) {
    let endpoint = endpoint().unwrap_or_else(|| "kura in process".into());
    eprintln!("NOT CHECKED on {endpoint}: {what} ({why})");
    tracing::warn!(%endpoint, what, why, "not checked");
}
