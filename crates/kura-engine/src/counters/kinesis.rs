//! What GetRecords reads from each Kinesis stream, for `/metrics` (CloudWatch's
//! `GetRecords.Records`, `GetRecords.Bytes` and `GetRecords.IteratorAgeMilliseconds`).
//! What is written needs no counter: a stream's next sequence number counts its records.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use parking_lot::RwLock;

/// One stream's reads.
#[derive(Debug, Default)]
pub struct StreamReads {
    pub records: AtomicU64,
    pub bytes: AtomicU64,
    /// The age of the last record the last GetRecords returned (0 when it returned none).
    pub iterator_age_ms: AtomicI64,
}

/// Every stream's reads.
#[derive(Debug, Default)]
pub struct KinesisCounters {
    streams: RwLock<HashMap<String, Arc<StreamReads>>>,
}

impl KinesisCounters {
    /// Records one GetRecords of `stream`.
    pub fn read(&self, stream: &str, records: usize, bytes: usize, iterator_age_ms: i64) {
        let entry = {
            let known = self.streams.read().get(stream).cloned();
            match known {
                Some(entry) => entry,
                None => self
                    .streams
                    .write()
                    .entry(stream.to_owned())
                    .or_default()
                    .clone(),
            }
        };
        entry.records.fetch_add(records as u64, Ordering::Relaxed);
        entry.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        entry
            .iterator_age_ms
            .store(iterator_age_ms, Ordering::Relaxed);
    }

    /// Every stream read so far, by name.
    pub fn streams(&self) -> BTreeMap<String, Arc<StreamReads>> {
        self.streams
            .read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Forgets the streams `exists` says are gone.
    pub fn retain(&self, exists: impl Fn(&str) -> bool) {
        self.streams.write().retain(|name, _| exists(name));
    }
}
