//! The always-on count of a table's (and each GSI's) most accessed partition keys: the
//! advisor's `keys.hot-partition` without Contributor Insights switched on.
//!
//! One access in [`SAMPLED`] is counted (chosen by a multiplicative hash of a per-table
//! tick, so a client cycling through a few keys is not aliased onto one of them), in a
//! Space-Saving summary (Metwally et al., 2005) of [`CAPACITY`] counters per target since
//! the counters began. Of N counted accesses, every key with more than N/[`CAPACITY`] is
//! in the summary, and each count is at most N/[`CAPACITY`] above the true one. Memory:
//! [`CAPACITY`] keys per table and GSI, each cut to [`MAX_LABEL_BYTES`]. What it costs on
//! a request is measured in `benches/micro.rs` (`metrics/hot-key count`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use kura_model::AttributeValue;
use parking_lot::Mutex;

/// Counters per summary.
pub const CAPACITY: usize = 16;
/// One access in this many is counted.
pub const SAMPLED: u64 = 8;
/// Longer partition key labels are cut (a 2 KB key held 16 times per target is enough).
const MAX_LABEL_BYTES: usize = 256;

/// Space-Saving over partition key labels.
#[derive(Debug, Default)]
struct Summary {
    counts: HashMap<String, u64>,
    counted: u64,
}

impl Summary {
    fn add(&mut self, label: &str) {
        self.counted += 1;
        if let Some(count) = self.counts.get_mut(label) {
            *count += 1;
            return;
        }
        if self.counts.len() >= CAPACITY {
            // Full: the key takes the place of the smallest counter, inheriting its count.
            let Some((evicted, floor)) = self
                .counts
                .iter()
                .min_by_key(|(_, c)| **c)
                .map(|(k, c)| (k.clone(), *c))
            else {
                return;
            };
            self.counts.remove(&evicted);
            self.counts.insert(label.to_owned(), floor + 1);
            return;
        }
        self.counts.insert(label.to_owned(), 1);
    }
}

/// What the count says of one target: how many accesses were counted, and its top key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotReport {
    /// None for the table, else the GSI's name.
    pub index: Option<String>,
    /// Accesses counted (about one in [`SAMPLED`] of all).
    pub counted: u64,
    /// The most counted partition key, its count and the count's error bound.
    pub top: Option<(String, u64, u64)>,
}

/// A table's summaries, by target.
#[derive(Debug, Default)]
pub struct HotKeys {
    tick: AtomicU64,
    summaries: Mutex<HashMap<Option<String>, Summary>>,
}

impl HotKeys {
    /// One access to the partition `partition` (its key values, one for a table or a
    /// single-attribute GSI key) of the table or of GSI `index`.
    pub fn accessed(&self, index: Option<&str>, partition: &[AttributeValue]) {
        let tick = self.tick.fetch_add(1, Ordering::Relaxed);
        // Fibonacci hashing of the tick: its top bits pick one access in SAMPLED.
        if tick.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61 != 0 {
            return;
        }
        let mut label = String::new();
        for (n, value) in partition.iter().enumerate() {
            if n > 0 {
                label.push_str(" | ");
            }
            label.push_str(&super::labels::key_text(value));
        }
        if label.len() > MAX_LABEL_BYTES {
            let mut cut = MAX_LABEL_BYTES;
            while !label.is_char_boundary(cut) {
                cut -= 1;
            }
            label.truncate(cut);
        }
        let mut summaries = self.summaries.lock();
        match summaries.get_mut(&index.map(str::to_owned)) {
            Some(summary) => summary.add(&label),
            None => summaries
                .entry(index.map(str::to_owned))
                .or_default()
                .add(&label),
        }
    }

    /// Each target's counted accesses and top key, the table's first.
    pub fn report(&self) -> Vec<HotReport> {
        let summaries = self.summaries.lock();
        let mut out: Vec<HotReport> = summaries
            .iter()
            .map(|(index, s)| HotReport {
                index: index.clone(),
                counted: s.counted,
                top: s
                    .counts
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
                    .map(|(k, c)| (k.clone(), *c, s.counted / CAPACITY as u64)),
            })
            .collect();
        out.sort_by(|a, b| a.index.cmp(&b.index));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.into())
    }

    #[test]
    fn a_key_taking_most_accesses_is_the_top_one() {
        let hot = HotKeys::default();
        for i in 0..1300u32 {
            let key = if i % 10 == 0 {
                s(&format!("cold-{i}"))
            } else {
                s("hot")
            };
            hot.accessed(None, std::slice::from_ref(&key));
        }
        let report = hot.report();
        assert_eq!(report.len(), 1);
        let (top, count, error) = report[0].top.clone().expect("a top key");
        assert_eq!(top, "hot");
        // About one in eight counted; the hot key about 90 % of them.
        assert!((100..=230).contains(&report[0].counted), "{report:?}");
        assert!(
            count.saturating_sub(error) * 10 >= report[0].counted * 7,
            "{report:?}"
        );
    }

    /// Two keys alternating are both counted (a tick-modulo sample would see one).
    #[test]
    fn alternating_keys_are_not_aliased_onto_one() {
        let hot = HotKeys::default();
        for i in 0..4000u32 {
            hot.accessed(Some("gsi1"), &[s(if i % 2 == 0 { "a" } else { "b" })]);
        }
        let summaries = hot.summaries.lock();
        let counts = &summaries[&Some("gsi1".to_owned())].counts;
        let (a, b) = (counts["a"], counts["b"]);
        assert!(a * 3 >= b && b * 3 >= a, "a {a}, b {b}");
    }

    /// Many distinct keys: bounded memory, and no key stands out.
    #[test]
    fn many_keys_keep_capacity_counters() {
        let hot = HotKeys::default();
        for i in 0..20_000u32 {
            hot.accessed(
                None,
                &[AttributeValue::N(
                    kura_model::number::Number::parse(&i.to_string()).expect("n"),
                )],
            );
        }
        let report = hot.report();
        let (_, count, error) = report[0].top.clone().expect("top");
        assert!(
            count.saturating_sub(error) * 5 < report[0].counted,
            "{report:?}"
        );
        assert_eq!(hot.summaries.lock()[&None].counts.len(), CAPACITY);
    }
}
