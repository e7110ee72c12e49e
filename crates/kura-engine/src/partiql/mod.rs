//! PartiQL: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction.
//!
//! A statement is parsed and lowered by `kura_expr::partiql` to the same condition,
//! update and projection trees every expression compiles to; this module decides what it
//! means for the table and runs it through the existing operations, never a second write
//! path: INSERT is a PutItem with `attribute_not_exists(<hash key>)`, UPDATE an UpdateItem
//! with `attribute_exists(<hash key>)` and the WHERE clause's other conditions, DELETE a
//! DeleteItem (conditions hold only when the item exists), SELECT a Query when its WHERE
//! fixes the partition key (by `=` or `IN`) and a Scan otherwise, and a transaction a
//! TransactWriteItems or TransactGetItems. Indexes, streams, TTL, capacity and
//! `ClientRequestToken` follow from those paths.

mod batch;
mod convert;
mod next_token;
mod select;
mod transaction;
mod write;

use kura_expr::partiql::MAX_STATEMENT_LENGTH;
use kura_expr::partiql::lower::Lowered;
use kura_model::constraint::Constraints;
use kura_model::messages::partiql as msg;
use kura_model::wire::AttributeValueJson;

use crate::Engine;
use crate::api::*;
use crate::error::{EngineError, Result};
use convert::{consumed_of, item_json};

const RETURN_ON_CONDITION_FAILURE: [&str; 2] = ["ALL_OLD", "NONE"];

/// The checks on one statement's own members.
fn statement_constraints(
    c: &mut Constraints,
    path: &str,
    statement: Option<&String>,
    parameters: Option<&Vec<AttributeValueJson>>,
) {
    c.not_null(&format!("{path}statement"), statement);
    if let Some(s) = statement {
        c.length(
            &format!("{path}statement"),
            s,
            s.len(),
            1,
            MAX_STATEMENT_LENGTH,
        );
    }
    if let Some(p) = parameters {
        c.length(
            &format!("{path}parameters"),
            "[...]",
            p.len(),
            1,
            usize::MAX,
        );
    }
}

impl Engine {
    pub async fn execute_statement(
        &self,
        mut input: ExecuteStatementInput,
    ) -> Result<ExecuteStatementOutput> {
        let mut c = Constraints::new();
        statement_constraints(
            &mut c,
            "",
            input.statement.as_ref(),
            input.parameters.as_ref(),
        );
        c.at_least("limit", input.limit, 1);
        if let Some(token) = &input.next_token {
            c.length("nextToken", token, token.len(), 1, 32768);
        }
        c.one_of(
            "returnConsumedCapacity",
            input.return_consumed_capacity.as_deref(),
            &ReturnConsumedCapacity::VALUES,
        );
        c.one_of(
            "returnValuesOnConditionCheckFailure",
            input.return_values_on_condition_check_failure.as_deref(),
            &RETURN_ON_CONDITION_FAILURE,
        );
        c.finish()?;
        let fingerprint = select::fingerprint(input.text(), &input.parameters);
        let lowered = input.take_prepared()?;
        let mode = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        match lowered {
            Lowered::Select(s) => self.partiql_select(
                s,
                select::Paging {
                    fingerprint,
                    consistent: input.consistent_read.unwrap_or(false),
                    limit: input.limit.map(|l| l as usize),
                    next_token: input.next_token,
                },
                mode,
            ),
            Lowered::Exists(_) => Err(EngineError::validation(msg::EXISTS_OUTSIDE_TRANSACTION)),
            write => {
                let done = self
                    .partiql_write(
                        write,
                        input.return_values_on_condition_check_failure.as_deref(),
                    )
                    .await?;
                Ok(ExecuteStatementOutput {
                    items: done.item.into_iter().collect(),
                    next_token: None,
                    consumed_capacity: ConsumedCapacity::report(
                        mode,
                        &done.table,
                        &done.consumed,
                        true,
                    ),
                    last_evaluated_key: None,
                })
            }
        }
    }
}
