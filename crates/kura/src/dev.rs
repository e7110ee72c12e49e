//! `kura dev`: the whole local stack of an application built on kura-cqrs in one process:
//! the engine, a projector per configured module (command table stream → data table and
//! history, as `kura cqrs project` runs one), and the configured stream triggers, with one
//! log. The seed framework's local setup needed a container per part, wired by hand.
//!
//! The configuration (`--config`, default `kura.dev.json` when it exists):
//!
//! ```json
//! {"Env": "dev", "App": "shop", "Modules": ["order", "customer"],
//!  "Triggers": [{"Name": "order-mails", "Table": "dev-shop-order-command",
//!                "Function": {"Command": ["python3", "mail.py"]}}]}
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use clap::Args;
use kura_cqrs::Notification;
pub use kura_cqrs::Notifier;
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;

use crate::serve_args::ServeArgs;

#[derive(Args)]
pub struct DevArgs {
    /// The stack to run: modules and triggers (JSON; see docs/triggers.md). Without it,
    /// `kura.dev.json` when the directory has one, else the server alone.
    #[arg(long, env = "KURA_DEV_CONFIG")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// The `--config` file.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct DevConfig {
    #[serde(default = "default_env")]
    pub env: String,
    #[serde(default)]
    pub app: String,
    /// kura-cqrs modules: their tables are created and their projectors run.
    #[serde(default)]
    pub modules: Vec<String>,
    /// Stream triggers, as a triggers file lists them.
    #[serde(default)]
    pub triggers: Vec<kura_triggers::TriggerInput>,
}

fn default_env() -> String {
    "dev".into()
}

impl DevConfig {
    /// Reads `path`, or `kura.dev.json` if there is one; neither is an empty stack.
    pub fn load(path: Option<&Path>) -> Result<DevConfig, String> {
        let default = Path::new("kura.dev.json");
        let path = match path {
            Some(path) => path,
            None if default.exists() => default,
            None => return Ok(DevConfig::default()),
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let config: DevConfig =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if !config.modules.is_empty() && config.app.is_empty() {
            return Err(format!("{}: Modules need an App", path.display()));
        }
        Ok(config)
    }
}

/// What `kura dev` runs beside the server, stopped before the engine.
pub struct Stack {
    stop: tokio::sync::watch::Sender<bool>,
    projectors: Vec<tokio::task::JoinHandle<()>>,
}

impl Stack {
    /// Adds the configured triggers, then creates the modules' tables and starts their
    /// projectors against the server at `endpoint` (through the AWS SDK, as on AWS).
    pub async fn start(
        config: DevConfig,
        triggers: &Arc<kura_triggers::Triggers>,
        endpoint: &str,
        notifier: Notifier,
        started: Instant,
    ) -> Result<Stack, String> {
        for input in config.triggers {
            let trigger = input.validate().map_err(|e| e.to_string())?;
            triggers.add_from_file(trigger).map_err(|e| e.to_string())?;
        }
        let client = kura_cqrs::endpoint::dynamodb_client(endpoint);
        let streams = kura_cqrs::endpoint::streams_client(endpoint);
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let mut projectors = Vec::new();
        for module in &config.modules {
            let module = kura_cqrs::Module::new(client.clone(), &config.env, &config.app, module)
                .with_notifications(notifier.clone());
            module
                .ensure_tables()
                .await
                .map_err(|e| format!("module {}: {e}", module.name()))?;
            let projector =
                module.projector(streams.clone(), kura_cqrs::ProjectorOptions::default());
            projectors.push(tokio::spawn(supervise(
                Arc::new(projector),
                module.tables().command.clone(),
                stopped.clone(),
            )));
        }
        // The readiness line of the whole stack; keep its wording stable.
        tracing::info!(
            modules = ?config.modules,
            triggers = ?triggers.names(),
            "kura dev ready in {} ms",
            started.elapsed().as_millis()
        );
        Ok(Stack { stop, projectors })
    }

    /// Stops the projectors (each finishes the record it is on).
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        for projector in self.projectors {
            let _ = projector.await;
        }
    }
}

