//! Whether a table record is the one the catalog publishes now, kept on the record itself
//! so the writer's last-moment check ("is this still the table?") costs one atomic load
//! instead of a catalog read (issue 51: the catalog read once per table and request).

use std::sync::atomic::{AtomicU8, Ordering};

const UNPUBLISHED: u8 = 0;
const LIVE: u8 = 1;
const SUPERSEDED: u8 = 2;

/// A record's place in the catalog: never published (a copy being edited, a record read
/// from disk), live, or superseded (replaced or removed since). Not stored; a copy starts
/// unpublished, and two records compare equal whatever their places.
#[derive(Debug, Default)]
pub struct Publication(AtomicU8);

impl Publication {
    /// Set by the catalog when it publishes the record; the catalog's lock orders it.
    pub(super) fn go_live(&self) {
        self.0.store(LIVE, Ordering::Release);
    }

    /// Set by the catalog when it replaces or removes the record.
    pub(super) fn supersede(&self) {
        self.0.store(SUPERSEDED, Ordering::Release);
    }

    /// Whether the record is the catalog's current one. Writes read it inside their write
    /// job, where the catalog cannot change (catalog changes are exclusive jobs, published
    /// before the next group runs).
    pub fn is_live(&self) -> bool {
        self.0.load(Ordering::Acquire) == LIVE
    }
}

impl Clone for Publication {
    fn clone(&self) -> Self {
        Publication(AtomicU8::new(UNPUBLISHED))
    }
}

impl PartialEq for Publication {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
