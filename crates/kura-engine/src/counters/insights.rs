//! Contributor Insights: the most accessed and most throttled keys of a table or GSI over
//! rolling windows, in bounded memory whatever the key cardinality.
//!
//! Each rule (partition key, partition + sort key; accessed, throttled) keeps one
//! Space-Saving summary (Metwally et al., 2005) of [`CAPACITY`] counters per minute, for the
//! last [`MINUTES`] minutes. A summary of N events over k counters reports every key whose
//! true count exceeds N/k, and each reported count is at most N/k above the true one.
//! Summing the minute summaries of a window keeps the bound with N the window's events, in
//! both directions (a key dropped from one minute's summary is under-counted there): a
//! reported count is within ±N/k of the truth. Memory: at most MINUTES × CAPACITY keys per
//! rule, each cut to [`MAX_LABEL_BYTES`] (two of them for partition + sort key).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::{Mutex, RwLock};

/// Counters per minute summary.
pub const CAPACITY: usize = 64;
/// Minutes kept: the longest window a report can cover.
pub const MINUTES: usize = 60;

/// The keys of one event: the partition key, and the sort key when the table or index has one.
pub struct EventKey<'a> {
    pub partition: &'a str,
    pub sort: Option<&'a str>,
}

/// A Space-Saving summary: at most [`CAPACITY`] keys with counts that over-estimate by at
/// most the smallest count at the time the key was taken in.
#[derive(Default, Clone)]
struct Summary {
    counts: HashMap<String, u64>,
    events: u64,
}

impl Summary {
    fn add(&mut self, key: &str, weight: u64) {
        self.events += weight;
        if let Some(count) = self.counts.get_mut(key) {
            *count += weight;
            return;
        }
        if self.counts.len() < CAPACITY {
            self.counts.insert(key.to_owned(), weight);
            return;
        }
        // Full: the key takes the place of the smallest counter, inheriting its count.
        let smallest = self
            .counts
            .iter()
            .min_by_key(|(_, c)| **c)
            .map(|(k, c)| (k.clone(), *c));
        if let Some((evicted, floor)) = smallest {
            self.counts.remove(&evicted);
            self.counts.insert(key.to_owned(), floor + weight);
        }
    }
}

/// One minute of one rule.
#[derive(Default, Clone)]
struct Minute {
    minute: i64,
    summary: Summary,
}

/// The last [`MINUTES`] minutes of one rule.
struct Rule {
    minutes: Vec<Minute>,
}

impl Default for Rule {
    fn default() -> Self {
        Rule {
            minutes: vec![Minute::default(); MINUTES],
        }
    }
}

impl Rule {
    fn add(&mut self, minute: i64, key: &str, weight: u64) {
        let slot = &mut self.minutes[minute.rem_euclid(MINUTES as i64) as usize];
        if slot.minute != minute {
            *slot = Minute {
                minute,
                summary: Summary::default(),
            };
        }
        slot.summary.add(key, weight);
    }

    fn top(&self, now_minute: i64, minutes: usize, limit: usize) -> TopKeys {
        let first = now_minute - minutes.clamp(1, MINUTES) as i64 + 1;
        let mut merged: HashMap<&str, u64> = HashMap::new();
        let mut events = 0;
        for m in self
            .minutes
            .iter()
            .filter(|m| m.minute >= first && m.minute <= now_minute)
        {
            events += m.summary.events;
            for (key, count) in &m.summary.counts {
                *merged.entry(key.as_str()).or_default() += count;
            }
        }
        let mut keys: Vec<KeyCount> = merged
            .into_iter()
            .map(|(key, count)| KeyCount {
                key: key.to_owned(),
                count,
            })
            .collect();
        keys.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
        keys.truncate(limit);
        TopKeys {
            events,
            error_bound: events / CAPACITY as u64,
            keys,
        }
    }
}

/// A key and how often it was seen (within [`TopKeys::error_bound`] of the truth).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeyCount {
    pub key: String,
    pub count: u64,
}

/// The heaviest keys of one rule over a window.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopKeys {
    /// Events in the window.
    pub events: u64,
    /// Most any count may exceed the true one by: events / [`CAPACITY`].
    pub error_bound: u64,
    pub keys: Vec<KeyCount>,
}

/// What Contributor Insights records: everything, or throttled requests only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    AccessedAndThrottledKeys,
    ThrottledKeys,
}

