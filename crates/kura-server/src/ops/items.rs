//! Item family: PutItem, GetItem, DeleteItem, UpdateItem, Query, Scan, batches,
//! transactions.

use super::{Call, json};
use crate::error::ApiError;

pub async fn put_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.put_item(call.input()?).await?)
}

pub fn get_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.get_item(call.input()?)?)
}

pub async fn delete_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.delete_item(call.input()?).await?)
}

pub async fn update_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.update_item(call.input()?).await?)
}

pub fn query(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.query(call.input()?)?)
}

pub fn scan(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.scan(call.input()?)?)
}

pub fn batch_get_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.batch_get_item(call.input()?)?)
}

pub async fn batch_write_item(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.batch_write_item(call.input()?).await?)
}

pub async fn transact_write_items(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.transact_write_items(call.input()?).await?)
}

pub fn transact_get_items(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.transact_get_items(call.input()?)?)
}
