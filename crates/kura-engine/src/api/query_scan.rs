//! Query and Scan shapes.

use kura_model::Item;
use kura_model::wire::ItemJson;
use serde::{Deserialize, Serialize};

pub use kura_expr::request::ExpressionParams;

use super::ConsumedCapacity;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct QueryInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub index_name: Option<String>,
    pub select: Option<String>,
    pub limit: Option<i64>,
    pub consistent_read: Option<bool>,
    pub scan_index_forward: Option<bool>,
    pub exclusive_start_key: Option<ItemJson>,
    pub return_consumed_capacity: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionParams,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ScanInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub index_name: Option<String>,
    pub select: Option<String>,
    pub limit: Option<i64>,
    pub consistent_read: Option<bool>,
    pub segment: Option<i64>,
    pub total_segments: Option<i64>,
    pub exclusive_start_key: Option<ItemJson>,
    pub return_consumed_capacity: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionParams,
}

/// The answer to a Query or a Scan.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PageOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<Item>>,
    pub count: usize,
    pub scanned_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_evaluated_key: Option<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<ConsumedCapacity>,
}

pub type QueryOutput = PageOutput;
pub type ScanOutput = PageOutput;
