//! The operation registry: `X-Amz-Target` name → handler. Handlers are grouped by family
//! (`tables`, `items`); each parses its input, calls the engine, serialises its output.

mod admission;
mod backups;
mod insights;
mod items;
mod partiql;
mod streams;
mod tables;

use bytes::Bytes;
use kura_engine::{Engine, RequestContext};
use kura_model::messages;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// What a handler needs besides its body.
pub struct Call<'a> {
    pub engine: &'a Engine,
    pub ctx: RequestContext,
    /// The `Host` the client used (DescribeEndpoints answers with it).
    pub host: String,
    pub body: Bytes,
    /// Who signed the request, when `--auth` is on (None when Kura runs open).
    pub principal: Option<kura_auth::Principal>,
    /// The peer's address (`aws:SourceIp`), when the listener reports it.
    pub source_ip: Option<std::net::IpAddr>,
    /// What the metrics are labelled with (the table, items returned).
    pub observation: &'a crate::metrics::Observation,
}

impl Call<'_> {
    /// Labels the request's metrics with the table it names (when it names one).
    pub fn observe_table(&self, table: Option<&str>) {
        if let Some(table) = table {
            self.observation.table(table);
        }
    }

    /// Parses the body as the operation's input. Shape errors are SerializationException.
    pub fn input<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        crate::body::require_object(&self.body)?;
        let body: &[u8] = if self.body.is_empty() {
            b"{}"
        } else {
            &self.body
        };
        serde_json::from_slice(body).map_err(|e| ApiError::serialization(shape_error(&e)))
    }
}

fn shape_error(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    match e.classify() {
        Category::Syntax | Category::Eof => messages::body_not_json(&e.to_string()),
        Category::Data | Category::Io => {
            // A value rule checked while reading (base64) keeps its own text, without the
            // reader's position.
            let text = e.to_string();
            let position = format!(" at line {} column {}", e.line(), e.column());
            match text.strip_suffix(&position) {
                Some(bare) if bare.ends_with(messages::INVALID_BASE64_END) => bare.to_owned(),
                _ => messages::body_wrong_shape(&text),
            }
        }
    }
}

/// An answer's JSON body.
pub fn json<T: Serialize>(output: &T) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(output)
        .map_err(|e| ApiError::from(kura_engine::EngineError::Internal(e.to_string())))
}

/// Answers made of items and capacity figures only, with no `serde_json` value inside.
/// Only these go through [`item_json`]: kura-cqrs turns on serde_json's
/// `arbitrary_precision` in the build, and sonic-rs would write a `serde_json::Number` as
/// the private struct serde_json carries it in.
pub trait ItemAnswer: Serialize {}
impl ItemAnswer for kura_engine::api::GetItemOutput {}
impl ItemAnswer for kura_engine::api::PageOutput {}

/// The JSON body of GetItem, Query and Scan, written with sonic-rs: its string escaping is
/// vectorised, and a page of 25 items of 1 KB spent a fifth of the server's CPU in
/// serde_json's byte-at-a-time loop (Query 97 → 76 µs per request). The bytes are
/// serde_json's; the tests below compare the two on random pages.
pub fn item_json<T: ItemAnswer>(output: &T) -> Result<Vec<u8>, ApiError> {
    sonic_rs::to_vec(output)
        .map_err(|e| ApiError::from(kura_engine::EngineError::Internal(e.to_string())))
}

/// The control-plane operations, authorized on the table they name (or `*`); the item
/// and PartiQL families authorize in their handlers, from their parsed input.
const CONTROL: &[&str] = &[
    "CreateTable",
    "DescribeTable",
    "ListTables",
    "UpdateTable",
    "DeleteTable",
    "TagResource",
    "UntagResource",
    "ListTagsOfResource",
    "DescribeLimits",
    "DescribeEndpoints",
    "UpdateTimeToLive",
    "DescribeTimeToLive",
    "DescribeContinuousBackups",
    "UpdateContinuousBackups",
    "PutResourcePolicy",
    "GetResourcePolicy",
    "DeleteResourcePolicy",
    "UpdateContributorInsights",
    "DescribeContributorInsights",
    "ListContributorInsights",
];

