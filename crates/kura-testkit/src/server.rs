//! [`TestKura`]: an isolated Kura per test, served on a random local port, with the test
//! controls at hand (manual clock, snapshots, reset, fault injection, capacity emulation,
//! seeds). Each one is its own in-memory engine: tests share nothing and need no cleanup.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use kura_engine::clock::ManualClock;
use kura_engine::throttle::ThrottleOptions;
use kura_engine::{Engine, EngineOptions};
use kura_server::test_controls::TestControls;
use kura_server::test_controls::faults::{FaultRule, FaultSpec};
use kura_server::test_controls::{SnapshotInfo, Timed};

/// How a [`TestKura`] starts.
#[derive(Default)]
pub struct Builder {
    manual_clock: bool,
    throttle: Option<ThrottleOptions>,
    schema: Option<PathBuf>,
    seed: Option<PathBuf>,
}

impl Builder {
    /// Time stands still until [`TestKura::advance`] moves it.
    pub fn manual_clock(mut self) -> Self {
        self.manual_clock = true;
        self
    }

    /// Throttle as DynamoDB does (`kura serve --enforce-capacity`).
    pub fn enforce_capacity(mut self, options: ThrottleOptions) -> Self {
        self.throttle = Some(options);
        self
    }

    /// Create the tables of a schema file first (`--schema`).
    pub fn schema(mut self, path: impl Into<PathBuf>) -> Self {
        self.schema = Some(path.into());
        self
    }

    /// Load a seed directory first (`--seed`); the result is also the snapshot `seed`.
    pub fn seed(mut self, dir: impl Into<PathBuf>) -> Self {
        self.seed = Some(dir.into());
        self
    }

    /// Opens the engine, applies the schema and seed, and serves on `127.0.0.1:0`. Call it
    /// inside a Tokio runtime (the server runs as a task of it).
    pub async fn start(self) -> Result<TestKura, String> {
        let clock = self
            .manual_clock
            .then(|| Arc::new(ManualClock::new(kura_engine::clock::now_ms())));
        let mut options = EngineOptions {
            throttle: self.throttle,
            ..EngineOptions::default()
        };
        if let Some(clock) = &clock {
            options.clock = clock.clone();
        }
        let controls = TestControls::in_memory(options, clock).map_err(|e| e.to_string())?;
        let engine = controls.engine();
        kura_server::test_controls::seed::start_state(
            &engine,
            Some(&controls),
            self.schema.as_deref(),
            self.seed.as_deref(),
        )
        .await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("cannot listen: {e}"))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server_options = kura_server::ServerOptions {
            controls: Some(controls.clone()),
            ..kura_server::ServerOptions::default()
        };
        tokio::spawn(kura_server::serve_with(
            listener,
            engine,
            server_options,
            async move {
                let _ = stopped.await;
            },
        ));
        Ok(TestKura {
            controls,
            endpoint: format!("http://{address}"),
            _stop: stop,
        })
    }
}

/// One isolated Kura server for a test; it stops when dropped.
pub struct TestKura {
    controls: Arc<TestControls>,
    endpoint: String,
    /// Dropping it ends the server.
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Drop for TestKura {
    /// Stops the engine serving now, off the caller's thread (a test's runtime may end
    /// before the server task's own shutdown runs).
    fn drop(&mut self) {
        let engine = self.controls.engine();
        let _ = std::thread::Builder::new()
            .name("kura-testkit-stop".into())
            .spawn(move || engine.shutdown());
    }
}

impl TestKura {
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// A server with the defaults: system clock, no throttling, empty.
    pub async fn start() -> Result<TestKura, String> {
        Builder::default().start().await
    }

    /// `http://127.0.0.1:PORT`, for any SDK or tool.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// An `aws-sdk-dynamodb` client for this server, over HTTP.
    pub fn client(&self) -> aws_sdk_dynamodb::Client {
        crate::endpoint_client(&self.endpoint)
    }

    /// A DynamoDB Streams client for this server.
    pub fn streams_client(&self) -> aws_sdk_dynamodbstreams::Client {
        crate::endpoint_streams_client(&self.endpoint)
    }

    /// The engine serving now (a restore or reset replaces it).
    pub fn engine(&self) -> Arc<Engine> {
        self.controls.engine()
    }

    /// Moves the manual clock forward, then waits for a sweep: what expired is gone on
    /// return. Errors without [`Builder::manual_clock`].
    pub async fn advance(&self, by: Duration) -> Result<(), String> {
        let controls = self.controls.clone();
        let millis = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        tokio::task::spawn_blocking(move || controls.advance(millis))
            .await
            .map_err(|e| e.to_string())?
            .map(|_| ())
    }

    /// Freezes the whole state under `name`.
    pub fn snapshot(&self, name: &str) -> Result<Timed, String> {
        self.controls.snapshot(name)
    }

    /// Returns to the snapshot `name`.
    pub fn restore(&self, name: &str) -> Result<Timed, String> {
        self.controls.restore(name)
    }

    /// Empties the server.
    pub fn reset(&self) -> Result<Timed, String> {
        self.controls.reset()
    }

    pub fn snapshots(&self) -> Vec<SnapshotInfo> {
        self.controls.snapshots()
    }

    /// Adds a fault injection rule.
    pub fn inject(&self, spec: FaultSpec) -> Result<FaultRule, String> {
        self.controls.faults.add(spec)
    }

    /// Removes every fault injection rule.
    pub fn clear_faults(&self) {
        self.controls.faults.clear(None);
    }

    /// The fault rules in force, with what each injected.
    pub fn faults(&self) -> Vec<FaultRule> {
        self.controls.faults.list()
    }

    /// Whether the server runs on a manual clock.
    pub fn is_manual(&self) -> bool {
        self.controls.manual_clock().is_some()
    }
}
