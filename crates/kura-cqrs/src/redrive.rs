//! Resync and redrive: feeding a new read model everything the data table holds, with a
//! checkpoint so that an interrupted backfill goes on where it stopped; and listing and
//! replaying the commands that failed (parked by the projector, or refused by a sync
//! handler in `publish_sync`).

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::command::CommandModel;
use crate::error::{CqrsError, Result};
use crate::keys::add_sort_key_version;
use crate::large::{LargeAttributes, resolve};
use crate::names::{ATTRIBUTES_OMITTED, ERROR, FINISHED, HANDLER, PARKED_AT, PK, SK};
use crate::projector::Projector;
use crate::rows::{Item, key, read_row};
use crate::sync::SyncHandler;
use crate::tables::TableNames;

/// The projector-table partition of resync checkpoints (one row per handler id).
const RESYNC_PK: &str = "RESYNC";
/// On a resync checkpoint: the data row the backfill has reached.
const LAST_PK: &str = "lastPk";
const LAST_SK: &str = "lastSk";

/// A command that failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failed {
    /// The command row as stored: attributes kept in an object store are not read back
    /// (`attributes_ref` is set, `entity` and `to_input` refuse it); replay it with
    /// [`redrive`], which reads them for the handlers.
    pub command: CommandModel,
    /// Why, as recorded (the last projection error, or the sync handler's).
    pub error: Option<String>,
    /// When it was parked.
    pub parked_at: Option<String>,
    /// The sync handler that failed, when one did (`None`: the data table's write).
    pub handler: Option<String>,
    /// Parked without its attributes (too large to copy) and its command row gone
    /// since: `command` holds only its identity, and redrive refuses it.
    pub attributes_lost: bool,
}

fn text(item: &Item, name: &str) -> Option<String> {
    match item.get(name) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    }
}

/// Every failed command of the module, from its dead-letter table (one row per failed
/// version, written by the projector and by `publish_sync`): its cost follows the
/// failures, not the command table's history.
pub async fn failed(client: &Client, tables: &TableNames) -> Result<Vec<Failed>> {
    let mut found = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let page = client
            .scan()
            .table_name(&tables.dead_letter)
            .consistent_read(true)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        for item in page.items() {
            let error = text(item, ERROR);
            let mut command = CommandModel::from_item(item)?;
            let mut attributes_lost = false;
            // Parked without its attributes: the command table has them.
            if matches!(
                item.get(ATTRIBUTES_OMITTED),
                Some(AttributeValue::Bool(true))
            ) {
                match read_row(client, &tables.command, &command.pk, &command.sk).await? {
                    Some(stored) => command = stored,
                    None => attributes_lost = true,
                }
            }
            found.push(Failed {
                command,
                attributes_lost,
                // Rows parked before the handler was recorded name it in their error.
                handler: text(item, HANDLER)
                    .or_else(|| failed_handler(error.as_deref()).map(str::to_owned)),
                parked_at: text(item, PARKED_AT),
                error,
            });
        }
        match page.last_evaluated_key() {
            Some(k) => start = Some(k.clone()),
            None => break,
        }
    }
    found.sort_by(|a, b| (&a.command.pk, &a.command.sk).cmp(&(&b.command.pk, &b.command.sk)));
    Ok(found)
}

/// What a redrive did.
#[derive(Debug, Default, PartialEq)]
pub struct Redriven {
    pub replayed: u64,
    /// The commands that failed again, and why.
    pub still_failing: Vec<(String, String)>,
}

