//! Sync handlers: read models fed with every command version, by the projector and by
//! `publish_sync`.

use futures_util::future::BoxFuture;

use crate::command::CommandModel;
use crate::error::BoxError;

/// What [`SyncHandler::up`] returns: write it as `Box::pin(async move { ... })`.
pub type HandlerFuture<'a> = BoxFuture<'a, Result<(), BoxError>>;

/// A read model fed by the projector (a SQLite or PostgreSQL table, a search index...).
/// Delivery is at least once: `up` may see a version again after a crash, and must treat
/// a version it already has as done.
///
/// The future is boxed by hand (not `async fn`) so that handlers stay object-safe
/// (`Arc<dyn SyncHandler>`) without a macro crate.
pub trait SyncHandler: Send + Sync {
    /// A stable id (not a type name): it names the handler in the dead-letter table.
    fn id(&self) -> &str;
    /// Applies one command version; any error type converts (`"text".into()`, `?` on an
    /// `std::error::Error`).
    fn up<'a>(&'a self, command: &'a CommandModel) -> HandlerFuture<'a>;
}
