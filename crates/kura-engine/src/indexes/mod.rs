//! Secondary indexes: their definitions (CreateTable, UpdateTable, DescribeTable), their
//! entries (kept in the item write's batch), and the background filling of a GSI added
//! to a table that already has items.

pub(crate) mod backfill;
pub(crate) mod definition;
pub(crate) mod entries;
pub(crate) mod new_gsi;
