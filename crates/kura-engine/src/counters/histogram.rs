//! A fixed-bucket histogram of atomics, in Prometheus's cumulative shape when read.

use std::sync::atomic::{AtomicU64, Ordering};

/// Seconds, from 50 µs to 2.5 s: a sync on a laptop's SSD takes 0.1–5 ms, a slow disk 50 ms.
pub const LATENCY_BUCKETS: &[f64] = &[
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
    2.5,
];

/// Counts of observations at or below each upper bound, their sum and their count.
pub struct Histogram {
    bounds: Vec<f64>,
    /// One per bound, then one for +Inf; not cumulative (each observation adds to one).
    counts: Vec<AtomicU64>,
    /// The sum, in millionths of the unit (exact for counts, µs for seconds).
    sum_micros: AtomicU64,
}

/// A histogram as read at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramSnapshot {
    pub sum: f64,
    pub count: u64,
    /// `(upper bound, observations at or below it)`, cumulative, ending with +Inf.
    pub buckets: Vec<(f64, u64)>,
}

impl Histogram {
    pub fn new(bounds: &[f64]) -> Histogram {
        Histogram {
            bounds: bounds.to_vec(),
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum_micros: AtomicU64::new(0),
        }
    }

    pub fn observe(&self, value: f64) {
        let slot = self
            .bounds
            .iter()
            .position(|b| value <= *b)
            .unwrap_or(self.bounds.len());
        self.counts[slot].fetch_add(1, Ordering::Relaxed);
        self.sum_micros
            .fetch_add((value.max(0.0) * 1e6).round() as u64, Ordering::Relaxed);
    }

    pub fn snapshot(&self) -> HistogramSnapshot {
        let mut cumulative = 0;
        let mut buckets = Vec::with_capacity(self.counts.len());
        for (i, count) in self.counts.iter().enumerate() {
            cumulative += count.load(Ordering::Relaxed);
            let bound = self.bounds.get(i).copied().unwrap_or(f64::INFINITY);
            buckets.push((bound, cumulative));
        }
        HistogramSnapshot {
            sum: self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6,
            count: cumulative,
            buckets,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_cumulative_and_end_at_infinity() {
        let h = Histogram::new(&[1.0, 10.0]);
        for v in [0.5, 1.0, 3.0, 50.0] {
            h.observe(v);
        }
        let s = h.snapshot();
        assert_eq!(s.count, 4);
        assert_eq!(s.sum, 54.5);
        assert_eq!(s.buckets, vec![(1.0, 2), (10.0, 3), (f64::INFINITY, 4)]);
    }
}
