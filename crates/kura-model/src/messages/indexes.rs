//! Secondary index messages (CreateTable and UpdateTable index definitions, index reads).

use super::INVALID;

// Sources: dynalite `validations/createTable.js`, `validations/updateTable.js` and
// `db/index.js` (recorded against DynamoDB), and live captures from us-east-1 (2026) where
// noted "captured". Research notes: docs/compat.md, "Secondary indexes".

pub fn index_list_empty(list: &str) -> String {
    format!("{INVALID}List of {list} is empty")
}
pub const LSI_WITHOUT_TABLE_RANGE: &str = "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex";
/// Source: Kura (the text DynamoDB sends is not documented; written in the style of its
/// index KeySchema messages). A GSI key names the same attribute twice.
pub fn duplicate_index_key_attribute(name: &str, index: &str) -> String {
    format!("{INVALID}Duplicate AttributeName {name} in Index KeySchema for index: {index}")
}
/// Source: Kura (DynamoDB requires every HASH element before the RANGE elements of a
/// multi-attribute GSI key; its message is not documented).
pub const HASH_AFTER_RANGE: &str =
    "Invalid KeySchema: A HASH KeySchemaElement cannot follow a RANGE KeySchemaElement";
/// Source: Kura, after dynalite's "The second KeySchemaElement is not a RANGE key type",
/// for the third and later elements of a GSI key.
pub fn key_element_not_hash_or_range(position: usize) -> String {
    format!(
        "Invalid KeySchema: KeySchemaElement number {position} is neither a HASH nor a RANGE key type"
    )
}
/// Source: Kura (DynamoDB's limit of four partition key attributes per GSI; its message
/// is not documented).
pub fn too_many_index_key_attributes(key_type: &str, max: usize, index: &str) -> String {
    format!(
        "{INVALID}Index KeySchema has more than {max} {key_type} key attributes for index: {index}"
    )
}
pub fn index_without_range(index: &str) -> String {
    format!("{INVALID}Index KeySchema does not have a range key for index: {index}")
}
pub fn lsi_hash_differs(index: &str, index_hash: &str, table_hash: &str) -> String {
    format!(
        "{INVALID}Index KeySchema does not have the same leading hash key as table KeySchema for index: {index}. index hash key: {index_hash}, table hash key: {table_hash}"
    )
}
pub fn unknown_projection_type(ty: Option<&str>) -> String {
    format!("{INVALID}Unknown ProjectionType: {}", ty.unwrap_or("null"))
}
pub fn non_key_attributes_not_allowed(ty: &str) -> String {
    format!("{INVALID}ProjectionType is {ty}, but NonKeyAttributes is specified")
}
/// Captured.
pub const INCLUDE_WITHOUT_NON_KEY: &str = "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified";
/// Captured.
pub fn duplicate_non_key_attribute(name: &str) -> String {
    format!("{INVALID}Duplicate element in NonKeyAttributes: {name}")
}
pub fn duplicate_index_name(index: &str) -> String {
    format!("{INVALID}Duplicate index name: {index}")
}
/// Captured.
pub const TOO_MANY_LSIS: &str = "One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table limit of 5";
/// Captured.
pub const TOO_MANY_GSIS: &str = "One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20";
/// Not captured: the Developer Guide states the limit of 100 without quoting the message.
pub const TOO_MANY_PROJECTED_ATTRIBUTES: &str = "One or more parameter values were invalid: Number of projected attributes in all indexes exceeds limit of 100";
pub fn index_throughput_with_ppr(index: &str) -> String {
    format!(
        "{INVALID}ProvisionedThroughput should not be specified for index: {index} when BillingMode is PAY_PER_REQUEST"
    )
}
/// Captured.
pub fn index_throughput_missing(index: &str) -> String {
    format!("{INVALID}ProvisionedThroughput is not specified for index: {index}")
}
/// Captured; the lists follow no documented order (Kura: definition order, key order).
pub fn unused_attribute_definitions(defs: &[&str], used: &[&str]) -> String {
    format!(
        "{INVALID}Some AttributeDefinitions are not used. AttributeDefinitions: [{}], keys used: [{}]",
        defs.join(", "),
        used.join(", ")
    )
}
pub fn index_key_type_mismatch(attr: &str, expected: &str, actual: &str, index: &str) -> String {
    format!(
        "{INVALID}Type mismatch for Index Key {attr} Expected: {expected} Actual: {actual} IndexName: {index}"
    )
}
/// Captured (PutItem); `kind` is `string` or `binary`.
pub fn empty_index_key(kind: &str, index: &str, attr: &str) -> String {
    format!(
        "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty {kind} value. IndexName: {index}, IndexKey: {attr}"
    )
}
/// Captured (UpdateItem that empties an index key); `kind` is `string` or `binary`.
pub fn empty_index_key_update(kind: &str) -> String {
    format!(
        "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty {kind} value."
    )
}
pub const GSI_CONSISTENT_READ: &str =
    "Consistent reads are not supported on global secondary indexes";
