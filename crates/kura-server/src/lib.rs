//! Kura's HTTP front end: the DynamoDB JSON protocol over [`kura_api`] (the pipeline, the
//! operations and their handlers) and [`kura_engine`]. This crate is the edge: routes,
//! bodies and their limits, connections, TLS, SigV4, admission places, the test controls
//! and Kura's own `/kura/` endpoints.
//!
//! `POST /` carries every operation; `GET /ready` answers 200 when the engine takes writes
//! and 503 once a failed sync has poisoned it; `GET /` is a health line like DynamoDB's.
//! CORS preflights are answered for any origin.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let engine = kura_engine::Engine::in_memory();
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
//! kura_server::serve(listener, engine, std::future::pending()).await
//! # }
//! ```

pub mod admission;
mod body;
mod body_limits;
pub mod cbor;
pub mod connections;
mod edge;
mod handle;
mod metrics_access;
pub mod own_endpoints;
pub mod test_controls;
pub use kura_auth::{Authenticator, Credentials};
mod options;
mod protocol;
mod shared;
pub mod tls;
pub use handle::{FrontEnd, ServerHandle};
pub use metrics_access::MetricsAccess;
pub use options::{RegionOptions, ServerOptions};
pub(crate) use shared::Shared;
pub use tls::TlsConfig;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use kura_engine::{Engine, Health};

/// The service as an axum router (also what in-process clients call), open to any
/// request as DynamoDB Local is.
pub fn router(engine: Arc<Engine>) -> Router {
    router_with_auth(engine, None)
}

/// [`router`] that verifies every API request's SigV4 signature with `auth` (when given)
/// before dispatching it.
pub fn router_with_auth(engine: Arc<Engine>, auth: Option<Arc<Authenticator>>) -> Router {
    router_with(
        engine,
        ServerOptions {
            auth,
            ..ServerOptions::default()
        },
    )
}

/// [`router`] with authentication and auditing as `options` say.
pub fn router_with(engine: Arc<Engine>, options: ServerOptions) -> Router {
    let front_ends = options.front_ends.clone();
    routes(shared_state(engine, options), &front_ends)
}

/// What every handler of one server shares (the API's and the metrics listener's).
fn shared_state(engine: Arc<Engine>, options: ServerOptions) -> Shared {
    let slot = match &options.controls {
        Some(controls) => controls.slot(),
        None => kura_api::EngineSlot::new(engine),
    };
    let regions = options.regions.as_ref().map(|o| start_regions(o, &slot));
    let mut metrics =
        kura_api::metrics::Metrics::new(slot.clone(), options.metrics, options.triggers.clone());
    if let Some(regions) = &regions {
        metrics = metrics.with_replication(regions.clone());
    }
    let metrics = Arc::new(metrics);
    let pipeline = Arc::new(kura_api::pipeline::Pipeline {
        metrics: Some(metrics.clone()),
        audit: options.audit,
        interceptor: options
            .controls
            .clone()
            .map(|controls| controls as Arc<dyn kura_api::Interceptor>),
        regions: regions.clone(),
    });
    Shared {
        slot,
        auth: options.auth,
        pipeline,
        metrics,
        triggers: options.triggers,
        trigger_admin: options.trigger_admin,
        admission: Arc::new(admission::Admission::new(options.admission)),
        controls: options.controls,
        metrics_access: options.metrics_access,
        regions,
    }
}

/// The directory of regions over the served engine (the home region's, whichever the
/// test controls put in the slot), the regions with data opened, replication started.
fn start_regions(
    options: &Arc<RegionOptions>,
    slot: &Arc<kura_api::EngineSlot>,
) -> Arc<kura_engine::replication::Regions> {
    let home_slot = slot.clone();
    let opener = options.clone();
    let regions = kura_engine::replication::Regions::new(
        &options.home,
        Box::new(move || home_slot.current()),
        Box::new(move |region| (opener.open)(region)),
    );
    for region in &options.existing {
        if let Err(e) = regions.engine(region) {
            tracing::error!(region, "cannot open the region: {e}");
        }
    }
    regions.set_delay(options.delay);
    if let Err(e) = regions.start() {
        tracing::error!(
            "cannot start the replication thread: global tables will not replicate: {e}"
        );
    }
    regions
}

