//! Key layouts of every key space (documented in `docs/design.md`; never change one
//! without a format version bump).
//!
//! - `Catalog`: table name (UTF-8) → table record.
//! - `Items`: table id (u64 BE) ‖ hash32(encoded pk) (u32 BE) ‖ encoded pk ‖ encoded sk
//!   → item. The hash prefix spreads partitions over the key space the way DynamoDB's
//!   partitioning does, so Scan order and parallel-scan segments follow the hash.
//! - `Indexes`: table id (u64 BE) ‖ index number (u32 BE) ‖ hash32(encoded index pk) ‖
//!   encoded index pk ‖ encoded index sk ‖ encoded table pk ‖ encoded table sk → the
//!   projected item. The table key makes entries unique where index keys are not. A
//!   multi-attribute GSI key's pk (sk) is the concatenation of its attributes' encodings.
//! - `Meta`: `format` → store format version; `next_table_id` → u64;
//!   `stats/` ‖ table id → table statistics; `istats/` ‖ table id ‖ index number → index
//!   statistics; `purge/` ‖ table id → a deleted table whose items are still being removed;
//!   `ipurge/` ‖ table id ‖ index number → a deleted index whose entries are;
//!   `coll/` ‖ table id ‖ encoded pk → bytes of that item collection (tables with LSIs);
//!   `next_stream_id` → u64; `iterator_key` → the 32-byte key shard iterators are
//!   signed with; `stream/` ‖ stream id → the stream's metadata;
//!   `slabel/` ‖ table name → creation time of that name's last stream;
//!   `txtok/` ‖ ClientRequestToken → the transaction's fingerprint, time and answer;
//!   `txexp/` ‖ time (ms, i64 BE) ‖ token → empty, so expired tokens are found in order;
//!   `kinesis/` ‖ stream name → a Kinesis stream's id (u64 BE, from `next_stream_id`);
//!   `kstream/` ‖ stream id → that Kinesis stream's metadata; `kpurge/` ‖ stream id → a
//!   deleted Kinesis stream whose records are still being removed.
//! - `Streams`: stream id (u64 BE) ‖ shard number (u32 BE) ‖ sequence number (u64 BE) →
//!   stream record (a DynamoDB stream's or a Kinesis stream's: ids come from one counter);
//!   streams enabled before shards existed have no shard number.
//! - `Ttl`: table id (u64 BE) ‖ expiry, epoch seconds (u64 BE) ‖ `Items` key → empty.

use kura_model::{ModelError, PrimaryKey};

pub const META_FORMAT: &[u8] = b"format";
pub const META_NEXT_TABLE_ID: &[u8] = b"next_table_id";
pub const META_NEXT_STREAM_ID: &[u8] = b"next_stream_id";
pub const META_ITERATOR_KEY: &[u8] = b"iterator_key";
const META_STREAM: &[u8] = b"stream/";
const META_STREAM_LABEL: &[u8] = b"slabel/";
const META_STATS: &[u8] = b"stats/";
const META_PURGE: &[u8] = b"purge/";
const META_INDEX_STATS: &[u8] = b"istats/";
const META_INDEX_PURGE: &[u8] = b"ipurge/";
const META_COLLECTION: &[u8] = b"coll/";
const META_TOKEN: &[u8] = b"txtok/";
const META_TOKEN_EXPIRY: &[u8] = b"txexp/";
const META_KINESIS_NAME: &[u8] = b"kinesis/";
const META_KINESIS_STREAM: &[u8] = b"kstream/";
const META_KINESIS_PURGE: &[u8] = b"kpurge/";
const META_REPLICA_TIME: &[u8] = b"rtime/";
const META_REPLICA_FEED: &[u8] = b"rfeed/";

/// The store format this build writes. Bump it with a migration when any layout changes.
pub const STORE_FORMAT_VERSION: u32 = 1;

/// FNV-1a 64, folded to 32 bits. Part of the on-disk format: it orders partitions.
pub fn partition_hash(encoded_pk: &[u8]) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in encoded_pk {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    ((h >> 32) as u32) ^ (h as u32)
}

