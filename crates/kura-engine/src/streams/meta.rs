//! What Kura keeps about one stream: its identity, its shards and the sequence numbers it
//! has handed out. One JSON record per stream in `Meta` (`stream/` ‖ id), rewritten in the
//! same batch as every record the stream gets.

use kura_model::KeySchema;
use serde::{Deserialize, Serialize};

use std::ops::Bound;

use crate::error::{EngineError, Result};
use crate::keys;
use kura_store::KeyRange;

pub const STREAM_META_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ViewType {
    KeysOnly,
    NewImage,
    OldImage,
    NewAndOldImages,
}

impl ViewType {
    /// In the order DynamoDB lists them in its enum constraint message.
    pub const WIRE: [&'static str; 4] =
        ["OLD_IMAGE", "KEYS_ONLY", "NEW_AND_OLD_IMAGES", "NEW_IMAGE"];

    pub fn parse(wire: &str) -> Option<ViewType> {
        match wire {
            "KEYS_ONLY" => Some(ViewType::KeysOnly),
            "NEW_IMAGE" => Some(ViewType::NewImage),
            "OLD_IMAGE" => Some(ViewType::OldImage),
            "NEW_AND_OLD_IMAGES" => Some(ViewType::NewAndOldImages),
            _ => None,
        }
    }

    pub fn wire(self) -> &'static str {
        match self {
            ViewType::KeysOnly => "KEYS_ONLY",
            ViewType::NewImage => "NEW_IMAGE",
            ViewType::OldImage => "OLD_IMAGE",
            ViewType::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    pub fn has_new(self) -> bool {
        matches!(self, ViewType::NewImage | ViewType::NewAndOldImages)
    }

    pub fn has_old(self) -> bool {
        matches!(self, ViewType::OldImage | ViewType::NewAndOldImages)
    }
}

/// The stream a table writes to, as its catalog record holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamSpec {
    pub id: u64,
    pub label: String,
    pub view_type: ViewType,
    /// False once disabled: the stream stays readable for 24 hours, and DescribeTable
    /// still names it as the latest.
    pub enabled: bool,
    /// The stream's resource-based policy; absent (and not stored) when there is none, so
    /// records written before resource policies existed keep their bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<crate::resource_policy::ResourcePolicyRecord>,
}

/// How a stream's records are keyed. Streams enabled before shards existed keep one chain
/// of shards and `stream id ‖ seq` keys; newer ones have several open shards at once, each
/// owning a range of partition key hashes, and `stream id ‖ shard number ‖ seq` keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Layout {
    #[default]
    Chain,
    Sharded,
}

/// How many shards a new stream opens, and when they split and roll over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardShape {
    /// Open shards of a new stream (DynamoDB: one per partition; a new on-demand table
    /// has four).
    pub initial: u32,
    /// A shard that has taken this many records splits into two children, each with
    /// half its hash range (0: never).
    pub split_after_records: u64,
    /// No split makes more open shards than this; a full shard then rolls over instead.
    pub max_open: u32,
    /// Age after which every open shard closes and opens one child with its range.
    pub max_age_ms: i64,
}

impl Default for ShardShape {
    fn default() -> Self {
        ShardShape {
            initial: 4,
            split_after_records: 100_000,
            max_open: 16,
            max_age_ms: kura_model::limits::STREAM_SHARD_AGE_MS,
        }
    }
}

fn full_range() -> u32 {
    u32::MAX
}

/// One shard: the records of the partition key hashes `hash_lo..=hash_hi` written between
/// its opening and its closing, in sequence number order. A closed shard has one child
/// (rolled over) or two (split), each naming it as parent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub number: u32,
    pub created_ms: i64,
    pub first_seq: u64,
    /// Set when the shard is closed: the last sequence number handed out while it was
    /// open (`first_seq - 1` when none was).
    pub last_seq: Option<u64>,
    /// The parent's shard id, kept here so it outlives the parent's trimming.
    #[serde(default)]
    pub parent: Option<String>,
    #[serde(default)]
    pub hash_lo: u32,
    #[serde(default = "full_range")]
    pub hash_hi: u32,
    /// Records the shard has taken (for splitting).
    #[serde(default)]
    pub records: u64,
    /// Records of this shard below this sequence number are trimmed (0 in records written
    /// before shards were trimmed one by one: the stream's `trim_seq` holds then).
    #[serde(default)]
    pub trim_seq: u64,
}

impl Shard {
    pub fn is_open(&self) -> bool {
        self.last_seq.is_none()
    }

