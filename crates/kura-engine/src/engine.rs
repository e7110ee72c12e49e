//! The engine: its options, its health, and how it is opened and closed. Its operations are
//! `impl Engine` blocks in the modules of each family (items, tables, backups, ...).

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::clock::{Clock, SystemClock};
use crate::purge::Purger;
use crate::streams::iterator::IteratorKey;
use crate::sweeper::Sweeper;
use crate::transactions::tokens::InFlight;
use crate::workers::{Backfiller, Exporter, Importer, Restorer};
use crate::writer::{WriteLimits, Writer};
use crate::{counters, objects, throttle, vectors};
use kura_store::Store;

/// The engine's health, for readiness checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    Ready,
    /// A sync failed; writes are refused until restart.
    Poisoned,
}

/// How an engine runs. The defaults are DynamoDB's limits and the system clock.
#[derive(Clone)]
pub struct EngineOptions {
    pub limits: WriteLimits,
    pub clock: Arc<dyn Clock>,
    /// How often expired items are deleted and old stream records trimmed.
    pub sweep_interval: std::time::Duration,
    /// Memory bounds of the durable store (unused in memory).
    pub store: kura_store::StoreOptions,
    /// Where exports go and imports come from. None: `buckets/` in the data directory
    /// for a durable engine, memory for an in-memory one.
    pub objects: Option<Arc<dyn objects::Objects>>,
    /// Capacity emulation: throttle requests past their table's capacity (off: None).
    pub throttle: Option<throttle::ThrottleOptions>,
    /// Vector searches over at most this many candidates are exact; larger ones walk an
    /// approximate graph (`usize::MAX`: exact everywhere).
    pub vector_exact_below: usize,
    /// Candidates a graph search keeps per level: more finds more true neighbours.
    pub vector_search_expansion: usize,
    /// Called when writes stop and the store has freed its write buffers (at most once
    /// per quiet spell): the binary gives its allocator's freed memory back (ADR 0036).
    pub on_idle: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            limits: WriteLimits::default(),
            clock: Arc::new(SystemClock),
            sweep_interval: std::time::Duration::from_secs(1),
            store: kura_store::StoreOptions::default(),
            objects: None,
            throttle: None,
            vector_exact_below: vectors::DEFAULT_EXACT_BELOW,
            vector_search_expansion: vectors::DEFAULT_SEARCH_EXPANSION,
            on_idle: None,
        }
    }
}

/// The database.
pub struct Engine {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) writer: Arc<Writer>,
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) purger: Arc<Purger>,
    pub(crate) backfiller: Arc<Backfiller>,
    pub(crate) sweeper: Arc<Sweeper>,
    pub(crate) restorer: Arc<Restorer>,
    pub(crate) exporter: Arc<Exporter>,
    pub(crate) importer: Arc<Importer>,
    pub(crate) tokens: InFlight,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) counters: Arc<counters::Counters>,
    pub(crate) throttle: Option<Arc<throttle::Throttle>>,
    pub(crate) vectors: Arc<vectors::Vectors>,
    /// The write limits in force (the advisor compares item collections with them).
    pub(crate) limits: WriteLimits,
    /// Signs shard iterators (streams/iterator.rs).
    pub(crate) iterator_key: IteratorKey,
}
