//! Stream records: written by the item write itself, in its batch, so a change is never
//! without its record nor a record without its change.
//!
//! Stored value (`Streams` space): version u8, event u8 (1 INSERT, 2 MODIFY, 3 REMOVE),
//! flags u8 (bit 0: made by TTL), creation time i64 BE (ms), then three sections, each a
//! u32 BE length and an `item_codec` item, or `u32::MAX` when absent: keys, new image, old
//! image. Images are stored as the stream's view type asks. A global table's records
//! (flags bit 1) end with its last-write time: u32 BE length and a
//! [`ReplicaTime`](crate::replication::time::ReplicaTime); bit 2 marks a change a replica
//! sent.

use kura_expr::eval::compare::items_equal;
use kura_model::item_codec::{decode_item, encode_item};
use kura_model::{Item, KeySchema};

use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::keys;
use crate::replication::time::ReplicaTime;
use crate::streams::meta::StreamMeta;
use crate::writer::WriteContext;
use kura_store::Space;

const RECORD_VERSION: u8 = 1;
const ABSENT: u32 = u32::MAX;
const FLAG_TTL: u8 = 1;
const FLAG_TIMED: u8 = 2;
const FLAG_REPLICATED: u8 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventName {
    Insert,
    Modify,
    Remove,
}

impl EventName {
    pub fn wire(self) -> &'static str {
        match self {
            EventName::Insert => "INSERT",
            EventName::Modify => "MODIFY",
            EventName::Remove => "REMOVE",
        }
    }
}

/// Who made a change: a client request, the TTL expirer (DynamoDB marks its records), or
/// another replica of a global table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Request,
    Ttl,
    Replica,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredRecord {
    pub event: EventName,
    pub origin: Origin,
    pub created_ms: i64,
    pub keys: Item,
    pub new_image: Option<Item>,
    pub old_image: Option<Item>,
    /// When and where the change was made, on a global table.
    pub time: Option<ReplicaTime>,
}

