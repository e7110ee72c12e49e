//! Multi-region strong consistency (MRSC) around the item operations, with regions kept
//! apart: a write holds its items against the other regions' writes and is answered once
//! it is in a majority of its table's regions; a strongly consistent read needs that
//! majority reachable; transactions are refused. Tables that are not MRSC pass through
//! after one catalog read (`kura_engine::replication::strong`, ADR 0035).

use std::future::Future;

use kura_engine::EngineError;
use kura_engine::expr::partiql::lower::Lowered;
use kura_engine::replication::StrongWrite;
use kura_model::wire::ItemJson;

use super::Call;
use crate::error::ApiError;

/// Before a write to `table` of `items` (None: not known before it runs, as a PartiQL
/// statement's; the whole table is held): None unless it is an MRSC table.
pub(super) fn hold(
    call: &Call<'_>,
    table: Option<&str>,
    items: Option<&[&ItemJson]>,
) -> Result<Option<StrongWrite>, ApiError> {
    match (call.regions, table) {
        (Some(regions), Some(table)) => {
            Ok(regions.strong_write(call.engine, &call.ctx.region, table, items)?)
        }
        _ => Ok(None),
    }
}

/// Runs `write`, which writes what `held` holds: answered once it is in a majority of its
/// table's regions; a write that failed releases its items at once.
pub(super) async fn run<T, E: Into<ApiError>>(
    call: &Call<'_>,
    held: impl IntoIterator<Item = StrongWrite>,
    write: impl Future<Output = Result<T, E>>,
) -> Result<T, ApiError> {
    let held: Vec<StrongWrite> = held.into_iter().collect();
    match write.await {
        Ok(output) => {
            if let Some(regions) = call.regions {
                for hold in held {
                    regions.acknowledge(call.engine, hold).await?;
                }
            }
            Ok(output)
        }
        Err(e) => {
            held.into_iter().for_each(StrongWrite::release);
            Err(e.into())
        }
    }
}

/// Before a read of `table`: a strongly consistent one needs an MRSC table's majority.
pub(super) fn read(
    call: &Call<'_>,
    table: Option<&str>,
    consistent: Option<bool>,
) -> Result<(), ApiError> {
    match (call.regions, table) {
        (Some(regions), Some(table)) if consistent == Some(true) => {
            Ok(regions.strong_read(call.engine, &call.ctx.region, table)?)
        }
        _ => Ok(()),
    }
}

/// Transactions naming an MRSC table are refused, as DynamoDB refuses them.
pub(super) fn no_transaction<'t>(
    call: &Call<'_>,
    operation: &str,
    tables: impl IntoIterator<Item = &'t str>,
) -> Result<(), ApiError> {
    match call.regions {
        Some(regions) => Ok(regions.refuse_transaction(call.engine, operation, tables)?),
        None => Ok(()),
    }
}

/// Before a PartiQL statement: a SELECT reads; the others write, holding the whole table
/// (the items a statement writes are known only as it runs).
pub(super) fn statement(
    call: &Call<'_>,
    prepared: Option<&Result<Lowered, EngineError>>,
    consistent: Option<bool>,
) -> Result<Option<StrongWrite>, ApiError> {
    let Some(Ok(lowered)) = prepared else {
        return Ok(None);
    };
    let table = lowered.source().table.as_str();
    match lowered {
        Lowered::Select(_) | Lowered::Exists(_) => {
            read(call, Some(table), consistent)?;
            Ok(None)
        }
        _ => hold(call, Some(table), None),
    }
}