pub fn select_all_on_gsi(index: &str) -> String {
    format!(
        "{INVALID}Select type ALL_ATTRIBUTES is not supported for global secondary index {index} because its projection type is not ALL"
    )
}
/// Captured.
pub fn gsi_backfilling(index: &str) -> String {
    format!("Cannot read from backfilling global secondary index: {index}")
}
pub const INVALID_START_KEY: &str = "The provided starting key is invalid";
/// A Query or Scan of a GSI that asks (ProjectionExpression, AttributesToGet) for
/// attributes the index does not project; `attrs` are the top-level names, in request
/// order. Source: AWS as quoted in localstack issue #478 (one attribute); the list form
/// for several is Kura's (`[a, b]`, not captured).
pub fn gsi_does_not_project(index: &str, attrs: &[&str]) -> String {
    format!(
        "{INVALID}Global secondary index {index} does not project [{}]",
        attrs.join(", ")
    )
}
/// Captured (UpdateTable).
pub const GSI_UPDATES_EMPTY: &str =
    "One or more parameter values were invalid: List of GlobalSecondaryIndexUpdates is empty";
pub const GSI_UPDATE_NO_ACTION: &str = "One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null";
pub const GSI_UPDATE_MANY_ACTIONS: &str = "One or more parameter values were invalid: Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object";
pub fn gsi_update_same_index(index: &str) -> String {
    format!(
        "{INVALID}Only one global secondary index update per index is allowed simultaneously. Index: {index}"
    )
}
/// `LimitExceededException`. Captured.
pub const ONE_ONLINE_INDEX: &str = "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table";
/// `LimitExceededException`. Captured.
pub const TOO_MANY_GSIS_ONLINE: &str =
    "Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of 20";
/// Captured.
pub const INDEX_EXISTS: &str = "Attempting to create an index which already exists";
/// Captured.
pub fn not_a_gsi(action: &str, index: &str) -> String {
    format!("Cannot {action} an index that is not a GlobalSecondaryIndex: {index}")
}
/// `ResourceNotFoundException`. Captured.
pub fn index_not_found(index: &str, table: &str) -> String {
    format!("Requested resource not found: Index {index} for table {table}")
}
/// UpdateTable's new GSI naming a key attribute with another type than the table (or
/// another index) already gives it. Source: the text dynoxide captured from AWS for the
/// same rule on another index kind ("Attributes cannot be redefined. Please check that
/// your attribute has the same type as previously defined. Existing schema: ... New
/// schema: ..."); its use for a GSI Create and the `[name:type]` schema rendering are
/// Kura's (not captured; docs/compat.md).
pub fn attributes_redefined(existing: &[(&str, &str)], new: &[(&str, &str)]) -> String {
    let render = |defs: &[(&str, &str)]| {
        let parts: Vec<String> = defs.iter().map(|(n, t)| format!("{n}:{t}")).collect();
        format!("[{}]", parts.join(", "))
    };
    format!(
        "{INVALID}Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: {} New schema: {}",
        render(existing),
        render(new)
    )
}
/// Captured. UpdateTable's new GSI when the request has no AttributeDefinitions at all
/// (ACK `DDB-TABLE-442.md`, 2026-10-09), even for keys the table already defines
/// (dynoxide issue #144, AWS eu-west-2 2026-07-12).
pub fn index_definition_missing(index: &str) -> String {
    format!("{INVALID}AttributeDefinitions is not specified for index: {index}")
}
/// Captured.
pub fn index_throughput_incomplete(index: &str) -> String {
    format!(
        "{INVALID}Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: {index}"
    )
}
/// Captured.
pub fn index_update_on_demand(index: &str) -> String {
    format!(
        "{INVALID}The only Updates for index: {index} when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput"
    )
}
pub fn index_throughput_out_of_bounds(value: i64, which: &str, index: &str) -> String {
    format!("Given value {value} for {which} is out of bounds for index {index}")
}
/// Captured (the tail follows the table variant).
pub fn index_throughput_unchanged(
    index: &str,
    read: i64,
    write: i64,
    new_read: i64,
    new_write: i64,
) -> String {
    format!(
        "The provisioned throughput for the index {index} will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for index {index}: {read}. Requested ReadCapacityUnits: {new_read}. Current WriteCapacityUnits provisioned for index {index}: {write}. Requested WriteCapacityUnits: {new_write}. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
    )
}
/// Captured.
pub const INDEX_CHANGE_WITH_THROUGHPUT: &str = "One or more parameter values were invalid: You cannot create or delete index while updating table IOPS";
/// `ItemCollectionSizeLimitExceededException`. Not captured (the API Reference names the
/// error without quoting it).
/// Cancellation reason of a transaction write that outgrew its collection. Source: the
/// API Reference (TransactWriteItems, CancellationReasons).
pub const COLLECTION_SIZE_EXCEEDED: &str = "Collection size exceeded.";
pub const ITEM_COLLECTION_TOO_LARGE: &str =
    "Item collection size limit exceeded. Reduce the item collection size to be under 10 GB";
