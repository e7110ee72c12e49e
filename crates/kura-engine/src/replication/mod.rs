//! Global tables (version 2019.11.21): a table's replicas in other regions, each region
//! its own engine ([`Regions`]), kept equal by sending each replica's own writes to the
//! others ([`changes`]) and settling concurrent writes by last writer wins ([`time`]).
//! UpdateTable's `ReplicaUpdates` adds and removes replicas ([`Regions::update_table`]);
//! a background thread fills new replicas and sends changes ([`Regions::start`]).
//! ADR 0034.

mod autoscaling;
pub mod changes;
mod drill;
mod fill;
mod flights;
mod legacy;
mod overrides;
mod regions;
mod replica_actions;
mod replica_updates;
mod settings;
pub(crate) mod status;
mod strong;
mod strong_updates;
pub mod time;

pub use changes::{Change, Checkpoint, Feed};
pub use drill::Backlog;
pub use regions::{OpenRegion, Regions, ReplicationLag, valid_region};
pub use status::{GLOBAL_TABLE_VERSION, Outage};
pub use strong::StrongWrite;
