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

/// A read model of one entity type: it sees only the versions of its `kind` (the
/// command's `type`), already read as `T`. Register it as a [`SyncHandler`] with
/// [`ByKind`]: `module.with_sync_handler(Arc::new(ByKind::new(OrderSearch)))`.
pub trait EntityHandler<T>: Send + Sync {
    /// A stable id, as [`SyncHandler::id`].
    fn id(&self) -> &str;
    /// The entity type it handles (the command's `type`, `CommandInput::with_kind`).
    fn kind(&self) -> &str;
    /// Applies one version of an entity of its kind (its row beside it: version, key,
    /// audit fields, `is_deleted`).
    fn up<'a>(&'a self, entity: crate::Entity<T>) -> HandlerFuture<'a>;
}

/// An [`EntityHandler`] as a [`SyncHandler`]: versions of other kinds pass it by, and a
/// version of its kind whose attributes do not read as `T` is its failure (parked with
/// the serde error, like any handler's).
pub struct ByKind<T, H> {
    handler: H,
    of: std::marker::PhantomData<fn() -> T>,
}

impl<T, H> ByKind<T, H> {
    pub fn new(handler: H) -> ByKind<T, H> {
        ByKind {
            handler,
            of: std::marker::PhantomData,
        }
    }
}

impl<T, H> SyncHandler for ByKind<T, H>
where
    T: serde::de::DeserializeOwned + Send + 'static,
    H: EntityHandler<T>,
{
    fn id(&self) -> &str {
        self.handler.id()
    }

    fn up<'a>(&'a self, command: &'a CommandModel) -> HandlerFuture<'a> {
        if command.kind != self.handler.kind() {
            return Box::pin(async { Ok(()) });
        }
        match crate::Entity::<T>::from_row(command.clone()) {
            Ok(entity) => self.handler.up(entity),
            Err(e) => Box::pin(async move { Err(e.into()) }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{CommandInput, Invoker};
    use std::sync::Mutex;

    #[derive(serde::Deserialize)]
    struct Order {
        total: u32,
    }

    #[derive(Default)]
    struct Totals(Mutex<Vec<(i64, u32)>>);

    impl EntityHandler<Order> for Totals {
        fn id(&self) -> &str {
            "totals"
        }
        fn kind(&self) -> &str {
            "ORDER"
        }
        fn up<'a>(&'a self, entity: crate::Entity<Order>) -> HandlerFuture<'a> {
            Box::pin(async move {
                self.0
                    .lock()
                    .expect("lock")
                    .push((entity.version().get(), entity.total));
                Ok(())
            })
        }
    }

    fn version(kind: &str, total: serde_json::Value) -> CommandModel {
        let input = CommandInput::new("T#t1", "X#1", 0)
            .with_kind(kind)
            .with_attribute("total", total);
        CommandModel::from_input(&input, 1, &Invoker::default(), None, "2026-12-04T00:00:00Z")
    }

    #[tokio::test]
    async fn a_handler_of_one_kind_sees_only_its_kind_typed() {
        let handler = ByKind::new(Totals::default());
        handler
            .up(&version("ORDER", serde_json::json!(12)))
            .await
            .expect("an order");
        handler
            .up(&version("USER", serde_json::json!("not a number")))
            .await
            .expect("another kind passes by");
        let refused = handler
            .up(&version("ORDER", serde_json::json!("twelve")))
            .await;
        assert!(
            refused.is_err(),
            "an order that is no Order is the handler's failure"
        );
        assert_eq!(*handler.handler.0.lock().expect("lock"), [(1, 12)]);
    }
}
