//! ExecuteStatement, BatchExecuteStatement and ExecuteTransaction shapes.

use kura_model::Item;
use kura_model::wire::AttributeValueJson;
use serde::{Deserialize, Serialize};

use super::{ConsumedCapacity, ItemResponse};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ExecuteStatementInput {
    pub statement: Option<String>,
    pub parameters: Option<Vec<AttributeValueJson>>,
    pub consistent_read: Option<bool>,
    pub next_token: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub limit: Option<i64>,
    pub return_values_on_condition_check_failure: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExecuteStatementOutput {
    pub items: Vec<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<ConsumedCapacity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_evaluated_key: Option<Item>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct BatchExecuteStatementInput {
    pub statements: Option<Vec<BatchStatementRequest>>,
    pub return_consumed_capacity: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct BatchStatementRequest {
    pub statement: Option<String>,
    pub parameters: Option<Vec<AttributeValueJson>>,
    pub consistent_read: Option<bool>,
    pub return_values_on_condition_check_failure: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchExecuteStatementOutput {
    pub responses: Vec<BatchStatementResponse>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchStatementResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<BatchStatementError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchStatementError {
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ExecuteTransactionInput {
    pub transact_statements: Option<Vec<ParameterizedStatement>>,
    pub client_request_token: Option<String>,
    pub return_consumed_capacity: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ParameterizedStatement {
    pub statement: Option<String>,
    pub parameters: Option<Vec<AttributeValueJson>>,
    pub return_values_on_condition_check_failure: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExecuteTransactionOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub responses: Option<Vec<ItemResponse>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}
