//! PartiQL family: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction.

use super::{Call, json};
use crate::error::ApiError;

pub async fn execute_statement(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.execute_statement(call.input()?).await?)
}

pub async fn batch_execute_statement(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.batch_execute_statement(call.input()?).await?)
}

pub async fn execute_transaction(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.execute_transaction(call.input()?).await?)
}
