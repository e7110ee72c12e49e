//! A Kinesis stream's metadata (in `Meta` under `kstream/` ‖ id, as JSON) and its records
//! (in `Streams` under id ‖ shard ‖ sequence number, the layout of DynamoDB stream records).
//!
//! Shards split the 128-bit hash key space evenly, as Kinesis does: a record goes to the
//! shard whose range holds the MD5 of its partition key (or its explicit hash key).
//! Sequence numbers are one counter per stream, shown as 56 decimal digits starting `49`
//! (Kinesis's form; clients treat them as opaque strings that sort by length, then text).

use std::collections::BTreeMap;

use kura_model::constraint::Constraints;
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use crate::api::kinesis as api;
use crate::error::{EngineError, Result};
use crate::keys;
use kura_store::KeyRange;

const META_VERSION: u32 = 1;
const RECORD_VERSION: u8 = 1;

/// `ON_DEMAND` streams start with this many shards (Kinesis's figure).
pub(crate) const ON_DEMAND_SHARDS: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Mode {
    Provisioned,
    OnDemand,
}

impl Mode {
    pub(crate) fn parse(wire: &str) -> Option<Mode> {
        match wire {
            "PROVISIONED" => Some(Mode::Provisioned),
            "ON_DEMAND" => Some(Mode::OnDemand),
            _ => None,
        }
    }