/// Replays every failed command through `projector` (its data table and its handlers),
/// oldest version of each entity first.
pub async fn redrive(projector: &Projector) -> Result<Redriven> {
    let mut failures = failed(projector.client(), projector.tables()).await?;
    failures.sort_by_key(|f| (f.command.id.clone(), f.command.version));
    let mut report = Redriven::default();
    let registered = projector.handler_ids();
    for failure in failures {
        // A handler's failure is replayed only by a projector that runs that handler:
        // another would mark it finished without the read model ever getting it.
        if let Some(handler) = failure.handler.as_deref()
            && !registered.contains(&handler)
        {
            report.still_failing.push((
                format!("{} {}", failure.command.pk, failure.command.sk),
                format!("the handler {handler} that failed is not registered on this projector"),
            ));
            continue;
        }
        if failure.attributes_lost {
            report.still_failing.push((
                format!("{} {}", failure.command.pk, failure.command.sk),
                "parked without its attributes, and its command row is gone".into(),
            ));
            continue;
        }
        match projector.replay(&failure.command).await {
            Ok(()) => report.replayed += 1,
            Err(CqrsError::Replay { command, message }) => {
                report.still_failing.push((command, message));
            }
            Err(other) => return Err(other),
        }
    }
    Ok(report)
}

/// The handler a recorded error names (`handler ID: ...`), for dead letters parked before
/// the handler's id had an attribute of its own.
fn failed_handler(error: Option<&str>) -> Option<&str> {
    error?
        .strip_prefix("handler ")?
        .split_once(':')
        .map(|(id, _)| id)
}

/// Feeds every data row to `handler` (a read model added after the fact), as the
/// version it is at (`sk` = `base@version`, as the projector delivers commands), `page`
/// rows per read. A checkpoint in the projector table (row `RESYNC` / handler id) records
/// how far it got after each page: a resync that was interrupted goes on from there; one
/// that finished starts over. The projector may deliver newer versions meanwhile, so the
/// handler must keep the highest version it has seen (the at-least-once contract of
/// [`SyncHandler`]). `large` reads offloaded attributes back ([`crate::large`]).
/// Returns how many rows it fed.
pub async fn resync(
    client: &Client,
    tables: &TableNames,
    handler: &dyn SyncHandler,
    page: i32,
    large: Option<&LargeAttributes>,
) -> Result<u64> {
    let checkpoint = key(RESYNC_PK, handler.id());
    let saved = client
        .get_item()
        .table_name(&tables.projector)
        .set_key(Some(checkpoint.clone()))
        .consistent_read(true)
        .send()
        .await
        .map_err(CqrsError::dynamo)?;
    let mut start = saved.item().and_then(|row| {
        let finished = matches!(row.get(FINISHED), Some(AttributeValue::Bool(true)));
        match (finished, text(row, LAST_PK), text(row, LAST_SK)) {
            (false, Some(pk), Some(sk)) => Some(key(&pk, &sk)),
            _ => None,
        }
    });
    if let Some(from) = &start {
        tracing::info!(handler = handler.id(), ?from, "resync resumes");
    }
    let mut fed = 0;
    loop {
        let got = client
            .scan()
            .table_name(&tables.data)
            .limit(page.max(1))
            .consistent_read(true)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        for item in got.items() {
            let mut row = resolve(large, CommandModel::from_item(item)?).await?;
            row.sk = add_sort_key_version(row.base_sk(), row.version);
            handler
                .up(&row)
                .await
                .map_err(|source| CqrsError::Handler {
                    handler: handler.id().to_owned(),
                    source,
                })?;
            fed += 1;
        }
        let last = got.last_evaluated_key().cloned();
        let mut mark = checkpoint.clone();
        match &last {
            Some(k) => {
                for (from, to) in [(PK, LAST_PK), (SK, LAST_SK)] {
                    if let Some(value) = k.get(from) {
                        mark.insert(to.into(), value.clone());
                    }
                }
                mark.insert(FINISHED.into(), AttributeValue::Bool(false));
            }
            None => {
                mark.insert(FINISHED.into(), AttributeValue::Bool(true));
            }
        }
        client
            .put_item()
            .table_name(&tables.projector)
            .set_item(Some(mark))
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        match last {
            Some(k) => start = Some(k),
            None => return Ok(fed),
        }
    }
}
