//! What a front end served beside the API (the web console) may use of its server: the
//! engine, the authenticator, the metrics, and the one request pipeline, through which it
//! runs every operation as its signed-in user. A front end is its own crate; it reaches
//! the server only through this handle.

use std::net::IpAddr;
use std::sync::Arc;

use axum::Router;
use kura_auth::{Authenticator, Verified};
use kura_engine::{Engine, RequestContext};

use crate::Shared;
use kura_api::EngineSlot;
use kura_api::call::Call;
use kura_api::error::ApiError;
use kura_api::metrics::{Metrics, Observation};
use kura_api::operation::Op;
use kura_api::pipeline::Request;

/// Builds a front end's routes over its server (called once per router the server
/// builds). The routes are merged beside the API's, outside its CORS layer.
pub type FrontEnd = Arc<dyn Fn(ServerHandle) -> Router + Send + Sync>;

/// A server, as a front end sees it.
#[derive(Clone)]
pub struct ServerHandle {
    shared: Shared,
}

impl ServerHandle {
    pub(crate) fn new(shared: Shared) -> ServerHandle {
        ServerHandle { shared }
    }

    /// The engine now; a request keeps the one it started with.
    pub fn engine(&self) -> Arc<Engine> {
        self.shared.engine()
    }

    /// The engine of `region`: its own with `--regions separate` (503 while the drill
    /// isolates it), else the one engine every region shares.
    pub fn engine_for(&self, region: &str) -> Result<Arc<Engine>, kura_api::error::ApiError> {
        self.shared.engine_for(region)
    }

    /// The regions open now, the home one first; empty when every region shares one
    /// namespace.
    pub fn regions(&self) -> Vec<String> {
        self.shared
            .regions
            .as_ref()
            .map(|r| r.open_regions())
            .unwrap_or_default()
    }

    /// The swappable engine (the metrics sampler reads through it).
    pub fn slot(&self) -> &Arc<EngineSlot> {
        &self.shared.slot
    }

    /// The answer Kura's unsigned `/kura/` endpoints give while `--auth` is on (403), or
    /// None when the server runs open.
    pub fn refuse_when_signed(&self) -> Option<axum::response::Response> {
        crate::own_endpoints::refuse_when_signed(&self.shared)
    }

    /// The authenticator, when `--auth` is on.
    pub fn auth(&self) -> Option<&Arc<Authenticator>> {
        self.shared.auth.as_ref()
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.shared.metrics
    }

    /// Runs `request` on `engine` through the server's pipeline: metered, audited and
    /// authorized as any API request.
    pub async fn run(&self, engine: &Engine, request: Request<'_>) -> Result<Vec<u8>, ApiError> {
        self.shared.pipeline.run(engine, request).await
    }

    /// Whether `verified` (anyone, when the server runs open) may call `op` on `table`: for what a front end shows from outside the API (hot keys,
    /// the advisor's evidence).
    pub fn allows(
        &self,
        verified: Option<&Verified>,
        region: &str,
        source_ip: Option<IpAddr>,
        op: Op,
        table: &str,
    ) -> bool {
        let engine = self.engine();
        let observation = Observation::default();
        let schemas = kura_api::schemas::Schemas::new(&engine);
        let call = Call {
            op,
            engine: &engine,
            ctx: RequestContext {
                region: region.to_owned(),
            },
            host: String::new(),
            body: bytes::Bytes::new(),
            principal: verified.map(|v| v.principal.clone()),
            source_ip,
            observation: &observation,
            schemas: &schemas,
            regions: None,
            interceptor: None,
        };
        kura_api::authz::authorize_on_table(&call, op, table).is_ok()
    }
}
