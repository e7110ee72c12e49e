//! Item shapes: PutItem, GetItem, DeleteItem, UpdateItem.

use kura_model::Item;
use kura_model::wire::ItemJson;
use serde::{Deserialize, Serialize};

pub use kura_expr::request::ExpressionParams;

use super::ConsumedCapacity;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PutItemInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub item: Option<ItemJson>,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionParams,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutItemOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<ConsumedCapacity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_collection_metrics: Option<ItemCollectionMetrics>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GetItemInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub key: Option<ItemJson>,
    pub consistent_read: Option<bool>,
    pub return_consumed_capacity: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionParams,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetItemOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<ConsumedCapacity>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct DeleteItemInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub key: Option<ItemJson>,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionParams,
}

pub type DeleteItemOutput = PutItemOutput;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateItemInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub key: Option<ItemJson>,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionParams,
}

pub type UpdateItemOutput = PutItemOutput;

/// `ItemCollectionMetrics`: the size of the item collection a write touched, on tables
/// with local secondary indexes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ItemCollectionMetrics {
    pub item_collection_key: Item,
    #[serde(rename = "SizeEstimateRangeGB")]
    pub size_estimate_range_gb: [f64; 2],
}

impl ItemCollectionMetrics {
    /// DynamoDB reports a range of whole gigabytes around the collection's size.
    pub fn new(hash_name: &str, hash: &kura_model::AttributeValue, bytes: u64) -> Self {
        const GB: f64 = (1u64 << 30) as f64;
        let low = (bytes as f64 / GB).floor();
        ItemCollectionMetrics {
            item_collection_key: Item::from([(hash_name.to_owned(), hash.clone())]),
            size_estimate_range_gb: [low, low + 1.0],
        }
    }
}