/// Runs one module's projector until the stack stops. The projector rides out failed
/// rounds itself ([`kura_cqrs::Projector::run`]); should it panic, it is started again
/// from its checkpoints, and the log says so.
async fn supervise(
    projector: Arc<kura_cqrs::Projector>,
    table: String,
    stopped: tokio::sync::watch::Receiver<bool>,
) {
    loop {
        let mut stopped = stopped.clone();
        let running = projector.clone();
        let run = tokio::spawn(async move {
            let stop = async move {
                let _ = stopped.wait_for(|s| *s).await;
            };
            running.run(Duration::from_millis(50), stop).await;
        });
        match run.await {
            Ok(()) => return,
            Err(e) => {
                tracing::error!(%table, error = %e, "projector stopped; starting it again from its checkpoints");
                tokio::time::sleep(kura_cqrs::projector::MAX_ROUND_PAUSE).await;
            }
        }
    }
}

/// Which notifications a subscriber wants.
#[derive(Debug, Default, Deserialize)]
pub struct NotificationFilter {
    tenant: Option<String>,
    /// A module's name (`order` of `dev-shop-order-command`).
    module: Option<String>,
}

impl NotificationFilter {
    /// `tables` names a module's command table (the stack's env and app).
    fn wants(&self, n: &Notification, tables: &dyn Fn(&str) -> String) -> bool {
        // Tenant codes are stored lower-cased.
        self.tenant
            .as_ref()
            .is_none_or(|t| n.tenant_code == kura_cqrs::keys::normalize_tenant(t))
            && self.module.as_ref().is_none_or(|m| n.table == tables(m))
    }
}

/// The notification stream's state: the notifications, and whether the server is
/// stopping (an open stream would otherwise hold the graceful shutdown forever).
#[derive(Clone)]
struct Events {
    notifier: Notifier,
    closing: tokio::sync::watch::Receiver<bool>,
    env: String,
    app: String,
    /// The server checks signatures: this stream carries none, so it is refused.
    signed: bool,
}

/// `GET /kura/dev/notifications` as a front end of the server running `_config`'s stack.
/// Call it inside the runtime: streams end at SIGINT or SIGTERM.
pub fn notifications_front_end(config: &DevConfig, notifier: Notifier) -> kura_server::FrontEnd {
    let (closing_tx, closing) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        crate::signals::shutdown_signal().await;
        let _ = closing_tx.send(true);
    });
    let (env, app) = (config.env.clone(), config.app.clone());
    Arc::new(move |server| {
        let events = Events {
            notifier: notifier.clone(),
            closing: closing.clone(),
            env: env.clone(),
            app: app.clone(),
            signed: server.auth().is_some(),
        };
        axum::Router::new()
            .route("/kura/dev/notifications", axum::routing::get(notifications))
            .with_state(events)
    })
}

async fn notifications(
    State(events): State<Events>,
    Query(filter): Query<NotificationFilter>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if events.signed {
        return (
            axum::http::StatusCode::FORBIDDEN,
            "kura dev's notifications are off while --auth is on: they carry no signature",
        )
            .into_response();
    }
    let (env, app) = (events.env.clone(), events.app.clone());
    let tables = move |module: &str| kura_cqrs::TableNames::new(&env, &app, module).command;
    let state = (events.notifier.subscribe(), filter, events.closing);
    let stream = futures_util::stream::unfold(state, move |(mut rx, filter, mut closing)| {
        let tables = tables.clone();
        async move {
            loop {
                let received = tokio::select! {
                    _ = closing.wait_for(|c| *c) => return None,
                    received = rx.recv() => received,
                };
                let event = match received {
                    Ok(n) if filter.wants(&n, &tables) => Event::default()
                        .event("command")
                        .data(serde_json::to_string(&n).unwrap_or_default()),
                    Ok(_) => continue,
                    // A subscriber that fell behind is told how many it missed.
                    Err(RecvError::Lagged(missed)) => {
                        Event::default().event("lagged").data(missed.to_string())
                    }
                    Err(RecvError::Closed) => return None,
                };
                return Some((
                    Ok::<_, std::convert::Infallible>(event),
                    (rx, filter, closing),
                ));
            }
        }
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}