impl StoredRecord {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![
            RECORD_VERSION,
            match self.event {
                EventName::Insert => 1,
                EventName::Modify => 2,
                EventName::Remove => 3,
            },
            match self.origin {
                Origin::Request => 0,
                Origin::Ttl => FLAG_TTL,
                Origin::Replica => FLAG_REPLICATED,
            } | if self.time.is_some() { FLAG_TIMED } else { 0 },
        ];
        out.extend_from_slice(&self.created_ms.to_be_bytes());
        for section in [
            Some(&self.keys),
            self.new_image.as_ref(),
            self.old_image.as_ref(),
        ] {
            match section {
                Some(item) => {
                    let bytes = encode_item(item);
                    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
                    out.extend_from_slice(&bytes);
                }
                None => out.extend_from_slice(&ABSENT.to_be_bytes()),
            }
        }
        if let Some(time) = &self.time {
            let bytes = time.encode();
            out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
            out.extend_from_slice(&bytes);
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<StoredRecord> {
        let corrupt = || EngineError::Internal("corrupt stream record".into());
        let (header, mut rest) = bytes.split_at_checked(11).ok_or_else(corrupt)?;
        if header[0] != RECORD_VERSION {
            return Err(corrupt());
        }
        let event = match header[1] {
            1 => EventName::Insert,
            2 => EventName::Modify,
            3 => EventName::Remove,
            _ => return Err(corrupt()),
        };
        let origin = if header[2] & FLAG_TTL != 0 {
            Origin::Ttl
        } else if header[2] & FLAG_REPLICATED != 0 {
            Origin::Replica
        } else {
            Origin::Request
        };
        let created_ms = i64::from_be_bytes(header[3..11].try_into().map_err(|_| corrupt())?);
        let mut sections = Vec::with_capacity(3);
        for _ in 0..3 {
            let (len, after) = rest.split_at_checked(4).ok_or_else(corrupt)?;
            let len = u32::from_be_bytes(len.try_into().map_err(|_| corrupt())?);
            if len == ABSENT {
                sections.push(None);
                rest = after;
                continue;
            }
            let (item, after) = after.split_at_checked(len as usize).ok_or_else(corrupt)?;
            sections.push(Some(decode_item(item).map_err(|_| corrupt())?));
            rest = after;
        }
        let time = if header[2] & FLAG_TIMED != 0 {
            let (len, after) = rest.split_at_checked(4).ok_or_else(corrupt)?;
            let len = u32::from_be_bytes(len.try_into().map_err(|_| corrupt())?);
            let bytes = after.get(..len as usize).ok_or_else(corrupt)?;
            Some(ReplicaTime::decode(bytes)?)
        } else {
            None
        };
        let mut sections = sections.into_iter();
        let keys = sections.next().flatten().ok_or_else(corrupt)?;
        Ok(StoredRecord {
            event,
            origin,
            created_ms,
            keys,
            new_image: sections.next().flatten(),
            old_image: sections.next().flatten(),
            time,
        })
    }

    /// Who made the record, when, and its global table's time, without decoding its
    /// images (replication skips what another replica sent, and counts a backlog).
    pub fn origin_of(bytes: &[u8]) -> Result<(Origin, i64, Option<ReplicaTime>)> {
        let corrupt = || EngineError::Internal("corrupt stream record".into());
        let (header, mut rest) = bytes.split_at_checked(11).ok_or_else(corrupt)?;
        let origin = if header[2] & FLAG_TTL != 0 {
            Origin::Ttl
        } else if header[2] & FLAG_REPLICATED != 0 {
            Origin::Replica
        } else {
            Origin::Request
        };
        let created_ms = i64::from_be_bytes(header[3..11].try_into().map_err(|_| corrupt())?);
        if header[2] & FLAG_TIMED == 0 {
            return Ok((origin, created_ms, None));
        }
        // Three sections, then the time: each a u32 BE length (or ABSENT) and its bytes.
        for _ in 0..3 {
            let (len, after) = rest.split_at_checked(4).ok_or_else(corrupt)?;
            let len = u32::from_be_bytes(len.try_into().map_err(|_| corrupt())?);
            rest = if len == ABSENT {
                after
            } else {
                after.get(len as usize..).ok_or_else(corrupt)?
            };
        }
        let (len, after) = rest.split_at_checked(4).ok_or_else(corrupt)?;
        let len = u32::from_be_bytes(len.try_into().map_err(|_| corrupt())?);
        let time = ReplicaTime::decode(after.get(..len as usize).ok_or_else(corrupt)?)?;
        Ok((origin, created_ms, Some(time)))
    }

    /// Only the creation time, without decoding the images (for trimming).
    pub fn created_ms_of(bytes: &[u8]) -> Option<i64> {
        Some(i64::from_be_bytes(bytes.get(3..11)?.try_into().ok()?))
    }
}

/// The key attributes of an item (what a change record's `Keys` holds).
pub(crate) fn key_attributes(schema: &KeySchema, item: &Item) -> Item {
    schema
        .attributes()
        .filter_map(|k| item.get_key_value(&k.name))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The hash that picks an item's shard: of its encoded partition key, mixed so that
/// neighbouring keys spread over the whole range (shards own ranges of it).
fn partition_hash(schema: &KeySchema, item: &Item) -> Result<u32> {
    let mut encoded = Vec::new();
    if let Some((_, value)) = item.get_key_value(&schema.hash.name) {
        kura_model::keycode::encode_key_value(value, &mut encoded)
            .map_err(|e| EngineError::Internal(format!("stream record key: {e}")))?;
    }
    // murmur3's finalizer.
    let mut h = keys::partition_hash(&encoded);
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    Ok(h)
}

/// Appends the record of one item change to the table's stream, if it has an enabled one.
/// A write that changes nothing has no record.
pub(crate) fn append(
    w: &mut WriteContext<'_>,
    table: &TableRecord,
    old: Option<&Item>,
    new: Option<&Item>,
    origin: Origin,
    time: Option<&ReplicaTime>,
) -> Result<()> {
    let Some(spec) = table.stream.as_ref().filter(|s| s.enabled) else {
        return Ok(());
    };
    let event = match (old, new) {
        (None, Some(_)) => EventName::Insert,
        // A write that changes no data has no record; set order is not data.
        (Some(o), Some(n)) if !items_equal(o, n) => EventName::Modify,
        (Some(_), None) => EventName::Remove,
        _ => return Ok(()),
    };
    let Some(any) = new.or(old) else {
        return Ok(());
    };
    let meta_key = keys::stream_meta_key(spec.id);
    let mut meta = match w.get(Space::Meta, &meta_key)? {
        Some(bytes) => StreamMeta::decode(&bytes)?,
        None => {
            return Err(EngineError::Internal(
                "a table's stream has no record".into(),
            ));
        }
    };
    let now = w.now_ms();
    let hash = partition_hash(&table.key_schema, any)?;
    let (shard, seq) = meta.assign(hash, now, &w.limits().shards)?;
    let record = StoredRecord {
        event,
        origin,
        created_ms: now,
        keys: key_attributes(&table.key_schema, any),
        new_image: new.filter(|_| spec.view_type.has_new()).cloned(),
        old_image: old.filter(|_| spec.view_type.has_old()).cloned(),
        time: time.cloned(),
    };
    w.put(Space::Streams, meta.record_key(shard, seq), record.encode());
    w.put(Space::Meta, meta_key, meta.encode()?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kura_model::AttributeValue;

    #[test]
    fn records_round_trip() {
        let keys: Item = [("pk".to_owned(), AttributeValue::s("a"))]
            .into_iter()
            .collect();
        let mut new = keys.clone();
        new.insert("x".into(), AttributeValue::Bool(true));
        let record = StoredRecord {
            event: EventName::Modify,
            origin: Origin::Ttl,
            created_ms: 1234,
            keys,
            new_image: Some(new),
            old_image: None,
            time: None,
        };
        let bytes = record.encode();
        assert_eq!(StoredRecord::decode(&bytes).expect("decode"), record);
        assert_eq!(StoredRecord::created_ms_of(&bytes), Some(1234));
        assert!(StoredRecord::decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(StoredRecord::decode(b"").is_err());
        let replicated = StoredRecord {
            origin: Origin::Replica,
            time: Some(ReplicaTime {
                ms: 99,
                region: "eu-west-1".into(),
            }),
            ..record
        };
        let bytes = replicated.encode();
        assert_eq!(StoredRecord::decode(&bytes).expect("decode"), replicated);
        assert_eq!(
            StoredRecord::origin_of(&bytes).expect("origin"),
            (Origin::Replica, 1234, replicated.time.clone())
        );
        assert!(StoredRecord::decode(&bytes[..bytes.len() - 1]).is_err());
    }
}
