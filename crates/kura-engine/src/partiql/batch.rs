//! BatchExecuteStatement: up to 25 statements, all reads or all writes. Each runs on its
//! own (a read as GetItem, a write as its item operation) and fails on its own, with its
//! error in `Responses[i].Error`.

use std::collections::BTreeMap;

use kura_expr::eval::condition::evaluate;
use kura_expr::partiql::lower::Lowered;
use kura_expr::partiql::projection::select_item;
use kura_model::constraint::Constraints;
use kura_model::messages::partiql as msg;

use super::write::key_and_rest;
use super::{RETURN_ON_CONDITION_FAILURE, consumed_of, item_json, statement_constraints};
use crate::Engine;
use crate::api::*;
use crate::error::{EngineError, Result};

const MAX_STATEMENTS: usize = 25;

/// A statement's error as BatchStatementError reports it.
pub(crate) fn statement_error(e: EngineError) -> BatchStatementError {
    let message = e.to_string();
    let (code, item) = match e {
        EngineError::ConditionalCheckFailed { item } => ("ConditionalCheckFailed", item),
        EngineError::DuplicateItem(_) => ("DuplicateItem", None),
        EngineError::Validation(_) | EngineError::Serialization(_) => ("ValidationError", None),
        EngineError::ResourceNotFound(_) => ("ResourceNotFound", None),
        EngineError::ItemCollectionSizeLimitExceeded(_) => {
            ("ItemCollectionSizeLimitExceeded", None)
        }
        _ => ("InternalServerError", None),
    };
    BatchStatementError {
        code: code.to_owned(),
        message: Some(message),
        item,
    }
}

impl Engine {
    pub async fn batch_execute_statement(
        &self,
        input: BatchExecuteStatementInput,
    ) -> Result<BatchExecuteStatementOutput> {
        let mut c = Constraints::new();
        c.not_null("statements", input.statements.as_ref());
        if let Some(statements) = &input.statements {
            c.length("statements", "[...]", statements.len(), 1, MAX_STATEMENTS);
            for (i, s) in statements.iter().enumerate() {
                statement_constraints(
                    &mut c,
                    &format!("statements.{}.member.", i + 1),
                    s.statement.as_ref(),
                    s.parameters.as_ref(),
                );
                c.one_of(
                    &format!(
                        "statements.{}.member.returnValuesOnConditionCheckFailure",
                        i + 1
                    ),
                    s.return_values_on_condition_check_failure.as_deref(),
                    &RETURN_ON_CONDITION_FAILURE,
                );
            }
        }
        c.one_of(
            "returnConsumedCapacity",
            input.return_consumed_capacity.as_deref(),
            &ReturnConsumedCapacity::VALUES,
        );
        c.finish()?;
        let mut requests = input.statements.unwrap_or_default();
        let prepared: Vec<Result<Lowered>> =
            requests.iter_mut().map(|r| r.take_prepared()).collect();
        let reads = prepared
            .iter()
            .filter(|p| matches!(p, Ok(Lowered::Select(_))))
            .count();
        let writes = prepared
            .iter()
            .filter(|p| matches!(p, Ok(l) if !matches!(l, Lowered::Select(_))))
            .count();
        if reads > 0 && writes > 0 {
            return Err(EngineError::validation(msg::BATCH_MIXED));
        }
        let mode = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        let mut units: BTreeMap<String, Consumed> = BTreeMap::new();
        let mut responses = Vec::with_capacity(requests.len());
        for (request, lowered) in requests.into_iter().zip(prepared) {
            let table = lowered.as_ref().ok().map(|l| l.source().table.clone());
            let outcome = match lowered {
                Err(e) => Err(e),
                Ok(Lowered::Select(s)) => {
                    self.batch_read(s, request.consistent_read.unwrap_or(false))
                }
                Ok(Lowered::Exists(_)) => {
                    Err(EngineError::validation(msg::EXISTS_OUTSIDE_TRANSACTION))
                }
                Ok(write) => self
                    .partiql_write(
                        write,
                        request.return_values_on_condition_check_failure.as_deref(),
                    )
                    .await
                    .map(|done| (done.table, None, done.consumed)),
            };
            responses.push(match outcome {
                Ok((table, item, consumed)) => {
                    units.entry(table.clone()).or_default().add(&consumed);
                    BatchStatementResponse {
                        error: None,
                        table_name: Some(table),
                        item,
                    }
                }
                Err(e) => BatchStatementResponse {
                    error: Some(statement_error(e)),
                    table_name: table,
                    item: None,
                },
            });
        }
        Ok(BatchExecuteStatementOutput {
            responses,
            consumed_capacity: ConsumedCapacity::per_table(mode, units, reads == 0),
        })
    }

    /// One SELECT of a batch: a GetItem of the key its WHERE clause fixes, then its other
    /// conditions and its projection.
    fn batch_read(
        &self,
        s: kura_expr::partiql::lower::LoweredSelect,
        consistent: bool,
    ) -> Result<(String, Option<kura_model::Item>, Consumed)> {
        if s.source.index.is_some() {
            return Err(EngineError::validation(msg::NOT_ON_INDEX));
        }
        let table = self.table_for_items(&s.source.table)?;
        let filter = s
            .filter
            .as_ref()
            .ok_or_else(|| EngineError::validation(msg::WHERE_NEEDS_FULL_KEY))?;
        let (key, rest) = key_and_rest(&table, filter)?;
        let output = self.get_item(GetItemInput {
            table_name: Some(s.source.table.clone()),
            key: Some(item_json(&key)?),
            consistent_read: Some(consistent),
            return_consumed_capacity: Some("INDEXES".into()),
            ..GetItemInput::default()
        })?;
        let item = output
            .item
            .filter(|item| rest.as_ref().is_none_or(|r| evaluate(r, item)))
            .map(|item| select_item(item, s.projection.as_ref()));
        Ok((
            s.source.table,
            item,
            consumed_of(output.consumed_capacity.as_ref()),
        ))
    }
}
