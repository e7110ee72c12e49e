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
pub mod global_tables;
pub mod insights;
pub mod items;
pub mod kinesis;
pub mod partiql;
pub mod projection;
pub mod query_scan;
mod search_vector;
pub mod streams;
pub mod tables;
pub mod transactions;
pub mod vectors;

pub use backups::*;
pub use batch::*;
pub use exports::*;
pub use global_tables::*;
pub use insights::*;
pub use items::*;
pub use partiql::*;
pub use projection::*;
pub use query_scan::*;
pub use streams::*;
pub use tables::*;
pub use transactions::*;
pub use vectors::*;

use std::collections::BTreeMap;

use serde::Deserialize;

pub use crate::capacity::*;

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
