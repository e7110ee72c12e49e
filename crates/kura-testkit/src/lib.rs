//! `aws-sdk-dynamodb` clients wired to Kura, for tests, benchmarks and embedded use.
//!
//! - [`TestKura`] starts an isolated server per test on a random local port, with the
//!   test controls at hand: a manual clock, snapshots, reset, fault injection, capacity
//!   emulation and seeds (docs/testing.md).
//!
//! ```
//! # let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! use kura_testkit::{FaultSpec, TestKura};
//!
//! let kura = TestKura::builder().manual_clock().start().await.unwrap();
//! let client = kura.client();
//! assert!(client.list_tables().send().await.unwrap().table_names().is_empty());
//! kura.inject(FaultSpec {
//!     error: Some("InternalServerError".into()),
//!     operation: Some("ListTables".into()),
//!     count: Some(1),
//!     ..FaultSpec::default()
//! })
//! .unwrap();
//! // The SDK retries the injected 500 and succeeds.
//! client.list_tables().send().await.unwrap();
//! kura.advance(std::time::Duration::from_secs(3600)).await.unwrap();
//! kura.reset().unwrap();
//! # });
//! ```
//!
//! - `container` (feature `testcontainers`) runs Kura's container image as a
//!   testcontainers image, for suites that run their services in containers.
//! - [`in_process_client`] plugs a Kura router into the SDK as its HTTP client: the real
//!   SDK serialises and parses the real wire format, with no sockets (as s3s does for S3).
//! - [`endpoint_client`] talks plain HTTP to any endpoint (a spawned `kura serve`,
//!   DynamoDB Local, ...) without pulling in a TLS stack.
//!
//! ```
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! let engine = kura_engine::Engine::in_memory();
//! let client = kura_testkit::in_process_client(engine);
//! let tables = client.list_tables().send().await.unwrap();
//! assert!(tables.table_names().is_empty());
//! # });
//! ```

mod clients;
#[cfg(feature = "testcontainers")]
pub mod container;
pub mod failing_store;
mod server;

pub use clients::{
    endpoint_client, endpoint_client_with, endpoint_streams_client, in_process_client,
    in_process_streams_client,
};
pub use kura_engine::throttle::ThrottleOptions;
pub use kura_server::test_controls::faults::FaultSpec;
pub use server::{Builder, TestKura};
