//! Table family: CreateTable, DescribeTable, ListTables, UpdateTable, DeleteTable, tags,
//! DescribeLimits, DescribeEndpoints.

use super::{Call, json};
use crate::error::ApiError;

pub async fn create_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.create_table(&call.ctx, call.input()?).await?)
}

pub async fn describe_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_table(&call.ctx, call.input()?).await?)
}

pub async fn update_time_to_live(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.update_time_to_live(call.input()?).await?)
}

pub fn describe_time_to_live(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_time_to_live(call.input()?)?)
}

pub fn list_tables(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.list_tables(call.input()?)?)
}

pub async fn update_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.update_table(&call.ctx, call.input()?).await?)
}

pub async fn delete_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.delete_table(&call.ctx, call.input()?).await?)
}

pub async fn tag_resource(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    call.engine.tag_resource(call.input()?).await?;
    Ok(b"{}".to_vec())
}

pub async fn untag_resource(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    call.engine.untag_resource(call.input()?).await?;
    Ok(b"{}".to_vec())
}

pub fn list_tags_of_resource(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.list_tags_of_resource(call.input()?)?)
}

pub fn describe_continuous_backups(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_continuous_backups(call.input()?)?)
}

pub fn describe_limits(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_limits())
}

pub fn describe_endpoints(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_endpoints(&call.host))
}
