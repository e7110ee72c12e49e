//! Global tables (version 2019.11.21): UpdateTable's `ReplicaUpdates` and the legacy
//! (2017.11.29) operations.

/// A replica update naming the table's own region (DynamoDB's words).
pub const LOCAL_REGION: &str = "Cannot add, delete, or update the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.";

/// A replica update that names no region, or more than one action.
pub const ONE_ACTION: &str = "One or more parameter values were invalid: A replica update must have exactly one of Create, Update or Delete, with a RegionName";

/// Kura without `--regions separate` has one namespace for every region.
pub const SHARED_REGIONS: &str = "Replicas need regions of their own: start Kura with --regions separate (every region shares one namespace now, as DynamoDB Local's -sharedDb)";

pub fn stream_view_type(table: &str) -> String {
    format!(
        "One or more parameter values were invalid: Table {table} must have DynamoDB Streams enabled with StreamViewType NEW_AND_OLD_IMAGES to add a replica"
    )
}

pub fn replica_exists(table: &str, region: &str) -> String {
    format!(
        "One or more parameter values were invalid: Table {table} already has a replica in region {region}"
    )
}

pub fn table_in_region(table: &str, region: &str) -> String {
    format!(
        "One or more parameter values were invalid: A table named {table} already exists in region {region}, and is not a replica of this table"
    )
}

pub fn no_replica(table: &str, region: &str) -> String {
    format!(
        "One or more parameter values were invalid: Table {table} has no replica in region {region}"
    )
}

pub fn replica_creating(table: &str) -> String {
    format!(
        "Table {table} is being updated: a replica is being created, try again once it is ACTIVE"
    )
}

/// DescribeGlobalTable and UpdateGlobalTable on a name that is no legacy global table.
pub fn global_table_not_found(name: &str) -> String {
    format!("Global table not found: Global table with name: '{name}' does not exist.")
}

/// CreateGlobalTable naming a region without the table (DynamoDB's words).
pub fn table_not_in_region(table: &str, region: &str) -> String {
    format!("Table not found: Table: '{table}' not found in region: '{region}'.")
}

pub fn global_table_exists(name: &str) -> String {
    format!("Global table with name: '{name}' already exists")
}

pub fn replica_already_exists(name: &str, region: &str) -> String {
    format!("Replica already exists in region: '{region}' for global table: '{name}'")
}

pub fn replica_not_found(name: &str, region: &str) -> String {
    format!("Replica not found in region: '{region}' for global table: '{name}'")
}

/// CreateGlobalTable and UpdateGlobalTable need empty tables (the API Reference's rule).
pub fn replica_not_empty(table: &str, region: &str) -> String {
    format!(
        "One or more parameter values were invalid: Table {table} in region {region} must be empty to join a global table"
    )
}

pub fn replica_schema_differs(table: &str, region: &str) -> String {
    format!(
        "One or more parameter values were invalid: Table {table} in region {region} has another key schema or other secondary indexes than the global table's"
    )
}

/// A legacy global table's replica named in UpdateTable's ReplicaUpdates.
pub fn legacy_table(table: &str) -> String {
    format!(
        "One or more parameter values were invalid: Table {table} is a replica of a version 2017.11.29 global table: use UpdateGlobalTable"
    )
}

/// UpdateTable that would disable a replica's stream or change its view type.
pub fn stream_needed(table: &str) -> String {
    format!(
        "One or more parameter values were invalid: Table {table} has replicas: its stream must stay enabled with StreamViewType NEW_AND_OLD_IMAGES"
    )
}

// Multi-region strong consistency (MRSC). DynamoDB's words where they are known (seen
// from the AWS API); Kura's where they are not (marked).

/// An MRSC table is made of exactly three regions: three replicas, or two and a witness.
pub const STRONG_REPLICA_COUNT: &str =
    "Unsupported replica count for global tables with MultiRegionConsistency set to STRONG.";

pub const WITNESS_NEEDS_STRONG: &str = "MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates parameter is present.";

pub const STRONG_NO_NEW_REPLICAS: &str =
    "Cannot add replicas to a global table with strong MultiRegionConsistency";

pub const CONSISTENCY_ON_EXISTING: &str =
    "MultiRegionConsistency parameter is unsupported on existing global table";