    fn covers(&self, hash: u32) -> bool {
        self.hash_lo <= hash && hash <= self.hash_hi
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamMeta {
    pub v: u32,
    pub id: u64,
    pub table: String,
    pub table_id: u64,
    pub key_schema: KeySchema,
    pub label: String,
    pub view_type: ViewType,
    pub created_ms: i64,
    pub disabled_ms: Option<i64>,
    /// The sequence number the next record gets.
    pub next_seq: u64,
    /// The lowest trim point of any shard: every record below it is trimmed.
    pub trim_seq: u64,
    pub shards: Vec<Shard>,
    #[serde(default)]
    pub layout: Layout,
}

impl StreamMeta {
    pub fn new(
        id: u64,
        table: &str,
        table_id: u64,
        key_schema: KeySchema,
        view_type: ViewType,
        now_ms: i64,
        shards: u32,
    ) -> StreamMeta {
        let count = u64::from(shards.max(1));
        let span = (1u64 << 32) / count;
        let shards = (0..count)
            .map(|i| Shard {
                number: i as u32,
                created_ms: now_ms,
                first_seq: 1,
                last_seq: None,
                parent: None,
                hash_lo: (i * span) as u32,
                hash_hi: if i + 1 == count {
                    u32::MAX
                } else {
                    ((i + 1) * span - 1) as u32
                },
                records: 0,
                trim_seq: 1,
            })
            .collect();
        StreamMeta {
            v: STREAM_META_VERSION,
            id,
            table: table.to_owned(),
            table_id,
            key_schema,
            label: label(now_ms),
            view_type,
            created_ms: now_ms,
            disabled_ms: None,
            next_seq: 1,
            trim_seq: 1,
            shards,
            layout: Layout::Sharded,
        }
    }

    /// The stored form. An encoding failure is an error, never an empty record.
    pub fn encode(&self) -> Result<Vec<u8>> {
        serde_json::to_vec(self)
            .map_err(|e| EngineError::Internal(format!("cannot encode stream record: {e}")))
    }

    pub fn decode(bytes: &[u8]) -> Result<StreamMeta> {
        let meta: StreamMeta = serde_json::from_slice(bytes)
            .map_err(|e| EngineError::Internal(format!("corrupt stream record: {e}")))?;
        let mut meta = meta;
        if meta.v != STREAM_META_VERSION {
            return Err(EngineError::Internal(format!(
                "unsupported stream record version {}",
                meta.v
            )));
        }
        // Records of chain streams written before per-shard trimming: the stream's trim
        // point holds for each shard.
        let trim = meta.trim_seq;
        for shard in &mut meta.shards {
            shard.trim_seq = shard.trim_seq.max(trim).max(shard.first_seq);
        }
        Ok(meta)
    }

    pub fn key(&self) -> Vec<u8> {
        keys::stream_meta_key(self.id)
    }

    pub fn spec(&self) -> StreamSpec {
        StreamSpec {
            id: self.id,
            label: self.label.clone(),
            view_type: self.view_type,
            enabled: self.disabled_ms.is_none(),
            policy: None,
        }
    }

    /// Hands out the sequence number of a record whose partition key hashes to `hash`, and
    /// the number of the shard it goes to. First, shards older than the shape's age roll
    /// over, and the shard the record goes to splits if it is full.
    pub fn assign(&mut self, hash: u32, now_ms: i64, shape: &ShardShape) -> Result<(u32, u64)> {
        let aged: Vec<usize> = (0..self.shards.len())
            .filter(|&i| {
                let s = &self.shards[i];
                s.is_open() && now_ms.saturating_sub(s.created_ms) >= shape.max_age_ms
            })
            .collect();
        for i in aged {
            self.close_into(i, now_ms, false);
        }
        let mut at = self.open_shard_for(hash)?;
        let full =
            shape.split_after_records > 0 && self.shards[at].records >= shape.split_after_records;
        if full && self.layout == Layout::Sharded {
            let open = self.shards.iter().filter(|s| s.is_open()).count();
            let split =
                open < shape.max_open as usize && self.shards[at].hash_lo < self.shards[at].hash_hi;
            self.close_into(at, now_ms, split);
            at = self.open_shard_for(hash)?;
        }
        self.shards[at].records += 1;
        let seq = self.next_seq;
        self.next_seq += 1;
        Ok((self.shards[at].number, seq))
    }

    fn open_shard_for(&self, hash: u32) -> Result<usize> {
        let chain = self.layout == Layout::Chain;
        self.shards
            .iter()
            .rposition(|s| s.is_open() && (chain || s.covers(hash)))
            .ok_or_else(|| EngineError::Internal("no open stream shard takes a record".into()))
    }

    /// Closes shard `at` and opens its child, or two children with a half of its hash
    /// range each when `split`.
    fn close_into(&mut self, at: usize, now_ms: i64, split: bool) {
        let parent_id = self.shard_id(&self.shards[at]);
        // A child's id sorts after its parent's (DescribeStream lists shards by id, and
        // readers expect parents first), even when the clock has not moved since the
        // parent opened (a test's frozen clock).
        let created_ms = now_ms.max(self.shards[at].created_ms.saturating_add(1));
        let (lo, hi) = (self.shards[at].hash_lo, self.shards[at].hash_hi);
        self.shards[at].last_seq = Some(self.next_seq - 1);
        let ranges = if split {
            let mid = lo + (hi - lo) / 2;
            vec![(lo, mid), (mid + 1, hi)]
        } else {
            vec![(lo, hi)]
        };
        for (hash_lo, hash_hi) in ranges {
            let number = self.shards.iter().map(|s| s.number + 1).max().unwrap_or(0);
            self.shards.push(Shard {
                number,
                created_ms,
                first_seq: self.next_seq,
                last_seq: None,
                parent: Some(parent_id.clone()),
                hash_lo,
                hash_hi,
                records: 0,
                trim_seq: self.next_seq,
            });
        }
    }

    /// The `Streams` key of record `seq` of shard `shard`.
    pub fn record_key(&self, shard: u32, seq: u64) -> Vec<u8> {
        match self.layout {
            Layout::Chain => keys::stream_record_key(self.id, seq),
            Layout::Sharded => keys::shard_record_key(self.id, shard, seq),
        }
    }

    /// The `Streams` keys of shard `shard`'s records from `from_seq` on.
    pub fn shard_records(&self, shard: &Shard, from_seq: u64) -> KeyRange {
        let start = Bound::Included(self.record_key(shard.number, from_seq));
        let end = match (shard.last_seq, self.layout) {
            (Some(last), _) => Bound::Included(self.record_key(shard.number, last)),
            (None, Layout::Chain) => KeyRange::prefix(&self.id.to_be_bytes()).end,
            (None, Layout::Sharded) => {
                KeyRange::prefix(&keys::shard_record_prefix(self.id, shard.number)).end
            }
        };
        KeyRange { start, end }
    }

    /// Disables the stream: its open shard closes; it stays readable until trimmed.
    pub fn disable(&mut self, now_ms: i64) {
        self.disabled_ms = Some(now_ms);
        let last = self.next_seq - 1;
        for shard in self.shards.iter_mut().filter(|s| s.is_open()) {
            shard.last_seq = Some(last);
        }
    }

    /// The shard named `shard_id`, unless it is trimmed.
    pub fn shard(&self, shard_id: &str) -> Option<&Shard> {
        self.live_shards().find(|s| self.shard_id(s) == shard_id)
    }

    /// Shards that still hold (or may still get) records: a closed shard is gone once
    /// every record it held, if any, is trimmed.
    pub fn live_shards(&self) -> impl Iterator<Item = &Shard> {
        self.shards.iter().filter(|s| !self.is_trimmed(s))
    }

    fn is_trimmed(&self, shard: &Shard) -> bool {
        shard
            .last_seq
            .is_some_and(|last| last < shard.trim_seq && shard.first_seq < shard.trim_seq)
    }

    /// Forgets trimmed shards (a child may still name one as its parent), and keeps the
    /// stream's trim point the lowest of its shards'.
    pub fn forget_trimmed_shards(&mut self) {
        let keep: Vec<Shard> = self.live_shards().cloned().collect();
        self.shards = keep;
        self.trim_seq = self
            .shards
            .iter()
            .map(|s| s.trim_seq)
            .min()
            .unwrap_or(self.next_seq)
            .max(self.trim_seq);
    }

    pub fn shard_by_number(&self, number: u32) -> Option<&Shard> {
        self.shards.iter().find(|s| s.number == number)
    }

    /// `shardId-<20-digit creation time>-<8 hex digits>`, DynamoDB's shape.
    pub fn shard_id(&self, shard: &Shard) -> String {
        let tag = keys::partition_hash(
            &[self.id.to_be_bytes(), u64::from(shard.number).to_be_bytes()].concat(),
        );
        format!("shardId-{:020}-{tag:08x}", shard.created_ms.max(0))
    }

    pub fn parent_id(&self, shard: &Shard) -> Option<String> {
        shard.parent.clone()
    }

    pub fn arn(&self, region: &str) -> String {
        crate::arn::stream(region, &self.table, &self.label)
    }
}

/// A sequence number as DynamoDB shows them: a string of 21 digits.
pub fn sequence_string(seq: u64) -> String {
    format!("{seq:021}")
}

/// The stream label: the creation time, `YYYY-MM-DDTHH:MM:SS.mmm` in UTC.
pub fn label(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_utc_timestamps() {
        assert_eq!(label(0), "1970-01-01T00:00:00.000");
        assert_eq!(label(1_795_362_689_123), "2026-11-22T15:51:29.123");
        assert_eq!(label(951_782_400_000), "2000-02-29T00:00:00.000");
    }

    fn schema() -> KeySchema {
        KeySchema {
            hash: kura_model::KeyAttribute {
                name: "pk".into(),
                ty: kura_model::keycode::ScalarType::S,
            },
            range: None,
        }
    }

    fn shape(split_after_records: u64, max_open: u32) -> ShardShape {
        ShardShape {
            initial: 4,
            split_after_records,
            max_open,
            max_age_ms: 100,
        }
    }

    /// Open shards' hash ranges cover every hash exactly once.
    fn assert_partitioned(meta: &StreamMeta) {
        let mut open: Vec<&Shard> = meta.shards.iter().filter(|s| s.is_open()).collect();
        open.sort_by_key(|s| s.hash_lo);
        assert_eq!(open.first().map(|s| s.hash_lo), Some(0));
        assert_eq!(open.last().map(|s| s.hash_hi), Some(u32::MAX));
        for pair in open.windows(2) {
            assert_eq!(pair[0].hash_hi.wrapping_add(1), pair[1].hash_lo);
        }
    }

    #[test]
    fn new_streams_open_shards_over_the_whole_hash_range() {
        let meta = StreamMeta::new(1, "T", 1, schema(), ViewType::KeysOnly, 0, 4);
        assert_eq!(meta.shards.len(), 4);
        assert_partitioned(&meta);
        assert_eq!(meta.layout, Layout::Sharded);
    }

    #[test]
    fn shards_roll_over_by_age_each_into_one_child() {
        let mut meta = StreamMeta::new(1, "T", 1, schema(), ViewType::KeysOnly, 0, 4);
        let shape = shape(0, 16);
        assert_eq!(meta.assign(7, 10, &shape).expect("assign"), (0, 1));
        assert_eq!(meta.assign(u32::MAX, 20, &shape).expect("assign"), (3, 2));
        let (shard, seq) = meta.assign(7, 100, &shape).expect("assign");
        assert_eq!(seq, 3);
        assert_eq!(meta.shards.len(), 8);
        assert!(meta.shards[..4].iter().all(|s| s.last_seq == Some(2)));
        let child = meta.shard_by_number(shard).expect("child").clone();
        assert_eq!(child.first_seq, 3);
        assert_eq!(child.parent, Some(meta.shard_id(&meta.shards[0].clone())));
        assert_partitioned(&meta);
    }

    #[test]
    fn a_full_shard_splits_in_two_until_the_open_limit() {
        let mut meta = StreamMeta::new(1, "T", 1, schema(), ViewType::KeysOnly, 0, 4);
        let shape = shape(2, 5);
        for _ in 0..2 {
            assert_eq!(meta.assign(5, 0, &shape).expect("assign").0, 0);
        }
        // The third record of shard 0 splits it: two children, hash 5 in the lower.
        let (shard, _) = meta.assign(5, 0, &shape).expect("assign");
        assert_eq!(shard, 4);
        assert_eq!(meta.shards.iter().filter(|s| s.is_open()).count(), 5);
        let parent = meta.shard_id(&meta.shards[0].clone());
        let children: Vec<&Shard> = meta
            .shards
            .iter()
            .filter(|s| s.parent.as_deref() == Some(parent.as_str()))
            .collect();
        assert_eq!(children.len(), 2);
        assert_partitioned(&meta);
        // At the limit a full shard rolls over into one child instead.
        meta.assign(5, 0, &shape).expect("assign");
        let (shard, _) = meta.assign(5, 0, &shape).expect("assign");
        assert_eq!(meta.shards.iter().filter(|s| s.is_open()).count(), 5);
        let rolled = meta.shard_by_number(shard).expect("shard");
        assert_eq!(rolled.parent, Some(meta.shard_id(&meta.shards[4].clone())));
        assert_partitioned(&meta);
    }

    #[test]
    fn chain_streams_keep_one_open_shard() {
        let mut meta = StreamMeta::new(1, "T", 1, schema(), ViewType::KeysOnly, 0, 1);
        meta.layout = Layout::Chain;
        let shape = shape(1, 16);
        for i in 0..5 {
            assert_eq!(
                meta.assign(i * 1_000_000, 0, &shape).expect("assign"),
                (0, u64::from(i) + 1)
            );
        }
        assert_eq!(meta.shards.len(), 1);
        assert_eq!(meta.record_key(0, 3), keys::stream_record_key(1, 3));
    }
}
