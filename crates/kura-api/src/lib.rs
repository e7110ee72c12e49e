//! Kura's DynamoDB API without HTTP: the operation table ([`operation`]), the one
//! [`pipeline`] every request runs through whoever sends it (kura-server's `POST /`, the
//! console, a program calling [`invoke`]), the handlers, authorization, capacity throttling, the
//! Prometheus metrics and the audit log.
//!
//! ```no_run
//! # async fn run() -> Result<(), kura_api::error::ApiError> {
//! let engine = kura_engine::Engine::in_memory();
//! let body = bytes::Bytes::from_static(br#"{"TableName":"orders"}"#);
//! let answer = kura_api::invoke(&engine, "DescribeTable", body).await?;
//! # Ok(()) }
//! ```
//!
//! What reaches this crate is a request already read: kura-server owns the edge (routes,
//! bodies, connections, TLS, SigV4) and hooks its test controls in as an
//! [`Interceptor`].

pub mod audit;
pub mod authz;
pub mod call;
mod embedded;
pub mod error;
mod intercept;
pub mod metrics;
pub mod operation;
mod ops;
pub mod pipeline;
pub mod schema_file;
pub mod schemas;
mod slot;

pub use embedded::{invoke, invoke_streams};
pub use intercept::{Interception, Interceptor, Named};
pub use slot::EngineSlot;
