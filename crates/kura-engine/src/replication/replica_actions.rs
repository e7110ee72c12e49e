//! What UpdateTable asks of a global table, parsed: its `ReplicaUpdates` actions, its
//! witness update and its `MultiRegionConsistency`; and the stream every replica sends
//! its changes from.

use kura_model::messages::replicas as texts;

use crate::api::{
    OnDemandThroughputOverride, ProvisionedThroughputOverride, ReplicaActionInput,
    ReplicationGroupUpdateInput, StreamSpecificationInput, UpdateTableInput,
    WitnessGroupUpdateInput,
};
use crate::catalog::{BillingMode, IndexKind, IndexOverride, ReplicaOverrides, TableRecord};
use crate::error::{EngineError, Result};
use crate::streams::meta::ViewType;
use crate::{Engine, RequestContext};

/// What one replica update asks for: a Create or Update with the replica's own settings.
pub(super) enum Action {
    Create(String, ReplicaOverrides),
    Update(String, ReplicaOverrides),
    Delete(String),
}

impl Action {
    pub(super) fn parse(update: &ReplicationGroupUpdateInput) -> Result<Action> {
        let region = |a: &ReplicaActionInput| {
            a.region_name
                .clone()
                .filter(|r| !r.is_empty())
                .ok_or_else(|| EngineError::validation(texts::ONE_ACTION))
        };
        match (&update.create, &update.update, &update.delete) {
            (Some(a), None, None) => Ok(Action::Create(region(a)?, overrides_of(a)?)),
            (None, Some(a), None) => Ok(Action::Update(region(a)?, overrides_of(a)?)),
            (None, None, Some(a)) => Ok(Action::Delete(region(a)?)),
            _ => Err(EngineError::validation(texts::ONE_ACTION)),
        }
    }

    pub(super) fn region(&self) -> &str {
        match self {
            Action::Create(r, _) | Action::Update(r, _) | Action::Delete(r) => r,
        }
    }
}

/// A Create's or Update's overrides, checked for their own shape.
fn overrides_of(a: &ReplicaActionInput) -> Result<ReplicaOverrides> {
    if let Some(class) = a
        .table_class_override
        .as_deref()
        .filter(|c| !["STANDARD", "STANDARD_INFREQUENT_ACCESS"].contains(c))
    {
        return Err(EngineError::validation(texts::table_class_value(class)));
    }
    let read = |p: Option<&ProvisionedThroughputOverride>| -> Result<Option<i64>> {
        match p.and_then(|p| p.read_capacity_units) {
            Some(units) if units < 1 => Err(EngineError::validation(texts::override_units(
                "ReadCapacityUnits",
                units,
            ))),
            units => Ok(units),
        }
    };
    // -1 is DynamoDB's "no maximum".
    let on_demand = |p: Option<&OnDemandThroughputOverride>| -> Result<Option<i64>> {
        match p.and_then(|p| p.max_read_request_units) {
            Some(units) if units < 1 && units != -1 => Err(EngineError::validation(
                texts::override_units("MaxReadRequestUnits", units),
            )),
            units => Ok(units),
        }
    };
    let mut indexes = Vec::new();
    for index in a.global_secondary_indexes.iter().flatten() {
        let index_name = index
            .index_name
            .clone()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| EngineError::validation(texts::OVERRIDE_INDEX_NAME))?;
        indexes.push(IndexOverride {
            index_name,
            read_capacity_units: read(index.provisioned_throughput_override.as_ref())?,
            max_read_request_units: on_demand(index.on_demand_throughput_override.as_ref())?,
        });
    }
    Ok(ReplicaOverrides {
        kms_master_key_id: a.kms_master_key_id.clone().filter(|k| !k.is_empty()),
        read_capacity_units: read(a.provisioned_throughput_override.as_ref())?,
        max_read_request_units: on_demand(a.on_demand_throughput_override.as_ref())?,
        table_class: a.table_class_override.clone(),
        indexes,
    })
}

/// Overrides against the table: read capacity of the table's billing mode, GSIs it has.
pub(super) fn check_overrides(table: &TableRecord, o: &ReplicaOverrides) -> Result<()> {
    let provisioned = table.billing_mode == BillingMode::Provisioned;
    let mode = if provisioned {
        "PROVISIONED"
    } else {
        "PAY_PER_REQUEST"
    };
    let refuse = |field: &str| {
        Err(EngineError::validation(texts::override_billing(
            &table.name,
            field,
            mode,
        )))
    };
    let reads = std::iter::once((o.read_capacity_units, o.max_read_request_units)).chain(
        o.indexes
            .iter()
            .map(|i| (i.read_capacity_units, i.max_read_request_units)),
    );
    for (read, max_read) in reads {
        if read.is_some() && !provisioned {
            return refuse("ProvisionedThroughputOverride");
        }
        if max_read.is_some() && provisioned {
            return refuse("OnDemandThroughputOverride");
        }
    }
    for index in &o.indexes {
        let known = table
            .indexes
            .iter()
            .any(|i| i.kind == IndexKind::Global && i.name == index.index_name);
        if !known {
            return Err(EngineError::validation(texts::override_index(
                &table.name,
                &index.index_name,
            )));
        }
    }
    Ok(())
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
