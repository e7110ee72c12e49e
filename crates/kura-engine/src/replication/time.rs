//! When and where an item of a global table was last written: the order last-writer-wins
//! settles concurrent writes by, kept per item (`rtime/` in the `Meta` space, beside the
//! item, so a delete leaves its time behind and an older write cannot bring the item back)
//! and carried by every stream record of the table, so a replica applies a change with the
//! time it was made.
//!
//! Stored form: time i64 BE (ms), then the region's name.

use std::cmp::Ordering;

use crate::error::{EngineError, Result};
use crate::keys;
use crate::writer::WriteContext;
use kura_store::Space;

/// When (ms) and in which region an item was last written. Later times win; the same
/// millisecond in two regions is settled by the region's name, so every replica agrees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaTime {
    pub ms: i64,
    pub region: String,
}

impl Ord for ReplicaTime {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.ms, &self.region).cmp(&(other.ms, &other.region))
    }
}

impl PartialOrd for ReplicaTime {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl ReplicaTime {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.region.len());
        out.extend_from_slice(&self.ms.to_be_bytes());
        out.extend_from_slice(self.region.as_bytes());
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<ReplicaTime> {
        let corrupt = || EngineError::Internal("corrupt replica time".into());
        let (ms, region) = bytes.split_at_checked(8).ok_or_else(corrupt)?;
        Ok(ReplicaTime {
            ms: i64::from_be_bytes(ms.try_into().map_err(|_| corrupt())?),
            region: String::from_utf8(region.to_vec()).map_err(|_| corrupt())?,
        })
    }
}

/// The time an item was last written at, if it was written since its table became global.
pub(crate) fn stored(w: &WriteContext<'_>, storage_key: &[u8]) -> Result<Option<ReplicaTime>> {
    w.get(Space::Meta, &keys::replica_time_key(storage_key))?
        .map(|bytes| ReplicaTime::decode(&bytes))
        .transpose()
}

/// The time of a local write in `region`: now, but always after the item's last time, so a
/// local write replaces what a replica sent even if that replica's clock ran ahead.
pub(crate) fn local(w: &WriteContext<'_>, storage_key: &[u8], region: &str) -> Result<ReplicaTime> {
    let now = w.now_ms();
    let ms = match stored(w, storage_key)? {
        Some(last) => now.max(last.ms + 1),
        None => now,
    };
    Ok(ReplicaTime {
        ms,
        region: region.to_owned(),
    })
}

/// Records `time` as the item's last write.
pub(crate) fn record(w: &mut WriteContext<'_>, storage_key: &[u8], time: &ReplicaTime) {
    w.put(
        Space::Meta,
        keys::replica_time_key(storage_key),
        time.encode(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: i64, region: &str) -> ReplicaTime {
        ReplicaTime {
            ms,
            region: region.into(),
        }
    }

    #[test]
    fn later_wins_and_the_region_settles_a_tie() {
        assert!(at(2, "a") > at(1, "z"));
        assert!(at(1, "eu-west-1") > at(1, "ap-south-1"));
        assert_eq!(at(1, "a").cmp(&at(1, "a")), Ordering::Equal);
    }

    #[test]
    fn times_round_trip_and_short_bytes_are_refused() {
        let t = at(1_700_000_000_123, "us-west-2");
        assert_eq!(ReplicaTime::decode(&t.encode()).unwrap(), t);
        assert!(ReplicaTime::decode(b"1234").is_err());
    }
}
