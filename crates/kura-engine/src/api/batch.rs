//! BatchGetItem and BatchWriteItem shapes.

use std::collections::BTreeMap;

use kura_model::Item;
use kura_model::wire::ItemJson;
use serde::{Deserialize, Serialize};

pub use kura_expr::request::ExpressionParams;

use super::ConsumedCapacity;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct BatchWriteItemInput {
    #[serde(deserialize_with = "super::tables_by_name_or_arn")]
    pub request_items: Option<BTreeMap<String, Vec<WriteRequest>>>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct WriteRequest {
    pub put_request: Option<PutRequest>,
    pub delete_request: Option<DeleteRequest>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PutRequest {
    pub item: Option<ItemJson>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DeleteRequest {
    pub key: Option<ItemJson>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchWriteItemOutput {
    /// Kura applies every request or fails the call, so this is always empty.
    pub unprocessed_items: BTreeMap<String, Vec<serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_collection_metrics: Option<BTreeMap<String, Vec<super::ItemCollectionMetrics>>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct BatchGetItemInput {
    #[serde(deserialize_with = "super::tables_by_name_or_arn")]
    pub request_items: Option<BTreeMap<String, KeysAndAttributes>>,
    pub return_consumed_capacity: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct KeysAndAttributes {
    pub keys: Option<Vec<ItemJson>>,
    pub consistent_read: Option<bool>,
    #[serde(flatten)]
    pub expressions: ExpressionParams,
}

/// Keys left for the caller to ask again, with the options they were asked with.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UnprocessedKeys {
    pub keys: Vec<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consistent_read: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection_expression: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expression_attribute_names: Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes_to_get: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchGetItemOutput {
    pub responses: BTreeMap<String, Vec<Item>>,
    pub unprocessed_keys: BTreeMap<String, UnprocessedKeys>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}
