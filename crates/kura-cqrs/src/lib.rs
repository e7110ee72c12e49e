//! `kura-cqrs`: the CQRS single-table data layer of the seed key design, over
//! `aws-sdk-dynamodb` only, so it runs on Kura and unchanged on AWS DynamoDB.
//!
//! - [`module`]: one module's configuration (tables, indexes, TTL policies, handlers,
//!   large attributes, sessions, notifier), from which its services and projector are
//!   built alike.
//! - [`keys`]: `PK = PREFIX#TENANT`, `SK = IDENTIFIER[@VERSION]`, `ID = PK#SK`, the seed's
//!   helpers and constants, and builders for its six key patterns.
//! - [`tables`]: a module's command, data and history tables, created or checked.
//! - [`command`]: commands, their stored rows, and the pure publishing decision
//!   (optimistic locking by version, the "not dirty" rule).
//! - [`service`]: publishing (async through the command table's stream, or sync in one
//!   transaction) and reading commands and data rows.
//! - [`partial`]: partial updates merged onto the latest version.
//! - [`data`]: reading the data table (pages and cursors, sort-key conditions) and history.
//! - [`master`]: master data, settings resolved user → group → tenant → common, and TTL
//!   policies per table type.
//! - [`tenants`]: tenant records and the common tenant.
//! - [`sequence`]: atomic counters rotated by day, month, year or fiscal year, and the
//!   format mini-language.
//! - [`projector`]: the stream-driven worker that applies commands to the data table and
//!   the registered sync handlers, with checkpoints and a dead-letter table.
//!
//! - [`sessions`]: read-your-writes (a user's own async publishes merged into their reads,
//!   index pages too).
//! - [`indexes`]: a module's secondary indexes, declared once, and queries built from the
//!   declaration; [`entity`]: typed entities; [`Version`]: an entity's version;
//!   [`CommandRecord`]: a command-table stream record, typed.
//! - [`notifications`]: command versions reaching a final status, for subscribers.
//! - [`tasks`]: long-running tasks with status and sub-tasks, as the framework's entities,
//!   their inputs and results the caller's own types.
//! - [`import`]: CSV and JSON lines imported through commands (as they are, or read as
//!   the caller's type), with a report of rejects.
//! - [`large`]: attributes too large for an item, kept in a bucket of an [`objects`]
//!   store (a local directory, S3) and read back transparently.
//! - [`redrive`]: resync a new read model from the data table, list and replay failed
//!   commands.
//!
//! - [`projection`]: the one projection step (data row, history row, TTL), pure.
//! - [`names`], [`status`], [`sync`], [`ttl`]: attribute names, command statuses, the sync
//!   handler trait and TTL policies, shared by the modules above.
//!
//! What the projector and the services share inside (attribute conversion, row reads,
//! stream images, shard walking, cancellation reasons, merging a user's writes into index
//! pages) is private to the crate: it can change without breaking an application.
//! - [`endpoint`]: plain-HTTP clients for an endpoint (Kura, DynamoDB Local).
//!
//! ```no_run
//! # async fn example(client: aws_sdk_dynamodb::Client) -> Result<(), kura_cqrs::CqrsError> {
//! use kura_cqrs::{CommandInput, CommandService, Invoker, TableNames, ensure_tables, keys};
//! let tables = TableNames::new("dev", "shop", "order");
//! ensure_tables(&client, &tables).await?;
//! let service = CommandService::new(client, tables);
//! let key = keys::parent("ORDER", "tenant001", &keys::new_ulid())?;
//! let input = CommandInput::for_key(&key, keys::VERSION_FIRST)
//!     .with_code("A-1")
//!     .with_name("first order")
//!     .with_attribute("total", serde_json::json!(12));
//! let stored = service.publish_sync(&input, &Invoker::default()).await?;
//! # Ok(()) }
//! ```

mod attributes;
mod cancellation;
pub mod command;
mod command_record;
mod command_status;
pub mod condition;
pub mod data;
mod dead_letters;
pub mod endpoint;
pub mod entity;
pub mod error;
pub mod import;
mod index_merge;
mod index_query;
pub mod indexes;
pub mod keys;
#[cfg(feature = "lambda")]
pub mod lambda;
pub mod large;
mod lease;
pub mod master;
pub mod module;
pub mod names;
pub mod notifications;
pub mod objects;
pub mod partial;
pub mod projection;
mod projection_failure;
pub mod projector;
mod projector_options;
pub mod redrive;
mod rows;
pub mod sequence;
pub mod service;
pub mod sessions;
mod shards;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod status;
mod stream_calls;
mod stream_image;
pub mod sync;
mod sync_handoff;
pub mod tables;
pub mod tasks;
pub mod tenants;
pub mod ttl;
mod version;

pub use command::{Audit, CommandInput, CommandModel, Decision, Invoker, decide};
pub use command_record::{CommandRecord, Publishing};
pub use condition::SkCondition;
pub use data::{Cursor, DataService, IndexPage, IndexQuery, ListOptions, Page};
pub use entity::Entity;
pub use error::{BoxError, CqrsError, Result};
pub use indexes::{Index, IndexKey, Indexes, KeyPart};
pub use large::LargeAttributes;
pub use master::{MasterService, SettingScope};
pub use module::Module;
pub use notifications::{Notification, Notifier};
pub use objects::{DirectoryStore, ObjectStore};
pub use partial::{PartialUpdate, merge};
pub use projection::{Projection, project};
pub use projector::{Projector, ProjectorOptions};
pub use sequence::{RotateBy, Sequence, SequenceService, SequenceSettings};
pub use service::CommandService;
pub use sessions::Sessions;
pub use status::CommandStatus;
pub use sync::{ByKind, EntityHandler, HandlerFuture, SyncHandler};
pub use tables::{
    IndexBuild, TableKind, TableNames, ensure_tables, ensure_tables_with, protect_tables,
};
pub use tenants::TenantService;
pub use ttl::{RowTtl, TtlPolicies};
pub use version::Version;
