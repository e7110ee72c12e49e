//! The engine's writer: the group commit ([`crate::group_commit`]) with what every write
//! job of the engine sees besides the store — the limits the write path enforces and the
//! vector indexes a committed item change updates. The group commit itself knows none of
//! them.

use std::sync::Arc;

use crate::group_commit::{GroupCommit, JobContext};
use crate::vectors::live::Vectors;

/// The engine's writer (see [`crate::group_commit`]).
pub type Writer = GroupCommit<WriteEnv>;

/// What an engine write job sees and does (see [`JobContext`]).
pub type WriteContext<'a> = JobContext<'a, WriteEnv>;

/// Limits the write path enforces that a deployment may lower (tests do, to reach them).
#[derive(Debug, Clone, Copy)]
pub struct WriteLimits {
    /// Bytes of one item collection (a partition key's items and LSI entries) on a table
    /// with local secondary indexes.
    pub max_item_collection_bytes: u64,
    /// How streams are sharded: open shards, splits and rollover.
    pub shards: crate::streams::meta::ShardShape,
    /// Tables at most (CreateTable, restores and ImportTable refuse past it): DynamoDB's
    /// account quota, 2,500 by default (a soft quota, raised on request; `--max-tables`).
    pub max_tables: usize,
}

impl Default for WriteLimits {
    fn default() -> Self {
        WriteLimits {
            max_item_collection_bytes: kura_model::limits::MAX_ITEM_COLLECTION_BYTES,
            shards: crate::streams::meta::ShardShape::default(),
            max_tables: kura_model::limits::DEFAULT_MAX_TABLES,
        }
    }
}

/// What every engine write job sees besides the store.
pub struct WriteEnv {
    pub limits: WriteLimits,
    /// The engine's vector indexes, which a write's after-commit step updates.
    pub vectors: Arc<Vectors>,
}

impl WriteContext<'_> {
    pub fn limits(&self) -> WriteLimits {
        self.env().limits
    }

    /// The engine's vector indexes, which a write's after-commit step updates.
    pub fn vectors(&self) -> &Arc<Vectors> {
        &self.env().vectors
    }
}
