//! ExecuteStatement, BatchExecuteStatement and ExecuteTransaction shapes.

use kura_expr::partiql::lower::{Lowered, lower};
use kura_expr::partiql::parse;
use kura_model::Item;
use kura_model::wire::AttributeValueJson;
use serde::{Deserialize, Serialize};

use super::{ConsumedCapacity, ItemResponse};
use crate::error::EngineError;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ExecuteStatementInput {
    pub statement: Option<String>,
    pub parameters: Option<Vec<AttributeValueJson>>,
    pub consistent_read: Option<bool>,
    pub next_token: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub limit: Option<i64>,
    pub return_values_on_condition_check_failure: Option<String>,
    /// The statement parsed and bound, once whoever needed it first asked
    /// ([`Statement::prepare`]); not a member of the request's JSON.
    #[serde(skip)]
    pub prepared: Option<Result<Lowered, EngineError>>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExecuteStatementOutput {
    pub items: Vec<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<ConsumedCapacity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_evaluated_key: Option<Item>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct BatchExecuteStatementInput {
    pub statements: Option<Vec<BatchStatementRequest>>,
    pub return_consumed_capacity: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct BatchStatementRequest {
    pub statement: Option<String>,
    pub parameters: Option<Vec<AttributeValueJson>>,
    pub consistent_read: Option<bool>,
    pub return_values_on_condition_check_failure: Option<String>,
    /// The statement parsed and bound, once whoever needed it first asked
    /// ([`Statement::prepare`]); not a member of the request's JSON.
    #[serde(skip)]
    pub prepared: Option<Result<Lowered, EngineError>>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchExecuteStatementOutput {
    pub responses: Vec<BatchStatementResponse>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchStatementResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<BatchStatementError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchStatementError {
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ExecuteTransactionInput {
    pub transact_statements: Option<Vec<ParameterizedStatement>>,
    pub client_request_token: Option<String>,
    pub return_consumed_capacity: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ParameterizedStatement {
    pub statement: Option<String>,
    pub parameters: Option<Vec<AttributeValueJson>>,
    pub return_values_on_condition_check_failure: Option<String>,
    /// The statement parsed and bound, once whoever needed it first asked
    /// ([`Statement::prepare`]); not a member of the request's JSON.
    #[serde(skip)]
    pub prepared: Option<Result<Lowered, EngineError>>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExecuteTransactionOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub responses: Option<Vec<ItemResponse>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}

/// A request member that carries one PartiQL statement and its parameters. The statement
/// is parsed and bound once, by the first step that needs it (the server's authorization
/// and admission, or the engine), and that answer is used by every later step.
pub trait Statement {
    fn text(&self) -> &str;
    fn parameters(&self) -> Option<&Vec<AttributeValueJson>>;
    fn prepared_slot(&mut self) -> &mut Option<Result<Lowered, EngineError>>;

    /// Parses and binds the statement the first time; the same answer after.
    fn prepare(&mut self) -> &Result<Lowered, EngineError> {
        let prepared = match self.prepared_slot().take() {
            Some(prepared) => prepared,
            None => prepare(self.text(), self.parameters().cloned()),
        };
        self.prepared_slot().insert(prepared)
    }

    /// The prepared statement, for the engine to run (parsed now if no one did).
    fn take_prepared(&mut self) -> Result<Lowered, EngineError> {
        match self.prepared_slot().take() {
            Some(prepared) => prepared,
            None => prepare(self.text(), self.parameters().cloned()),
        }
    }
}

macro_rules! statement_members {
    ($($input:ty),*) => {$(
        impl Statement for $input {
            fn text(&self) -> &str {
                self.statement.as_deref().unwrap_or_default()
            }

            fn parameters(&self) -> Option<&Vec<AttributeValueJson>> {
                self.parameters.as_ref()
            }

            fn prepared_slot(&mut self) -> &mut Option<Result<Lowered, EngineError>> {
                &mut self.prepared
            }
        }
    )*};
}

statement_members!(
    ExecuteStatementInput,
    BatchStatementRequest,
    ParameterizedStatement
);

/// Parses `statement` and binds `parameters` to it.
fn prepare(
    statement: &str,
    parameters: Option<Vec<AttributeValueJson>>,
) -> Result<Lowered, EngineError> {
    let parsed = parse(statement)?;
    let params = parameters
        .unwrap_or_default()
        .into_iter()
        .map(AttributeValueJson::into_value)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(lower(&parsed, &params)?)
}
