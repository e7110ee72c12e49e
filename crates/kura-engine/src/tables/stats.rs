//! Statistics of a table and of its indexes, as DescribeTable reports them.

use std::collections::BTreeMap;

use crate::keys::TableStats;

/// Statistics of a table and of each of its indexes (by index number).
#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub(crate) table: TableStats,
    pub(crate) indexes: BTreeMap<u32, TableStats>,
    /// Vector indexes' live figures, by name.
    pub(crate) vectors: BTreeMap<String, crate::vectors::live::VectorStats>,
}
