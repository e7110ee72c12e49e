//! PartiQL family: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction. Each
//! statement is parsed and bound once, here; it is authorized as its PartiQL action
//! (`crate::authz::partiql`), admitted, and run by the engine from that.

use kura_engine::api::{
    BatchExecuteStatementInput, ExecuteStatementInput, ExecuteTransactionInput, Statement,
};

use super::{Call, json};
use crate::authz::{self, partiql as checks};
use crate::error::ApiError;

pub async fn execute_statement(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let mut input: ExecuteStatementInput = call.input()?;
    // Parsed and bound once: authorization, admission and the engine read the same.
    input.prepare();
    authz::authorize(&call, |s| checks::execute_statement(s, &input))?;
    super::admission::statement(&call, input.prepared.as_ref())?;
    let output = call.engine.execute_statement(input).await?;
    // ReturnedItemCount; the statement's table is inside the PartiQL, so the series has
    // no table label.
    call.observation.returned_items(output.items.len());
    json(&output)
}

pub async fn batch_execute_statement(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let mut input: BatchExecuteStatementInput = call.input()?;
    input.statements.iter_mut().flatten().for_each(|s| {
        s.prepare();
    });
    authz::authorize(&call, |s| checks::batch_execute_statement(s, &input))?;
    json(&call.engine.batch_execute_statement(input).await?)
}

pub async fn execute_transaction(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let mut input: ExecuteTransactionInput = call.input()?;
    input
        .transact_statements
        .iter_mut()
        .flatten()
        .for_each(|s| {
            s.prepare();
        });
    authz::authorize(&call, |s| checks::execute_transaction(s, &input))?;
    json(&call.engine.execute_transaction(input).await?)
}
