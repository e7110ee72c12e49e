//! Which keys were touched lately, in fixed memory: a table of 1,024 slots indexed by a hash
//! of the item's storage key, each holding the time of its last event, a small tag and 13
//! more bits of the key's hash. Two keys that share a slot tell each other apart unless
//! those bits agree too (one in 8,192), so the advisor's counts built on it are
//! approximate, and say so (docs/advisor.md).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

const SLOTS: usize = 1024;

/// Allocated on first use (8 KB), so a table nobody reads this way costs nothing.
#[derive(Default)]
pub struct RecentKeys {
    slots: OnceLock<Box<[AtomicU64]>>,
}

/// Where a storage key lives in the table, and the bits that tell it from the other keys
/// of its slot (computed once, before the key moves on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    index: usize,
    check: u64,
}

/// Bits of a slot's value: the mark flag (63), the key check (50..63), the time in
/// milliseconds (8..50, enough until the year 2109) and the tag (0..8).
const CHECK_BITS: u32 = 13;
const TIME_MASK: u64 = (1 << 42) - 1;

impl Slot {
    /// FNV-1a: cheap and good enough to spread storage keys over the slots.
    pub fn of(key: &[u8]) -> Slot {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for b in key {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        Slot {
            index: (hash % SLOTS as u64) as usize,
            check: (hash >> 40) & ((1 << CHECK_BITS) - 1),
        }
    }
}

impl RecentKeys {
    fn slots(&self) -> &[AtomicU64] {
        self.slots
            .get_or_init(|| (0..SLOTS).map(|_| AtomicU64::new(0)).collect())
    }

    /// Marks `key` at `now_ms` with `tag` (0 to 255).
    pub fn mark(&self, slot: Slot, now_ms: i64, tag: u8) {
        let time = (now_ms.max(0) as u64) & TIME_MASK;
        let value = 1 << 63 | slot.check << 50 | time << 8 | u64::from(tag);
        self.slots()[slot.index].store(value, Ordering::Relaxed);
    }

    /// The tag of `key`'s mark if it was made within `window_ms` before `now_ms`; the mark is
    /// taken, so one mark answers once. Another key's mark in the same slot doesn't answer.
    pub fn take_within(&self, slot: Slot, now_ms: i64, window_ms: i64) -> Option<u8> {
        let slots = self.slots.get()?;
        let cell = &slots[slot.index];
        let value = cell.load(Ordering::Relaxed);
        if value == 0 || (value >> 50) & ((1 << CHECK_BITS) - 1) != slot.check {
            return None;
        }
        let at = ((value >> 8) & TIME_MASK) as i64;
        let now = ((now_ms.max(0) as u64) & TIME_MASK) as i64;
        if now.saturating_sub(at) > window_ms {
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

    #[test]
    fn another_key_in_the_same_slot_does_not_answer() {
        let recent = RecentKeys::default();
        let k = Slot::of(b"k");
        // A key of the same slot with other check bits.
        let other = Slot {
            index: k.index,
            check: k.check ^ 1,
        };
        recent.mark(other, 1_000, 0);
        assert_eq!(recent.take_within(k, 1_001, 10), None);
        assert_eq!(recent.take_within(other, 1_001, 10), Some(0));
    }
}
