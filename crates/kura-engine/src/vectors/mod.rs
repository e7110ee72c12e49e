//! Vector indexes (DynamoDB, 2026) and SearchVectors.
//!
//! - `definition`: CreateTable/UpdateTable checks and the DescribeTable form (the record
//!   itself is `catalog::vector`'s);
//! - `live`: the registry of indexes in memory, an item's entry, the background fill;
//! - `index`: one index's vectors and the exact top-k search; `ann`: its HNSW graph;
//! - `follow`: the write path's hook; `upkeep`: fills at open and after UpdateTable;
//! - `search`: the SearchVectors operation.
//!
//! The table's items are the durable truth; an index lives in memory (`live::Vectors`). Every
//! committed write updates it before the write is acknowledged (the writer's after-commit
//! step, see `follow::follow_write`), so a search never shows a deleted or stale vector once the
//! write that changed it has answered. An index is filled from the items in the background:
//! when the engine opens (searches wait for it: the index was ACTIVE before the restart and
//! stays so) and when UpdateTable adds one (CREATING with Backfilling until done; searches
//! are refused, as in DynamoDB). Writes during a fill win over the fill (`touched`).

mod ann;
pub(crate) mod definition;
pub(crate) mod follow;
pub(crate) mod index;
pub(crate) mod live;
mod search;
pub(crate) mod upkeep;

pub use self::live::{DEFAULT_EXACT_BELOW, DEFAULT_SEARCH_EXPANSION, Vectors};
