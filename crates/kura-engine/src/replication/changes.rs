//! The changes one replica sends another: read from the source table's stream (the records
//! of its own writes, each with its last-write time), and applied to the replica in one
//! writer job that also moves the replica's checkpoint, so a change is applied once even
//! across a `kill -9`. A change older than what the replica holds is dropped: last writer
//! wins, whatever order the changes arrive in.

use kura_model::Item;

use super::time::{self, ReplicaTime};
use crate::Engine;
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::items::{apply_item_change_at, read_current};
use crate::keys;
use crate::streams::meta::StreamMeta;
use crate::streams::record::{Origin, StoredRecord};
use kura_store::{Direction, Space};

/// One item change for a replica: the item's key, its new value (None: deleted), and when
/// and where it was written.
#[derive(Debug, Clone)]
pub struct Change {
    pub keys: Item,
    pub new_image: Option<Item>,
    pub time: ReplicaTime,
}

/// How far a replica has applied a source's stream: its id and last sequence number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checkpoint {
    pub stream_id: u64,
    pub seq: u64,
}

impl Checkpoint {
    fn encode(self) -> Vec<u8> {
        [self.stream_id.to_be_bytes(), self.seq.to_be_bytes()].concat()
    }

    fn decode(bytes: &[u8]) -> Result<Checkpoint> {
        let corrupt = || EngineError::Internal("corrupt replication checkpoint".into());
        let (id, seq) = bytes.split_at_checked(8).ok_or_else(corrupt)?;
        Ok(Checkpoint {
            stream_id: u64::from_be_bytes(id.try_into().map_err(|_| corrupt())?),
            seq: u64::from_be_bytes(seq.try_into().map_err(|_| corrupt())?),
        })
    }
}

/// A page of changes and the checkpoint after them.
#[derive(Debug, Default)]
pub struct Feed {
    pub changes: Vec<Change>,
    pub next: Checkpoint,
    /// The oldest change's age at reading (ms), for the replication latency.
    pub oldest_ms: Option<i64>,
}

impl Engine {
    /// Up to `limit` changes this replica's own writes made to `table` after `from`
    /// (changes other replicas sent are theirs to send). None: the table has no stream.
    pub fn replication_feed(
        &self,
        table: &str,
        from: Checkpoint,
        limit: usize,
    ) -> Result<Option<Feed>> {
        let now = self.now_ms();
        let mut rows: Vec<(u64, StoredRecord)> = Vec::new();
        let unsent = self.unsent(table, from, limit, |seq, bytes| {
            rows.push((seq, StoredRecord::decode(bytes)?));
            Ok(())
        })?;
        let Some(next) = unsent else {
            return Ok(None);
        };
        let mut feed = Feed {
            next,
            ..Feed::default()
        };
        rows.sort_by_key(|(seq, _)| *seq);
        for (seq, stored) in rows {
            if seq > next.seq {
                break;
            }
            let Some(time) = stored.time else { continue };
            feed.oldest_ms.get_or_insert(now - stored.created_ms);
            feed.changes.push(Change {
                keys: stored.keys,
                new_image: stored.new_image,
                time,
            });
        }
        Ok(Some(feed))
    }

    /// How many of this replica's own changes to `table` after `from` are still to send,
    /// and the age of the oldest (ms), counted without decoding their images.
    pub fn replication_backlog(
        &self,
        table: &str,
        from: Checkpoint,
    ) -> Result<Option<(usize, Option<i64>)>> {
        let (mut count, mut oldest) = (0, None::<i64>);
        let unsent = self.unsent(table, from, usize::MAX, |_, bytes| {
            let (_, created_ms, _) = StoredRecord::origin_of(bytes)?;
            count += 1;
            oldest = Some(oldest.map_or(created_ms, |o| o.min(created_ms)));
            Ok(())
        })?;
        let now = self.now_ms();
        Ok(unsent.map(|_| (count, oldest.map(|ms| now - ms))))
    }

