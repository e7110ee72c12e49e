//! Reading one framework row, and the small builders every writer shares.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};

use crate::command::CommandModel;
use crate::error::{CqrsError, Result};
use crate::names::{PK, SK};

/// A DynamoDB item.
pub type Item = HashMap<String, AttributeValue>;

/// A string attribute.
pub fn s(value: &str) -> AttributeValue {
    AttributeValue::S(value.to_owned())
}

/// A number attribute.
pub fn n(value: i64) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// The key of a framework row.
pub fn key(pk: &str, sk: &str) -> Item {
    HashMap::from([(PK.to_owned(), s(pk)), (SK.to_owned(), s(sk))])
}

/// One row of a framework table, read consistently (`None` when absent).
pub async fn read_row(
    client: &Client,
    table: &str,
    pk: &str,
    sk: &str,
) -> Result<Option<CommandModel>> {
    let got = client
        .get_item()
        .table_name(table)
        .set_key(Some(key(pk, sk)))
        .consistent_read(true)
        .send()
        .await
        .map_err(CqrsError::dynamo)?;
    got.item().map(CommandModel::from_item).transpose()
}

/// A put for a transaction, held by `condition` if any; `version` is the `:v` it names.
pub fn conditional_put(
    table: &str,
    item: Item,
    condition: Option<&str>,
    version: Option<i64>,
) -> Result<TransactWriteItem> {
    let mut put = Put::builder()
        .table_name(table)
        .set_item(Some(item))
        .set_condition_expression(condition.map(str::to_owned));
    if let Some(version) = version {
        put = put.expression_attribute_values(":v", n(version));
    }
    let put = put
        .build()
        .map_err(|e| CqrsError::InvalidKey(e.to_string()))?;
    Ok(TransactWriteItem::builder().put(put).build())
}