/// The prefix shared by every item of a table.
pub fn table_prefix(table_id: u64) -> [u8; 8] {
    table_id.to_be_bytes()
}

/// The prefix shared by every entry of one index.
pub fn index_prefix(table_id: u64, index_number: u32) -> [u8; 12] {
    let mut out = [0u8; 12];
    out[..8].copy_from_slice(&table_prefix(table_id));
    out[8..].copy_from_slice(&index_number.to_be_bytes());
    out
}

/// The prefix shared by every key of one partition, under `space_prefix` (a table prefix
/// for items, an index prefix for index entries).
pub fn partition_prefix(space_prefix: &[u8], encoded_pk: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(space_prefix.len() + 4 + encoded_pk.len());
    out.extend_from_slice(space_prefix);
    out.extend_from_slice(&partition_hash(encoded_pk).to_be_bytes());
    out.extend_from_slice(encoded_pk);
    out
}

/// The `Items` key of one item.
pub fn item_key(table_id: u64, key: &PrimaryKey) -> Result<Vec<u8>, ModelError> {
    let mut out = partition_prefix(&table_prefix(table_id), &key.encode_hash()?);
    out.extend_from_slice(&key.encode_range()?);
    Ok(out)
}

/// The `Indexes` key of one entry: the index key, then the key of the table item. The
/// index key comes encoded: its partition key values, then its sort key values, each
/// list the concatenation of the values' encodings in KeySchema order (one value each
/// for a single-attribute key, whose entries thus have the item key layout).
pub fn index_entry_key(
    table_id: u64,
    index_number: u32,
    encoded_index_pk: &[u8],
    encoded_index_sk: &[u8],
    table_key: &PrimaryKey,
) -> Result<Vec<u8>, ModelError> {
    let mut out = partition_prefix(&index_prefix(table_id, index_number), encoded_index_pk);
    out.extend_from_slice(encoded_index_sk);
    out.extend_from_slice(&table_key.encode_hash()?);
    out.extend_from_slice(&table_key.encode_range()?);
    Ok(out)
}

/// The prefix of every item-collection size record of a table.
pub fn collection_prefix(table_id: u64) -> Vec<u8> {
    [META_COLLECTION, &table_prefix(table_id)].concat()
}

/// The size record of the item collection of one partition key.
pub fn collection_key(table_id: u64, encoded_pk: &[u8]) -> Vec<u8> {
    [collection_prefix(table_id).as_slice(), encoded_pk].concat()
}

/// The last-write time of a global table's item (`replication::time`), keyed by the
/// item's storage key (which starts with its table's prefix).
pub fn replica_time_key(storage_key: &[u8]) -> Vec<u8> {
    [META_REPLICA_TIME, storage_key].concat()
}

/// The prefix of every last-write time of a table's items.
pub fn replica_time_prefix(table_id: u64) -> Vec<u8> {
    [META_REPLICA_TIME, &table_prefix(table_id)].concat()
}

/// How far a replica has applied the changes of its table in `source_region`.
pub fn replica_feed_key(table_id: u64, source_region: &str) -> Vec<u8> {
    [
        replica_feed_prefix(table_id).as_slice(),
        source_region.as_bytes(),
    ]
    .concat()
}

/// The prefix of every replication checkpoint of a table.
pub fn replica_feed_prefix(table_id: u64) -> Vec<u8> {
    [META_REPLICA_FEED, &table_prefix(table_id)].concat()
}

pub fn index_stats_key(table_id: u64, index_number: u32) -> Vec<u8> {
    [META_INDEX_STATS, &index_prefix(table_id, index_number)].concat()
}

pub fn index_purge_key(table_id: u64, index_number: u32) -> Vec<u8> {
    [META_INDEX_PURGE, &index_prefix(table_id, index_number)].concat()
}

pub fn index_purge_prefix() -> &'static [u8] {
    META_INDEX_PURGE
}

