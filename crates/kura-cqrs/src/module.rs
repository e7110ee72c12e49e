//! One module's configuration in one value: its tables, indexes, TTL policies, sync
//! handlers, large-attribute store, read-your-writes sessions and notifier. Every
//! service and the projector of the module are built from it, so none can be missing a
//! piece the others have (a publisher without the indexes would leave its entities out
//! of every index; one without the handlers would leave them to the projector).

use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodbstreams::Client as StreamsClient;

use crate::data::DataService;
use crate::error::Result;
use crate::indexes::Indexes;
use crate::large::LargeAttributes;
use crate::notifications::Notifier;
use crate::projector::Projector;
use crate::projector_options::ProjectorOptions;
use crate::service::CommandService;
use crate::sessions::Sessions;
use crate::sync::SyncHandler;
use crate::tables::{IndexBuild, TableNames, ensure_tables_with, protect_tables};
use crate::ttl::TtlPolicies;

/// A module of an application: `{env}-{app}-{module}-*` tables and what is configured
/// for them. Clone it freely (the clients and handlers are shared).
#[derive(Clone)]
pub struct Module {
    client: Client,
    name: String,
    tables: TableNames,
    indexes: Indexes,
    ttl: Option<TtlPolicies>,
    handlers: Vec<Arc<dyn SyncHandler>>,
    large: Option<LargeAttributes>,
    sessions: bool,
    notifier: Option<Notifier>,
    protected: bool,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("name", &self.name)
            .field("tables", &self.tables)
            .field("indexes", &self.indexes)
            .field("handlers", &self.handler_ids())
            .field("sessions", &self.sessions)
            .field("protected", &self.protected)
            .finish_non_exhaustive()
    }
}

impl Module {
    /// The module `module` of `app` in `env`, with nothing configured yet.
    pub fn new(client: Client, env: &str, app: &str, module: &str) -> Module {
        Module {
            client,
            name: module.to_owned(),
            tables: TableNames::new(env, app, module),
            indexes: Indexes::default(),
            ttl: None,
            handlers: Vec::new(),
            large: None,
            sessions: false,
            notifier: None,
            protected: false,
        }
    }

    /// The secondary indexes of the data table (created by [`Module::ensure_tables`],
    /// written by every publisher).
    pub fn with_indexes(mut self, indexes: Indexes) -> Module {
        self.indexes = indexes;
        self
    }

    /// TTL retention policies, this module's first ([`TtlPolicies::for_module`]).
    pub fn with_ttl_policies(mut self, policies: TtlPolicies) -> Module {
        self.ttl = Some(policies.for_module(&self.name));
        self
    }

    /// A read model: run by `publish_sync` and by the projector.
    pub fn with_sync_handler(mut self, handler: Arc<dyn SyncHandler>) -> Module {
        self.handlers.push(handler);
        self
    }

    /// Attributes too large for an item, kept in an object store.
    pub fn with_large_attributes(mut self, large: LargeAttributes) -> Module {
        self.large = Some(large);
        self
    }

    /// Read-your-writes: async publishes recorded per user, merged into their reads.
    pub fn with_sessions(mut self) -> Module {
        self.sessions = true;
        self
    }

    /// Point-in-time recovery and deletion protection on the command, data and history
    /// tables, turned on by [`Module::ensure_tables`] ([`protect_tables`]): for a module
    /// in production.
    pub fn with_protection(mut self) -> Module {
        self.protected = true;
        self
    }

    /// Tells `notifier` when command versions finish or fail.
    pub fn with_notifications(mut self, notifier: Notifier) -> Module {
        self.notifier = Some(notifier);
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The declared indexes: [`Indexes::query`] builds a query on one of them by name.
    pub fn indexes(&self) -> &Indexes {
        &self.indexes
    }

    pub fn tables(&self) -> &TableNames {
        &self.tables
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The ids of the module's sync handlers.
    pub fn handler_ids(&self) -> Vec<&str> {
        self.handlers.iter().map(|h| h.id()).collect()
    }

    /// Creates or checks the module's tables and indexes ([`ensure_tables_with`]).
    pub async fn ensure_tables(&self) -> Result<IndexBuild> {
        let build = ensure_tables_with(&self.client, &self.tables, &self.indexes).await?;
        if self.protected {
            protect_tables(&self.client, &self.tables).await?;
        }
        Ok(build)
    }

    fn sessions(&self) -> Option<Sessions> {
        self.sessions
            .then(|| Sessions::new(self.client.clone(), &self.tables))
    }

    /// The module's publisher, with everything configured.
    pub fn commands(&self) -> CommandService {
        let mut service = CommandService::new(self.client.clone(), self.tables.clone())
            .with_indexes(self.indexes.clone());
        if let Some(ttl) = &self.ttl {
            service = service.with_ttl_policies(ttl.clone());
        }
        for handler in &self.handlers {
            service = service.with_sync_handler(handler.clone());
        }
        if let Some(large) = &self.large {
            service = service.with_large_attributes(large.clone());
        }
        if let Some(sessions) = self.sessions() {
            service = service.with_sessions(sessions);
        }
        if let Some(notifier) = &self.notifier {
            service = service.with_notifications(notifier.clone());
        }
        service
    }

    /// The module's reader, with everything configured.
    pub fn data(&self) -> DataService {
        let mut data = DataService::new(self.client.clone(), self.tables.clone())
            .with_indexes(self.indexes.clone());
        if let Some(large) = &self.large {
            data = data.with_large_attributes(large.clone());
        }
        if let Some(sessions) = self.sessions() {
            data = data.with_sessions(sessions);
        }
        data
    }

    /// The module's projector, with every handler registered.
    pub fn projector(&self, streams: StreamsClient, options: ProjectorOptions) -> Projector {
        let mut projector =
            Projector::new(self.client.clone(), streams, self.tables.clone(), options);
        if let Some(ttl) = &self.ttl {
            projector = projector.with_ttl_policies(ttl.clone());
        }
        if let Some(large) = &self.large {
            projector = projector.with_large_attributes(large.clone());
        }
        if let Some(notifier) = &self.notifier {
            projector = projector.with_notifications(notifier.clone());
        }
        for handler in &self.handlers {
            projector.register(handler.clone());
        }
        projector
    }
}
