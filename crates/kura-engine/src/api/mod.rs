//! The engine's typed API: one input and one output type per operation, named and shaped
//! as in the DynamoDB API Reference (`PutItemInput`, `PutItemOutput`, ...).
//!
//! Inputs arrive as sent: every member optional and values unvalidated
//! ([`kura_model::wire::ItemJson`]), because DynamoDB's validation order (framework
//! constraints, then values, then the table, then keys) is part of its behaviour and lives
//! in the engine. Outputs serialise to the exact JSON DynamoDB returns.

pub mod batch;
pub mod items;
pub mod reads;
pub mod tables;
pub mod transactions;

pub use batch::*;
pub use items::*;
pub use reads::*;
pub use tables::*;
pub use transactions::*;

use serde::{Deserialize, Serialize};

/// `ReturnConsumedCapacity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReturnConsumedCapacity {
    #[default]
    None,
    Total,
    Indexes,
}

impl ReturnConsumedCapacity {
    pub const VALUES: [&'static str; 3] = ["INDEXES", "TOTAL", "NONE"];

    pub fn parse(value: Option<&str>) -> Self {
        match value {
            Some("TOTAL") => ReturnConsumedCapacity::Total,
            Some("INDEXES") => ReturnConsumedCapacity::Indexes,
            _ => ReturnConsumedCapacity::None,
        }
    }
}

/// `ConsumedCapacity` as DynamoDB reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ConsumedCapacity {
    pub table_name: String,
    pub capacity_units: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<Capacity>,
}

/// One entry of the INDEXES detail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Capacity {
    pub capacity_units: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_capacity_units: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_capacity_units: Option<f64>,
}

/// Reads are charged per 4 KB, halved when eventually consistent.
pub fn read_units(item_bytes: usize, consistent: bool) -> f64 {
    let units = item_bytes.div_ceil(4096).max(1) as f64;
    if consistent { units } else { units / 2.0 }
}

/// Writes are charged per 1 KB of the larger of the old and new item.
pub fn write_units(item_bytes: usize) -> f64 {
    item_bytes.div_ceil(1024).max(1) as f64
}

impl ConsumedCapacity {
    /// One entry per table of a multi-table call, or `None` when the caller did not ask.
    pub fn per_table(
        mode: ReturnConsumedCapacity,
        units: std::collections::BTreeMap<String, f64>,
        is_write: bool,
    ) -> Option<Vec<ConsumedCapacity>> {
        let reports: Vec<ConsumedCapacity> = units
            .into_iter()
            .filter_map(|(table, units)| ConsumedCapacity::report(mode, &table, units, is_write))
            .collect();
        (mode != ReturnConsumedCapacity::None).then_some(reports)
    }

    /// The report for `units` on `table`, or `None` when the caller did not ask.
    pub fn report(
        mode: ReturnConsumedCapacity,
        table: &str,
        units: f64,
        is_write: bool,
    ) -> Option<ConsumedCapacity> {
        let split = |u: f64| {
            if is_write {
                (None, Some(u))
            } else {
                (Some(u), None)
            }
        };
        match mode {
            ReturnConsumedCapacity::None => None,
            ReturnConsumedCapacity::Total => Some(ConsumedCapacity {
                table_name: table.to_owned(),
                capacity_units: units,
                read_capacity_units: None,
                write_capacity_units: None,
                table: None,
            }),
            ReturnConsumedCapacity::Indexes => {
                let (r, w) = split(units);
                Some(ConsumedCapacity {
                    table_name: table.to_owned(),
                    capacity_units: units,
                    read_capacity_units: r,
                    write_capacity_units: w,
                    table: Some(Capacity {
                        capacity_units: units,
                        read_capacity_units: r,
                        write_capacity_units: w,
                    }),
                })
            }
        }
    }
}
