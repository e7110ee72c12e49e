//! The engine a server's requests are served by, read once per request and replaceable
//! as a whole (the test controls' restore and reset), so no request sees half of one state
//! and half of another.

use std::sync::Arc;

use kura_engine::Engine;
use parking_lot::RwLock;

/// The engine requests are served by, replaceable as a whole (restore, reset).
pub struct EngineSlot {
    current: RwLock<Arc<Engine>>,
}

impl EngineSlot {
    pub fn new(engine: Arc<Engine>) -> Arc<EngineSlot> {
        Arc::new(EngineSlot {
            current: RwLock::new(engine),
        })
    }

    /// The engine now.
    pub fn current(&self) -> Arc<Engine> {
        self.current.read().clone()
    }

    /// Puts `engine` in the slot (the test controls' restore and reset) and hands back the one
    /// it replaces.
    pub fn replace(&self, engine: Arc<Engine>) -> Arc<Engine> {
        std::mem::replace(&mut *self.current.write(), engine)
    }
}
