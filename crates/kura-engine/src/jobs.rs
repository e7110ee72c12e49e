//! The records of long jobs (exports, imports): JSON under a prefix ‖ id in `Meta`, read
//! from a snapshot or inside a write, listed oldest id first. One reader and writer for
//! both kinds, so a record is never read one way and written another.

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{EngineError, Result};
use crate::writer::WriteContext;
use kura_store::{Direction, KeyRange, Snapshot, Space};

/// The stored records of one kind of job.
pub(crate) struct JobRecords<R> {
    prefix: &'static [u8],
    /// What a record is, for the error of one that cannot be encoded or decoded.
    what: &'static str,
    record: PhantomData<fn() -> R>,
}

impl<R: Serialize + DeserializeOwned> JobRecords<R> {
    pub(crate) const fn new(prefix: &'static [u8], what: &'static str) -> JobRecords<R> {
        JobRecords {
            prefix,
            what,
            record: PhantomData,
        }
    }

    pub(crate) fn key(&self, id: &str) -> Vec<u8> {
        [self.prefix, id.as_bytes()].concat()
    }

    /// Job `id` as `snapshot` holds it.
    pub(crate) fn read(&self, snapshot: &dyn Snapshot, id: &str) -> Result<Option<R>> {
        let found = snapshot.get(Space::Meta, &self.key(id))?;
        found.map(|bytes| self.decode(&bytes)).transpose()
    }

    /// Job `id` as the write `w` sees it (its own puts included).
    pub(crate) fn read_in(&self, w: &WriteContext<'_>, id: &str) -> Result<Option<R>> {
        let found = w.get(Space::Meta, &self.key(id))?;
        found.map(|bytes| self.decode(&bytes)).transpose()
    }

    /// Stages `record` as job `id`'s.
    pub(crate) fn write(&self, w: &mut WriteContext<'_>, id: &str, record: &R) -> Result<()> {
        let bytes = serde_json::to_vec(record)
            .map_err(|e| EngineError::Internal(format!("cannot encode {}: {e}", self.what)))?;
        w.put(Space::Meta, self.key(id), bytes);
        Ok(())
    }

    /// Every record, oldest id first.
    pub(crate) fn all(&self, snapshot: &dyn Snapshot) -> Result<Vec<R>> {
        snapshot
            .range(
                Space::Meta,
                KeyRange::prefix(self.prefix),
                Direction::Forward,
            )
            .map(|row| self.decode(&row?.1))
            .collect()
    }

    fn decode(&self, bytes: &[u8]) -> Result<R> {
        serde_json::from_slice(bytes)
            .map_err(|e| EngineError::Internal(format!("corrupt {} record: {e}", self.what)))
    }
}
