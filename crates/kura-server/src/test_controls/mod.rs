//! Test controls: what no real DynamoDB offers and tests need. Named snapshots of the
//! whole state, restore and reset (in memory, in milliseconds), a manual clock, and fault
//! injection; served under `/kura/admin/` when `kura serve --test-controls` (or
//! `kura dev`, or the test kit) turns them on.
//!
//! A snapshot is an O(1) freeze of the in-memory store; restore and reset open a new
//! engine over a thawed (or empty) store and swap it into the [`EngineSlot`] every request
//! reads, so no request ever sees half of one state and half of another. A durable data
//! directory has no such freeze: there they are refused rather than emulated slowly.

pub mod faults;
pub(crate) mod http;
pub mod seed;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use kura_engine::clock::ManualClock;
use kura_engine::{Engine, EngineOptions, StateSnapshot};
use parking_lot::Mutex;

use kura_api::EngineSlot;

/// A snapshot as listed.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SnapshotInfo {
    pub name: String,
    pub items: usize,
    /// When it was taken, by the engine's clock.
    pub taken_ms: i64,
}

/// Snapshots kept at once: each keeps the state of its moment alive.
pub const MAX_SNAPSHOTS: usize = 64;

/// Snapshots, reset, the manual clock and fault injection of one server.
pub struct TestControls {
    slot: Arc<EngineSlot>,
    /// The options a restored or reset in-memory engine opens with (None: a durable
    /// engine, which snapshots never stand in for).
    memory: Option<EngineOptions>,
    /// Serialises restores and resets, so the last one asked is the one served.
    swapping: Mutex<()>,
    snapshots: Mutex<BTreeMap<String, (StateSnapshot, SnapshotInfo)>>,
    clock: Option<Arc<ManualClock>>,
    pub faults: faults::Faults,
}

/// What a snapshot, restore or reset did, and how long it took.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Timed {
    pub name: Option<String>,
    pub items: usize,
    pub millis: f64,
}

impl TestControls {
    /// Controls over a new in-memory engine opened with `options`; a manual clock when
    /// `manual_clock` gives one (it must also be `options.clock`).
    pub fn in_memory(
        options: EngineOptions,
        manual_clock: Option<Arc<ManualClock>>,
    ) -> Result<Arc<TestControls>, kura_engine::EngineError> {
        let engine = Engine::in_memory_from(None, options.clone())?;
        Ok(Arc::new(TestControls {
            slot: EngineSlot::new(engine),
            memory: Some(options),
            swapping: Mutex::new(()),
            snapshots: Mutex::new(BTreeMap::new()),
            clock: manual_clock,
            faults: faults::Faults::default(),
        }))
    }

    /// Controls over an engine opened elsewhere (a durable one): the clock and faults
    /// work; snapshots, restore and reset are refused.
    pub fn over(engine: Arc<Engine>, manual_clock: Option<Arc<ManualClock>>) -> Arc<TestControls> {
        Arc::new(TestControls {
            slot: EngineSlot::new(engine),
            memory: None,
            swapping: Mutex::new(()),
            snapshots: Mutex::new(BTreeMap::new()),
            clock: manual_clock,
            faults: faults::Faults::default(),
        })
    }

    /// The engine serving requests now.
    pub fn engine(&self) -> Arc<Engine> {
        self.slot.current()
    }

    pub(crate) fn slot(&self) -> Arc<EngineSlot> {
        self.slot.clone()
    }

    const DURABLE: &'static str = "snapshots, restore and reset need an in-memory server (kura serve --in-memory --test-controls): a durable data directory is never wiped by a test control";

    /// Whether snapshots, restore and reset work here (an in-memory engine).
    pub fn can_snapshot(&self) -> bool {
        self.memory.is_some()
    }

    /// Freezes the whole state under `name` (replacing an older snapshot of that name).
    pub fn snapshot(&self, name: &str) -> Result<Timed, String> {
        check_name(name)?;
        let started = Instant::now();
        if self.memory.is_none() {
            return Err(Self::DURABLE.to_owned());
        }
        {
            let snapshots = self.snapshots.lock();
            if snapshots.len() >= MAX_SNAPSHOTS && !snapshots.contains_key(name) {
                return Err(format!(
                    "at most {MAX_SNAPSHOTS} snapshots at once: drop one first"
                ));
            }
        }
        let frozen = self.engine().snapshot_state().ok_or(Self::DURABLE)?;
        let millis = elapsed_ms(started);
        let items = frozen.items();
        let info = SnapshotInfo {
            name: name.to_owned(),
            items,
            taken_ms: self.engine().now_ms(),
        };
        self.snapshots
            .lock()
            .insert(name.to_owned(), (frozen, info));
        tracing::info!(name, items, millis, "snapshot taken");
        Ok(Timed {
            name: Some(name.to_owned()),
            items,
            millis,
        })
    }

