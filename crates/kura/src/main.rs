//! `kura`: a DynamoDB-compatible database server.

// The binary's allocator (jemalloc): linked by naming the crate.
use kura_alloc as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use kura_engine::writer::WriteLimits;
use kura_engine::{Engine, EngineOptions};
use tracing_subscriber::EnvFilter;

use serve_args::ServeArgs;
use signals::shutdown_signal;
use version::VERSION;

mod admin;
mod advice_report;
mod advise_route;
#[cfg(feature = "clients")]
mod cqrs;
#[cfg(feature = "clients")]
mod dev;
mod endpoint;
mod fault;
mod health;
mod mcp;
mod observe;
mod regions_cmd;
#[cfg(feature = "clients")]
mod s3;
mod serve_args;
mod signals;
mod version;
#[cfg(not(feature = "clients"))]
mod without_clients;
#[cfg(not(feature = "clients"))]
use without_clients as dev;

#[derive(Parser)]
#[command(
    name = "kura",
    version = VERSION,
    about = "A DynamoDB-compatible database: one binary, durable embedded storage"
)]
struct Cli {
    /// A failure's last line as a log record (time, level) instead of one plain line.
    #[arg(long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Serve the DynamoDB API over HTTP, or HTTPS with --tls-cert and --tls-key (use it
    /// with --endpoint-url http://HOST:PORT or https://HOST:PORT).
    Serve(ServeArgs),
    /// Run an application's local stack in one process: the server, the kura-cqrs
    /// projectors of its modules, and its stream triggers (--config, docs/triggers.md).
    #[cfg(feature = "clients")]
    Dev(dev::DevArgs),
    /// The kura-cqrs framework's tools.
    #[cfg(feature = "clients")]
    #[command(subcommand)]
    Cqrs(cqrs::CqrsCommand),
    /// Back up a table (CreateBackup).
    Backup(admin::BackupArgs),
    /// Restore a backup, or a table with point-in-time recovery, into a new table, and
    /// follow it until the table is ACTIVE.
    Restore(admin::RestoreArgs),
    /// Export a table to a bucket (ExportTableToPointInTime, full or incremental) and
    /// follow it to its end.
    Export(admin::ExportArgs),
    /// Import a bucket's objects into a new table (ImportTable) and follow it to its end.
    Import(admin::ImportArgs),
    /// Show a table's Contributor Insights: its most accessed and most throttled keys
    /// (enable it first with UpdateContributorInsights).
    Insights(observe::InsightsArgs),
    /// Check the live tables and the traffic the server has seen against the design
    /// guideline (docs/advisor.md); exits 1 when a finding is an error.
    Advise(observe::AdviseArgs),
    /// Inject errors and latency into a running server's requests (it needs
    /// --test-controls; docs/testing.md).
    Fault(fault::FaultArgs),
    /// Rehearse a region's loss (`--regions separate --test-controls`): show the
    /// replication backlog, isolate a region, heal it (docs/global-tables.md).
    Regions(regions_cmd::RegionsArgs),
    /// Serve the Model Context Protocol for AI assistants in front of a DynamoDB endpoint:
    /// tables, items, queries, PartiQL, the advisor (docs/mcp.md). Read-only unless
    /// --allow-writes.
    Mcp(mcp::McpArgs),
    /// Exit 0 when the server answers GET /ready (for Docker HEALTHCHECK and Kubernetes
    /// probes), else print why and exit 1.
    Healthcheck(health::HealthcheckArgs),
    /// A command this build does not have (see `without_clients`).
    #[cfg(not(feature = "clients"))]
    #[command(external_subcommand)]
    Missing(Vec<String>),
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let name = matches.subcommand_name().unwrap_or("kura").to_owned();
    // A server logs what it does; a client command prints its answer, and its log (an
    // in-memory engine's, for `advise --template`) only says more with --verbose.
    let quiet = !matches!(name.as_str(), "serve" | "dev" | "cqrs") && !matches.get_flag("verbose");
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_env("KURA_LOG")
                // The storage engine's own INFO lines ("Recovering database at …") say
                // nothing a user acts on, and came before a failed start's one line.
                .unwrap_or_else(|_| {
                    EnvFilter::new(if quiet {
                        "warn"
                    } else {
                        "info,fjall=warn,lsm_tree=warn"
                    })
                }),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let verbose = cli.verbose;
    let result = match cli.command {
        Command::Serve(args) => serve(args, None),
        #[cfg(feature = "clients")]
        Command::Dev(args) => dev::DevConfig::load(args.config.as_deref())
            .and_then(|config| serve(args.serve, Some(config))),
        #[cfg(feature = "clients")]
        Command::Cqrs(command) => cqrs::run(command),
        Command::Backup(args) => client_command(admin::backup(args)),
        Command::Restore(args) => client_command(admin::restore(args)),
        Command::Export(args) => client_command(admin::export(args)),
        Command::Import(args) => client_command(admin::import(args)),
        #[cfg(not(feature = "clients"))]
        Command::Missing(words) => {
            eprintln!("kura: {}", without_clients::missing(&words));
            return ExitCode::from(2);
        }
        Command::Insights(args) => client_command(observe::insights(args)),
        Command::Advise(args) => client_command(observe::advise(args)),
        Command::Fault(args) => client_command(fault::fault(args)),
        Command::Regions(args) => client_command(regions_cmd::regions(args)),
        Command::Mcp(args) => client_command(mcp::run(args)),
        // A probe's answer is its exit status and one plain line, never a log record.
        Command::Healthcheck(args) => {
            return match client_command(health::check(&args)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(line) => {
                    eprintln!("kura healthcheck: {line}");
                    ExitCode::FAILURE
                }
            };
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) if verbose => {
            tracing::error!("{message}");
            ExitCode::FAILURE
        }
        // One plain line a user reads (docs/cli.md): the command, what failed, what to try.
        Err(message) => {
            eprintln!("kura {name}: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs a client command on a small runtime of its own.
fn client_command(
    job: impl std::future::Future<Output = Result<(), String>>,
) -> Result<(), String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?
        .block_on(job)
}

/// Runs the server; with `dev`, `kura dev`'s stack beside it.
fn serve(args: ServeArgs, dev: Option<dev::DevConfig>) -> Result<(), String> {
    // Long: the server's start in order: runtime, engine, controls, listener, triggers, kura dev's stack, serving.
    let started = std::time::Instant::now();
    let trigger_admin = args.trigger_admin || dev.is_some();
    if dev.is_some() && args.tls_cert.is_some() {
        return Err("kura dev serves plain HTTP: leave out --tls-cert and --tls-key".into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let options = engine_options(&args, &runtime)?;
    let manual_clock = (args.clock == "manual").then(|| {
        Arc::new(kura_engine::clock::ManualClock::new(
            kura_engine::clock::now_ms(),
        ))
    });
    let options = match &manual_clock {
        Some(clock) => EngineOptions {
            clock: clock.clone(),
            ..options
        },
        None => options,
    };
    let regions = region_options(&args, &options)?;
    let with_controls = args.test_controls || manual_clock.is_some() || dev.is_some();
    let auth = authenticator(&args)?;
    let audit = audit_log(&args)?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(kura_server::TlsConfig::from_pem_files(cert, key)?),
        _ => None,
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    // The port first: a port in use must not leave a new data directory behind.
    let addr = SocketAddr::new(args.bind, args.port);
    let listener = std::net::TcpListener::bind(addr)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let (engine, controls) = if args.in_memory && with_controls {
        let controls = kura_server::test_controls::TestControls::in_memory(options, manual_clock)
            .map_err(|e| e.to_string())?;
        (controls.engine(), Some(controls))
    } else {
        let engine: Arc<Engine> = if args.in_memory {
            Engine::in_memory_with_options(options)
        } else {
            Engine::open_with_options(&args.data_dir, options)
                .map_err(|e| format!("cannot open {}: {e}", args.data_dir.display()))?
        };
        let controls = with_controls
            .then(|| kura_server::test_controls::TestControls::over(engine.clone(), manual_clock));
        (engine, controls)
    };
    runtime.block_on(async move {
        kura_server::test_controls::seed::start_state(
            &engine,
            controls.as_deref(),
            args.schema.as_deref(),
            args.seed.as_deref(),
        )
        .await?;
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        let storage = if args.in_memory {
            "in memory".to_owned()
        } else {
            args.data_dir.display().to_string()
        };
        let triggers = start_triggers(&engine, &args)?;
        let stopping = triggers.clone();
        let (stack_tx, stack_rx) = tokio::sync::oneshot::channel::<dev::Stack>();
        let shutdown = async move {
            shutdown_signal().await;
            // The stack and the triggers stop first, their checkpoints saved while the
            // engine still runs.
            if let Ok(stack) = stack_rx.await {
                stack.stop().await;
            }
            stopping.shutdown().await;
        };
        // The advisor's endpoint always; the console when asked for.
        let mut front_ends = vec![advise_route::front_end()];
        if args.console {
            front_ends.push(kura_console::front_end(tls.is_some()));
        }
        match dev {
            // The projectors reach the server through its port once it serves.
            Some(config) => {
                let endpoint = format!("http://{local}");
                let triggers = triggers.clone();
                let notifier = dev::Notifier::default();
                front_ends.push(dev::notifications_front_end(&config, notifier.clone()));
                tokio::spawn(async move {
                    match dev::Stack::start(config, &triggers, &endpoint, notifier, started).await {
                        Ok(stack) => {
                            let _ = stack_tx.send(stack);
                        }
                        Err(e) => {
                            tracing::error!("kura dev cannot start its stack: {e}");
                            std::process::exit(1);
                        }
                    }
                });
            }
            None => drop(stack_tx),
        }
        if let (Some(auth), Some(path)) = (&auth, &args.auth) {
            reload_on_hangup(auth.clone(), path.clone());
        }
        // The readiness line scripts wait for; keep its wording stable.
        tracing::info!("kura ready on {scheme}://{local} (storage: {storage})");
        if args.console {
            tracing::info!("console on {scheme}://{local}/console");
        }
        let options = kura_server::ServerOptions {
            auth,
            audit,
            tls,
            metrics: args.metrics,
            triggers: Some(triggers),
            trigger_admin,
            controls,
            front_ends,
            metrics_access: metrics_access(&args),
            metrics_bind: args.metrics_bind,
            connections: kura_server::connections::ConnectionLimits {
                max_open: args.max_connections as usize,
                read_timeout: std::time::Duration::from_secs(args.request_read_timeout),
                request_memory: (args.request_memory_mb as usize) << 20,
            },
            admission: kura_server::admission::AdmissionLimits {
                max_in_flight: args.max_in_flight as usize,
                queue_wait: std::time::Duration::from_millis(args.max_queue_wait_ms),
            },
            regions,
        };
        kura_server::serve_with(listener, engine, options, shutdown)
            .await
            .map_err(|e| format!("server error: {e}"))?;
        tracing::info!("kura stopped");
        Ok(())
    })
}

/// `--regions separate`: how another region's engine is opened (in memory, or in
/// `regions/<name>/` of the data directory), and the regions the directory already holds.
fn region_options(
    args: &ServeArgs,
    options: &EngineOptions,
) -> Result<Option<Arc<kura_server::RegionOptions>>, String> {
    if args.regions != "separate" {
        return Ok(None);
    }
    if !kura_engine::replication::valid_region(&args.region) {
        return Err(format!("--region {}: not a region name", args.region));
    }
    let options = options.clone();
    let (open, existing): (kura_engine::replication::OpenRegion, Vec<String>) = if args.in_memory {
        let open = move |_: &str| Ok(Engine::in_memory_with_options(options.clone()));
        (Box::new(open), Vec::new())
    } else {
        let root = args.data_dir.join("regions");
        let existing = std::fs::read_dir(&root)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|name| kura_engine::replication::valid_region(name))
                    .collect()
            })
            .unwrap_or_default();
        let open =
            move |region: &str| Engine::open_with_options(&root.join(region), options.clone());
        (Box::new(open), existing)
    };
    Ok(Some(Arc::new(kura_server::RegionOptions {
        home: args.region.clone(),
        open,
        existing,
        delay: Duration::from_millis(args.replication_delay_ms),
    })))
}

/// The engine's options from `kura serve`'s flags; S3 buckets use `runtime` for their
/// client.
fn engine_options(
    args: &ServeArgs,
    runtime: &tokio::runtime::Runtime,
) -> Result<EngineOptions, String> {
    Ok(EngineOptions {
        limits: WriteLimits {
            shards: kura_engine::streams::ShardShape {
                initial: args.stream_shards,
                split_after_records: args.stream_split_records,
                max_open: args.stream_max_shards.max(args.stream_shards),
                max_age_ms: (args.stream_shard_seconds * 1000.0) as i64,
            },
            max_tables: args.max_tables,
            ..WriteLimits::default()
        },
        sweep_interval: Duration::from_secs_f64(args.ttl_interval),
        store: kura_engine::storage::StoreOptions {
            cache_bytes: args.cache_mb << 20,
            memtable_bytes: args.memtable_mb << 20,
        },
        objects: match (&args.s3_endpoint, &args.buckets_dir) {
            #[cfg(feature = "clients")]
            (Some(endpoint), _) => Some(Arc::new(s3::S3Buckets::new(
                endpoint,
                &args.s3_region,
                runtime.handle().clone(),
            )?) as Arc<dyn kura_engine::objects::Objects>),
            #[cfg(not(feature = "clients"))]
            (Some(_), _) => {
                let _only_s3_uses_it = runtime;
                return Err(without_clients::missing(&["--s3-endpoint".into()]));
            }
            (None, Some(dir)) => Some(Arc::new(kura_engine::objects::LocalBuckets::new(dir)) as _),
            (None, None) => None,
        },
        throttle: args
            .enforce_capacity
            .then_some(kura_engine::throttle::ThrottleOptions {
                burst_seconds: args.burst_seconds,
                ..kura_engine::throttle::ThrottleOptions::default()
            }),
        vector_exact_below: args.vector_exact_below,
        vector_search_expansion: args.vector_search_expansion,
        ..EngineOptions::default()
    })
}

/// The authenticator of `--auth`, or a warning when the server listens beyond loopback
/// without one.
fn authenticator(args: &ServeArgs) -> Result<Option<Arc<kura_server::Authenticator>>, String> {
    Ok(match &args.auth {
        None => {
            if !args.bind.is_loopback() {
                let warning = format!(
                    "WARNING: listening on {} without --auth: anyone who can reach the port can read and write everything",
                    args.bind
                );
                tracing::warn!("{warning}");
                eprintln!("{warning}");
            }
            None
        }
        Some(path) => {
            let credentials = kura_server::Credentials::load(path).map_err(|e| e.to_string())?;
            tracing::info!(
                "authentication on: {} access keys from {}",
                credentials.len(),
                path.display()
            );
            Some(Arc::new(kura_server::Authenticator::new(credentials)))
        }
    })
}

/// The audit log of `--audit`, opened for appending.
fn audit_log(args: &ServeArgs) -> Result<Option<Arc<kura_api::audit::AuditLog>>, String> {
    Ok(match &args.audit {
        None => None,
        Some(path) => {
            let mut options = kura_api::audit::AuditOptions::new(path);
            options.data_events = args.audit_data_events;
            options.max_bytes = args.audit_max_bytes;
            let log = kura_api::audit::AuditLog::open(options)
                .map_err(|e| format!("cannot open the audit log {}: {e}", path.display()))?;
            tracing::info!(
                "audit log on: {} ({})",
                path.display(),
                if args.audit_data_events {
                    "control and data plane"
                } else {
                    "control plane"
                }
            );
            Some(Arc::new(log))
        }
    })
}

/// Who may read GET /metrics on the API's port: the bearer of `--metrics-token` when one
/// is set, no one when `--auth` is on without it (the metrics name every table), else
/// anyone, as before `--auth` existed.
fn metrics_access(args: &ServeArgs) -> kura_server::MetricsAccess {
    match (&args.metrics_token, &args.auth) {
        (Some(token), _) => kura_server::MetricsAccess::Bearer(token.clone()),
        (None, Some(_)) => kura_server::MetricsAccess::Refused,
        (None, None) => kura_server::MetricsAccess::Open,
    }
}

/// The triggers of `--triggers`, and those created through `/kura/triggers` before a
/// restart (the endpoint can create more at run time).
fn start_triggers(
    engine: &Arc<Engine>,
    args: &ServeArgs,
) -> Result<Arc<kura_triggers::Triggers>, String> {
    let store = if args.in_memory {
        kura_triggers::StateStore::Memory
    } else {
        kura_triggers::StateStore::Dir(args.data_dir.join("triggers"))
    };
    let triggers = kura_triggers::Triggers::new(
        engine.clone(),
        "us-east-1",
        store,
        kura_triggers::RunnerOptions::default(),
    );
    if let Some(path) = &args.triggers {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let declared =
            kura_triggers::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for trigger in declared {
            triggers.add_from_file(trigger).map_err(|e| e.to_string())?;
        }
    }
    let resumed = triggers.resume_saved().map_err(|e| e.to_string())?;
    let count = triggers.names().len();
    tracing::info!(triggers = count, resumed, "stream triggers");
    Ok(triggers)
}

/// Re-reads the credentials file on each SIGHUP; a file that does not parse leaves the
/// keys in force as they were. Call it inside the runtime, before announcing readiness, so
/// that a SIGHUP right after the readiness line is not met by the default action.
fn reload_on_hangup(auth: Arc<kura_server::Authenticator>, path: PathBuf) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut hangup) = signal(SignalKind::hangup()) else {
            tracing::error!(
                "cannot install the SIGHUP handler: the credentials file will not be reloaded"
            );
            return;
        };
        tokio::spawn(async move {
            while hangup.recv().await.is_some() {
                match kura_server::Credentials::load(&path) {
                    Ok(credentials) => {
                        let count = credentials.len();
                        auth.replace(credentials);
                        tracing::info!(
                            "SIGHUP: reloaded {count} access keys from {}",
                            path.display()
                        );
                    }
                    Err(e) => tracing::error!("SIGHUP: kept the previous access keys: {e}"),
                }
            }
        });
    }
    #[cfg(not(unix))]
    let _ = (auth, path);
}
