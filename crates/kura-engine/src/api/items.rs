//! Item shapes: PutItem, GetItem, DeleteItem, UpdateItem.

use kura_model::Item;
use kura_model::wire::ItemJson;
use serde::{Deserialize, Serialize};

use super::ConsumedCapacity;

/// Members that belong to the expression language (and its legacy forms). They arrive with
/// the expression issue; until then a request that uses any of them is refused, never
/// silently ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ExpressionMembers {
    pub condition_expression: Option<String>,
    pub update_expression: Option<String>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Option<serde_json::Value>,
    pub expression_attribute_values: Option<serde_json::Value>,
    pub expected: Option<serde_json::Value>,
    pub conditional_operator: Option<String>,
    pub attribute_updates: Option<serde_json::Value>,
}

impl ExpressionMembers {
    /// The wire name of the first member present, if any.
    pub fn first_present(&self) -> Option<&'static str> {
        [
            (self.condition_expression.is_some(), "ConditionExpression"),
            (self.update_expression.is_some(), "UpdateExpression"),
            (self.projection_expression.is_some(), "ProjectionExpression"),
            (
                self.expression_attribute_names.is_some(),
                "ExpressionAttributeNames",
            ),
            (
                self.expression_attribute_values.is_some(),
                "ExpressionAttributeValues",
            ),
            (self.expected.is_some(), "Expected"),
            (self.conditional_operator.is_some(), "ConditionalOperator"),
            (self.attribute_updates.is_some(), "AttributeUpdates"),
        ]
        .into_iter()
        .find_map(|(present, name)| present.then_some(name))
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct PutItemInput {
    pub table_name: Option<String>,
    pub item: Option<ItemJson>,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionMembers,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutItemOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<ConsumedCapacity>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct GetItemInput {
    pub table_name: Option<String>,
    pub key: Option<ItemJson>,
    pub consistent_read: Option<bool>,
    pub attributes_to_get: Option<Vec<String>>,
    pub return_consumed_capacity: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionMembers,
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
    pub table_name: Option<String>,
    pub key: Option<ItemJson>,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionMembers,
}

pub type DeleteItemOutput = PutItemOutput;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct UpdateItemInput {
    pub table_name: Option<String>,
    pub key: Option<ItemJson>,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    #[serde(flatten)]
    pub expressions: ExpressionMembers,
}

pub type UpdateItemOutput = PutItemOutput;
