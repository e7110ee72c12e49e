//! PartiQL family: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction. Each
//! statement is authorized as its PartiQL action (`crate::authz::partiql`).

use kura_engine::api::{
    BatchExecuteStatementInput, ExecuteStatementInput, ExecuteTransactionInput,
};

use super::{Call, json};
use crate::authz::{self, partiql as checks};
use crate::error::ApiError;

pub async fn execute_statement(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ExecuteStatementInput = call.input()?;
    authz::authorize(&call, |s| checks::execute_statement(s, &input))?;
    let text = input.statement.as_deref();
    super::admission::statement(&call, text, input.parameters.as_deref())?;
    let output = call.engine.execute_statement(input).await?;
    // ReturnedItemCount; the statement's table is inside the PartiQL, so the series has
    // no table label.
    call.observation.returned_items(output.items.len());
    json(&output)
}

pub async fn batch_execute_statement(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: BatchExecuteStatementInput = call.input()?;
    authz::authorize(&call, |s| checks::batch_execute_statement(s, &input))?;
    json(&call.engine.batch_execute_statement(input).await?)
}

pub async fn execute_transaction(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ExecuteTransactionInput = call.input()?;
    authz::authorize(&call, |s| checks::execute_transaction(s, &input))?;
    json(&call.engine.execute_transaction(input).await?)
}
