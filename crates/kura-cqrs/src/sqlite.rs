//! A SQLite read model: a [`SyncHandler`] keeping each entity's latest version in a SQLite
//! table, idempotent by version (an older or repeated version changes nothing), and a log
//! of every version it was given (so tests can see that none is missing).

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, params};

use crate::command::CommandModel;
use crate::error::{CqrsError, Result};
use crate::sync::SyncHandler;

pub struct SqliteReadModel {
    connection: Mutex<Connection>,
}

fn sql_error(e: rusqlite::Error) -> CqrsError {
    CqrsError::Malformed(format!("sqlite: {e}"))
}

impl SqliteReadModel {
    /// Opens (or creates) the read model at `path`.
    pub fn open(path: &Path) -> Result<SqliteReadModel> {
        let connection = Connection::open(path).map_err(sql_error)?;
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL;
                 PRAGMA synchronous = FULL;
                 CREATE TABLE IF NOT EXISTS entities (
                     id TEXT PRIMARY KEY, pk TEXT NOT NULL, sk TEXT NOT NULL,
                     version INTEGER NOT NULL, is_deleted INTEGER NOT NULL,
                     attributes TEXT NOT NULL);
                 CREATE TABLE IF NOT EXISTS versions (
                     id TEXT NOT NULL, version INTEGER NOT NULL,
                     PRIMARY KEY (id, version));",
            )
            .map_err(sql_error)?;
        Ok(SqliteReadModel {
            connection: Mutex::new(connection),
        })
    }

    fn apply(&self, command: &CommandModel) -> std::result::Result<(), String> {
        let mut connection = self
            .connection
            .lock()
            .map_err(|_| "the read model's lock is poisoned".to_owned())?;
        let tx = connection.transaction().map_err(|e| e.to_string())?;
        let attributes = serde_json::Value::Object(command.attributes.clone()).to_string();
        tx.execute(
            "INSERT INTO entities (id, pk, sk, version, is_deleted, attributes)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (id) DO UPDATE SET version = excluded.version,
                 is_deleted = excluded.is_deleted, attributes = excluded.attributes
             WHERE excluded.version > entities.version",
            params![
                command.id,
                command.pk,
                command.base_sk(),
                command.version.get(),
                command.is_deleted,
                attributes
            ],
        )
        .map_err(|e| e.to_string())?;
        tx.execute(
            "INSERT OR IGNORE INTO versions (id, version) VALUES (?1, ?2)",
            params![command.id, command.version.get()],
        )
        .map_err(|e| e.to_string())?;
        tx.commit().map_err(|e| e.to_string())
    }

    /// Every entity's (id, latest version, attributes as JSON text), by id.
    pub fn entities(&self) -> Result<Vec<(String, i64, String)>> {
        let connection = self
            .connection
            .lock()
            .map_err(|_| CqrsError::Malformed("the read model's lock is poisoned".into()))?;
        let mut statement = connection
            .prepare("SELECT id, version, attributes FROM entities ORDER BY id")
            .map_err(sql_error)?;
        let rows = statement
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(sql_error)?;
        rows.collect::<std::result::Result<_, _>>()
            .map_err(sql_error)
    }

    /// How many distinct versions of `id` were delivered.
    pub fn versions_seen(&self, id: &str) -> Result<i64> {
        let connection = self
            .connection
            .lock()
            .map_err(|_| CqrsError::Malformed("the read model's lock is poisoned".into()))?;
        connection
            .query_row(
                "SELECT COUNT(*) FROM versions WHERE id = ?1",
                params![id],
                |r| r.get(0),
            )
            .map_err(sql_error)
    }
}

impl SyncHandler for SqliteReadModel {
    fn id(&self) -> &str {
        "sqlite-read-model"
    }

    fn up<'a>(&'a self, command: &'a CommandModel) -> crate::sync::HandlerFuture<'a> {
        Box::pin(async move { Ok(self.apply(command)?) })
    }
}