    /// Visits the stream records of `table` after `from` that its own writes made (not
    /// those another replica sent), up to `limit` per shard, and gives the checkpoint after
    /// the last one every shard was read to: a visited record past it is not part of the
    /// page. None: the table has no stream or is no replica.
    fn unsent(
        &self,
        table: &str,
        from: Checkpoint,
        limit: usize,
        mut visit: impl FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<Option<Checkpoint>> {
        let Some(record) = self.catalog.get(table) else {
            return Ok(None);
        };
        let Some(spec) = record.stream.as_ref().filter(|s| s.enabled) else {
            return Ok(None);
        };
        let Some(region) = record.replication.as_ref().map(|r| r.region.as_str()) else {
            return Ok(None);
        };
        let after = if from.stream_id == spec.id {
            from.seq
        } else {
            0
        };
        let snapshot = self.store.snapshot()?;
        let Some(meta) = snapshot.get(Space::Meta, &keys::stream_meta_key(spec.id))? else {
            return Ok(None);
        };
        let meta = StreamMeta::decode(&meta)?;
        // Sequence numbers are the stream's, not a shard's: every shard is read from the
        // same point and the page ends at the lowest last number read, so nothing is
        // skipped when one shard has more than a page.
        let mut end = meta.next_seq - 1;
        for shard in &meta.shards {
            if shard.last_seq.is_some_and(|last| last <= after) {
                continue;
            }
            let from_seq = (after + 1).max(shard.first_seq);
            let range = meta.shard_records(shard, from_seq);
            for (read, row) in snapshot
                .range(Space::Streams, range, Direction::Forward)
                .enumerate()
            {
                let (key, value) = row?;
                let seq = keys::seq_of_record_key(&key)
                    .ok_or_else(|| EngineError::Internal("corrupt stream record key".into()))?;
                if read == limit {
                    end = end.min(seq - 1);
                    break;
                }
                let (origin, _, time) = StoredRecord::origin_of(&value)?;
                if origin != Origin::Replica && time.is_some_and(|t| t.region == region) {
                    visit(seq, &value)?;
                }
            }
        }
        Ok(Some(Checkpoint {
            stream_id: spec.id,
            seq: end.max(after),
        }))
    }

    /// How far this replica of `table` has applied the changes of its replica in `source`.
    pub fn replication_checkpoint(&self, table: &str, source: &str) -> Result<Checkpoint> {
        let Some(record) = self.catalog.get(table) else {
            return Ok(Checkpoint::default());
        };
        let snapshot = self.store.snapshot()?;
        match snapshot.get(Space::Meta, &keys::replica_feed_key(record.id, source))? {
            Some(bytes) => Checkpoint::decode(&bytes),
            None => Ok(Checkpoint::default()),
        }
    }

    /// Applies `changes` from the replica in `source` to this replica of `table`, each only
    /// if it is newer than what the item holds, and moves the checkpoint to `next` (None:
    /// a copy of the source's items, which has no checkpoint). Returns how many changed
    /// the replica; the conflicts among the rest are counted for the design advisor.
    pub async fn apply_replicated(
        &self,
        table: &str,
        source: &str,
        changes: Vec<Change>,
        next: Option<Checkpoint>,
    ) -> Result<usize> {
        let catalog = self.catalog.clone();
        let (table_name, source) = (table.to_owned(), source.to_owned());
        let table = table_name.clone();
        self.writer
            .submit(false, move |w| {
                let record = catalog.get(&table).ok_or_else(|| {
                    EngineError::ResourceNotFound(kura_model::messages::table_not_found(&table))
                })?;
                if record.replication.is_none() {
                    return Err(EngineError::validation(format!(
                        "Table {table} is not a replica of a global table"
                    )));
                }
                let mut applied = 0;
                let mut conflicts = Conflicts::default();
                for change in changes {
                    match apply_one(w, &record, change)? {
                        Outcome::Applied => applied += 1,
                        Outcome::Older => {}
                        Outcome::Conflict(example) => conflicts.add(example),
                    }
                }
                if let Some(next) = next {
                    // Never backwards: an MRSC write and the replication thread may send
                    // the same page at once, and the later of them may have read less.
                    let key = keys::replica_feed_key(record.id, &source);
                    let held = match w.get(Space::Meta, &key)? {
                        Some(bytes) => Checkpoint::decode(&bytes)?,
                        None => Checkpoint::default(),
                    };
                    if held.stream_id != next.stream_id || held.seq < next.seq {
                        w.put(Space::Meta, key, next.encode());
                    }
                }
                Ok((applied, conflicts))
            })
            .await
            .map(|(applied, conflicts)| {
                let Conflicts { count, example } = conflicts;
                if count > 0 {
                    self.telemetry()
                        .application(&table_name)
                        .traffic
                        .replica_conflicts(count, || example.unwrap_or_default());
                }
                applied
            })
    }
}

/// What became of one change a replica received.
enum Outcome {
    Applied,
    /// Older than the item's last write, which came from the change's own region or from
    /// a third one: nothing here wrote without having seen it.
    Older,
    /// Older than a write made here that had not seen it: two regions wrote the item
    /// concurrently, and this one's later write won (described for the advisor).
    Conflict(String),
}

#[derive(Default)]
struct Conflicts {
    count: u64,
    example: Option<String>,
}

impl Conflicts {
    fn add(&mut self, example: String) {
        self.count += 1;
        self.example.get_or_insert(example);
    }
}

/// Applies one change if it is newer than the item's last write.
fn apply_one(
    w: &mut crate::writer::WriteContext<'_>,
    table: &TableRecord,
    change: Change,
) -> Result<Outcome> {
    let key = table.key_schema.key_of_item(&change.keys)?;
    let storage_key = keys::item_key(table.id, &key)?;
    if let Some(last) = time::stored(w, &storage_key)?
        && last >= change.time
    {
        return Ok(conflict_or_older(table, &change, &last));
    }
    let old = read_current(w, &storage_key)?;
    let new = change.new_image;
    if old.is_none() && new.is_none() {
        // Nothing to delete, but the time stays: an older write must not bring it back.
        time::record(w, &storage_key, &change.time);
        return Ok(Outcome::Applied);
    }
    apply_item_change_at(
        w,
        table,
        storage_key,
        old.as_ref(),
        new,
        Origin::Replica,
        Some(change.time),
    )?;
    Ok(Outcome::Applied)
}

/// A change older than the item's `last` write is a conflict only when that write was
/// made here, by a request that had not seen the change (it would have been later still),
/// and came from elsewhere. Counted once, in the region whose write won. An MRSC table
/// refuses conflicting writes, so what it drops is a page sent twice.
fn conflict_or_older(table: &TableRecord, change: &Change, last: &ReplicaTime) -> Outcome {
    let Some(group) = &table.replication else {
        return Outcome::Older;
    };
    if group.strong
        || *last == change.time
        || last.region != group.region
        || change.time.region == group.region
    {
        return Outcome::Older;
    }
    let key: Vec<String> = change
        .keys
        .iter()
        .map(|(name, value)| format!("{name}={}", crate::counters::key_text(value)))
        .collect();
    Outcome::Conflict(format!(
        "{{{}}}: written in {} and, later, in {} before that write arrived",
        key.join(", "),
        change.time.region,
        last.region
    ))
}