pub const STRONG_CREATES_ONLY: &str =
    "Only Replica Create actions are supported when MultiRegionConsistency parameter is provided.";

pub const DELETE_ALL_WITNESSES: &str =
    "Update table delete operation does not include all witnesses.";

pub const STRONG_DELETE_ONE: &str = "Deletion of only one table replica is not supported for global tables with MultiRegionConsistency set to STRONG.";

pub const WITNESS_WITH_REPLICA: &str = "Cannot add a witness in the same region as an existing replica when creating a global table with MultiRegionConsistency set to STRONG.";

pub const REPLICAS_WITH_OTHER_FIELDS: &str =
    "Requests that modify replicas or witnesses must not also modify other fields";

pub const ONE_REPLICA_ACTION: &str =
    "Update table operation with more than one create or delete replica actions not allowed";

pub fn one_witness(updates: usize) -> String {
    format!(
        "1 validation error detected: Value at 'globalTableWitnessUpdates' failed to satisfy constraint: Member must have length less than or equal to 1 (got {updates})"
    )
}

pub fn strong_regions(regions: &[&str]) -> String {
    format!(
        "Unsupported Region(s) specified for global tables with MultiRegionConsistency set to STRONG: [{}].",
        regions.join(", ")
    )
}

/// Kura's words: a witness update that names no region, or both actions.
pub const ONE_WITNESS_ACTION: &str = "One or more parameter values were invalid: A witness update must have exactly one of Create or Delete, with a RegionName";

/// Kura's words: MultiRegionConsistency takes two values.
pub fn consistency_value(value: &str) -> String {
    format!(
        "1 validation error detected: Value '{value}' at 'multiRegionConsistency' failed to satisfy constraint: Member must satisfy enum value set: [EVENTUAL, STRONG]"
    )
}

/// Kura's words: an MRSC table starts empty (AWS documents the rule, not its text).
pub fn strong_not_empty(table: &str) -> String {
    format!(
        "One or more parameter values were invalid: Table {table} must be empty to become a global table with MultiRegionConsistency set to STRONG"
    )
}

/// Kura's words: MRSC tables have no TTL and no LSIs (AWS documents the rule).
pub fn strong_unsupported(table: &str, feature: &str) -> String {
    format!(
        "One or more parameter values were invalid: {feature} is not supported for global tables with MultiRegionConsistency set to STRONG (table {table})"
    )
}

/// Kura's words: MRSC replicas refuse transactions (AWS documents the rule).
pub fn strong_transaction(operation: &str, table: &str) -> String {
    format!(
        "{operation} is not supported for global tables with MultiRegionConsistency set to STRONG: table {table}"
    )
}

/// `ReplicatedWriteConflictException`: AWS's description of it.
pub const REPLICATED_WRITE_CONFLICT: &str = "The request was rejected because one or more items in the request are being modified by a request in another Region.";

/// Kura's words: fewer than two of an MRSC table's three regions are reachable, so the
/// region serves only eventually consistent reads (503, which the SDKs retry).
pub fn no_quorum(table: &str, region: &str) -> String {
    format!(
        "Table {table} in region {region} cannot reach a majority of its global table's regions: only eventually consistent reads are served"
    )
}

// A replica's own settings (Create and Update overrides). Kura's words.

pub fn table_class_value(value: &str) -> String {
    format!(
        "1 validation error detected: Value '{value}' at 'tableClassOverride' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD_INFREQUENT_ACCESS, STANDARD]"
    )
}

pub fn override_units(field: &str, units: i64) -> String {
    format!("One or more parameter values were invalid: {field} must be at least 1, got {units}")
}

pub fn override_billing(table: &str, field: &str, mode: &str) -> String {
    format!(
        "One or more parameter values were invalid: {field} cannot be set for a replica of table {table}, which is in {mode} billing mode"
    )
}

pub fn override_index(table: &str, index: &str) -> String {
    format!(
        "One or more parameter values were invalid: Table {table} has no global secondary index {index}"
    )
}

pub const OVERRIDE_INDEX_NAME: &str = "One or more parameter values were invalid: Each of a replica's GlobalSecondaryIndexes needs an IndexName";