/// The `--metrics-bind` listener's routes: `GET /metrics`, open.
fn metrics_routes(shared: Shared) -> Router {
    Router::new()
        .route("/metrics", get(serve_open_metrics))
        .with_state(shared)
}

fn routes(shared: Shared, front_ends: &[FrontEnd]) -> Router {
    let mut router = Router::new();
    if shared.controls.is_some() {
        use test_controls::http as admin;
        router = router
            .route("/kura/admin", get(admin::status))
            .route("/kura/admin/reset", post(admin::reset))
            .route("/kura/admin/snapshots", get(admin::list_snapshots))
            .route(
                "/kura/admin/snapshots/{name}",
                post(admin::take_snapshot).delete(admin::delete_snapshot),
            )
            .route(
                "/kura/admin/snapshots/{name}/restore",
                post(admin::restore_snapshot),
            )
            .route(
                "/kura/admin/clock",
                get(admin::get_clock).post(admin::move_clock),
            )
            .route(
                "/kura/admin/faults",
                get(admin::list_faults)
                    .post(admin::add_fault)
                    .delete(admin::clear_faults),
            )
            .route("/kura/admin/faults/{id}", delete(admin::clear_fault))
            .route("/kura/admin/regions", get(admin::regions_status))
            .route(
                "/kura/admin/regions/{region}/{action}",
                post(admin::region_action),
            );
    }
    let api = router
        .route("/", post(protocol::handle).get(healthy))
        .route("/ready", get(ready))
        .route("/metrics", get(serve_metrics))
        .route("/kura/insights/{table}", get(own_endpoints::insights))
        .route(
            "/kura/triggers",
            get(own_endpoints::list_triggers).post(own_endpoints::create_trigger),
        )
        .route(
            "/kura/triggers/{name}",
            get(own_endpoints::describe_trigger).delete(own_endpoints::delete_trigger),
        );
    // Browser tools (NoSQL Workbench's web views, dynamodb-admin, a page's own SDK) call
    // the API from another origin. Front ends answer no CORS request: the console's pages
    // are its own origin's.
    let api = api
        .with_state(shared.clone())
        .layer(axum::middleware::from_fn(edge::cors));
    let handle = ServerHandle::new(shared);
    front_ends
        .iter()
        .fold(api, |router, front_end| {
            router.merge(front_end(handle.clone()))
        })
        .layer(axum::middleware::from_fn(edge::head_limit))
}

async fn healthy() -> &'static str {
    "healthy: kura"
}

async fn ready(State(engine): State<Arc<Engine>>) -> (StatusCode, &'static str) {
    match engine.health() {
        Health::Ready => (StatusCode::OK, "ready"),
        Health::Poisoned => (
            StatusCode::SERVICE_UNAVAILABLE,
            "poisoned: a sync failed; writes are refused until restart",
        ),
    }
}

/// `GET /metrics` on the API's port, for whom [`MetricsAccess`] lets in.
async fn serve_metrics(
    State(shared): State<Shared>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match &shared.metrics_access {
        MetricsAccess::Open => serve_open_metrics(State(shared)).await,
        MetricsAccess::Bearer(token) if bearer_matches(&headers, token) => {
            serve_open_metrics(State(shared)).await
        }
        MetricsAccess::Bearer(_) => (
            StatusCode::UNAUTHORIZED,
            [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
            "GET /metrics needs Authorization: Bearer <the --metrics-token>",
        )
            .into_response(),
        MetricsAccess::Refused => (
            StatusCode::FORBIDDEN,
            "GET /metrics is off on the API's port while --auth is on: use --metrics-token or --metrics-bind (docs/security.md)",
        )
            .into_response(),
    }
}

/// Whether `Authorization` is `Bearer <token>` (the scheme in any case). The SHA-256
/// digests are compared in constant time, so a refusal's timing tells neither the token's
/// bytes nor its length.
fn bearer_matches(headers: &axum::http::HeaderMap, token: &str) -> bool {
    use sha2::{Digest, Sha256};
    use subtle::ConstantTimeEq;
    let digest = |text: &str| -> [u8; 32] { Sha256::digest(text.as_bytes()).into() };
    headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let scheme = v.get(..7).filter(|s| s.eq_ignore_ascii_case("bearer "));
            scheme.and(v.get(7..))
        })
        .is_some_and(|given| bool::from(digest(given.trim()).ct_eq(&digest(token))))
}

