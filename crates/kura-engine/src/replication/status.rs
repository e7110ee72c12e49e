//! What DescribeTable says of a global table's replicas, and the statuses a replica goes
//! through: kept apart from the rest of `replication`, which the catalog's readers need
//! without the regions and their engines.

use serde::Serialize;

use crate::api::{
    OnDemandThroughputOverride, ProvisionedThroughputOverride, ReplicaDescription,
    ReplicaGlobalSecondaryIndex, TableClassSummary, WitnessDescription,
};
use crate::catalog::{ReplicaOverrides, ReplicationRecord, TableRecord};

/// What DescribeTable's `GlobalTableVersion` says of a replica.
pub const GLOBAL_TABLE_VERSION: &str = "2019.11.21";

/// A replica's status while its copy is being filled, and after.
pub(crate) const CREATING: &str = "CREATING";
pub(crate) const ACTIVE: &str = "ACTIVE";

/// The replica group of a version 2019.11.21 global table.
pub(crate) fn current(table: &TableRecord) -> Option<&ReplicationRecord> {
    table
        .replication
        .as_ref()
        .filter(|g| g.legacy_since_ms.is_none())
}

/// The replica group of a version 2017.11.29 global table.
pub(crate) fn legacy(table: &TableRecord) -> Option<&ReplicationRecord> {
    table
        .replication
        .as_ref()
        .filter(|g| g.legacy_since_ms.is_some())
}

/// Whether a replica of `table` is still being created (the table is UPDATING meanwhile).
pub(crate) fn adding_replica(table: &TableRecord) -> bool {
    table
        .replication
        .as_ref()
        .is_some_and(|g| g.replicas.iter().any(|r| r.status == CREATING))
}

/// DescribeTable's `Replicas`: the other regions of the global table (none for a legacy
/// one, which DescribeGlobalTable describes).
pub(crate) fn describe(table: &TableRecord) -> Option<Vec<ReplicaDescription>> {
    let group = current(table)?;
    Some(
        group
            .replicas
            .iter()
            .map(|r| describe_replica(&r.region, &r.status, &r.overrides))
            .collect(),
    )
}

/// One replica as DescribeTable lists it, with what it overrides.
fn describe_replica(region: &str, status: &str, o: &ReplicaOverrides) -> ReplicaDescription {
    let provisioned = |units: Option<i64>| {
        units.map(|u| ProvisionedThroughputOverride {
            read_capacity_units: Some(u),
        })
    };
    let on_demand = |units: Option<i64>| {
        units.map(|u| OnDemandThroughputOverride {
            max_read_request_units: Some(u),
        })
    };
    let indexes: Vec<ReplicaGlobalSecondaryIndex> = o
        .indexes
        .iter()
        .map(|i| ReplicaGlobalSecondaryIndex {
            index_name: Some(i.index_name.clone()),
            provisioned_throughput_override: provisioned(i.read_capacity_units),
            on_demand_throughput_override: on_demand(i.max_read_request_units),
        })
        .collect();
    ReplicaDescription {
        region_name: region.to_owned(),
        replica_status: status.to_owned(),
        kms_master_key_id: o.kms_master_key_id.clone(),
        provisioned_throughput_override: provisioned(o.read_capacity_units),
        on_demand_throughput_override: on_demand(o.max_read_request_units),
        global_secondary_indexes: (!indexes.is_empty()).then_some(indexes),
        replica_table_class_summary: o
            .table_class
            .clone()
            .map(|table_class| TableClassSummary { table_class }),
    }
}

/// DescribeTable's `MultiRegionConsistency`: STRONG for an MRSC table, left out otherwise.
pub(crate) fn consistency(table: &TableRecord) -> Option<&'static str> {
    strong(table).map(|_| "STRONG")
}

/// DescribeTable's `GlobalTableWitnesses`: an MRSC table's witness.
pub(crate) fn witnesses(table: &TableRecord) -> Option<Vec<WitnessDescription>> {
    let witness = strong(table)?.witness.as_ref()?;
    Some(vec![WitnessDescription {
        region_name: witness.clone(),
        witness_status: ACTIVE,
    }])
}

/// The replica group of an MRSC global table.
pub(crate) fn strong(table: &TableRecord) -> Option<&ReplicationRecord> {
    table.replication.as_ref().filter(|g| g.strong)
}

/// Whether `table` lists its replica in `region` (as ACTIVE, when `active`).
pub(crate) fn lists(table: &TableRecord, region: &str, active: bool) -> bool {
    table
        .replication
        .as_ref()
        .and_then(|g| g.replica(region))
        .is_some_and(|r| !active || r.status == ACTIVE)
}

/// Drops `region` from a member's replicas.
pub(crate) fn forget_replica(group: &mut Option<ReplicationRecord>, region: &str) {
    if let Some(g) = group {
        g.replicas.retain(|r| r.region != region);
    }
}

/// A region's isolation, running or ended.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Outage {
    pub region: String,
    pub since_ms: i64,
    /// When it was healed (None: still isolated).
    pub healed_ms: Option<i64>,
    /// How long it was (or has been) out.
    pub duration_ms: i64,
}
