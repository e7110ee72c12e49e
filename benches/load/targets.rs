//! The things a workload runs against: the echo baseline, `kura serve`, the engine
//! embedded in this process, and the locally installed peers (dynalite, moto, DynamoDB
//! Local). A process target is started on a free loopback port and killed when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::driver::Driver;
use crate::workload::{self, Request};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// The loopback HTTP echo server (this binary's `echo` command).
    Echo,
    /// `kura serve` on a fresh data directory, writes synced before they are acknowledged.
    Kura,
    /// The same with `--metrics false`: the baseline of what recording metrics costs.
    KuraMetricsOff,
    /// The same with `--enforce-capacity --test-controls`: what capacity emulation and
    /// the test controls (an unarmed fault check, the swappable engine) cost.
    KuraCapacity,
    /// The same with `--console false`: the baseline of what serving the console costs
    /// the API (its routes; the console itself runs only when a page is asked for).
    KuraConsoleOff,
    /// `kura serve` as shipped: the `dist` build (fat LTO, static) at
    /// `target/static/kura-dist` (`scripts/build-static.sh dist`), beside `kura` (the
    /// `release` build) to show what whole-program optimisation buys per request.
    KuraDist,
    /// `target/static/kura-baseline`: any kura binary put there, typically the main
    /// branch's before a change, served the same way, for a before/after ratio in one run.
    KuraBaseline,
    /// `kura serve --in-memory`: what a test suite runs (nothing on disk).
    KuraMemory,
    /// `target/static/kura-baseline --in-memory`, for a before/after ratio in memory.
    KuraBaselineMemory,
    /// `target/static/kura-dist --in-memory`: what the image, the wheel and the npm
    /// package run for a test suite.
    KuraDistMemory,
    /// The same engine in this process, called with the same JSON bodies, without HTTP.
    KuraEmbedded,
    /// dynalite from npm (`benches/peers/install.sh`), on LevelDB on disk (not synced).
    Dynalite,
    /// moto's server from PyPI, in memory.
    Moto,
    /// Amazon DynamoDB Local (Java, SQLite on disk), when it could be installed.
    DynamodbLocal,
    /// Dynoxide (Rust + SQLite, crates.io `dynoxide-rs`), on a database file: WAL with
    /// SQLite's default `synchronous = FULL`, so each commit syncs the log before it answers.
    Dynoxide,
    /// Dynoxide in memory (no `--db-path`).
    DynoxideMemory,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Echo => "echo",
            Kind::Kura => "kura",
            Kind::KuraMetricsOff => "kura-metrics-off",
            Kind::KuraCapacity => "kura-capacity",
            Kind::KuraConsoleOff => "kura-console-off",
            Kind::KuraDist => "kura-dist",
            Kind::KuraBaseline => "kura-baseline",
            Kind::KuraMemory => "kura-memory",
            Kind::KuraBaselineMemory => "kura-baseline-memory",
            Kind::KuraDistMemory => "kura-dist-memory",
            Kind::KuraEmbedded => "kura-embedded",
            Kind::Dynalite => "dynalite",
            Kind::Moto => "moto",
            Kind::DynamodbLocal => "dynamodb-local",
            Kind::Dynoxide => "dynoxide",
            Kind::DynoxideMemory => "dynoxide-memory",
        }
    }

    pub const ALL: [Kind; 16] = [
        Kind::Echo,
        Kind::KuraMetricsOff,
        Kind::KuraCapacity,
        Kind::KuraConsoleOff,
        Kind::KuraDist,
        Kind::KuraBaseline,
        Kind::Kura,
        Kind::KuraMemory,
        Kind::KuraBaselineMemory,
        Kind::KuraDistMemory,
        Kind::KuraEmbedded,
        Kind::Dynalite,
        Kind::Moto,
        Kind::DynamodbLocal,
        Kind::Dynoxide,
        Kind::DynoxideMemory,
    ];

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    pub fn is_peer(self) -> bool {
        matches!(
            self,
            Kind::Dynalite
                | Kind::Moto
                | Kind::DynamodbLocal
                | Kind::Dynoxide
                | Kind::DynoxideMemory
        )
    }
}

