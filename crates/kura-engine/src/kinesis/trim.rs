//! Retention: a Kinesis record is removed once it is older than its stream's retention
//! period. Reads skip such records at once; the sweeper deletes them, a chunk per writer
//! job, so a stream's disk use follows its retention.

use std::sync::atomic::{AtomicBool, Ordering};

use super::stream::{KinesisStream, StoredRecord};
use crate::error::Result;
use crate::keys;
use crate::writer::Writer;
use kura_store::{Direction, KeyRange, Space, Store};

/// Most records deleted by one writer job.
const CHUNK: usize = 1024;

/// Deletes the expired records of every Kinesis stream.
pub(crate) fn trim_all(
    store: &dyn Store,
    writer: &Writer,
    now_ms: i64,
    stop: &AtomicBool,
) -> Result<()> {
    let snapshot = store.snapshot()?;
    let streams: Vec<KinesisStream> = snapshot
        .range(
            Space::Meta,
            KeyRange::prefix(keys::kinesis_stream_prefix()),
            Direction::Forward,
        )
        .map(|row| {
            row.map_err(Into::into)
                .and_then(|(_, v)| KinesisStream::decode(&v))
        })
        .collect::<Result<_>>()?;
    drop(snapshot);
    for stream in streams {
        let cutoff = now_ms.saturating_sub(stream.retention_ms());
        for shard in &stream.shards {
            loop {
                if stop.load(Ordering::SeqCst) {
                    return Ok(());
                }
                let snapshot = store.snapshot()?;
                let mut expired = Vec::new();
                for row in snapshot.range(
                    Space::Streams,
                    KeyRange::prefix(&keys::shard_record_prefix(stream.id, shard.number)),
                    Direction::Forward,
                ) {
                    let (key, value) = row?;
                    if StoredRecord::arrival_ms_of(&value).is_none_or(|t| t >= cutoff) {
                        break;
                    }
                    expired.push(key);
                    if expired.len() >= CHUNK {
                        break;
                    }
                }
                drop(snapshot);
                let full = expired.len() >= CHUNK;
                if !expired.is_empty() {
                    writer.submit_blocking(false, move |w| {
                        for key in expired {
                            w.delete(Space::Streams, key);
                        }
                        Ok(())
                    })?;
                }
                if !full {
                    break;
                }
            }
        }
    }
    Ok(())
}