/// The DynamoDB_20120810 operations Kura serves. Names not listed get
/// UnknownOperationException; names listed in [`LATER`] get a precise ValidationException.
pub async fn dispatch(operation: &str, call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    if operation_index(operation).is_some() {
        crate::authz::accounts::own_account(&call.body, call.principal.as_ref(), operation)?;
    }
    if let Some(control) = CONTROL.iter().find(|c| **c == operation) {
        crate::authz::control(&call, control)?;
    }
    match operation {
        "CreateTable" => tables::create_table(call).await,
        "DescribeTable" => tables::describe_table(call).await,
        "ListTables" => tables::list_tables(call),
        "UpdateTable" => tables::update_table(call).await,
        "DeleteTable" => tables::delete_table(call).await,
        "TagResource" => tables::tag_resource(call).await,
        "UntagResource" => tables::untag_resource(call).await,
        "ListTagsOfResource" => tables::list_tags_of_resource(call),
        "DescribeLimits" => tables::describe_limits(call),
        "DescribeEndpoints" => tables::describe_endpoints(call),
        "PutItem" => items::put_item(call).await,
        "GetItem" => items::get_item(call),
        "DeleteItem" => items::delete_item(call).await,
        "UpdateItem" => items::update_item(call).await,
        "Query" => items::query(call),
        "Scan" => items::scan(call),
        "BatchGetItem" => items::batch_get_item(call),
        "BatchWriteItem" => items::batch_write_item(call).await,
        "TransactWriteItems" => items::transact_write_items(call).await,
        "TransactGetItems" => items::transact_get_items(call),
        "ExecuteStatement" => partiql::execute_statement(call).await,
        "BatchExecuteStatement" => partiql::batch_execute_statement(call).await,
        "ExecuteTransaction" => partiql::execute_transaction(call).await,
        "UpdateTimeToLive" => tables::update_time_to_live(call).await,
        "DescribeTimeToLive" => tables::describe_time_to_live(call),
        "DescribeContinuousBackups" => backups::describe_continuous_backups(call),
        "UpdateContinuousBackups" => backups::update_continuous_backups(call).await,
        "CreateBackup" => backups::create_backup(call).await,
        "DescribeBackup" => backups::describe_backup(call),
        "ListBackups" => backups::list_backups(call),
        "DeleteBackup" => backups::delete_backup(call).await,
        "RestoreTableFromBackup" => backups::restore_table_from_backup(call).await,
        "RestoreTableToPointInTime" => backups::restore_table_to_point_in_time(call).await,
        "ExportTableToPointInTime" => backups::export_table_to_point_in_time(call).await,
        "DescribeExport" => backups::describe_export(call),
        "ListExports" => backups::list_exports(call),
        "ImportTable" => backups::import_table(call).await,
        "DescribeImport" => backups::describe_import(call),
        "ListImports" => backups::list_imports(call),
        "PutResourcePolicy" => tables::put_resource_policy(call).await,
        "GetResourcePolicy" => tables::get_resource_policy(call),
        "DeleteResourcePolicy" => tables::delete_resource_policy(call).await,
        "UpdateContributorInsights" => insights::update_contributor_insights(call).await,
        "DescribeContributorInsights" => insights::describe_contributor_insights(call),
        "ListContributorInsights" => insights::list_contributor_insights(call),
        other if LATER.contains(&other) => Err(ApiError::validation(messages::not_supported_yet(
            &format!("The {other} operation"),
        ))),
        _ => Err(ApiError::unknown_operation()),
    }
}

/// The DynamoDBStreams_20120810 operations.
pub async fn dispatch_streams(operation: &str, call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    match operation {
        "ListStreams" => streams::list_streams(call),
        "DescribeStream" => streams::describe_stream(call),
        "GetShardIterator" => streams::get_shard_iterator(call),
        "GetRecords" => streams::get_records(call),
        _ => Err(ApiError::unknown_operation()),
    }
}

/// Every operation name Kura serves (DynamoDB and Streams), sorted: the metrics keep
/// figures for these only, so a client cannot grow the label set without bound.
pub(crate) const OPERATIONS: &[&str] = &[
    "BatchExecuteStatement",
    "BatchGetItem",
    "BatchWriteItem",
    "CreateBackup",
    "CreateTable",
    "DeleteBackup",
    "DeleteItem",
    "DeleteResourcePolicy",
    "DeleteTable",
    "DescribeBackup",
    "DescribeContinuousBackups",
    "DescribeContributorInsights",
    "DescribeEndpoints",
    "DescribeExport",
    "DescribeImport",
    "DescribeLimits",
    "DescribeStream",
    "DescribeTable",
    "DescribeTimeToLive",
    "ExecuteStatement",
    "ExecuteTransaction",
    "ExportTableToPointInTime",
    "GetItem",
    "GetRecords",
    "GetResourcePolicy",
    "GetShardIterator",
    "ImportTable",
    "ListBackups",
    "ListContributorInsights",
    "ListExports",
    "ListImports",
    "ListStreams",
    "ListTables",
    "ListTagsOfResource",
    "PutItem",
    "PutResourcePolicy",
    "Query",
    "RestoreTableFromBackup",
    "RestoreTableToPointInTime",
    "Scan",
    "TagResource",
    "TransactGetItems",
    "TransactWriteItems",
    "UntagResource",
    "UpdateContinuousBackups",
    "UpdateContributorInsights",
    "UpdateItem",
    "UpdateTable",
    "UpdateTimeToLive",
];

