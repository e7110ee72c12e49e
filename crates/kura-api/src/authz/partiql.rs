//! What the PartiQL operations ask of the policies: each statement as its PartiQL action
//! (`PartiQLSelect`, `PartiQLInsert`, `PartiQLUpdate`, `PartiQLDelete`) on its table or
//! index, with `dynamodb:LeadingKeys` (the partition key values the statement names:
//! the inserted item's, or the WHERE clause's equalities on the partition key) and
//! `dynamodb:EnclosingOperation` (ExecuteStatement, BatchExecuteStatement or
//! ExecuteTransaction). Each statement is the one the handler prepared (parsed and bound
//! once, then run by the engine); one that does not parse or bind gets no check: the
//! engine refuses it without running it.

use std::collections::BTreeSet;

use kura_engine::EngineError;
use kura_engine::api::{
    BatchExecuteStatementInput, ExecuteStatementInput, ExecuteTransactionInput,
};
use kura_engine::expr::partiql::lower::{Lowered, conjuncts, equality};

use super::items::value_text;
use super::{Check, Scope};

fn statement(
    scope: &Scope<'_>,
    lowered: Option<&Lowered>,
    enclosing: &'static str,
) -> Option<Check> {
    let lowered = lowered?;
    let source = lowered.source().clone();
    let names = scope
        .schemas
        .partition_keys(&source.table, source.index.as_deref())
        .unwrap_or_default();
    let mut keys = BTreeSet::new();
    let (action, filter) = match &lowered {
        Lowered::Select(s) | Lowered::Exists(s) => ("PartiQLSelect", s.filter.as_ref()),
        Lowered::Insert { item, .. } => {
            for name in &names {
                keys.extend(item.get(name).and_then(value_text));
            }
            ("PartiQLInsert", None)
        }
        Lowered::Update { filter, .. } => ("PartiQLUpdate", Some(filter)),
        Lowered::Delete { filter, .. } => ("PartiQLDelete", Some(filter)),
    };
    if let Some(filter) = filter {
        for c in conjuncts(filter) {
            if let Some((name, value)) = equality(c)
                && names.iter().any(|n| n == name)
            {
                keys.extend(value_text(value));
            }
        }
    }
    Some(
        Check::new(action, scope.target(&source.table, source.index.as_deref()))
            .key("dynamodb:LeadingKeys", keys.into_iter().collect())
            .key("dynamodb:EnclosingOperation", vec![enclosing.to_owned()]),
    )
}

pub(crate) fn execute_statement(scope: &Scope<'_>, input: &ExecuteStatementInput) -> Vec<Check> {
    statement(scope, prepared(&input.prepared), "ExecuteStatement")
        .into_iter()
        .collect()
}

pub(crate) fn batch_execute_statement(
    scope: &Scope<'_>,
    input: &BatchExecuteStatementInput,
) -> Vec<Check> {
    input
        .statements
        .iter()
        .flatten()
        .filter_map(|s| statement(scope, prepared(&s.prepared), "BatchExecuteStatement"))
        .collect()
}

pub(crate) fn execute_transaction(
    scope: &Scope<'_>,
    input: &ExecuteTransactionInput,
) -> Vec<Check> {
    input
        .transact_statements
        .iter()
        .flatten()
        .filter_map(|s| statement(scope, prepared(&s.prepared), "ExecuteTransaction"))
        .collect()
}

/// A statement as the handler prepared it, when it parsed and bound.
fn prepared(slot: &Option<Result<Lowered, EngineError>>) -> Option<&Lowered> {
    slot.as_ref().and_then(|p| p.as_ref().ok())
}
