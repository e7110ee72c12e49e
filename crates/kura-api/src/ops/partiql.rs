//! PartiQL family: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction. Each
//! statement is parsed and bound once, here; it is authorized as its PartiQL action
//! (`crate::authz::partiql`), admitted (`--enforce-capacity`: a batch answers a throttled
//! statement in place, a transaction is canceled), and run by the engine from that.

use kura_engine::api::{
    BatchExecuteStatementInput, BatchStatementError, BatchStatementResponse, ExecuteStatementInput,
    ExecuteTransactionInput, Statement,
};

use super::input::{Input, begin, once, statement_table};
use super::{Call, json, strong, throttling};
use crate::authz::{Check, Scope, partiql as checks};
use crate::error::ApiError;
use crate::operation::Op;

pub async fn execute_statement(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    // Parsed and bound once (`begin`): authorization, throttling and the engine read the
    // same statement.
    let input: ExecuteStatementInput = begin(&call).await?;
    let held = strong::statement(&call, input.prepared.as_ref(), input.consistent_read)?;
    let output = strong::run(&call, held, call.engine.execute_statement(input)).await?;
    call.observation.returned_items(output.items.len());
    json(&output)
}

pub async fn batch_execute_statement(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: BatchExecuteStatementInput = begin(&call).await?;
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
    let refused = throttling::statement_batch(call, &prepared);
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
    let input: ExecuteTransactionInput = begin(&call).await?;
    let statements = input.transact_statements.iter().flatten();
    let tables = statements.filter_map(|s| statement_table(s.prepared.as_ref()));
    strong::no_transaction(&call, "ExecuteTransaction", tables)?;
    json(&call.engine.execute_transaction(input).await?)
}

impl Input for ExecuteStatementInput {
    fn prepare(&mut self) {
        Statement::prepare(self);
    }

    fn tables(&self) -> Vec<&str> {
        statement_table(self.prepared.as_ref())
            .into_iter()
            .collect()
    }

    fn checks(&self, scope: &Scope<'_>, _: Op) -> Vec<Check> {
        checks::execute_statement(scope, self)
    }

    fn admit(&self, call: &Call<'_>) -> Result<(), ApiError> {
        throttling::statement(call, self.prepared.as_ref())
    }
}

/// Each statement of a batch is admitted as the batch runs (`run_batch`): one out of
/// capacity is answered in place.
impl Input for BatchExecuteStatementInput {
    fn prepare(&mut self) {
        self.statements.iter_mut().flatten().for_each(|s| {
            s.prepare();
        });
    }

    fn tables(&self) -> Vec<&str> {
        let statements = self.statements.iter().flatten();
        once(statements.filter_map(|s| statement_table(s.prepared.as_ref())))
    }

    fn checks(&self, scope: &Scope<'_>, _: Op) -> Vec<Check> {
        checks::batch_execute_statement(scope, self)
    }
}

impl Input for ExecuteTransactionInput {
    fn prepare(&mut self) {
        self.transact_statements.iter_mut().flatten().for_each(|s| {
            s.prepare();
        });
    }

    fn tables(&self) -> Vec<&str> {
        let statements = self.transact_statements.iter().flatten();
        once(statements.filter_map(|s| statement_table(s.prepared.as_ref())))
    }

    fn checks(&self, scope: &Scope<'_>, _: Op) -> Vec<Check> {
        checks::execute_transaction(scope, self)
    }

    fn admit(&self, call: &Call<'_>) -> Result<(), ApiError> {
        let statements = self.transact_statements.as_deref().unwrap_or_default();
        let prepared: Vec<_> = statements.iter().map(|s| s.prepared.as_ref()).collect();
        throttling::statement_transaction(call, &prepared)
    }
}