/// The table id and index number of an `ipurge/` key.
pub fn index_of_purge_key(key: &[u8]) -> Option<(u64, u32)> {
    let rest = key.strip_prefix(META_INDEX_PURGE)?;
    let (table, index) = rest.split_at_checked(8)?;
    Some((
        u64::from_be_bytes(table.try_into().ok()?),
        u32::from_be_bytes(index.try_into().ok()?),
    ))
}

pub fn stream_meta_key(stream_id: u64) -> Vec<u8> {
    [META_STREAM, &stream_id.to_be_bytes()].concat()
}

/// The creation time (ms, i64 BE) of the last stream of the tables named `table`: stream
/// labels are creation times, and two streams of one name must never share one.
pub fn stream_label_key(table: &str) -> Vec<u8> {
    [META_STREAM_LABEL, table.as_bytes()].concat()
}

pub fn stream_meta_prefix() -> &'static [u8] {
    META_STREAM
}

/// The record of a transaction's `ClientRequestToken`.
pub fn token_key(token: &str) -> Vec<u8> {
    [META_TOKEN, token.as_bytes()].concat()
}

/// The entry that finds a token's record once it is `created_ms` old.
pub fn token_expiry_key(created_ms: i64, token: &str) -> Vec<u8> {
    [
        META_TOKEN_EXPIRY,
        &created_ms.to_be_bytes(),
        token.as_bytes(),
    ]
    .concat()
}

pub fn token_expiry_prefix() -> &'static [u8] {
    META_TOKEN_EXPIRY
}

/// The time and token of a `txexp/` key.
pub fn parse_token_expiry_key(key: &[u8]) -> Option<(i64, &str)> {
    let rest = key.strip_prefix(META_TOKEN_EXPIRY)?;
    let (time, token) = rest.split_at_checked(8)?;
    Some((
        i64::from_be_bytes(time.try_into().ok()?),
        std::str::from_utf8(token).ok()?,
    ))
}

/// The `Streams` key of one record.
pub fn stream_record_key(stream_id: u64, seq: u64) -> Vec<u8> {
    [stream_id.to_be_bytes(), seq.to_be_bytes()].concat()
}

/// The `Streams` key of one record of a sharded stream.
pub fn shard_record_key(stream_id: u64, shard: u32, seq: u64) -> Vec<u8> {
    [
        &stream_id.to_be_bytes()[..],
        &shard.to_be_bytes(),
        &seq.to_be_bytes(),
    ]
    .concat()
}

/// The prefix of every record of one shard of a sharded stream.
pub fn shard_record_prefix(stream_id: u64, shard: u32) -> Vec<u8> {
    [&stream_id.to_be_bytes()[..], &shard.to_be_bytes()].concat()
}

/// The sequence number of a `Streams` key (its last eight bytes, in either layout).
pub fn seq_of_record_key(key: &[u8]) -> Option<u64> {
    let start = key.len().checked_sub(8).filter(|&s| s >= 8)?;
    Some(u64::from_be_bytes(key.get(start..)?.try_into().ok()?))
}

/// The `Ttl` key of an item that expires at `expiry_s`.
pub fn ttl_key(table_id: u64, expiry_s: u64, storage_key: &[u8]) -> Vec<u8> {
    [
        &table_prefix(table_id)[..],
        &expiry_s.to_be_bytes(),
        storage_key,
    ]
    .concat()
}

/// The expiry time and `Items` key of a `Ttl` key.
pub fn parse_ttl_key(key: &[u8]) -> Option<(u64, &[u8])> {
    let expiry = u64::from_be_bytes(key.get(8..16)?.try_into().ok()?);
    Some((expiry, key.get(16..)?))
}

pub fn stats_key(table_id: u64) -> Vec<u8> {
    [META_STATS, &table_id.to_be_bytes()].concat()
}

pub fn purge_key(table_id: u64) -> Vec<u8> {
    [META_PURGE, &table_id.to_be_bytes()].concat()
}

pub fn purge_prefix() -> &'static [u8] {
    META_PURGE
}

/// The table id of a `purge/` key.
pub fn table_id_of_purge_key(key: &[u8]) -> Option<u64> {
    let id = key.strip_prefix(META_PURGE)?;
    Some(u64::from_be_bytes(id.try_into().ok()?))
}

