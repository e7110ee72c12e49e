//! Vector index texts: CreateTable and UpdateTable definitions, writes that carry a vector,
//! SearchVectors, and Query/Scan/PartiQL on a vector index.
//!
//! Sources, per text: "captured" = a whole-string capture of real DynamoDB (August 2026,
//! eu-west-2 or us-west-2) recorded by third-party conformance suites; "documented" = the
//! Developer Guide's "Troubleshooting vector indexes" or "Creating and searching vector
//! indexes"; "Kura" = no capture exists, written in the style of its neighbours. Research
//! notes: docs/vector-search.md.

use super::INVALID;

/// Captured (the value is embedded, no full stop).
pub fn top_k_out_of_range(top_k: i64) -> String {
    format!(
        "Provided TopK value '{top_k}' is out of valid range. The value must be between 1 and 100 inclusive"
    )
}
/// Captured.
pub fn search_dimension_mismatch(actual: usize, expected: u32) -> String {
    format!(
        "Input search vector dimension {actual} does not match vector index dimension {expected}"
    )
}
/// Captured.
pub const SEARCH_VECTOR_INVALID: &str = "Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point number attribute";
/// Documented and captured.
pub const HASH_CONDITION_MISSING: &str =
    "SearchConditionExpression must be provided when SearchSchema has a HASH key";
/// Captured.
pub const INVALID_COMPARATOR: &str =
    "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression";
/// Captured (BETWEEN, IN; Kura also sends it for OR, NOT and functions).
pub const INVALID_OPERATOR: &str =
    "Invalid SearchConditionExpression: Invalid operator used in SearchConditionExpression";
/// Captured (the grammar is the service's).
pub fn condition_attribute_not_in_schema(attribute: &str) -> String {
    format!(
        "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: {attribute}"
    )
}
/// Documented.
pub fn backfilling(index: &str) -> String {
    format!("Cannot search backfilling vector index: {index}")
}
/// Captured (with a full stop).
pub const QUERY_NOT_SUPPORTED: &str = "Query operation not supported on this index type.";
/// Captured (no full stop); PartiQL sends it too.
pub const SCAN_NOT_SUPPORTED: &str = "Scan operation not supported on this index type";

/// Captured: a written vector whose length is not the index's Dimensions.
pub fn write_size_mismatch(attribute: &str, expected: u32, actual: usize, index: &str) -> String {
    format!(
        "One or more parameter values were invalid. Invalid size for parameter {attribute}, Expected: {expected}, Actual: {actual} IndexName: {index}"
    )
}
/// Captured: a written vector with an element that is not a number (`position` from 0).
pub fn write_element_type(attribute: &str, position: usize, actual: &str, index: &str) -> String {
    format!(
        "One or more parameter values were invalid. Invalid type for parameter {attribute}[{position}], Expected: 32-bit floating point number, Actual: {actual}. IndexName: {index}"
    )
}
/// Captured: a written vector attribute that is not a list.
pub fn write_not_a_list(attribute: &str, index: &str) -> String {
    format!(
        "One or more parameter values were invalid. Invalid type for parameter {attribute}, Expected: 32-bit floating point number list IndexName: {index}"
    )
}

/// Documented.
pub const TOO_MANY_INDEXES: &str =
    "One or more parameter values were invalid: VectorIndex count exceeds the per-table limit of 5";
/// Documented.
pub const SCHEMA_NOT_DEFINED: &str = "One or more parameter values were invalid: One element in SearchSchema is not defined in attribute definitions";
/// Captured by an emulator's suite that claims AWS parity.
pub const PAY_PER_REQUEST_ONLY: &str = "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables";
/// Captured by an emulator's suite that claims AWS parity.
pub const DIMENSIONS_RANGE: &str = "One or more parameter values were invalid: Number of dimensions must be between 1 and 4096 inclusive.";
/// Captured by an emulator's suite that claims AWS parity.
pub fn conflicting_dimensions(attribute: &str) -> String {
    format!(
        "{INVALID}Conflicting attribute definition for '{attribute}'. All VectorIndexes on the same vector attribute must use the same dimensions."
    )
}
/// Captured by an emulator's suite that claims AWS parity.
pub fn duplicate_index_name(name: &str) -> String {
    format!("{INVALID}Duplicate index name: {name}")
}
/// Kura: a SearchSchema with more than one HASH element (the quota is 1).
pub const MORE_THAN_ONE_HASH: &str = "One or more parameter values were invalid: A vector index SearchSchema can have at most 1 HASH element";
/// Kura: more than 18 INLINE_FILTER elements (the quota).
pub const TOO_MANY_INLINE_FILTERS: &str = "One or more parameter values were invalid: A vector index SearchSchema can have at most 18 INLINE_FILTER elements";
/// Kura: one attribute named twice in a SearchSchema.
pub fn duplicate_schema_attribute(name: &str) -> String {
    format!("{INVALID}Duplicate AttributeName {name} in SearchSchema")
}
/// Kura: the vector attribute is also a key or search schema attribute.
pub fn vector_attribute_is_key(name: &str) -> String {
    format!("{INVALID}The vector attribute {name} cannot be a key or SearchSchema attribute")
}
/// Documented (WW, LimitExceededException).
pub const ONE_ONLINE_INDEX: &str = "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table";