/// A running target. Dropping it stops the process (or the embedded engine).
pub struct Target {
    pub name: String,
    pub driver: Arc<Driver>,
    /// Whether tables and data must be created (not for the echo baseline).
    pub needs_setup: bool,
    child: Option<Child>,
    engine: Option<Arc<kura_engine::Engine>>,
    dir: Option<tempfile::TempDir>,
}

impl Target {
    /// The process id of a process target.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills the process (`kill -9`) and hands over its directory instead of deleting it.
    pub fn kill_keeping_data(mut self) -> Option<tempfile::TempDir> {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.dir.take()
    }

    /// An endpoint someone else runs.
    pub fn remote(endpoint: &str) -> Result<Target, String> {
        Ok(Target {
            name: endpoint.to_owned(),
            driver: Arc::new(Driver::http(endpoint)?),
            needs_setup: true,
            child: None,
            engine: None,
            dir: None,
        })
    }

    /// The data directory of a process target (its log sits beside it).
    pub fn data_dir(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.path().join("data"))
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(engine) = &self.engine {
            engine.shutdown();
        }
    }
}

/// Where the peers are installed, relative to the repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The `kura` binary built beside this one (`cargo build --release -p kura`).
pub fn kura_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let path = exe.with_file_name("kura");
    if path.exists() {
        Ok(path)
    } else {
        Err(format!(
            "{} not found: build it with `cargo build --release -p kura`",
            path.display()
        ))
    }
}

pub fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(listener.local_addr().map_err(|e| e.to_string())?.port())
}

/// Starts a target, or says why it cannot be (a peer that is not installed).
pub async fn start(kind: Kind, kura_args: &[String]) -> Result<Target, String> {
    if kind == Kind::KuraEmbedded {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let engine = kura_engine::Engine::open(dir.path()).map_err(|e| e.to_string())?;
        return Ok(Target {
            name: kind.name().into(),
            driver: Arc::new(Driver::Embedded(engine.clone())),
            needs_setup: true,
            child: None,
            engine: Some(engine),
            dir: Some(dir),
        });
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let port = free_port()?;
    let command = command(kind, port, dir.path(), kura_args)?;
    let log = std::fs::File::create(dir.path().join("target.log")).map_err(|e| e.to_string())?;
    let mut command = command;
    command
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log);
    let child = command
        .spawn()
        .map_err(|e| format!("{} did not start: {e}", kind.name()))?;
    let endpoint = format!("http://127.0.0.1:{port}/");
    let target = Target {
        name: kind.name().into(),
        driver: Arc::new(Driver::http(&endpoint)?),
        needs_setup: kind != Kind::Echo,
        child: Some(child),
        engine: None,
        dir: Some(dir),
    };
    wait_until_answering(&target, Duration::from_secs(90)).await?;
    Ok(target)
}

