//! Capacity units: what a request consumed on a table and its indexes, how DynamoDB
//! reports it (`ConsumedCapacity`), and how item sizes become units. Below the API and the
//! counters alike, so the throttle and the metrics can add up what the operations charge.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::catalog::IndexKind;

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
    /// `VectorWriteRequestBytes` of each vector index a write changed (INDEXES only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_indexes: Option<BTreeMap<String, VectorCapacity>>,
}

/// `VectorCapacity`: what a vector search or the index upkeep of a write cost, in bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct VectorCapacity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_search_request_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_write_request_bytes: Option<f64>,
}

/// Capacity one request consumed on one table, split the way INDEXES reports it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Consumed {
    pub table: f64,
    pub global: BTreeMap<String, f64>,
    pub local: BTreeMap<String, f64>,
    /// Vector write request bytes by vector index (metered apart from capacity units).
    pub vector: BTreeMap<String, f64>,
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
        for (name, bytes) in &other.vector {
            *self.vector.entry(name.clone()).or_default() += bytes;
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
                vector_indexes: None,
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
                    vector_indexes: (!consumed.vector.is_empty()).then(|| {
                        consumed
                            .vector
                            .iter()
                            .map(|(name, bytes)| {
                                let written = VectorCapacity {
                                    vector_search_request_bytes: None,
                                    vector_write_request_bytes: Some(*bytes),
                                };
                                (name.clone(), written)
                            })
                            .collect()
                    }),
                })
            }
        }
    }
}
