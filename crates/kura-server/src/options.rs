//! What `kura serve` turns on beyond the open default.

use std::sync::Arc;

use crate::handle::FrontEnd;
use crate::metrics_access::MetricsAccess;
use crate::tls::TlsConfig;
use crate::{Authenticator, admission, connections, test_controls};
use kura_api::audit;

/// What `kura serve` turns on beyond the open default.
#[derive(Clone)]
pub struct ServerOptions {
    /// Verify every API request's SigV4 signature.
    pub auth: Option<Arc<Authenticator>>,
    /// Record requests in CloudTrail's shape (docs/security.md).
    pub audit: Option<Arc<audit::AuditLog>>,
    /// Serve HTTPS instead of HTTP on the listener.
    pub tls: Option<TlsConfig>,
    /// Record per-request metrics and serve `GET /metrics` (on by default).
    pub metrics: bool,
    /// The server's stream triggers, served under `/kura/triggers` and in `/metrics`.
    pub triggers: Option<Arc<kura_triggers::Triggers>>,
    /// Let `POST` and `DELETE /kura/triggers` create and delete triggers (a trigger may run
    /// a command on the host, so this is opt-in: `--trigger-admin`, and `kura dev`).
    pub trigger_admin: bool,
    /// Snapshots, reset, the manual clock and fault injection under `/kura/admin/`
    /// (`--test-controls`). Their engine is the one served: the router's `engine`
    /// argument is then not used.
    pub controls: Option<Arc<test_controls::TestControls>>,
    /// Front ends served beside the API on its listener, over the same pipeline: the web
    /// console (`kura_console::front_end`), unless `--console false`.
    pub front_ends: Vec<FrontEnd>,
    /// Who may read `GET /metrics` on the API's port (docs/security.md).
    pub metrics_access: MetricsAccess,
    /// Also serve `GET /metrics`, and nothing else, unauthenticated on this address
    /// (`--metrics-bind`): the Prometheus convention, placed on a private interface.
    pub metrics_bind: Option<std::net::SocketAddr>,
    /// How many connections are served at once and how long a request may take to
    /// arrive.
    pub connections: connections::ConnectionLimits,
    /// How many API requests run at once and how long one waits for a place.
    pub admission: admission::AdmissionLimits,
    /// Regions kept apart (`--regions separate`); None: every region shares the one
    /// engine, as DynamoDB Local's `-sharedDb`.
    pub regions: Option<Arc<RegionOptions>>,
}

/// Regions of their own: how the engine of a region other than the home one is opened,
/// and which already have data (opened at start, so their replication resumes).
pub struct RegionOptions {
    pub home: String,
    pub open: kura_engine::replication::OpenRegion,
    pub existing: Vec<String>,
    /// How long a change waits before it is sent (`--replication-delay-ms`).
    pub delay: std::time::Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            auth: None,
            audit: None,
            tls: None,
            metrics: true,
            triggers: None,
            trigger_admin: false,
            controls: None,
            front_ends: Vec::new(),
            metrics_access: MetricsAccess::Open,
            metrics_bind: None,
            connections: connections::ConnectionLimits::DEFAULT,
            admission: admission::AdmissionLimits::DEFAULT,
            regions: None,
        }
    }
}
