//! The dead-letter table: one row per command version that failed, from the projector
//! (its retries ran out, or DynamoDB refused the write) or from `publish_sync` (a sync
//! handler refused it). The row is the command as stored, with why (`error`), when
//! (`parkedAt`) and, when a sync handler failed, which one (`handler`): redrive replays a
//! handler's failure only through a projector that runs that handler.

use aws_sdk_dynamodb::Client;

use crate::command::{CommandModel, now_timestamp};
use crate::error::{CqrsError, Result};
use crate::names::{ERROR, HANDLER, PARKED_AT};
use crate::rows::s;

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
    client
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .send()
        .await
        .map_err(CqrsError::dynamo)?;
    tracing::error!(pk = %command.pk, sk = %command.sk, error, handler, "command parked in the dead-letter table");
    Ok(())
}
