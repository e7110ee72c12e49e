//! ExecuteTransaction: up to 100 statements, all reads (a TransactGetItems) or all writes
//! and EXISTS checks (a TransactWriteItems, so it is serializable with every other write
//! and its `ClientRequestToken` is that operation's).

use kura_expr::eval::condition::evaluate;
use kura_expr::partiql::lower::Lowered;
use kura_expr::partiql::projection::select_item;
use kura_model::constraint::Constraints;
use kura_model::messages::partiql as msg;

use super::write::{Kind, key_and_rest};
use super::{RETURN_ON_CONDITION_FAILURE, item_json, statement_constraints};
use crate::Engine;
use crate::api::*;
use crate::error::{EngineError, Result};

const MAX_STATEMENTS: usize = 100;

impl Engine {
    pub async fn execute_transaction(
        &self,
        input: ExecuteTransactionInput,
    ) -> Result<ExecuteTransactionOutput> {
        let mut c = Constraints::new();
        c.not_null("transactStatements", input.transact_statements.as_ref());
        if let Some(statements) = &input.transact_statements {
            c.length(
                "transactStatements",
                "[...]",
                statements.len(),
                1,
                MAX_STATEMENTS,
            );
            for (i, s) in statements.iter().enumerate() {
                statement_constraints(
                    &mut c,
                    &format!("transactStatements.{}.member.", i + 1),
                    s.statement.as_ref(),
                    s.parameters.as_ref(),
                );
                c.one_of(
                    &format!(
                        "transactStatements.{}.member.returnValuesOnConditionCheckFailure",
                        i + 1
                    ),
                    s.return_values_on_condition_check_failure.as_deref(),
                    &RETURN_ON_CONDITION_FAILURE,
                );
            }
        }
        if let Some(token) = &input.client_request_token {
            c.length("clientRequestToken", token, token.len(), 1, 36);
        }
        c.one_of(
            "returnConsumedCapacity",
            input.return_consumed_capacity.as_deref(),
            &ReturnConsumedCapacity::VALUES,
        );
        c.finish()?;
        let mut statements = input.transact_statements.unwrap_or_default();
        let mut lowered = Vec::with_capacity(statements.len());
        for s in &mut statements {
            lowered.push(s.take_prepared()?);
        }
        let reads = lowered
            .iter()
            .filter(|l| matches!(l, Lowered::Select(_)))
            .count();
        if reads > 0 && reads < lowered.len() {
            return Err(EngineError::validation(msg::TRANSACTION_MIXED));
        }
        if reads > 0 {
            self.transaction_reads(lowered, input.return_consumed_capacity)
        } else {
            self.transaction_writes(
                lowered,
                statements,
                input.client_request_token,
                input.return_consumed_capacity,
            )
            .await
        }
    }

    fn transaction_reads(
        &self,
        lowered: Vec<Lowered>,
        capacity: Option<String>,
    ) -> Result<ExecuteTransactionOutput> {
        let mut gets = Vec::with_capacity(lowered.len());
        let mut selects = Vec::with_capacity(lowered.len());
        for l in lowered {
            let Lowered::Select(s) = l else {
                return Err(EngineError::validation(msg::TRANSACTION_MIXED));
            };
            if s.source.index.is_some() {
                return Err(EngineError::validation(msg::TRANSACTION_READ_ON_INDEX));
            }
            let table = self.table_for_items(&s.source.table)?;
            let filter = s
                .filter
                .as_ref()
                .ok_or_else(|| EngineError::validation(msg::TRANSACTION_READ_NEEDS_KEY))?;
            let (key, rest) = key_and_rest(&table, filter)
                .map_err(|_| EngineError::validation(msg::TRANSACTION_READ_NEEDS_KEY))?;
            gets.push(TransactGetItem {
                get: Some(TransactAction {
                    table_name: Some(s.source.table.clone()),
                    key: Some(item_json(&key)?),
                    ..TransactAction::default()
                }),
            });
            selects.push((rest, s.projection));
        }
        let output = self.transact_get_items(TransactGetItemsInput {
            transact_items: Some(gets),
            return_consumed_capacity: capacity,
        })?;
        let responses = output
            .responses
            .into_iter()
            .zip(selects)
            .map(|(response, (rest, projection))| ItemResponse {
                item: response
                    .item
                    .filter(|item| rest.as_ref().is_none_or(|r| evaluate(r, item)))
                    .map(|item| select_item(item, projection.as_ref())),
            })
            .collect();
        Ok(ExecuteTransactionOutput {
            responses: Some(responses),
            consumed_capacity: output.consumed_capacity,
        })
    }

    async fn transaction_writes(
        &self,
        lowered: Vec<Lowered>,
        statements: Vec<ParameterizedStatement>,
        token: Option<String>,
        capacity: Option<String>,
    ) -> Result<ExecuteTransactionOutput> {
        let mut items = Vec::with_capacity(lowered.len());
        let mut inserts = Vec::with_capacity(lowered.len());
        for (l, s) in lowered.into_iter().zip(statements) {
            if matches!(
                l,
                Lowered::Update {
                    returning: Some(_),
                    ..
                } | Lowered::Delete {
                    returning: Some(_),
                    ..
                }
            ) {
                return Err(EngineError::validation(msg::unsupported_clause(
                    "RETURNING",
                )));
            }
            if l.source().index.is_some() {
                return Err(EngineError::validation(msg::TRANSACTION_ON_INDEX));
            }
            let request = self.write_request(l)?;
            let action = TransactAction {
                table_name: Some(request.table),
                key: request.key,
                item: request.item,
                return_values_on_condition_check_failure: s
                    .return_values_on_condition_check_failure,
                expressions: request.expressions,
            };
            inserts.push(request.kind == Kind::Insert);
            let mut entry = TransactWriteItem::default();
            match request.kind {
                Kind::Insert => entry.put = Some(action),
                Kind::Update => entry.update = Some(action),
                Kind::Delete => entry.delete = Some(action),
                Kind::Check => entry.condition_check = Some(action),
            }
            items.push(entry);
        }
        let output = self
            .transact_write_items(TransactWriteItemsInput {
                transact_items: Some(items),
                client_request_token: token,
                return_consumed_capacity: capacity,
                return_item_collection_metrics: None,
            })
            .await
            .map_err(|e| match e {
                EngineError::TransactionCanceled { mut reasons } => {
                    for (reason, insert) in reasons.iter_mut().zip(&inserts) {
                        if *insert && reason.code == "ConditionalCheckFailed" {
                            reason.code = "DuplicateItem".into();
                            reason.message = Some(msg::DUPLICATE_ITEM.into());
                            reason.item = None;
                        }
                    }
                    EngineError::TransactionCanceled { reasons }
                }
                other => other,
            })?;
        Ok(ExecuteTransactionOutput {
            responses: None,
            consumed_capacity: output.consumed_capacity,
        })
    }
}