    pub(crate) fn wire(self) -> &'static str {
        match self {
            Mode::Provisioned => "PROVISIONED",
            Mode::OnDemand => "ON_DEMAND",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct KinesisShard {
    pub number: u32,
    pub parent: Option<u32>,
    pub adjacent_parent: Option<u32>,
    pub hash_lo: u128,
    pub hash_hi: u128,
    /// The first sequence number it may hold (the stream's next one when it opened).
    pub first_seq: u64,
    /// Set once it is closed: the last sequence number it holds.
    pub last_seq: Option<u64>,
}

impl KinesisShard {
    pub(crate) fn id(&self) -> String {
        shard_id(self.number)
    }

    pub(crate) fn is_open(&self) -> bool {
        self.last_seq.is_none()
    }

    pub(crate) fn wire(&self) -> api::Shard {
        api::Shard {
            shard_id: self.id(),
            parent_shard_id: self.parent.map(shard_id),
            adjacent_parent_shard_id: self.adjacent_parent.map(shard_id),
            hash_key_range: api::HashKeyRange {
                starting_hash_key: self.hash_lo.to_string(),
                ending_hash_key: self.hash_hi.to_string(),
            },
            sequence_number_range: api::SequenceNumberRange {
                starting_sequence_number: sequence_string(self.first_seq),
                ending_sequence_number: self.last_seq.map(sequence_string),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct KinesisStream {
    pub v: u32,
    pub id: u64,
    pub name: String,
    pub mode: Mode,
    pub created_ms: i64,
    pub retention_hours: u32,
    /// The sequence number the next record gets.
    pub next_seq: u64,
    pub shards: Vec<KinesisShard>,
    pub tags: BTreeMap<String, String>,
}

impl KinesisStream {
    pub(crate) fn new(id: u64, name: &str, mode: Mode, shards: u32, now_ms: i64) -> Self {
        let count = u128::from(shards.max(1));
        // floor(2^128 / count): Kinesis's even split, the last shard taking the remainder
        // (one shard takes it all; 2^128 itself does not fit).
        let span = (u128::MAX / count).saturating_add(u128::from(u128::MAX % count + 1 == count));
        let shards = (0..count)
            .map(|i| KinesisShard {
                number: i as u32,
                parent: None,
                adjacent_parent: None,
                hash_lo: i * span,
                hash_hi: if i + 1 == count {
                    u128::MAX
                } else {
                    (i + 1) * span - 1
                },
                first_seq: 1,
                last_seq: None,
            })
            .collect();
        KinesisStream {
            v: META_VERSION,
            id,
            name: name.to_owned(),
            mode,
            created_ms: now_ms,
            retention_hours: 24,
            next_seq: 1,
            shards,
            tags: BTreeMap::new(),
        }
    }

    pub(crate) fn encode(&self) -> Result<Vec<u8>> {
        serde_json::to_vec(self)
            .map_err(|e| EngineError::Internal(format!("cannot encode Kinesis stream: {e}")))
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<KinesisStream> {
        let stream: KinesisStream = serde_json::from_slice(bytes)
            .map_err(|e| EngineError::Internal(format!("corrupt Kinesis stream record: {e}")))?;
        if stream.v != META_VERSION {
            return Err(EngineError::Internal(format!(
                "unsupported Kinesis stream record version {}",
                stream.v
            )));
        }
        Ok(stream)
    }

    pub(crate) fn key(&self) -> Vec<u8> {
        keys::kinesis_stream_key(self.id)
    }

    pub(crate) fn arn(&self, region: &str) -> String {
        stream_arn(region, &self.name)
    }

    pub(crate) fn shard(&self, shard_id: &str) -> Option<&KinesisShard> {
        let number = shard_number(shard_id)?;
        self.shards.iter().find(|s| s.number == number)
    }

    /// The open shard whose hash key range holds `hash`.
    pub(crate) fn shard_for(&self, hash: u128) -> Result<&KinesisShard> {
        self.shards
            .iter()
            .find(|s| s.is_open() && s.hash_lo <= hash && hash <= s.hash_hi)
            .ok_or_else(|| {
                EngineError::Internal(format!("no open shard of {} covers {hash}", self.name))
            })
    }

    /// The `Streams` key of record `seq` of shard `shard`.
    pub(crate) fn record_key(&self, shard: u32, seq: u64) -> Vec<u8> {
        keys::shard_record_key(self.id, shard, seq)
    }

    /// The `Streams` keys of shard `shard`'s records from `from_seq` on.
    pub(crate) fn records_from(&self, shard: u32, from_seq: u64) -> KeyRange {
        KeyRange {
            start: std::ops::Bound::Included(self.record_key(shard, from_seq)),
            end: KeyRange::prefix(&keys::shard_record_prefix(self.id, shard)).end,
        }
    }

    pub(crate) fn retention_ms(&self) -> i64 {
        i64::from(self.retention_hours) * 3_600_000
    }
}

/// A record as stored: arrival time and partition key, then the data.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StoredRecord {
    pub arrival_ms: i64,
    pub partition_key: String,
    pub data: Vec<u8>,
}

impl StoredRecord {
    /// version u8, arrival ms i64 BE, partition key length u16 BE, partition key, data.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let key = self.partition_key.as_bytes();
        let mut out = Vec::with_capacity(11 + key.len() + self.data.len());
        out.push(RECORD_VERSION);
        out.extend_from_slice(&self.arrival_ms.to_be_bytes());
        // Partition keys are at most 256 characters (1,024 bytes): checked before storing.
        out.extend_from_slice(&(key.len() as u16).to_be_bytes());
        out.extend_from_slice(key);
        out.extend_from_slice(&self.data);
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<StoredRecord> {
        let corrupt = || EngineError::Internal("corrupt Kinesis record".into());
        let (&version, rest) = bytes.split_first().ok_or_else(corrupt)?;
        if version != RECORD_VERSION {
            return Err(corrupt());
        }
        let (time, rest) = rest.split_at_checked(8).ok_or_else(corrupt)?;
        let (len, rest) = rest.split_at_checked(2).ok_or_else(corrupt)?;
        let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
        let (key, data) = rest.split_at_checked(len).ok_or_else(corrupt)?;
        Ok(StoredRecord {
            arrival_ms: i64::from_be_bytes(time.try_into().map_err(|_| corrupt())?),
            partition_key: String::from_utf8(key.to_vec()).map_err(|_| corrupt())?,
            data: data.to_vec(),
        })
    }

    /// The arrival time of a stored record, without decoding the rest.
    pub(crate) fn arrival_ms_of(bytes: &[u8]) -> Option<i64> {
        Some(i64::from_be_bytes(bytes.get(1..9)?.try_into().ok()?))
    }
}

/// The hash key of a partition key: its MD5 as an unsigned 128-bit big-endian integer.
pub(crate) fn hash_key(partition_key: &str) -> u128 {
    u128::from_be_bytes(Md5::digest(partition_key.as_bytes()).into())
}

pub(crate) fn shard_id(number: u32) -> String {
    format!("shardId-{number:012}")
}

/// The number of a shard id: `shardId-` and twelve digits (Kinesis also accepts the bare
/// digits, as the clients that trim the prefix send them).
pub(crate) fn shard_number(shard_id: &str) -> Option<u32> {
    let digits = shard_id.strip_prefix("shardId-").unwrap_or(shard_id);
    if digits.is_empty() || digits.len() > 12 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `49` and the sequence number in 54 digits: 56 digits, as Kinesis's are.
pub fn sequence_string(seq: u64) -> String {
    format!("49{seq:054}")
}

/// The sequence number a client sent, if this server could have issued it.
pub fn parse_sequence(text: &str) -> Option<u64> {
    let digits = text.strip_prefix("49").filter(|d| d.len() == 54)?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

pub(crate) fn stream_arn(region: &str, name: &str) -> String {
    format!(
        "arn:aws:kinesis:{region}:{}:stream/{name}",
        crate::ACCOUNT_ID
    )
}

/// The stream name of a Kinesis stream ARN.
pub(crate) fn name_of_arn(arn: &str) -> Option<&str> {
    let mut parts = arn.splitn(6, ':');
    let (arn_word, _, service) = (parts.next()?, parts.next()?, parts.next()?);
    let (_region, _account, resource) = (parts.next()?, parts.next()?, parts.next()?);
    if arn_word != "arn" || service != "kinesis" {
        return None;
    }
    resource.strip_prefix("stream/").filter(|n| !n.is_empty())
}

/// Epoch seconds with milliseconds, as JSON 1.1 writes timestamps.
pub(crate) fn epoch_seconds(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

/// `StreamName`: 1 to 128 characters of `[a-zA-Z0-9_.-]`.
pub(crate) fn stream_name_constraint(
    c: &mut Constraints,
    path: &str,
    name: Option<&str>,
    required: bool,
) {
    let Some(name) = name else {
        if required {
            c.not_null(path, None::<&&str>);
        }
        return;
    };
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    {
        c.fail(
            Some(name),
            path,
            "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
        );
    }
    c.length(path, name, name.chars().count(), 1, 128);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_hash_space_as_kinesis_does() {
        let two = KinesisStream::new(1, "s", Mode::Provisioned, 2, 0);
        assert_eq!(two.shards[0].hash_hi, (1u128 << 127) - 1);
        assert_eq!(two.shards[1].hash_lo, 1u128 << 127);
        let three = KinesisStream::new(1, "s", Mode::Provisioned, 3, 0);
        assert_eq!(
            three.shards[0].hash_hi.to_string(),
            "113427455640312821154458202477256070484"
        );
        assert_eq!(
            three.shards[2].hash_lo.to_string(),
            "226854911280625642308916404954512140970"
        );
        for n in [1, 2, 5, 7, 500] {
            let s = KinesisStream::new(1, "s", Mode::Provisioned, n, 0);
            assert_eq!(s.shards[0].hash_lo, 0);
            assert_eq!(s.shards.last().map(|s| s.hash_hi), Some(u128::MAX));
            assert!(
                s.shards
                    .windows(2)
                    .all(|w| w[0].hash_hi + 1 == w[1].hash_lo)
            );
        }
    }

    #[test]
    fn metadata_round_trips_with_128_bit_hash_keys() {
        let mut stream = KinesisStream::new(9, "orders", Mode::OnDemand, 4, 1_700_000_000_000);
        stream.tags.insert("team".into(), "a".into());
        stream.next_seq = 42;
        let bytes = stream.encode().expect("encode");
        assert_eq!(KinesisStream::decode(&bytes).expect("decode"), stream);
        assert!(KinesisStream::decode(b"{}").is_err());
    }

    #[test]
    fn records_and_sequence_numbers_round_trip() {
        let record = StoredRecord {
            arrival_ms: 1_700_000_000_123,
            partition_key: "pk-é".into(),
            data: vec![0, 1, 2, 255],
        };
        let bytes = record.encode();
        assert_eq!(StoredRecord::decode(&bytes).ok(), Some(record));
        assert_eq!(StoredRecord::arrival_ms_of(&bytes), Some(1_700_000_000_123));
        assert!(StoredRecord::decode(&bytes[..5]).is_err());
        assert_eq!(sequence_string(7).len(), 56);
        assert_eq!(parse_sequence(&sequence_string(7)), Some(7));
        assert_eq!(parse_sequence("12345"), None);
        assert_eq!(shard_number("shardId-000000000003"), Some(3));
        assert_eq!(shard_number("000000000003"), Some(3));
        assert_eq!(shard_number("shardId-x"), None);
    }

    #[test]
    fn partition_keys_hash_by_md5() {
        // MD5("a") = 0cc175b9c0f1b6a831c399e269772661.
        assert_eq!(hash_key("a"), 0x0cc175b9c0f1b6a831c399e269772661);
        assert_eq!(
            name_of_arn("arn:aws:kinesis:us-east-1:000000000000:stream/orders"),
            Some("orders")
        );
        assert_eq!(name_of_arn("arn:aws:dynamodb:us-east-1:0:table/t"), None);
    }
}
