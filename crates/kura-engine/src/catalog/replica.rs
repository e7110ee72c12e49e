//! What a table knows of its global table (version 2019.11.21): the region it is in and
//! the other replicas, each with the status DescribeTable reports.

use serde::{Deserialize, Serialize};

/// A table that is one replica of a global table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicationRecord {
    /// The region this replica is in.
    pub region: String,
    /// The other replicas.
    pub replicas: Vec<ReplicaRecord>,
    /// Set on a new replica until the items of the table it was made from are copied in:
    /// it is CREATING, and data operations do not find it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filling_from: Option<String>,
    /// A version 2017.11.29 global table (CreateGlobalTable), made at this time (ms): it
    /// is managed by the legacy operations and DescribeTable does not list its replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy_since_ms: Option<i64>,
    /// Multi-region strong consistency (MRSC): a write is acknowledged once it is in a
    /// majority of the three regions, and writes to one item from two regions conflict.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strong: bool,
    /// An MRSC table's witness: a region that holds no replica and counts toward the
    /// majority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<String>,
}

/// Another replica of the same global table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaRecord {
    pub region: String,
    /// `CREATING` until its copy is filled, then `ACTIVE`.
    pub status: String,
}

impl ReplicationRecord {
    pub fn replica(&self, region: &str) -> Option<&ReplicaRecord> {
        self.replicas.iter().find(|r| r.region == region)
    }
}
