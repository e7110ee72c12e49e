//! What a trigger must not forget across a `kill -9`: for each shard, the last sequence
//! number whose records are done (delivered, filtered out or sent to the failure
//! destination), whether the shard is finished, and the position a new shard starts after.
//! Written after every batch, before the next one is read: atomically (a new file renamed
//! over the old, both synced), so a crash leaves the old checkpoint or the new one, and a
//! restart redelivers at most the batch in flight (at least once, in order).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::TriggerError;

/// A shard's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ShardCheckpoint {
    /// Records up to this sequence number (21+ digits) are done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// The shard is closed and every record of it is done.
    #[serde(default)]
    pub finished: bool,
}

/// A trigger's saved state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SavedState {
    /// The definition of a trigger created through the admin endpoint (one from the
    /// triggers file is read from the file at each start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<Value>,
    /// The stream the checkpoints are of; another stream of the table starts afresh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_arn: Option<String>,
    /// Records up to this sequence number are not delivered (the stream's newest record
    /// when a trigger starting at LATEST began).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<String>,
    #[serde(default)]
    pub shards: BTreeMap<String, ShardCheckpoint>,
}

/// Where states are kept: a directory (one `NAME.json` per trigger), or nowhere (a server
/// with `--in-memory`).
#[derive(Debug, Clone)]
pub enum StateStore {
    Dir(PathBuf),
    Memory,
}

fn io(path: &Path, e: std::io::Error) -> TriggerError {
    TriggerError::State(format!("{}: {e}", path.display()))
}

impl StateStore {
    fn path(dir: &Path, name: &str) -> PathBuf {
        dir.join(format!("{name}.json"))
    }

    /// The saved state of trigger `name`, or a fresh one.
    pub fn load(&self, name: &str) -> Result<SavedState, TriggerError> {
        let StateStore::Dir(dir) = self else {
            return Ok(SavedState::default());
        };
        let path = Self::path(dir, name);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| TriggerError::State(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(SavedState::default()),
            Err(e) => Err(io(&path, e)),
        }
    }

    /// Every saved state, by trigger name.
    pub fn load_all(&self) -> Result<BTreeMap<String, SavedState>, TriggerError> {
        let StateStore::Dir(dir) = self else {
            return Ok(BTreeMap::new());
        };
        let mut out = BTreeMap::new();
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(io(dir, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| io(dir, e))?;
            let file = entry.file_name();
            let Some(name) = file.to_str().and_then(|f| f.strip_suffix(".json")) else {
                continue;
            };
            out.insert(name.to_owned(), self.load(name)?);
        }
        Ok(out)
    }

    /// Saves `state` durably before returning.
    pub fn save(&self, name: &str, state: &SavedState) -> Result<(), TriggerError> {
        let StateStore::Dir(dir) = self else {
            return Ok(());
        };
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let path = Self::path(dir, name);
        let temporary = dir.join(format!("{name}.json.new"));
        let bytes =
            serde_json::to_vec_pretty(state).map_err(|e| TriggerError::State(e.to_string()))?;
        let mut file = std::fs::File::create(&temporary).map_err(|e| io(&temporary, e))?;
        file.write_all(&bytes).map_err(|e| io(&temporary, e))?;
        file.sync_all().map_err(|e| io(&temporary, e))?;
        std::fs::rename(&temporary, &path).map_err(|e| io(&path, e))?;
        sync_dir(dir)
    }

    /// Forgets trigger `name` (deleted through the admin endpoint).
    pub fn remove(&self, name: &str) -> Result<(), TriggerError> {
        let StateStore::Dir(dir) = self else {
            return Ok(());
        };
        let path = Self::path(dir, name);
        match std::fs::remove_file(&path) {
            Ok(()) => sync_dir(dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io(&path, e)),
        }
    }
}

/// Makes a rename in `dir` durable.
fn sync_dir(dir: &Path) -> Result<(), TriggerError> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io(dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip_on_disk_and_are_forgotten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = StateStore::Dir(dir.path().join("triggers"));
        assert_eq!(store.load("t").expect("load"), SavedState::default());
        let mut state = SavedState {
            stream_arn: Some("arn".into()),
            floor: Some("000000000000000000007".into()),
            ..SavedState::default()
        };
        state.shards.insert(
            "shardId-1".into(),
            ShardCheckpoint {
                after: Some("000000000000000000042".into()),
                finished: false,
            },
        );
        store.save("t", &state).expect("save");
        assert_eq!(store.load("t").expect("load"), state);
        assert_eq!(store.load_all().expect("all").len(), 1);
        store.remove("t").expect("remove");
        assert!(store.load_all().expect("all").is_empty());
    }
}
