//! Whole-state snapshots of an in-memory engine: what the test controls' snapshot,
//! restore and reset are made of. A snapshot is an O(1) freeze of the store at its last
//! commit; restoring opens a new engine over a thawed copy, which the caller swaps in whole.

use std::sync::Arc;

use crate::error::Result;
use crate::{Engine, EngineOptions};
use kura_store::{Frozen, MemoryStore};

/// An in-memory engine's whole state at one commit.
#[derive(Clone)]
pub struct StateSnapshot(Frozen);

impl StateSnapshot {
    /// The items it holds, over every table.
    pub fn items(&self) -> usize {
        self.0.items()
    }
}

impl Engine {
    /// The whole state now, if this engine's store can freeze one (in memory); None for
    /// a durable engine, whose data directory no snapshot may stand in for.
    pub fn snapshot_state(&self) -> Option<StateSnapshot> {
        self.store.freeze().map(StateSnapshot)
    }

    /// A new in-memory engine opened with `options` over a copy of `state` (which stays as
    /// it is, to restore again), or over an empty store.
    pub fn in_memory_from(
        state: Option<&StateSnapshot>,
        options: EngineOptions,
    ) -> Result<Arc<Engine>> {
        let store = match state {
            Some(state) => MemoryStore::thaw(&state.0),
            None => MemoryStore::new(),
        };
        Engine::with_options(Arc::new(store), options)
    }
}
