//! Parking a command version that failed: from the projector (its retries ran out, or
//! DynamoDB refused the write) or from `publish_sync` (a sync handler refused it).
//!
//! - **The dead-letter table** gets one row per failed version: the command as stored,
//!   with why (`error`), when (`parkedAt`) and, when a sync handler failed, which one
//!   (`handler`); redrive replays a handler's failure only through a projector that runs
//!   that handler.
//! - **Parking never fails for size**: a command too large to copy with those attributes
//!   (near DynamoDB's 400 KB) is parked without its attributes (`attributesOmitted`), and
//!   redrive reads them from the command table. Otherwise one large command would fail
//!   every round of the projector and stall its shard.
//! - **History keeps the version**: a version whose data never reached the data table
//!   gets a history row of its own, marked failed, so the entity's history has no gap.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::command::{CommandModel, now_timestamp};
use crate::error::{CqrsError, Result};
use crate::names::{
    ATTRIBUTES, ATTRIBUTES_OMITTED, ERROR, HANDLER, ID, NAME, PARKED_AT, PK, SK, STATUS,
    TENANT_CODE, TYPE, VERSION,
};
use crate::projection::history_row;
use crate::rows::{Item, s};
use crate::status;
use crate::tables::TableKind;
use crate::ttl::RowTtl;

/// Parks `command` in `table` (a module's dead-letter table).
pub(crate) async fn park(
    client: &Client,
    table: &str,
    command: &CommandModel,
    error: &str,
    handler: Option<&str>,
) -> Result<()> {
    let mut item = command.to_item();
    item.insert(ERROR.into(), s(error));
    item.insert(PARKED_AT.into(), s(&now_timestamp()));
    if let Some(handler) = handler {
        item.insert(HANDLER.into(), s(handler));
    }
    put_or_stub(client, table, item, None).await?;
    tracing::error!(pk = %command.pk, sk = %command.sk, error, handler, "command parked in the dead-letter table");
    Ok(())
}

/// Writes the history row of a version the data table never got (at `base@version`,
/// `status` failed, with the error), unless history has that version already.
pub(crate) async fn park_in_history(
    client: &Client,
    table: &str,
    command: &CommandModel,
    error: &str,
    ttl: &RowTtl,
) -> Result<()> {
    let mut item = history_row(command);
    ttl.apply(&mut item, TableKind::History);
    item.insert(STATUS.into(), s(status::FAILED));
    item.insert(ERROR.into(), s(error));
    let condition = format!("attribute_not_exists({PK})");
    put_or_stub(client, table, item, Some(&condition)).await
}

/// Puts `item`; when DynamoDB refuses it (too large), puts it again without its
/// attributes and index keys, marked `attributesOmitted`. A failed `condition` is not an
/// error: the row is there already.
async fn put_or_stub(
    client: &Client,
    table: &str,
    item: Item,
    condition: Option<&str>,
) -> Result<()> {
    let put = |item: Item| {
        client
            .put_item()
            .table_name(table)
            .set_item(Some(item))
            .set_condition_expression(condition.map(str::to_owned))
            .send()
    };
    let refused = match put(item.clone()).await {
        Ok(_) => return Ok(()),
        Err(e) => CqrsError::dynamo(e),
    };
    match &refused {
        CqrsError::Dynamo { code, .. } if code == "ConditionalCheckFailedException" => Ok(()),
        CqrsError::Dynamo { code, .. } if code == "ValidationException" => {
            match put(stub(&item)).await {
                Ok(_) => Ok(()),
                Err(e) => match CqrsError::dynamo(e) {
                    CqrsError::Dynamo { code, .. } if code == "ConditionalCheckFailedException" => {
                        Ok(())
                    }
                    other => Err(other),
                },
            }
        }
        _ => Err(refused),
    }
}

/// A row's key, version, identity and parking fields, without what made it too large.
fn stub(item: &Item) -> Item {
    let mut stub: Item = [
        PK,
        SK,
        ID,
        VERSION,
        NAME,
        TENANT_CODE,
        TYPE,
        STATUS,
        HANDLER,
        PARKED_AT,
        crate::names::TTL,
        crate::names::TTL_POLICY,
    ]
    .into_iter()
    .filter_map(|name| item.get(name).map(|v| (name.to_owned(), v.clone())))
    .collect();
    // The error can be long too (a handler's message): the first 1,000 characters.
    if let Some(AttributeValue::S(error)) = item.get(ERROR) {
        stub.insert(
            ERROR.into(),
            s(&error.chars().take(1000).collect::<String>()),
        );
    }
    stub.insert(ATTRIBUTES.into(), AttributeValue::M(Default::default()));
    stub.insert(ATTRIBUTES_OMITTED.into(), AttributeValue::Bool(true));
    stub
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stub_keeps_identity_and_drops_the_bulk() {
        let item = Item::from([
            (PK.to_owned(), s("ORDER#t")),
            (SK.to_owned(), s("ORDER#1@2")),
            (VERSION.to_owned(), AttributeValue::N("2".into())),
            (ERROR.to_owned(), s(&"e".repeat(5000))),
            (ATTRIBUTES.to_owned(), s(&"x".repeat(400_000))),
            ("gsi1pk".to_owned(), s("an index key")),
        ]);
        let stub = stub(&item);
        assert_eq!(stub[PK], s("ORDER#t"));
        assert_eq!(stub[VERSION], AttributeValue::N("2".into()));
        assert_eq!(stub[ERROR], s(&"e".repeat(1000)));
        assert_eq!(stub[ATTRIBUTES], AttributeValue::M(Default::default()));
        assert_eq!(stub[ATTRIBUTES_OMITTED], AttributeValue::Bool(true));
        assert!(!stub.contains_key("gsi1pk"));
    }
}
