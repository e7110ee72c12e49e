//! What UpdateTable asks of a global table, parsed: its `ReplicaUpdates` actions, its
//! witness update and its `MultiRegionConsistency`; and the stream every replica sends
//! its changes from.

use kura_model::messages::replicas as texts;

use crate::api::{
    ReplicationGroupUpdateInput, StreamSpecificationInput, UpdateTableInput,
    WitnessGroupUpdateInput,
};
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::streams::meta::ViewType;
use crate::{Engine, RequestContext};

/// What one replica update asks for.
pub(super) enum Action {
    Create(String),
    Update(String),
    Delete(String),
}

impl Action {
    pub(super) fn parse(update: &ReplicationGroupUpdateInput) -> Result<Action> {
        let region = |a: &crate::api::ReplicaActionInput| {
            a.region_name
                .clone()
                .filter(|r| !r.is_empty())
                .ok_or_else(|| EngineError::validation(texts::ONE_ACTION))
        };
        match (&update.create, &update.update, &update.delete) {
            (Some(a), None, None) => Ok(Action::Create(region(a)?)),
            (None, Some(a), None) => Ok(Action::Update(region(a)?)),
            (None, None, Some(a)) => Ok(Action::Delete(region(a)?)),
            _ => Err(EngineError::validation(texts::ONE_ACTION)),
        }
    }

    pub(super) fn region(&self) -> &str {
        match self {
            Action::Create(r) | Action::Update(r) | Action::Delete(r) => r,
        }
    }
}

/// A `GlobalTableWitnessUpdates` entry.
pub(super) enum Witness {
    Create(String),
    Delete(String),
}

/// The witness update of an UpdateTable (at most one).
pub(super) fn parse_witness(updates: &[WitnessGroupUpdateInput]) -> Result<Option<Witness>> {
    if updates.len() > 1 {
        return Err(EngineError::validation(texts::one_witness(updates.len())));
    }
    let Some(update) = updates.first() else {
        return Ok(None);
    };
    let region = |a: &crate::api::WitnessActionInput| {
        a.region_name
            .clone()
            .filter(|r| !r.is_empty())
            .ok_or_else(|| EngineError::validation(texts::ONE_WITNESS_ACTION))
    };
    match (&update.create, &update.delete) {
        (Some(a), None) => Ok(Some(Witness::Create(region(a)?))),
        (None, Some(a)) => Ok(Some(Witness::Delete(region(a)?))),
        _ => Err(EngineError::validation(texts::ONE_WITNESS_ACTION)),
    }
}

/// `MultiRegionConsistency`: Some(true) for STRONG.
pub(super) fn parse_consistency(value: Option<&str>) -> Result<Option<bool>> {
    match value {
        None => Ok(None),
        Some("STRONG") => Ok(Some(true)),
        Some("EVENTUAL") => Ok(Some(false)),
        Some(other) => Err(EngineError::validation(texts::consistency_value(other))),
    }
}

/// The changes a replica sends are its stream's records, with both images: a table without
/// a stream gets one; one with another view type is refused.
pub(super) async fn ensure_stream(
    engine: &Engine,
    ctx: &RequestContext,
    record: &TableRecord,
) -> Result<()> {
    let table = record.name.clone();
    match record.stream.as_ref().filter(|s| s.enabled) {
        Some(s) if s.view_type != ViewType::NewAndOldImages => {
            return Err(EngineError::validation(texts::stream_view_type(&table)));
        }
        Some(_) => {}
        None => {
            engine
                .update_table(
                    ctx,
                    UpdateTableInput {
                        table_name: Some(table.clone()),
                        stream_specification: Some(StreamSpecificationInput {
                            stream_enabled: Some(true),
                            stream_view_type: Some("NEW_AND_OLD_IMAGES".into()),
                        }),
                        ..UpdateTableInput::default()
                    },
                )
                .await?;
        }
    }
    Ok(())
}
