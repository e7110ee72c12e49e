//! PartiQL family: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction. Each
//! statement is parsed and bound once, here; it is authorized as its PartiQL action
//! (`crate::authz::partiql`), admitted (`--enforce-capacity`: a batch answers a throttled
//! statement in place, a transaction is canceled), and run by the engine from that.

use kura_engine::api::{
    BatchExecuteStatementInput, BatchStatementError, BatchStatementResponse, ExecuteStatementInput,
    ExecuteTransactionInput, Statement,
};

use super::{Call, json, strong};
use crate::authz::{self, partiql as checks};
use crate::error::ApiError;

pub async fn execute_statement(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let mut input: ExecuteStatementInput = call.input()?;
    // Parsed and bound once: authorization, throttling and the engine read the same.
    input.prepare();
    authz::authorize(&call, |s| checks::execute_statement(s, &input))?;
    super::throttling::statement(&call, input.prepared.as_ref())?;
    let held = strong::statement(&call, input.prepared.as_ref(), input.consistent_read)?;
    let output = strong::run(&call, held, call.engine.execute_statement(input)).await?;
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
    let mut held = Vec::new();
    for s in input.statements.iter().flatten() {
        held.extend(strong::statement(
            &call,
            s.prepared.as_ref(),
            s.consistent_read,
        )?);
    }
    strong::run(&call, held, run_batch(&call, input)).await
}

/// BatchExecuteStatement's statements, those out of capacity answered in place.
async fn run_batch(
    call: &Call<'_>,
    input: BatchExecuteStatementInput,
) -> Result<Vec<u8>, ApiError> {
    let statements = input.statements.as_deref().unwrap_or_default();
    let prepared: Vec<_> = statements.iter().map(|s| s.prepared.as_ref()).collect();
    let refused = super::throttling::statement_batch(call, &prepared);
    // Out of the API's 1-25 the engine answers the ValidationException, admitted or not.
    if refused.iter().all(Option::is_none) || !(1..=25).contains(&refused.len()) {
        return json(&call.engine.batch_execute_statement(input).await?);
    }
    if refused.iter().all(Option::is_some) {
        // Every statement out of capacity: the request fails, as a batch whose every
        // table is throttled does.
        return match refused.into_iter().flatten().next() {
            Some(first) => Err(first),
            None => json(&call.engine.batch_execute_statement(input).await?),
        };
    }
    run_admitted(call, input, refused).await
}

/// Runs the statements of a batch that were admitted and answers the others in place
/// with `ProvisionedThroughputExceeded`, the code DynamoDB gives a throttled statement.
async fn run_admitted(
    call: &Call<'_>,
    mut input: BatchExecuteStatementInput,
    refused: Vec<Option<ApiError>>,
) -> Result<Vec<u8>, ApiError> {
    let statements = input.statements.take().unwrap_or_default();
    let mut tables = Vec::with_capacity(statements.len());
    let mut admitted = Vec::new();
    for (statement, refusal) in statements.into_iter().zip(&refused) {
        let table = match &statement.prepared {
            Some(Ok(lowered)) => Some(lowered.source().table.clone()),
            _ => None,
        };
        tables.push(table);
        if refusal.is_none() {
            admitted.push(statement);
        }
    }
    input.statements = Some(admitted);
    let mut output = call.engine.batch_execute_statement(input).await?;
    let mut ran = std::mem::take(&mut output.responses).into_iter();
    output.responses = refused
        .into_iter()
        .zip(tables)
        .map(|(refusal, table)| match refusal {
            None => ran.next().unwrap_or_default(),
            Some(error) => BatchStatementResponse {
                error: Some(BatchStatementError {
                    code: "ProvisionedThroughputExceeded".into(),
                    message: error.message,
                    item: None,
                }),
                table_name: table,
                item: None,
            },
        })
        .collect();
    json(&output)
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
    let statements = input.transact_statements.as_deref().unwrap_or_default();
    let tables = statements.iter().filter_map(|s| match &s.prepared {
        Some(Ok(lowered)) => Some(lowered.source().table.as_str()),
        _ => None,
    });
    strong::no_transaction(&call, "ExecuteTransaction", tables)?;
    let prepared: Vec<_> = statements.iter().map(|s| s.prepared.as_ref()).collect();
    super::throttling::statement_transaction(&call, &prepared)?;
    json(&call.engine.execute_transaction(input).await?)
}