/// The Prometheus text exposition (404 when metrics are off).
async fn serve_open_metrics(State(shared): State<Shared>) -> axum::response::Response {
    use axum::response::IntoResponse;
    if !shared.metrics.enabled() {
        return (
            StatusCode::NOT_FOUND,
            "metrics are off (kura serve --metrics false)",
        )
            .into_response();
    }
    match shared.metrics.encode() {
        Ok(text) => (
            [(
                axum::http::header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "cannot encode the metrics",
        )
            .into_response(),
    }
}

/// Serves until `shutdown` resolves, then finishes in-flight requests and stops the engine.
pub async fn serve(
    listener: tokio::net::TcpListener,
    engine: Arc<Engine>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with_auth(listener, engine, None, shutdown).await
}

/// [`serve`] with SigV4 verification when `auth` is given.
pub async fn serve_with_auth(
    listener: tokio::net::TcpListener,
    engine: Arc<Engine>,
    auth: Option<Arc<Authenticator>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let options = ServerOptions {
        auth,
        ..ServerOptions::default()
    };
    serve_with(listener, engine, options, shutdown).await
}

/// [`serve`] with the given options. The peer address reaches the handlers (the audit
/// log's `sourceIPAddress`).
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    engine: Arc<Engine>,
    options: ServerOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_until(listener, engine, options, Box::pin(shutdown)).await
}

/// [`serve_with`] on a boxed shutdown future: not generic, so the HTTP server's code is
/// compiled here, with this crate, not again in every binary that serves (a clean build's
/// last, serial step was the binary; ADR 0020).
async fn serve_until(
    listener: tokio::net::TcpListener,
    engine: Arc<Engine>,
    options: ServerOptions,
    shutdown: std::pin::Pin<Box<dyn Future<Output = ()> + Send + 'static>>,
) -> std::io::Result<()> {
    let tls = options.tls.clone();
    let limits = options.connections.clone();
    // With test controls, the engine to stop at the end is whichever serves then.
    let controls = options.controls.clone();
    let metrics_bind = options.metrics_bind;
    let front_ends = options.front_ends.clone();
    let shared = shared_state(engine.clone(), options);
    let regions = shared.regions.clone();
    let metrics_server = match metrics_bind {
        Some(addr) => Some(serve_metrics_on(addr, shared.clone()).await?),
        None => None,
    };
    let app = routes(shared, &front_ends);
    connections::serve(listener, app, tls.as_ref(), &limits, shutdown).await?;
    if let Some(server) = metrics_server {
        server.abort();
    }
    if let Some(regions) = regions {
        let _stopped = tokio::task::spawn_blocking(move || regions.shutdown()).await;
    }
    let engine_for_shutdown = controls.map_or(engine, |c| c.engine());
    // Joining the writer thread blocks; keep it off the async workers.
    let _joined = tokio::task::spawn_blocking(move || engine_for_shutdown.shutdown()).await;
    Ok(())
}

/// Binds `addr` and serves [`metrics_routes`] on it until aborted (plain HTTP: scrapers
/// on a private interface; at most 64 connections, with the API's read deadline). Binding fails before the API starts, with the address.
async fn serve_metrics_on(
    addr: std::net::SocketAddr,
    shared: Shared,
) -> std::io::Result<tokio::task::JoinHandle<()>> {
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot listen on {addr} for metrics: {e}"),
        )
    })?;
    let local = listener.local_addr()?;
    tracing::info!("metrics on http://{local}/metrics");
    let app = metrics_routes(shared);
    // The API's connection handling, with a small cap: scrapers are few, and a client
    // that trickles its request is cut as on the API's port.
    let limits = connections::ConnectionLimits {
        max_open: 64,
        request_memory: 1 << 20,
        ..connections::ConnectionLimits::DEFAULT
    };
    Ok(tokio::spawn(async move {
        let forever = std::future::pending::<()>();
        if let Err(e) = connections::serve(listener, app, None, &limits, forever).await {
            tracing::error!("the metrics listener stopped: {e}");
        }
    }))
}
