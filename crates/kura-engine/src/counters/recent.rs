//! Which keys were touched lately, in fixed memory: a table of 1,024 slots indexed by a hash
//! of the item's storage key, each holding the time of its last event (and a small tag).
//! Two keys may share a slot, so a lookup can see the other key's event: the advisor's
//! counts built on it are approximate, and say so (docs/advisor.md).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

const SLOTS: usize = 1024;

/// Allocated on first use (8 KB), so a table nobody reads this way costs nothing.
#[derive(Default)]
pub struct RecentKeys {
    slots: OnceLock<Box<[AtomicU64]>>,
}

/// Where a storage key lives in the table (computed once, before the key moves on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot(usize);

impl Slot {
    /// FNV-1a: cheap and good enough to spread storage keys over the slots.
    pub fn of(key: &[u8]) -> Slot {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for b in key {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        Slot((hash % SLOTS as u64) as usize)
    }
}

impl RecentKeys {
    fn slots(&self) -> &[AtomicU64] {
        self.slots
            .get_or_init(|| (0..SLOTS).map(|_| AtomicU64::new(0)).collect())
    }

    /// Marks `key` at `now_ms` with `tag` (0 to 255).
    pub fn mark(&self, slot: Slot, now_ms: i64, tag: u8) {
        let value = ((now_ms.max(0) as u64) << 8) | u64::from(tag) | 1 << 63;
        self.slots()[slot.0].store(value, Ordering::Relaxed);
    }

    /// The tag of `key`'s mark if it was made within `window_ms` before `now_ms`; the mark is
    /// taken, so one mark answers once.
    pub fn take_within(&self, slot: Slot, now_ms: i64, window_ms: i64) -> Option<u8> {
        let slots = self.slots.get()?;
        let cell = &slots[slot.0];
        let value = cell.load(Ordering::Relaxed);
        if value == 0 {
            return None;
        }
        let at = ((value & !(1 << 63)) >> 8) as i64;
        if now_ms.saturating_sub(at) > window_ms {
            return None;
        }
        cell.compare_exchange(value, 0, Ordering::Relaxed, Ordering::Relaxed)
            .ok()
            .map(|_| (value & 0xff) as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_answers_once_within_its_window() {
        let recent = RecentKeys::default();
        let k = Slot::of(b"k");
        assert_eq!(recent.take_within(k, 0, 10), None);
        recent.mark(k, 1_000, 7);
        assert_eq!(recent.take_within(k, 1_020, 10), None);
        recent.mark(k, 1_000, 7);
        assert_eq!(recent.take_within(k, 1_005, 10), Some(7));
        assert_eq!(recent.take_within(k, 1_005, 10), None);
    }
}
