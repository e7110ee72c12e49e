//! A command row's `status` (the values are in [`crate::status`]), read and written:
//! clients wait on it, and the projector reads it to follow a publisher in sync.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::command::CommandModel;
use crate::error::{CqrsError, Result};
use crate::names::{PK, STATUS};
use crate::rows::{key, s};

/// The status of one command row, read strongly (`None` when the row is gone).
pub(crate) async fn read_status(
    client: &Client,
    table: &str,
    pk: &str,
    sk: &str,
) -> Result<Option<String>> {
    let got = client
        .get_item()
        .table_name(table)
        .set_key(Some(key(pk, sk)))
        .projection_expression("#status")
        .expression_attribute_names("#status", STATUS)
        .consistent_read(true)
        .send()
        .await
        .map_err(CqrsError::dynamo)?;
    Ok(match got.item().and_then(|i| i.get(STATUS)) {
        Some(AttributeValue::S(status)) => Some(status.clone()),
        _ => None,
    })
}

/// Records how a command ended on its row in the command table; a row that expired or
/// was removed meanwhile has nothing to mark.
pub(crate) async fn mark(
    client: &Client,
    table: &str,
    command: &CommandModel,
    status: &str,
) -> Result<()> {
    let update = client
        .update_item()
        .table_name(table)
        .set_key(Some(key(&command.pk, &command.sk)))
        .update_expression("SET #status = :status")
        .condition_expression(format!("attribute_exists({PK})"))
        .expression_attribute_names("#status", STATUS)
        .expression_attribute_values(":status", s(status))
        .send()
        .await;
    match update {
        Ok(_) => Ok(()),
        Err(e)
            if e.as_service_error()
                .is_some_and(|s| s.is_conditional_check_failed_exception()) =>
        {
            Ok(())
        }
        Err(e) => Err(CqrsError::dynamo(e)),
    }
}
