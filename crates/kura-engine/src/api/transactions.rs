//! TransactWriteItems and TransactGetItems shapes.

use kura_model::Item;
use kura_model::wire::ItemJson;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use kura_expr::request::ExpressionParams;

use super::ConsumedCapacity;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct TransactWriteItemsInput {
    pub transact_items: Option<Vec<TransactWriteItem>>,
    pub client_request_token: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
}

/// One entry of `TransactItems`: exactly one of the four actions.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct TransactWriteItem {
    pub condition_check: Option<TransactAction>,
    pub put: Option<TransactAction>,
    pub delete: Option<TransactAction>,
    pub update: Option<TransactAction>,
}

/// The members of any transaction action (each action uses its own subset).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct TransactAction {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub key: Option<ItemJson>,
    pub item: Option<ItemJson>,
    pub return_values_on_condition_check_failure: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionParams,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TransactWriteItemsOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_collection_metrics: Option<BTreeMap<String, Vec<super::ItemCollectionMetrics>>>,
}

pub use crate::error::CancellationReason;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct TransactGetItemsInput {
    pub transact_items: Option<Vec<TransactGetItem>>,
    pub return_consumed_capacity: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct TransactGetItem {
    pub get: Option<TransactAction>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ItemResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TransactGetItemsOutput {
    pub responses: Vec<ItemResponse>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}
