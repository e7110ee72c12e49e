//! Between the engine's typed values and the JSON-shaped inputs the item operations take,
//! and the capacity they report back.

use std::collections::BTreeMap;

use kura_model::wire::{AttributeValueJson, ItemJson};
use kura_model::{AttributeValue, Item};

use crate::api::*;
use crate::capacity::Consumed;
use crate::error::{EngineError, Result};

/// An item as the engine's JSON-shaped inputs take it.
pub(super) fn item_json(item: &Item) -> Result<ItemJson> {
    serde_json::to_value(item)
        .and_then(serde_json::from_value)
        .map_err(|e| EngineError::Internal(e.to_string()))
}

pub(super) fn values_json(
    values: BTreeMap<String, AttributeValue>,
) -> Result<BTreeMap<String, AttributeValueJson>> {
    serde_json::to_value(values)
        .and_then(serde_json::from_value)
        .map_err(|e| EngineError::Internal(e.to_string()))
}

/// The capacity an operation reported in INDEXES detail, as units to add up.
pub(super) fn consumed_of(report: Option<&ConsumedCapacity>) -> Consumed {
    let Some(report) = report else {
        return Consumed::default();
    };
    let units = |m: &Option<BTreeMap<String, Capacity>>| {
        m.iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.capacity_units))
            .collect()
    };
    Consumed {
        table: report
            .table
            .as_ref()
            .map_or(report.capacity_units, |t| t.capacity_units),
        global: units(&report.global_secondary_indexes),
        local: units(&report.local_secondary_indexes),
        vector: report
            .vector_indexes
            .iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), v.vector_write_request_bytes?)))
            .collect(),
    }
}