/// The four rules of one table or index.
#[derive(Default)]
struct Target {
    accessed_partition: Rule,
    accessed_item: Rule,
    throttled_partition: Rule,
    throttled_item: Rule,
}

struct Enabled {
    mode: Mode,
    target: Mutex<Target>,
}

/// The report for one table or index.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub minutes: usize,
    pub most_accessed_partition_keys: TopKeys,
    pub most_accessed_items: TopKeys,
    pub most_throttled_partition_keys: TopKeys,
    pub most_throttled_items: TopKeys,
}

/// Contributor Insights of one table: the table itself (`None`) and its GSIs, each while
/// enabled.
#[derive(Default)]
pub struct Insights {
    any: AtomicBool,
    targets: RwLock<BTreeMap<Option<String>, Arc<Enabled>>>,
}

impl Insights {
    /// Whether anything of this table records (one atomic load: the hot path's check).
    pub fn active(&self) -> bool {
        self.any.load(Ordering::Relaxed)
    }

    /// Starts recording for the table (`index` None) or a GSI, keeping what an earlier
    /// enable recorded if the mode is unchanged.
    pub fn enable(&self, index: Option<&str>, mode: Mode) {
        let mut targets = self.targets.write();
        let key = index.map(str::to_owned);
        if targets.get(&key).is_none_or(|e| e.mode != mode) {
            targets.insert(
                key,
                Arc::new(Enabled {
                    mode,
                    target: Mutex::new(Target::default()),
                }),
            );
        }
        self.any.store(true, Ordering::Relaxed);
    }

    /// The table (`None`) and GSIs that record now.
    pub fn targets(&self) -> Vec<Option<String>> {
        self.targets.read().keys().cloned().collect()
    }

    /// Stops recording and forgets what was recorded.
    pub fn disable(&self, index: Option<&str>) {
        let mut targets = self.targets.write();
        targets.remove(&index.map(str::to_owned));
        self.any.store(!targets.is_empty(), Ordering::Relaxed);
    }

    /// A read or write of one item of the table (`index` None) or a GSI.
    pub fn accessed(&self, index: Option<&str>, key: &EventKey<'_>, now_ms: i64) {
        self.record(index, key, now_ms, false);
    }

    /// A request refused for capacity on one key.
    pub fn throttled(&self, index: Option<&str>, key: &EventKey<'_>, now_ms: i64) {
        self.record(index, key, now_ms, true);
    }

    fn record(&self, index: Option<&str>, key: &EventKey<'_>, now_ms: i64, throttled: bool) {
        let enabled = {
            let targets = self.targets.read();
            let found = match index {
                None => targets.get(&None),
                Some(name) => targets
                    .iter()
                    .find(|(k, _)| k.as_deref() == Some(name))
                    .map(|(_, v)| v),
            };
            match found {
                Some(e) => e.clone(),
                None => return,
            }
        };
        if !throttled && enabled.mode == Mode::ThrottledKeys {
            return;
        }
        let minute = now_ms.div_euclid(60_000);
        let mut target = enabled.target.lock();
        let target = &mut *target;
        let (partition_rule, item_rule) = if throttled {
            (&mut target.throttled_partition, &mut target.throttled_item)
        } else {
            (&mut target.accessed_partition, &mut target.accessed_item)
        };
        partition_rule.add(minute, &bounded(key.partition), 1);
        if let Some(sort) = key.sort {
            item_rule.add(minute, &item_label(key.partition, sort), 1);
        }
    }

    /// The heaviest keys over the last `minutes` (1 to [`MINUTES`]), at most `limit` of each
    /// rule; None when the table or index does not have Contributor Insights enabled.
    pub fn report(
        &self,
        index: Option<&str>,
        now_ms: i64,
        minutes: usize,
        limit: usize,
    ) -> Option<Report> {
        let enabled = self.targets.read().get(&index.map(str::to_owned))?.clone();
        let now = now_ms.div_euclid(60_000);
        let target = enabled.target.lock();
        Some(Report {
            minutes: minutes.clamp(1, MINUTES),
            most_accessed_partition_keys: target.accessed_partition.top(now, minutes, limit),
            most_accessed_items: target.accessed_item.top(now, minutes, limit),
            most_throttled_partition_keys: target.throttled_partition.top(now, minutes, limit),
            most_throttled_items: target.throttled_item.top(now, minutes, limit),
        })
    }
}

/// Longest key text kept, in bytes: longer values are cut (at a character boundary) and
/// marked with `…`, which bounds a summary's memory at MINUTES × CAPACITY short strings.
pub const MAX_LABEL_BYTES: usize = 256;

