//! Reading one framework row, and the small builders every writer shares.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, Put, TransactWriteItem};

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
pub fn n(value: impl Into<i64>) -> AttributeValue {
    AttributeValue::N(value.into().to_string())
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
    version: Option<crate::Version>,
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

/// The rows of `table` at `keys` that exist, read with BatchGetItem (100 keys a call,
/// unprocessed keys asked again after a pause), in no particular order.
pub async fn batch_get(client: &Client, table: &str, keys: Vec<Item>) -> Result<Vec<Item>> {
    let mut found = Vec::new();
    for chunk in keys.chunks(100) {
        let mut pending = Some(chunk.to_vec());
        let mut pause = std::time::Duration::from_millis(10);
        while let Some(keys) = pending.take().filter(|k| !k.is_empty()) {
            let request = KeysAndAttributes::builder()
                .set_keys(Some(keys))
                .build()
                .map_err(|e| CqrsError::InvalidKey(e.to_string()))?;
            let got = client
                .batch_get_item()
                .request_items(table, request)
                .send()
                .await
                .map_err(CqrsError::dynamo)?;
            if let Some(rows) = got.responses().and_then(|r| r.get(table)) {
                found.extend(rows.iter().cloned());
            }
            pending = got
                .unprocessed_keys()
                .and_then(|u| u.get(table))
                .map(|k| k.keys().to_vec());
            if pending.as_ref().is_some_and(|k| !k.is_empty()) {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(std::time::Duration::from_secs(1));
            }
        }
    }
    Ok(found)
}
