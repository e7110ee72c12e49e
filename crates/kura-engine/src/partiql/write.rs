//! INSERT, UPDATE and DELETE (and a transaction's EXISTS) as the item operation each one
//! is: its key or item, its expressions printed with one set of placeholders, and its
//! `ReturnValues`. ExecuteStatement and BatchExecuteStatement run them through PutItem,
//! UpdateItem and DeleteItem; ExecuteTransaction puts them in one TransactWriteItems.

use kura_expr::ast::{Condition, Path};
use kura_expr::partiql::ast::Returning;
use kura_expr::partiql::lower::{Lowered, split_key};
use kura_expr::print::Joint;
use kura_model::Item;
use kura_model::messages::partiql as msg;
use kura_model::wire::ItemJson;

use super::convert::{consumed_of, item_json, values_json};
use crate::Engine;
use crate::api::*;
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};

/// Which item operation a write statement is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Insert,
    Update,
    Delete,
    Check,
}

/// A write statement as the arguments of its item operation.
pub(crate) struct WriteRequest {
    pub kind: Kind,
    pub table: String,
    pub key: Option<ItemJson>,
    pub item: Option<ItemJson>,
    pub expressions: ExpressionParams,
    pub return_values: Option<&'static str>,
}

/// What one write did.
pub(crate) struct WriteDone {
    pub table: String,
    /// The item RETURNING asked for, if there is one.
    pub item: Option<Item>,
    pub consumed: Consumed,
}

/// The key values a WHERE clause fixes, in the key schema's order, and its other
/// conditions; DynamoDB's error when it does not fix the whole key.
pub(crate) fn key_and_rest(
    table: &TableRecord,
    filter: &Condition,
) -> Result<(Item, Option<Condition>)> {
    let names: Vec<&str> = table
        .key_schema
        .attributes()
        .map(|k| k.name.as_str())
        .collect();
    let (values, rest) = split_key(filter, &names)
        .ok_or_else(|| EngineError::validation(msg::WHERE_NEEDS_FULL_KEY))?;
    let key = names
        .iter()
        .map(|n| (*n).to_owned())
        .zip(values)
        .collect::<Item>();
    Ok((key, rest))
}

impl Engine {
    /// The item operation `lowered` is. `Lowered::Select` is not a write.
    pub(crate) fn write_request(&self, lowered: Lowered) -> Result<WriteRequest> {
        let source = lowered.source().clone();
        if source.index.is_some() {
            return Err(EngineError::validation(msg::NOT_ON_INDEX));
        }
        let table = self.table_for_items(&source.table)?;
        let hash = Path::attribute(table.key_schema.hash.name.clone());
        let mut joint = Joint::new();
        let (kind, key, item, update, condition, return_values) = match lowered {
            Lowered::Insert { item, .. } => {
                let condition = joint.condition(&Condition::AttributeNotExists(hash));
                (Kind::Insert, None, Some(item), None, Some(condition), None)
            }
            Lowered::Update {
                update,
                filter,
                returning,
                ..
            } => {
                let (key, rest) = key_and_rest(&table, &filter)?;
                let exists = Condition::AttributeExists(hash);
                let condition = match rest {
                    Some(rest) => Condition::And(Box::new(exists), Box::new(rest)),
                    None => exists,
                };
                let update = joint.update(&update);
                let condition = joint.condition(&condition);
                let returns = returning.map(Returning::return_values);
                (
                    Kind::Update,
                    Some(key),
                    None,
                    Some(update),
                    Some(condition),
                    returns,
                )
            }
            Lowered::Delete {
                filter, returning, ..
            } => {
                if let Some(r) = returning.filter(|r| *r != Returning::AllOld) {
                    return Err(EngineError::validation(msg::returning_in_delete(r.text())));
                }
                let (key, rest) = key_and_rest(&table, &filter)?;
                // Conditions hold only for an item that exists: deleting a missing item
                // succeeds whatever the other conditions say, as in DynamoDB.
                let condition = rest.map(|rest| {
                    joint.condition(&Condition::Or(
                        Box::new(Condition::AttributeNotExists(hash)),
                        Box::new(rest),
                    ))
                });
                let returns = returning.map(Returning::return_values);
                (Kind::Delete, Some(key), None, None, condition, returns)
            }
            Lowered::Exists(select) => {
                if select.source.index.is_some() {
                    return Err(EngineError::validation(msg::TRANSACTION_ON_INDEX));
                }
                let filter = select
                    .filter
                    .ok_or_else(|| EngineError::validation(msg::EXISTS_NEEDS_CONDITION))?;
                let (key, rest) = key_and_rest(&table, &filter)
                    .map_err(|_| EngineError::validation(msg::EXISTS_NEEDS_CONDITION))?;
                let rest =
                    rest.ok_or_else(|| EngineError::validation(msg::EXISTS_NEEDS_CONDITION))?;
                let condition = joint.condition(&rest);
                (Kind::Check, Some(key), None, None, Some(condition), None)
            }
            Lowered::Select(_) => {
                return Err(EngineError::Internal("a SELECT is not a write".into()));
            }
        };
        let printed = joint.finish();
        let expressions = ExpressionParams {
            condition_expression: condition,
            update_expression: update,
            expression_attribute_names: (!printed.names.is_empty()).then_some(printed.names),
            expression_attribute_values: if printed.values.is_empty() {
                None
            } else {
                Some(values_json(printed.values)?)
            },
            ..ExpressionParams::default()
        };
        Ok(WriteRequest {
            kind,
            table: source.table,
            key: key.as_ref().map(item_json).transpose()?,
            item: item.as_ref().map(item_json).transpose()?,
            expressions,
            return_values,
        })
    }

    /// Runs one write statement through PutItem, UpdateItem or DeleteItem.
    pub(crate) async fn partiql_write(
        &self,
        lowered: Lowered,
        on_condition_failure: Option<&str>,
    ) -> Result<WriteDone> {
        let request = self.write_request(lowered)?;
        let table_name = Some(request.table.clone());
        let capacity = Some("INDEXES".to_owned());
        let on_failure = on_condition_failure.map(str::to_owned);
        let output = match request.kind {
            Kind::Insert => self
                .put_item(PutItemInput {
                    table_name,
                    item: request.item,
                    return_consumed_capacity: capacity,
                    expressions: request.expressions,
                    ..PutItemInput::default()
                })
                .await
                .map_err(|e| match e {
                    EngineError::ConditionalCheckFailed { .. } => {
                        EngineError::DuplicateItem(msg::DUPLICATE_ITEM.into())
                    }
                    other => other,
                })?,
            Kind::Update => {
                self.update_item(UpdateItemInput {
                    table_name,
                    key: request.key,
                    return_values: request.return_values.map(str::to_owned),
                    return_consumed_capacity: capacity,
                    return_values_on_condition_check_failure: on_failure,
                    expressions: request.expressions,
                    ..UpdateItemInput::default()
                })
                .await?
            }
            Kind::Delete => {
                self.delete_item(DeleteItemInput {
                    table_name,
                    key: request.key,
                    return_values: request.return_values.map(str::to_owned),
                    return_consumed_capacity: capacity,
                    return_values_on_condition_check_failure: on_failure,
                    expressions: request.expressions,
                    ..DeleteItemInput::default()
                })
                .await?
            }
            Kind::Check => {
                return Err(EngineError::validation(msg::EXISTS_OUTSIDE_TRANSACTION));
            }
        };
        Ok(WriteDone {
            table: request.table,
            item: output.attributes,
            consumed: consumed_of(output.consumed_capacity.as_ref()),
        })
    }
}
