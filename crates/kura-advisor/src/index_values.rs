//! The checks on a table's indexes and identifiers (docs/advisor.md): key schemas that
//! repeat another's and ALL projections, how many GSIs a table keeps (`index.gsi-count`),
//! stand-in values written into GSI keys instead of leaving the attribute out
//! (`index.gsi-sentinel-key`), and UUIDs stored as Binary or Number
//! (`types.uuid-as-string`).

use std::collections::BTreeMap;

use kura_engine::design::{IndexKind, IndexProjection};
use kura_model::{AttributeValue, Item};

use super::Check;

/// More GSIs than this on one table is more than a design needs (Kura's threshold: a
/// quarter of DynamoDB's default quota of 20).
pub const MANY_GSIS: usize = 5;

/// Values that stand for "none" in a key attribute.
const STAND_INS: &[&str] = &[
    "null",
    "none",
    "nil",
    "-",
    "n/a",
    "na",
    "undefined",
    "empty",
];

/// Sampled items that must carry an attribute for its values to say anything.
const CARRYING: usize = 100;

/// An attribute named for an identifier: `uuid`, `id`, `*_uuid`, `*_id`.
fn identifier_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "id" || lower == "uuid" || lower.ends_with("_id") || lower.ends_with("_uuid")
}

impl Check<'_> {
    /// Key schemas that repeat another's, and ALL projections.
    pub(super) fn indexes(&mut self) {
        let table = self.table;
        let table_keys = (
            table.key_schema.hash.name.as_str(),
            table.key_schema.range.as_ref().map(|a| a.name.as_str()),
        );
        let mut seen: Vec<((&str, Option<&str>), &str)> = Vec::new();
        for index in &table.indexes {
            let keys = (
                index.key_schema.hash.name.as_str(),
                index.key_schema.range.as_ref().map(|a| a.name.as_str()),
            );
            // An LSI with the table's own sort key gives no other order (l. 317).
            let alike = if keys == table_keys {
                Some("the table".to_owned())
            } else {
                seen.iter()
                    .find(|(k, _)| *k == keys)
                    .map(|(_, name)| format!("index {name}"))
            };
            if let Some(other) = alike {
                self.found(
                    "index.duplicate-key-schema",
                    Some(&index.name),
                    format!("{} has the same keys as {other}", index.name),
                );
            }
            seen.push((keys, index.name.as_str()));
            if index.projection == IndexProjection::All {
                self.found(
                    "projection.all",
                    Some(&index.name),
                    format!("{} projects ALL attributes", index.name),
                );
            }
        }
        for index in &table.vector_indexes {
            if index.projection == IndexProjection::All {
                self.found(
                    "projection.all",
                    Some(&index.name),
                    format!(
                        "vector index {} projects ALL attributes: every write copies the whole item into it (VectorWriteRequestBytes)",
                        index.name
                    ),
                );
            }
        }
    }

    pub(super) fn index_values(&mut self, sample: &[Item]) {
        let table = self.table;
        let gsis: Vec<_> = table
            .indexes
            .iter()
            .filter(|i| i.kind == IndexKind::Global)
            .collect();
        if gsis.len() > MANY_GSIS {
            let names: Vec<&str> = gsis.iter().map(|i| i.name.as_str()).collect();
            self.found(
                "index.gsi-count",
                None,
                format!(
                    "{} GSIs ({}), more than {MANY_GSIS}",
                    gsis.len(),
                    names.join(", ")
                ),
            );
        }
        for gsi in gsis {
            let key = &gsi.key_schema;
            for attribute in std::iter::once(&key.hash).chain(key.range.as_ref()) {
                let values: Vec<&AttributeValue> = sample
                    .iter()
                    .filter_map(|i| i.get(&attribute.name))
                    .collect();
                if values.len() < CARRYING {
                    continue;
                }
                let stand_ins = values
                    .iter()
                    .filter(|v| match v {
                        AttributeValue::S(s) => {
                            STAND_INS.contains(&s.to_ascii_lowercase().as_str())
                        }
                        _ => false,
                    })
                    .count();
                if stand_ins * 5 >= values.len() {
                    self.found(
                        "index.gsi-sentinel-key",
                        Some(&gsi.name),
                        format!(
                            "{stand_ins} of {} sampled items hold a stand-in for no value (\"NULL\", \"none\", \"-\", ...) in {:?}, a key of {}",
                            values.len(),
                            attribute.name,
                            gsi.name
                        ),
                    );
                }
            }
        }
        // UUIDs as 16 bytes or as a long number.
        let mut binary: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for item in sample {
            for (name, value) in item {
                if !identifier_name(name) {
                    continue;
                }
                let entry = binary.entry(name.as_str()).or_default();
                entry.0 += 1;
                let packed = match value {
                    AttributeValue::B(b) => b.len() == 16,
                    AttributeValue::N(n) => {
                        let text = n.to_string();
                        text.len() >= 30 && text.bytes().all(|b| b.is_ascii_digit())
                    }
                    _ => false,
                };
                if packed {
                    entry.1 += 1;
                }
            }
        }
        let packed: Vec<&str> = binary
            .iter()
            .filter(|(_, (all, packed))| *all >= 20 && packed * 10 >= all * 9)
            .map(|(name, _)| *name)
            .collect();
        if !packed.is_empty() {
            self.found(
                "types.uuid-as-string",
                None,
                format!(
                    "identifiers stored as 16 bytes or a 30-digit number: {}",
                    packed.join(", ")
                ),
            );
        }
    }
}