    /// Replaces the whole state with the snapshot `name` (which stays, to restore again).
    pub fn restore(&self, name: &str) -> Result<Timed, String> {
        let started = Instant::now();
        let (frozen, info) = self
            .snapshots
            .lock()
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no snapshot is named {name}"))?;
        self.swap(Some(&frozen))?;
        let millis = elapsed_ms(started);
        tracing::info!(name, items = info.items, millis, "snapshot restored");
        Ok(Timed {
            name: Some(name.to_owned()),
            items: info.items,
            millis,
        })
    }

    /// Empties the server: no tables, no backups, nothing (snapshots stay).
    pub fn reset(&self) -> Result<Timed, String> {
        let started = Instant::now();
        self.swap(None)?;
        let millis = elapsed_ms(started);
        tracing::info!(millis, "server reset");
        Ok(Timed {
            name: None,
            items: 0,
            millis,
        })
    }

    /// Forgets a snapshot; false when there was none of that name.
    pub fn drop_snapshot(&self, name: &str) -> bool {
        self.snapshots.lock().remove(name).is_some()
    }

    pub fn snapshots(&self) -> Vec<SnapshotInfo> {
        self.snapshots
            .lock()
            .values()
            .map(|(_, info)| info.clone())
            .collect()
    }

    /// Opens a new engine over `from` (thawed) or an empty store, and serves it from now
    /// on; the old engine stops in the background once its requests are done.
    fn swap(&self, from: Option<&StateSnapshot>) -> Result<(), String> {
        let options = self.memory.as_ref().ok_or(Self::DURABLE)?;
        let _one_at_a_time = self.swapping.lock();
        let engine = Engine::in_memory_from(from, options.clone()).map_err(|e| e.to_string())?;
        let old = self.slot.replace(engine);
        // The old engine stops once the requests that took it are done (each holds it),
        // or after 10 seconds; joining its threads blocks, so not on the caller's thread.
        std::thread::Builder::new()
            .name("kura-retire".into())
            .spawn(move || {
                let deadline = Instant::now() + std::time::Duration::from_secs(10);
                while Arc::strong_count(&old) > 1 && Instant::now() < deadline {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                old.shutdown();
            })
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// The manual clock, when the server runs on one.
    pub fn manual_clock(&self) -> Option<&Arc<ManualClock>> {
        self.clock.as_ref()
    }

    /// Moves the manual clock forward by `millis`, then runs a sweep so that what expired
    /// by the new time (TTL, stream records) is gone on return. Blocks: call it off the
    /// async runtime's threads. The new time.
    pub fn advance(&self, millis: i64) -> Result<i64, String> {
        let clock = self
            .clock
            .as_ref()
            .ok_or("the clock is the system's: start the server with --clock manual")?;
        if millis < 0 {
            return Err("the clock only moves forward".into());
        }
        let now = clock
            .try_advance_ms(millis)
            .ok_or("the clock cannot move past the end of year 9999")?;
        let engine = self.engine();
        if !engine.internals().sweep_now() {
            tracing::warn!("the sweep after a clock move did not finish in 30 s");
        }
        Ok(now)
    }
}

fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 255
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err("a snapshot name is 1 to 255 of A-Z, a-z, 0-9, '-', '_' and '.'".into())
    }
}

fn elapsed_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

/// The pipeline's hook: a client's request that a rule matches waits the rule's latency,
/// then gets its error.
impl kura_api::Interceptor for TestControls {
    fn armed(&self) -> bool {
        self.faults.armed()
    }

    fn intercept(
        &self,
        operation: &str,
        named: &kura_api::Named<'_>,
    ) -> Option<kura_api::Interception> {
        let injection = self.faults.decide(&faults::Request { operation, named })?;
        Some(kura_api::Interception {
            latency: injection.latency,
            error: injection.error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_are_bounded_and_a_name_can_be_taken_again() {
        let controls =
            TestControls::in_memory(EngineOptions::default(), None).expect("in-memory engine");
        for i in 0..MAX_SNAPSHOTS {
            controls
                .snapshot(&format!("s{i}"))
                .expect("within the bound");
        }
        let refused = controls.snapshot("one-more").expect_err("past the bound");
        assert!(refused.contains("at most 64"), "{refused}");
        controls
            .snapshot("s0")
            .expect("replacing one is no new one");
        assert!(controls.drop_snapshot("s1"));
        controls.snapshot("one-more").expect("room again");
    }
}
