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
    /// This replica's own settings, as the others list them (the record that decides).
    #[serde(default, skip_serializing_if = "ReplicaOverrides::is_empty")]
    pub overrides: ReplicaOverrides,
}

/// Another replica of the same global table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaRecord {
    pub region: String,
    /// `CREATING` until its copy is filled, then `ACTIVE`.
    pub status: String,
    /// What this replica has of its own (UpdateTable's Create and Update overrides).
    #[serde(default, skip_serializing_if = "ReplicaOverrides::is_empty")]
    pub overrides: ReplicaOverrides,
}

/// A replica's own settings, where it differs from the table it was made from: read
/// capacity (provisioned or on-demand maximum, table and GSIs), table class, KMS key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaOverrides {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kms_master_key_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_capacity_units: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_read_request_units: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_class: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<IndexOverride>,
}

/// A GSI's read capacity in one replica.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexOverride {
    pub index_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_capacity_units: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_read_request_units: Option<i64>,
}

impl ReplicaOverrides {
    pub fn is_empty(&self) -> bool {
        *self == ReplicaOverrides::default()
    }

    /// `newer` over these: what it sets replaces, what it leaves out stays (an Update).
    pub fn merge(&mut self, newer: ReplicaOverrides) {
        let ReplicaOverrides {
            kms_master_key_id,
            read_capacity_units,
            max_read_request_units,
            table_class,
            indexes,
        } = newer;
        self.kms_master_key_id = kms_master_key_id.or(self.kms_master_key_id.take());
        self.read_capacity_units = read_capacity_units.or(self.read_capacity_units);
        self.max_read_request_units = max_read_request_units.or(self.max_read_request_units);
        self.table_class = table_class.or(self.table_class.take());
        for index in indexes {
            match self
                .indexes
                .iter_mut()
                .find(|i| i.index_name == index.index_name)
            {
                Some(held) => {
                    held.read_capacity_units =
                        index.read_capacity_units.or(held.read_capacity_units);
                    held.max_read_request_units =
                        index.max_read_request_units.or(held.max_read_request_units);
                }
                None => self.indexes.push(index),
            }
        }
    }
}

impl ReplicationRecord {
    pub fn replica(&self, region: &str) -> Option<&ReplicaRecord> {
        self.replicas.iter().find(|r| r.region == region)
    }
}
