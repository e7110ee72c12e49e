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
