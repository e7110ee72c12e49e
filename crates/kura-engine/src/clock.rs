//! Time, in the units DynamoDB reports, behind a trait so tests can move it: stream
//! iterators expire, stream records are trimmed and items expire by this clock.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, from the system clock.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A source of the current time.
pub trait Clock: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
}

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        now_ms()
    }
}

/// A clock that moves only when told to (for tests of expiry and trimming).
#[derive(Debug)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn new(start_ms: i64) -> Self {
        ManualClock(AtomicI64::new(start_ms))
    }

    pub fn advance_ms(&self, by: i64) {
        self.0.fetch_add(by, Ordering::SeqCst);
    }

    /// Moves forward by `by` milliseconds unless that would pass the end of year 9999
    /// (the latest time DynamoDB's timestamps hold); the new time, or None.
    pub fn try_advance_ms(&self, by: i64) -> Option<i64> {
        const LATEST_MS: i64 = 253_402_300_799_999;
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
                now.checked_add(by).filter(|t| *t <= LATEST_MS && by >= 0)
            })
            .ok()
            .map(|before| before + by)
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}
