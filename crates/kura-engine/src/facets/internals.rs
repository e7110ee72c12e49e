//! Counts and passes for tests, benchmarks and diagnostics: [`Engine::internals`].

use std::collections::BTreeMap;

use crate::backups;
use crate::engine::Engine;
use crate::error::Result;
use kura_store::{Direction, KeyRange, Space};

/// What tests, benchmarks and diagnostics count or run now; nothing here serves a
/// request.
pub struct Internals<'a> {
    pub(super) engine: &'a Engine,
}

impl Internals<'_> {
    /// Runs a sweep (TTL deletions, stream trimming, shard rollover) that starts now and
    /// waits for it, at most 30 seconds: what a manual clock's move expired is gone on
    /// return. It blocks: call it off the async runtime's threads.
    pub fn sweep_now(&self) -> bool {
        self.engine
            .sweeper
            .sweep_now(std::time::Duration::from_secs(30))
    }

    /// Items in storage across all tables, deleted-but-unpurged ones included (for tests
    /// and diagnostics; it scans everything).
    pub fn item_count(&self) -> usize {
        self.engine.store.snapshot().map_or(0, |s| {
            s.range(Space::Items, KeyRange::prefix(b""), Direction::Forward)
                .count()
        })
    }

    /// Keys of the `Meta` space under `prefix` (for tests and diagnostics).
    pub fn meta_count(&self, prefix: &[u8]) -> usize {
        self.engine.store.snapshot().map_or(0, |s| {
            s.range(Space::Meta, KeyRange::prefix(prefix), Direction::Forward)
                .count()
        })
    }

    /// Runs one retention pass now (the sweeper runs one every minute): prunes history
    /// nobody can restore to, releases deleted tables nothing holds (for tests). It waits
    /// on the writer: call it off the async runtime's threads (`block_in_place`).
    pub fn run_retention(&self) -> Result<()> {
        backups::retention::Retention {
            store: self.engine.store.as_ref(),
            writer: &self.engine.writer,
            catalog: &self.engine.catalog,
            purger: &self.engine.purger,
            clock: self.engine.clock.as_ref(),
            // A pass of its own: prunes every table, however little its horizon moved.
            pruned: &parking_lot::Mutex::new(BTreeMap::new()),
        }
        .run()
    }

    /// Keys of the `History` space (for tests and diagnostics).
    pub fn history_count(&self) -> usize {
        self.history_size().0
    }

    /// Entries of the `History` space and their bytes, keys and values (for the
    /// benchmark and diagnostics; it scans the space).
    pub fn history_size(&self) -> (usize, usize) {
        self.engine.store.snapshot().map_or((0, 0), |s| {
            s.range(Space::History, KeyRange::prefix(b""), Direction::Forward)
                .filter_map(std::result::Result::ok)
                .fold((0, 0), |(n, b), (k, v)| (n + 1, b + k.len() + v.len()))
        })
    }
}
