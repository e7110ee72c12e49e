//! Every attribute name the framework writes or reads, in one place (the seed framework's
//! spelling). Expressions name them through these constants too, so a rename cannot miss
//! one.

/// Partition key of every framework table.
pub const PK: &str = "pk";
/// Sort key of every framework table.
pub const SK: &str = "sk";
/// `pk#sk` of the entity (the sort key without version).
pub const ID: &str = "id";
pub const CODE: &str = "code";
pub const NAME: &str = "name";
/// The version number of a row (commands: the version written; data: the one applied).
pub const VERSION: &str = "version";
pub const TENANT_CODE: &str = "tenantCode";
/// The entity type (the seed's `type`).
pub const TYPE: &str = "type";
pub const IS_DELETED: &str = "isDeleted";
/// A command's own sequence number; also a sequence counter's value.
pub const SEQ: &str = "seq";
/// The TTL attribute of every table (epoch seconds).
pub const TTL: &str = "ttl";
/// `true` on a row whose `ttl` a retention policy set (not the entity's own), so that
/// reading it back does not take the policy's expiry for the entity's: a re-publish is
/// then not dirty, and a partial update gets a fresh expiry from the policy.
pub const TTL_POLICY: &str = "ttlPolicy";
/// The entity's own attributes, a map.
pub const ATTRIBUTES: &str = "attributes";
pub const CREATED_AT: &str = "createdAt";
pub const CREATED_BY: &str = "createdBy";
pub const CREATED_IP: &str = "createdIp";
pub const UPDATED_AT: &str = "updatedAt";
pub const UPDATED_BY: &str = "updatedBy";
pub const UPDATED_IP: &str = "updatedIp";
pub const REQUEST_ID: &str = "requestId";
pub const SOURCE: &str = "source";
/// On a data or history row: the command row applied (its `pk`)...
pub const CPK: &str = "cpk";
/// ... and its `sk` (`base@version`).
pub const CSK: &str = "csk";
/// On a command row: how far it got (the values are in the `status` module).
pub const STATUS: &str = "status";
/// On a command row published in sync: the ids of the sync handlers its publisher ran
/// (a list; absent when it ran none). A projector runs every handler of its own not
/// listed, so a publisher without the handlers never starves a read model.
pub const HANDLED_BY: &str = "handledBy";
/// On a dead-letter row: why it was parked, and when.
pub const ERROR: &str = "error";
pub const PARKED_AT: &str = "parkedAt";
/// On a dead-letter or history row of a parked version too large to copy: its
/// attributes were left out (the command table has them).
pub const ATTRIBUTES_OMITTED: &str = "attributesOmitted";
/// On a dead-letter row: the id of the sync handler that failed, when one did (none when
/// the data table's write failed).
pub const HANDLER: &str = "handler";
/// On a projector checkpoint row: the last sequence number finished in the shard...
pub const SEQUENCE: &str = "sequence";
/// ... and whether the shard is closed and read to its end.
pub const FINISHED: &str = "finished";
/// Inside the `attributes` of a TTL policy row: the retention in days.
pub const DAYS: &str = "days";

/// Whether `name` is an attribute the framework writes on command, data or history rows
/// (anything else on such a row is an index key, [`crate::CommandModel::index_keys`]).
pub fn is_framework_attribute(name: &str) -> bool {
    matches!(
        name,
        PK | SK
            | ID
            | CODE
            | NAME
            | VERSION
            | TENANT_CODE
            | TYPE
            | IS_DELETED
            | SEQ
            | TTL
            | TTL_POLICY
            | ATTRIBUTES
            | CREATED_AT
            | CREATED_BY
            | CREATED_IP
            | UPDATED_AT
            | UPDATED_BY
            | UPDATED_IP
            | REQUEST_ID
            | SOURCE
            | CPK
            | CSK
            | STATUS
            | HANDLED_BY
            | ERROR
            | PARKED_AT
            | HANDLER
            | ATTRIBUTES_OMITTED
    )
}

/// The condition that a put creates its row: no row has that key yet.
pub fn not_exists() -> String {
    format!("attribute_not_exists({PK}) AND attribute_not_exists({SK})")
}
