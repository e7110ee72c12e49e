//! Sync handlers: read models fed with every command version, by the projector and by
//! `publish_sync`.

use std::future::Future;
use std::pin::Pin;

use crate::command::CommandModel;

/// A read model fed by the projector (a SQLite or PostgreSQL table, a search index...).
/// Delivery is at least once: `up` may see a version again after a crash, and must treat
/// a version it already has as done.
pub trait SyncHandler: Send + Sync {
    /// A stable id (not a type name): it names the handler in the dead-letter table.
    fn id(&self) -> &str;
    /// Applies one command version.
    fn up<'a>(
        &'a self,
        command: &'a CommandModel,
    ) -> Pin<Box<dyn Future<Output = std::result::Result<(), String>> + Send + 'a>>;
}