pub(crate) fn command(
    kind: Kind,
    port: u16,
    dir: &Path,
    kura_args: &[String],
) -> Result<Command, String> {
    let root = repo_root();
    let installed = |relative: &str| -> Result<PathBuf, String> {
        let path = root.join(relative);
        if path.exists() {
            Ok(path)
        } else {
            Err(format!(
                "{relative} not found (run benches/peers/install.sh to install it)"
            ))
        }
    };
    let port_s = port.to_string();
    let data = dir.join("data");
    let mut command;
    match kind {
        Kind::Echo => {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            command = Command::new(exe);
            command.args(["echo", "--port", &port_s]);
        }
        Kind::Kura
        | Kind::KuraMetricsOff
        | Kind::KuraCapacity
        | Kind::KuraConsoleOff
        | Kind::KuraDist
        | Kind::KuraBaseline
        | Kind::KuraMemory
        | Kind::KuraBaselineMemory
        | Kind::KuraDistMemory => {
            command = match kind {
                Kind::KuraDist | Kind::KuraDistMemory => {
                    let dist = root.join("target/static/kura-dist");
                    if !dist.exists() {
                        return Err("target/static/kura-dist not found (scripts/build-static.sh dist builds it)".into());
                    }
                    Command::new(dist)
                }
                Kind::KuraBaseline | Kind::KuraBaselineMemory => {
                    let baseline = root.join("target/static/kura-baseline");
                    if !baseline.exists() {
                        return Err("target/static/kura-baseline not found (copy a kura binary built before your change there)".into());
                    }
                    Command::new(baseline)
                }
                _ => Command::new(kura_binary()?),
            };
            command.arg("serve").args(["--port", &port_s]);
            if matches!(
                kind,
                Kind::KuraMemory | Kind::KuraBaselineMemory | Kind::KuraDistMemory
            ) {
                command.arg("--in-memory");
            } else {
                command.arg("--data-dir").arg(&data);
            }
            command.args(kura_args);
            if kind == Kind::KuraMetricsOff {
                command.args(["--metrics", "false"]);
            }
            if kind == Kind::KuraCapacity {
                command.args(["--enforce-capacity", "--test-controls"]);
            }
            if kind == Kind::KuraConsoleOff {
                command.args(["--console", "false"]);
            }
        }
        Kind::Dynalite => {
            std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
            let cli = installed("benches/peers/node/node_modules/dynalite/cli.js")?;
            command = Command::new("node");
            command
                .arg(cli)
                .args(["--host", "127.0.0.1", "--port", &port_s]);
            command.args(["--createTableMs", "0", "--deleteTableMs", "0"]);
            command.args(["--updateTableMs", "0", "--path"]).arg(&data);
        }
        Kind::Moto => {
            command = Command::new(installed("benches/peers/venv/bin/moto_server")?);
            command.args(["-H", "127.0.0.1", "-p", &port_s]);
        }
        Kind::DynamodbLocal => {
            let release = installed("benches/peers/dynamodb-local/current")?;
            std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
            command = Command::new("java");
            command
                .arg(format!(
                    "-Djava.library.path={}",
                    release.join("DynamoDBLocal_lib").display()
                ))
                .arg("-jar")
                .arg(release.join("DynamoDBLocal.jar"))
                .args(["-port", &port_s, "-disableTelemetry", "-dbPath"])
                .arg(&data);
        }
        Kind::Dynoxide | Kind::DynoxideMemory => {
            command = Command::new(installed("benches/peers/dynoxide/bin/dynoxide")?);
            command.args(["serve", "--host", "127.0.0.1", "--port", &port_s]);
            if kind == Kind::Dynoxide {
                std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
                command.arg("--db-path").arg(data.join("dynoxide.db"));
            }
        }
        Kind::KuraEmbedded => return Err("the embedded engine is not a process".into()),
    }
    Ok(command)
}

/// Polls ListTables until the target answers it.
async fn wait_until_answering(target: &Target, limit: Duration) -> Result<(), String> {
    let started = Instant::now();
    let probe = Request::new("ListTables", &serde_json::json!({}));
    loop {
        // moto answers unsigned or unknown requests as S3 would, with 200 and XML: only a
        // ListTables answer counts (the echo baseline echoes the body, which is `{}`).
        let out = target.driver.call(&probe).await;
        if out.error.is_none()
            && (out.body.starts_with(b"{}") || contains(&out.body, b"TableNames"))
        {
            return Ok(());
        }
        if started.elapsed() > limit {
            return Err(format!("{} did not answer within {limit:?}", target.name));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Creates the tables, waits until they are ACTIVE, and fills the read table.
pub async fn prepare(target: &Target) -> Result<(), String> {
    for create in workload::create_tables() {
        target.driver.must(&create).await?;
    }
    for table in [workload::READ_TABLE, workload::WRITE_TABLE] {
        wait_active(&target.driver, table).await?;
    }
    for batch in workload::load_read_table() {
        write_batch(&target.driver, batch).await?;
    }
    Ok(())
}

pub async fn wait_active(driver: &Driver, table: &str) -> Result<(), String> {
    let started = Instant::now();
    loop {
        let body = driver.must(&workload::describe_table(table)).await?;
        let described: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        if described["Table"]["TableStatus"] == "ACTIVE" {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(60) {
            return Err(format!("{table} did not become ACTIVE"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Sends a BatchWriteItem and resends what comes back unprocessed until nothing does.
pub async fn write_batch(driver: &Driver, mut batch: Request) -> Result<(), String> {
    for _ in 0..100 {
        let body = driver.must(&batch).await?;
        let answer: serde_json::Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        match answer.get("UnprocessedItems") {
            Some(left) if left.as_object().is_some_and(|m| !m.is_empty()) => {
                batch = Request::new("BatchWriteItem", &serde_json::json!({"RequestItems": left}));
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            _ => return Ok(()),
        }
    }
    Err("BatchWriteItem kept returning UnprocessedItems".into())
}