/// Where `operation` is in [`OPERATIONS`] (sorted), if Kura serves it.
pub fn operation_index(operation: &str) -> Option<usize> {
    OPERATIONS.binary_search(&operation).ok()
}

/// Real DynamoDB operations that later issues implement (none at the moment: the list
/// stays so that a planned operation gets a precise error).
const LATER: &[&str] = &[];

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    #[test]
    fn operations_are_sorted_for_their_binary_search() {
        assert!(super::OPERATIONS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            super::operation_index("GetItem").map(|i| super::OPERATIONS[i]),
            Some("GetItem")
        );
        assert_eq!(super::operation_index("Nope"), None);
    }

    use kura_engine::api::{Capacity, ConsumedCapacity, GetItemOutput, PageOutput};
    use kura_model::number::Number;
    use kura_model::value::AttributeValue;
    use proptest::prelude::*;

    type Item = BTreeMap<String, AttributeValue>;

    fn attribute_value() -> impl Strategy<Value = AttributeValue> {
        let number = (any::<i64>(), 0u32..20).prop_map(|(m, e)| {
            Number::parse(&format!("{m}e-{e}")).unwrap_or_else(|_| Number::parse("0").expect("0"))
        });
        let leaf = prop_oneof![
            any::<String>().prop_map(AttributeValue::S),
            "[\\x00-\\x7f\"\\\\/]{0,40}".prop_map(AttributeValue::S),
            number.clone().prop_map(AttributeValue::N),
            prop::collection::vec(any::<u8>(), 0..20).prop_map(AttributeValue::B),
            any::<bool>().prop_map(AttributeValue::Bool),
            Just(AttributeValue::Null),
            prop::collection::vec(any::<String>(), 1..4).prop_map(AttributeValue::Ss),
            prop::collection::vec(number, 1..4).prop_map(AttributeValue::Ns),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(AttributeValue::L),
                prop::collection::btree_map(any::<String>(), inner, 0..4)
                    .prop_map(AttributeValue::M),
            ]
        })
    }

    fn item() -> impl Strategy<Value = Item> {
        prop::collection::btree_map(any::<String>(), attribute_value(), 0..6)
    }

    fn capacity() -> impl Strategy<Value = Option<ConsumedCapacity>> {
        let units = any::<f64>().prop_filter("finite", |f| f.is_finite());
        prop::option::of(
            (units.clone(), prop::option::of(units)).prop_map(|(total, read)| {
                let part = Capacity {
                    capacity_units: total,
                    read_capacity_units: read,
                    write_capacity_units: None,
                };
                ConsumedCapacity {
                    table_name: "t".into(),
                    capacity_units: total,
                    read_capacity_units: read,
                    write_capacity_units: None,
                    table: Some(part.clone()),
                    global_secondary_indexes: Some(BTreeMap::from([("g".to_owned(), part)])),
                    local_secondary_indexes: None,
                }
            }),
        )
    }

    fn same_bytes<T: super::ItemAnswer>(answer: &T) -> Result<(), TestCaseError> {
        prop_assert_eq!(
            String::from_utf8(super::item_json(answer).expect("sonic")).expect("utf-8"),
            serde_json::to_string(answer).expect("serde_json")
        );
        Ok(())
    }

    proptest! {
        #[test]
        fn pages_are_the_bytes_serde_json_writes(
            items in prop::option::of(prop::collection::vec(item(), 0..4)),
            count in any::<usize>(),
            scanned_count in any::<usize>(),
            last_evaluated_key in prop::option::of(item()),
            consumed_capacity in capacity(),
        ) {
            same_bytes(&PageOutput { items, count, scanned_count, last_evaluated_key, consumed_capacity })?;
        }

        #[test]
        fn items_are_the_bytes_serde_json_writes(
            item in prop::option::of(item()),
            consumed_capacity in capacity(),
        ) {
            same_bytes(&GetItemOutput { item, consumed_capacity })?;
        }
    }
}
