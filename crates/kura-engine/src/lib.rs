//! Kura's database engine: DynamoDB semantics over an embedded store, with no HTTP.
//!
//! The engine takes the typed inputs of [`api`] and returns typed outputs. Every write
//! goes through one sequencer with group commit ([`writer`]); reads use store snapshots
//! and never wait on writes.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use kura_engine::{Engine, RequestContext, api::*};
//! let engine = Engine::in_memory();
//! let ctx = RequestContext::default();
//! let input: CreateTableInput = serde_json::from_str(r#"{
//!     "TableName": "Users",
//!     "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
//!     "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
//!     "BillingMode": "PAY_PER_REQUEST"
//! }"#).unwrap();
//! engine.create_table(&ctx, input).await.unwrap();
//! let put: PutItemInput = serde_json::from_str(
//!     r#"{"TableName": "Users", "Item": {"pk": {"S": "u1"}, "age": {"N": "42"}}}"#).unwrap();
//! engine.put_item(put).await.unwrap();
//! let get: GetItemInput = serde_json::from_str(
//!     r#"{"TableName": "Users", "Key": {"pk": {"S": "u1"}}}"#).unwrap();
//! let item = engine.get_item(get).unwrap().item.unwrap();
//! assert_eq!(serde_json::to_string(&item["age"]).unwrap(), r#"{"N":"42"}"#);
//! engine.shutdown();
//! # });
//! ```

pub mod api;
pub mod arn;
mod background;
mod backups;
mod batch;
mod capacity;
pub mod catalog;
pub mod clock;
mod context;
pub mod counters;
pub mod design;
mod engine;
pub mod error;
mod exports;
mod facets;
mod group_commit;
pub mod imports;
mod indexes;
mod items;
mod jobs;
pub mod keys;
mod kinesis;
mod lifecycle;
pub mod objects;
mod open;
mod paging;
mod partiql;
mod purge;
mod query_scan;
pub mod replication;
mod resource_policy;
mod state;
pub mod streams;
mod sweeper;
mod tables;
pub mod throttle;
mod transactions;
mod ttl;
mod vectors;
mod workers;
mod write_evidence;
pub mod writer;

pub use arn::ACCOUNT_ID;
pub use context::RequestContext;
pub use engine::{Engine, EngineOptions, Health};
pub use error::{EngineError, Result};
pub use exports::object_prefix as export_object_prefix;
pub use facets::{Capacity, Internals};
pub use kinesis::stream::{
    parse_sequence as kinesis_sequence_value, sequence_string as kinesis_sequence_text,
};
/// The expression crate, for the server's authorization step (key conditions, PartiQL).
pub use kura_expr as expr;
/// The storage seam an engine is opened on (the `kura-store` crate).
pub use kura_store as storage;
pub use state::StateSnapshot;
pub use streams::StreamLag;
pub use tables::{TableSize, VectorIndexSize};
