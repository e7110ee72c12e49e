//! The guideline's naming rules: table names, attribute and index names.

use kura_model::Item;

use kura_engine::design::IndexKind;

use crate::check::{Check, attribute_names, listed};

impl Check<'_> {
    pub(super) fn naming(&mut self, sample: &[Item]) {
        let table = self.table;
        if !table_name_follows(&table.name, self.environments) {
            self.found(
                "naming.table-name-pattern",
                None,
                format!(
                    "{:?} is not {{env}}-{{product}}-{{usage}} (env {}; lower-case words joined by '-')",
                    table.name,
                    self.environments.join(", ")
                ),
            );
        }
        let names = attribute_names(table, sample);
        let not_snake: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| !is_snake_case(n))
            .collect();
        if !not_snake.is_empty() {
            self.found(
                "naming.attribute-snake-case",
                None,
                format!("not snake_case: {}", listed(&not_snake)),
            );
        }
        let reserved: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| *n != "ttl" && kura_engine::expr::reserved::is_reserved(n))
            .collect();
        if !reserved.is_empty() {
            self.found(
                "naming.attribute-reserved-word",
                None,
                format!("reserved words: {}", listed(&reserved)),
            );
        }
        let generic: Vec<&str> = std::iter::once(&table.key_schema.hash)
            .chain(table.key_schema.range.as_ref())
            .map(|a| a.name.as_str())
            .filter(|n| GENERIC_KEY_NAMES.contains(&n.to_ascii_lowercase().as_str()))
            .collect();
        if !generic.is_empty() {
            self.found(
                "naming.key-attribute-descriptive",
                None,
                format!(
                    "key attributes say nothing of what they identify: {}",
                    listed(&generic)
                ),
            );
        }
        for index in &table.indexes {
            if index.kind == IndexKind::Global && !is_sequential_gsi_name(&index.name) {
                self.found(
                    "naming.gsi-sequential-name",
                    Some(&index.name),
                    format!("GSI {:?} is not named gsi1, gsi2, ...", index.name),
                );
            }
        }
    }
}

const GENERIC_KEY_NAMES: &[&str] = &[
    "pk",
    "sk",
    "hk",
    "rk",
    "id",
    "key",
    "hash",
    "range",
    "hash_key",
    "range_key",
    "partition_key",
    "sort_key",
];

/// `{env}-{product}-{usage}`: `dev`, `stg` or `prod`, then at least two lower-case words.
pub(super) fn table_name_follows(name: &str, environments: &[String]) -> bool {
    let words: Vec<&str> = name.split('-').collect();
    words.len() >= 3
        && environments.iter().any(|e| e == words[0])
        && words[1..].iter().all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// The environments of the table names that follow the pattern.
pub(super) fn environments<'a>(
    names: impl Iterator<Item = &'a str>,
    known: &[String],
) -> std::collections::BTreeSet<&'a str> {
    names
        .filter(|name| table_name_follows(name, known))
        .filter_map(|name| name.split('-').next())
        .collect()
}

/// `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`.
pub(super) fn is_snake_case(name: &str) -> bool {
    name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && name.split('_').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// `^gsi[1-9][0-9]*$`.
pub(super) fn is_sequential_gsi_name(name: &str) -> bool {
    name.strip_prefix("gsi").is_some_and(|n| {
        n.bytes().next().is_some_and(|b| (b'1'..=b'9').contains(&b))
            && n.bytes().all(|b| b.is_ascii_digit())
    })
}