/// `text` cut to [`MAX_LABEL_BYTES`].
fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_LABEL_BYTES {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = MAX_LABEL_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}…", &text[..end]))
}

/// How a partition + sort key pair is shown: both values, as the AWS console's graphs show
/// them.
pub(crate) fn item_label(partition: &str, sort: &str) -> String {
    format!("{} | {}", bounded(partition), bounded(sort))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: i64 = 60_000;

    fn key(p: &str) -> EventKey<'_> {
        EventKey {
            partition: p,
            sort: None,
        }
    }

    #[test]
    fn heavy_hitters_survive_any_number_of_distinct_keys() {
        let insights = Insights::default();
        insights.enable(None, Mode::AccessedAndThrottledKeys);
        // 10,000 distinct cold keys once each, and one hot key 2,000 times, interleaved.
        for i in 0..10_000 {
            insights.accessed(None, &key(&format!("cold-{i}")), 0);
            if i % 5 == 0 {
                insights.accessed(None, &key("hot"), 0);
            }
        }
        let report = insights.report(None, 0, 1, 3).expect("enabled");
        let top = &report.most_accessed_partition_keys;
        assert_eq!(top.events, 12_000);
        assert_eq!(top.keys[0].key, "hot");
        // Within the stated bound of the true 2,000.
        assert!(top.keys[0].count >= 2_000);
        assert!(top.keys[0].count - 2_000 <= top.error_bound);
        let kept: usize = insights.targets.read()[&None]
            .target
            .lock()
            .accessed_partition
            .minutes[0]
            .summary
            .counts
            .len();
        assert_eq!(kept, CAPACITY);
    }

    #[test]
    fn long_keys_are_cut_to_a_bounded_label() {
        let insights = Insights::default();
        insights.enable(None, Mode::AccessedAndThrottledKeys);
        let long = "é".repeat(1000);
        insights.accessed(
            None,
            &EventKey {
                partition: &long,
                sort: Some(&long),
            },
            0,
        );
        let report = insights.report(None, 0, 1, 1).expect("enabled");
        let label = &report.most_accessed_partition_keys.keys[0].key;
        assert!(label.len() <= MAX_LABEL_BYTES + "…".len() && label.ends_with('…'));
        assert!(report.most_accessed_items.keys[0].key.len() <= 2 * (MAX_LABEL_BYTES + 3) + 3);
    }

    #[test]
    fn windows_roll_by_the_minute() {
        let insights = Insights::default();
        insights.enable(None, Mode::AccessedAndThrottledKeys);
        insights.accessed(None, &key("old"), 0);
        insights.accessed(None, &key("new"), 5 * MINUTE);
        let last_minute = insights.report(None, 5 * MINUTE, 1, 10).expect("enabled");
        assert_eq!(last_minute.most_accessed_partition_keys.keys.len(), 1);
        let six = insights.report(None, 5 * MINUTE, 6, 10).expect("enabled");
        assert_eq!(six.most_accessed_partition_keys.keys.len(), 2);
        // An hour later the slot of minute 0 is reused and the old key is gone.
        insights.accessed(None, &key("later"), 60 * MINUTE);
        let hour = insights.report(None, 60 * MINUTE, 60, 10).expect("enabled");
        let keys: Vec<&str> = hour
            .most_accessed_partition_keys
            .keys
            .iter()
            .map(|k| k.key.as_str())
            .collect();
        assert_eq!(keys, ["later", "new"]);
    }

    #[test]
    fn throttled_mode_ignores_plain_accesses_and_disable_forgets() {
        let insights = Insights::default();
        insights.enable(Some("gsi"), Mode::ThrottledKeys);
        assert!(insights.active());
        let k = EventKey {
            partition: "p",
            sort: Some("s"),
        };
        insights.accessed(Some("gsi"), &k, 0);
        insights.throttled(Some("gsi"), &k, 0);
        let report = insights.report(Some("gsi"), 0, 5, 10).expect("enabled");
        assert_eq!(report.most_accessed_partition_keys.events, 0);
        assert_eq!(report.most_throttled_items.keys[0].key, "p | s");
        assert!(insights.report(None, 0, 5, 10).is_none());
        insights.disable(Some("gsi"));
        assert!(!insights.active());
        assert!(insights.report(Some("gsi"), 0, 5, 10).is_none());
    }
}