/// The `Meta` key holding the id of the Kinesis stream named `name`.
pub fn kinesis_name_key(name: &str) -> Vec<u8> {
    [META_KINESIS_NAME, name.as_bytes()].concat()
}

pub fn kinesis_name_prefix() -> &'static [u8] {
    META_KINESIS_NAME
}

/// The `Meta` key of Kinesis stream `id`'s metadata.
pub fn kinesis_stream_key(id: u64) -> Vec<u8> {
    [META_KINESIS_STREAM, &id.to_be_bytes()].concat()
}

pub fn kinesis_stream_prefix() -> &'static [u8] {
    META_KINESIS_STREAM
}

/// The marker of a deleted Kinesis stream whose records are still being removed.
pub fn kinesis_purge_key(id: u64) -> Vec<u8> {
    [META_KINESIS_PURGE, &id.to_be_bytes()].concat()
}

pub fn kinesis_purge_prefix() -> &'static [u8] {
    META_KINESIS_PURGE
}

/// The stream id of a `kpurge/` key.
pub fn stream_id_of_kinesis_purge_key(key: &[u8]) -> Option<u64> {
    let id = key.strip_prefix(META_KINESIS_PURGE)?;
    Some(u64::from_be_bytes(id.try_into().ok()?))
}

/// Per-table statistics kept exact in the same batch as every item write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableStats {
    pub item_count: u64,
    pub size_bytes: u64,
}

const STATS_VERSION: u8 = 1;

impl TableStats {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(17);
        out.push(STATS_VERSION);
        out.extend_from_slice(&self.item_count.to_be_bytes());
        out.extend_from_slice(&self.size_bytes.to_be_bytes());
        out
    }

    /// Reads a stored record; a corrupt one is an error, never silently zero.
    pub fn read(bytes: Option<Vec<u8>>) -> Result<TableStats, crate::EngineError> {
        match bytes {
            None => Ok(TableStats::default()),
            Some(b) => TableStats::decode(&b).ok_or_else(|| {
                crate::EngineError::Internal("corrupt table statistics record".into())
            }),
        }
    }

    pub fn decode(bytes: &[u8]) -> Option<TableStats> {
        let (&version, rest) = bytes.split_first()?;
        if version != STATS_VERSION || rest.len() != 16 {
            return None;
        }
        let (count, size) = rest.split_at(8);
        Some(TableStats {
            item_count: u64::from_be_bytes(count.try_into().ok()?),
            size_bytes: u64::from_be_bytes(size.try_into().ok()?),
        })
    }

    /// Applies one item change: sizes of the old and new item, if any.
    pub fn apply(&mut self, old: Option<usize>, new: Option<usize>) {
        if let Some(old) = old {
            self.item_count = self.item_count.saturating_sub(1);
            self.size_bytes = self.size_bytes.saturating_sub(old as u64);
        }
        if let Some(new) = new {
            self.item_count += 1;
            self.size_bytes += new as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_round_trip() {
        let s = TableStats {
            item_count: 7,
            size_bytes: 1 << 40,
        };
        assert_eq!(TableStats::decode(&s.encode()), Some(s));
        assert_eq!(TableStats::decode(b"\x02"), None);
    }

    #[test]
    fn partition_hash_is_stable() {
        // Part of the on-disk format: these values must never change.
        assert_eq!(partition_hash(b""), 0xcbf29ce4 ^ 0x84222325);
        assert_eq!(partition_hash(b"a"), {
            let h: u64 = (0xcbf2_9ce4_8422_2325u64 ^ 0x61).wrapping_mul(0x0100_0000_01b3);
            ((h >> 32) as u32) ^ (h as u32)
        });
    }

    #[test]
    fn purge_keys_round_trip() {
        assert_eq!(table_id_of_purge_key(&purge_key(42)), Some(42));
        assert_eq!(table_id_of_purge_key(b"purge/x"), None);
        assert_eq!(index_of_purge_key(&index_purge_key(42, 7)), Some((42, 7)));
        assert_eq!(index_of_purge_key(b"ipurge/x"), None);
    }
}
