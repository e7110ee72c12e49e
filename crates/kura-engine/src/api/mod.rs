//! The engine's typed API: one input and one output type per operation, named and shaped
//! as in the DynamoDB API Reference (`PutItemInput`, `PutItemOutput`, ...).
//!
//! Inputs arrive as sent: every member optional and values unvalidated
//! ([`kura_model::wire::ItemJson`]), because DynamoDB's validation order (framework
//! constraints, then values, then the table, then keys) is part of its behaviour and lives
//! in the engine. Outputs serialise to the exact JSON DynamoDB returns.

pub mod backups;
pub mod batch;
pub mod exports;
pub mod insights;
pub mod items;
pub mod partiql;
pub mod query_scan;
pub mod streams;
pub mod tables;
pub mod transactions;

pub use backups::*;
pub use batch::*;
pub use exports::*;
pub use insights::*;
pub use items::*;
pub use partiql::*;
pub use query_scan::*;
pub use streams::*;
pub use tables::*;
pub use transactions::*;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::catalog::IndexKind;

/// Reads a `TableName` member that may be a table ARN instead of a name, as DynamoDB
/// allows in every operation on an existing table: an ARN becomes the name it names.
/// Anything else is kept as sent, for the name checks to judge.
pub(crate) fn table_name_or_arn<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    let value = Option::<String>::deserialize(deserializer)?;
    Ok(value.map(|v| match crate::arn::parse_table(&v) {
        Some(name) => name.to_owned(),
        None => v,
    }))
}

/// Reads the batch operations' `RequestItems`, whose keys may be table ARNs: each is
/// keyed by the table's name from then on (responses too).
pub(crate) fn tables_by_name_or_arn<'de, D, V>(
    deserializer: D,
) -> Result<Option<BTreeMap<String, V>>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: Deserialize<'de>,
{
    let value = Option::<BTreeMap<String, V>>::deserialize(deserializer)?;
    Ok(value.map(|tables| {
        tables
            .into_iter()
            .map(|(key, v)| match crate::arn::parse_table(&key) {
                Some(name) => (name.to_owned(), v),
                None => (key, v),
            })
            .collect()
    }))
}

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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_secondary_indexes: Option<BTreeMap<String, Capacity>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_secondary_indexes: Option<BTreeMap<String, Capacity>>,
}

/// Capacity one request consumed on one table, split the way INDEXES reports it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Consumed {
    pub table: f64,
    pub global: BTreeMap<String, f64>,
    pub local: BTreeMap<String, f64>,
}

impl Consumed {
    /// Units consumed by the table alone.
    pub fn table(units: f64) -> Self {
        Consumed {
            table: units,
            ..Consumed::default()
        }
    }

    pub fn add_index(&mut self, kind: IndexKind, name: &str, units: f64) {
        let map = match kind {
            IndexKind::Global => &mut self.global,
            IndexKind::Local => &mut self.local,
        };
        *map.entry(name.to_owned()).or_default() += units;
    }

    pub fn add(&mut self, other: &Consumed) {
        self.table += other.table;
        for (name, units) in &other.global {
            *self.global.entry(name.clone()).or_default() += units;
        }
        for (name, units) in &other.local {
            *self.local.entry(name.clone()).or_default() += units;
        }
    }

    /// Every figure times `factor` (transactions consume twice).
    pub fn scaled(mut self, factor: f64) -> Self {
        self.table *= factor;
        self.global.values_mut().for_each(|u| *u *= factor);
        self.local.values_mut().for_each(|u| *u *= factor);
        self
    }

    pub fn total(&self) -> f64 {
        self.table + self.global.values().sum::<f64>() + self.local.values().sum::<f64>()
    }
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
        consumed: BTreeMap<String, Consumed>,
        is_write: bool,
    ) -> Option<Vec<ConsumedCapacity>> {
        let reports: Vec<ConsumedCapacity> = consumed
            .into_iter()
            .filter_map(|(table, c)| ConsumedCapacity::report(mode, &table, &c, is_write))
            .collect();
        (mode != ReturnConsumedCapacity::None).then_some(reports)
    }

    /// The report for `consumed` on `table`, or `None` when the caller did not ask.
    pub fn report(
        mode: ReturnConsumedCapacity,
        table: &str,
        consumed: &Consumed,
        is_write: bool,
    ) -> Option<ConsumedCapacity> {
        let capacity = |units: f64| {
            let (read, write) = if is_write {
                (None, Some(units))
            } else {
                (Some(units), None)
            };
            Capacity {
                capacity_units: units,
                read_capacity_units: read,
                write_capacity_units: write,
            }
        };
        let total = consumed.total();
        match mode {
            ReturnConsumedCapacity::None => None,
            ReturnConsumedCapacity::Total => Some(ConsumedCapacity {
                table_name: table.to_owned(),
                capacity_units: total,
                read_capacity_units: None,
                write_capacity_units: None,
                table: None,
                global_secondary_indexes: None,
                local_secondary_indexes: None,
            }),
            ReturnConsumedCapacity::Indexes => {
                let detail = |map: &BTreeMap<String, f64>| {
                    (!map.is_empty()).then(|| {
                        map.iter()
                            .map(|(name, units)| (name.clone(), capacity(*units)))
                            .collect()
                    })
                };
                let all = capacity(total);
                Some(ConsumedCapacity {
                    table_name: table.to_owned(),
                    capacity_units: total,
                    read_capacity_units: all.read_capacity_units,
                    write_capacity_units: all.write_capacity_units,
                    table: Some(capacity(consumed.table)),
                    global_secondary_indexes: detail(&consumed.global),
                    local_secondary_indexes: detail(&consumed.local),
                })
            }
        }
    }
}
