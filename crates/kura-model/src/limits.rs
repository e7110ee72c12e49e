//! DynamoDB's documented limits (Developer Guide, "Service, account, and table quotas").

/// Maximum item size, attribute names and values included.
pub const MAX_ITEM_SIZE: usize = 400 * 1024;
/// Partition key value, in bytes.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// Sort key value, in bytes.
pub const MAX_SORT_KEY_BYTES: usize = 1024;
/// Nesting depth of lists and maps in one attribute value.
pub const MAX_NESTING_DEPTH: usize = 32;
/// Table name length, in characters.
pub const TABLE_NAME_MIN: usize = 3;
pub const TABLE_NAME_MAX: usize = 255;
/// Key attribute names (and names in key schemas), in bytes.
pub const MAX_KEY_ATTRIBUTE_NAME_BYTES: usize = 255;
/// Any attribute name, in bytes (UTF-8): 65,535 is accepted, 65,536 refused (AWS, as
/// measured in ExtendDB issue #365 and scylladb `test/alternator/test_limits.py`).
pub const MAX_ATTRIBUTE_NAME_BYTES: usize = 65_535;
/// Largest request body, as declared, as sent and once decompressed: DynamoDB's 16 MB
/// request limit (HTTP 413 past it).
pub const MAX_REQUEST_BODY_BYTES: usize = 16 * 1024 * 1024;
/// Provisioned throughput bounds accepted by CreateTable/UpdateTable.
pub const MAX_PROVISIONED_UNITS: i64 = 1_000_000_000_000;
/// Tags per resource, and tag key/value lengths.
pub const MAX_TAGS_PER_RESOURCE: usize = 50;
/// The largest resource-based policy document, in bytes, white space included (DynamoDB API
/// Reference, PutResourcePolicy: "The maximum size supported for a resource-based policy
/// document is 20 KB. DynamoDB counts whitespaces").
pub const MAX_RESOURCE_POLICY_BYTES: usize = 20 * 1024;
pub const MAX_TAG_KEY_LEN: usize = 128;
pub const MAX_TAG_VALUE_LEN: usize = 256;
/// ListTables page size bounds.
pub const LIST_TABLES_MAX_LIMIT: i64 = 100;
/// Secondary indexes per table.
pub const MAX_GLOBAL_INDEXES: usize = 20;
pub const MAX_LOCAL_INDEXES: usize = 5;
/// Partition and sort key attributes of a GSI's multi-attribute key (Developer Guide,
/// "Multi-attribute keys pattern"); tables and LSIs have one of each at most.
pub const MAX_INDEX_HASH_ATTRIBUTES: usize = 4;
pub const MAX_INDEX_RANGE_ATTRIBUTES: usize = 4;
/// NonKeyAttributes of one index (API constraint), and summed over all indexes of a table.
pub const MAX_NON_KEY_ATTRIBUTES_PER_INDEX: usize = 20;
pub const MAX_PROJECTED_ATTRIBUTES: usize = 100;
/// Index names, in characters (as table names).
pub const INDEX_NAME_MIN: usize = 3;
pub const INDEX_NAME_MAX: usize = 255;
/// An item collection (items and LSI entries of one partition key) on a table with LSIs.
pub const MAX_ITEM_COLLECTION_BYTES: u64 = 10 * 1024 * 1024 * 1024;
/// Tables an account may have in a region by default (a soft quota). Source: API
/// Reference, LimitExceededException ("There is a soft account quota of 2,500 tables").
pub const DEFAULT_MAX_TABLES: usize = 2_500;
/// Streams: a shard is closed and a child opened after about four hours; records are kept
/// 24 hours; a shard iterator is valid for 15 minutes; GetRecords returns at most 1,000.
pub const STREAM_SHARD_AGE_MS: i64 = 4 * 3600 * 1000;
pub const STREAM_RETENTION_MS: i64 = 24 * 3600 * 1000;
pub const SHARD_ITERATOR_LIFETIME_MS: i64 = 15 * 60 * 1000;
pub const MAX_GET_RECORDS: i64 = 1000;
/// TTL: values more than five years in the past are ignored (Developer Guide).
pub const TTL_IGNORE_OLDER_THAN_S: i64 = 5 * 365 * 24 * 3600;
/// Account limits reported by DescribeLimits (DynamoDB's defaults).
pub const ACCOUNT_MAX_READ_UNITS: i64 = 80_000;
pub const ACCOUNT_MAX_WRITE_UNITS: i64 = 80_000;
pub const TABLE_MAX_READ_UNITS: i64 = 40_000;
pub const TABLE_MAX_WRITE_UNITS: i64 = 40_000;

// ---- expressions (Developer Guide, "Expression parameters" quotas) ----

/// Length of any one expression string, in UTF-16 code units (DynamoDB counts Java
/// string length; for ASCII that is bytes).
pub const MAX_EXPRESSION_LENGTH: usize = 4096;
/// Operators and functions in one expression.
pub const MAX_OPERATORS: usize = 300;
/// Operands of one `IN`.
pub const MAX_IN_OPERANDS: usize = 100;
/// Elements of one document path (its nesting depth).
pub const MAX_PATH_DEPTH: usize = 32;
/// Kura's own bound on nested parentheses. Every level of real nesting costs an operator
/// (at most 300), so legal expressions stay below it; deeper input is all redundant
/// parentheses.
pub const MAX_PARSE_DEPTH: usize = 400;
