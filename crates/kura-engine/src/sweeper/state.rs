//! The sweeper's state, apart from its passes, so the engine can hold it without reaching
//! what a pass does.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread::JoinHandle;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};

use crate::catalog::Catalog;
use crate::clock::Clock;
use crate::purge::Purger;
use crate::writer::Writer;
use kura_store::Store;

pub(crate) struct Shared {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) writer: Arc<Writer>,
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) purger: Arc<Purger>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) counters: Arc<crate::counters::Counters>,
    pub(crate) stop: AtomicBool,
    pub(crate) last_retention: Mutex<Option<Instant>>,
    pub(crate) pruned: Mutex<std::collections::BTreeMap<u64, u64>>,
    pub(crate) wake: Mutex<bool>,
    pub(crate) signal: Condvar,
    /// Passes started and finished, so a caller can wait for a pass that began after it
    /// moved the clock (`Sweeper::sweep_now`).
    pub(crate) passes: Mutex<Passes>,
    pub(crate) finished: Condvar,
}

#[derive(Default, Clone, Copy)]
pub(crate) struct Passes {
    pub(crate) started: u64,
    pub(crate) finished: u64,
}

pub struct Sweeper {
    pub(crate) shared: Arc<Shared>,
    pub(crate) thread: Mutex<Option<JoinHandle<()>>>,
}
