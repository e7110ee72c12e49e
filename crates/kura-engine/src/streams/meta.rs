//! What Kura keeps about one stream: its identity, its shards and the sequence numbers it
//! has handed out. One JSON record per stream in `Meta` (`stream/` ‖ id), rewritten in the
//! same batch as every record the stream gets.

use kura_model::KeySchema;
use serde::{Deserialize, Serialize};

use crate::error::{EngineError, Result};
use crate::keys;

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
    pub policy: Option<crate::catalog::ResourcePolicyRecord>,
}

/// One shard: a range of the stream's sequence numbers. Shards form one chain, each the
/// parent of the next; only the last one is open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub number: u32,
    pub created_ms: i64,
    pub first_seq: u64,
    /// Set when the shard is closed: the last sequence number it holds (`first_seq - 1`
    /// when it holds none).
    pub last_seq: Option<u64>,
    /// The parent's shard id, kept here so it outlives the parent's trimming.
    #[serde(default)]
    pub parent: Option<String>,
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
    /// Records below this sequence number are trimmed.
    pub trim_seq: u64,
    pub shards: Vec<Shard>,
}

impl StreamMeta {
    pub fn new(
        id: u64,
        table: &str,
        table_id: u64,
        key_schema: KeySchema,
        view_type: ViewType,
        now_ms: i64,
    ) -> StreamMeta {
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
            shards: vec![Shard {
                number: 0,
                created_ms: now_ms,
                first_seq: 1,
                last_seq: None,
                parent: None,
            }],
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
        if meta.v != STREAM_META_VERSION {
            return Err(EngineError::Internal(format!(
                "unsupported stream record version {}",
                meta.v
            )));
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

    /// Hands out the next sequence number, first closing the open shard and opening its
    /// child when the open one is older than `max_age_ms`.
    pub fn next_sequence(&mut self, now_ms: i64, max_age_ms: i64) -> u64 {
        if let Some(open) = self.shards.last()
            && open.last_seq.is_none()
            && now_ms.saturating_sub(open.created_ms) >= max_age_ms
        {
            self.roll(now_ms);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Closes the open shard and opens a child after it.
    fn roll(&mut self, now_ms: i64) {
        let next_number = self.shards.last().map_or(0, |s| s.number + 1);
        let parent = self.shards.last().map(|s| self.shard_id(s));
        if let Some(open) = self.shards.last_mut() {
            open.last_seq = Some(self.next_seq - 1);
        }
        self.shards.push(Shard {
            number: next_number,
            created_ms: now_ms,
            first_seq: self.next_seq,
            last_seq: None,
            parent,
        });
    }

    /// Disables the stream: its open shard closes; it stays readable until trimmed.
    pub fn disable(&mut self, now_ms: i64) {
        self.disabled_ms = Some(now_ms);
        if let Some(open) = self.shards.last_mut()
            && open.last_seq.is_none()
        {
            open.last_seq = Some(self.next_seq - 1);
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
        shard.last_seq.is_some_and(|last| last < self.trim_seq) && shard.first_seq < self.trim_seq
    }

    /// Forgets trimmed shards (a child may still name one as its parent).
    pub fn forget_trimmed_shards(&mut self) {
        let keep: Vec<Shard> = self.live_shards().cloned().collect();
        self.shards = keep;
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

    #[test]
    fn shards_roll_over_by_age() {
        let schema = KeySchema {
            hash: kura_model::KeyAttribute {
                name: "pk".into(),
                ty: kura_model::keycode::ScalarType::S,
            },
            range: None,
        };
        let mut meta = StreamMeta::new(1, "T", 1, schema, ViewType::KeysOnly, 0);
        assert_eq!(meta.next_sequence(10, 100), 1);
        assert_eq!(meta.next_sequence(20, 100), 2);
        assert_eq!(meta.next_sequence(100, 100), 3);
        assert_eq!(meta.shards.len(), 2);
        assert_eq!(meta.shards[0].last_seq, Some(2));
        assert_eq!(meta.shards[1].first_seq, 3);
        assert_eq!(
            meta.parent_id(&meta.shards[1].clone()),
            Some(meta.shard_id(&meta.shards[0].clone()))
        );
    }
}
