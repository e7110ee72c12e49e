//! `kura cqrs`: the kura-cqrs framework's tools for one module — run its projector, list
//! and replay its failed commands, backfill a read model from its data table.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};
use kura_cqrs::{LargeAttributes, Module, Projector, ProjectorOptions, SyncHandler, TableNames};
use serde_json::json;

#[derive(Subcommand)]
pub(crate) enum CqrsCommand {
    /// Run a module's projector: apply the command table's stream to the data table (and
    /// an optional SQLite read model) until SIGINT or SIGTERM.
    Project(ProjectArgs),
    /// List the module's failed commands (parked by the projector, or refused by a sync
    /// handler), one JSON object per line.
    Failed(ModuleArgs),
    /// Replay the module's failed commands through the data table (and the SQLite read
    /// model, when given) once their cause is fixed; prints what was replayed and what
    /// still fails.
    Redrive(ReadModelArgs),
    /// Feed every data row to the SQLite read model (a read model added after the fact),
    /// going on from where an interrupted run stopped.
    Resync(ResyncArgs),
    /// Import a CSV or JSON lines file through commands (one per record, on top of the
    /// entity's latest version; the module's tables are created when missing); prints
    /// progress and a report of the rejected records.
    Import(ImportArgs),
    /// Run a module's projector as an AWS Lambda function behind a DynamoDB Streams event
    /// source mapping on the command table (with ReportBatchItemFailures): through the
    /// Lambda runtime API when AWS_LAMBDA_RUNTIME_API is set (a custom runtime's
    /// `bootstrap`), else one event read from standard input and its response written to
    /// standard output (Kura's stream triggers with `Function.Command`).
    Lambda(LambdaArgs),
}

#[derive(Args)]
pub(crate) struct LambdaArgs {
    #[command(flatten)]
    module: ModuleArgs,
    /// Also keep a SQLite read model in this file.
    #[arg(long)]
    sqlite: Option<PathBuf>,
    /// How long a record that keeps failing with a retryable error is retried inside
    /// one invocation before it is reported to the mapping (which delivers it again);
    /// keep it well under the function's timeout.
    #[arg(long, default_value_t = 10_000)]
    retry_for_ms: u64,
}

#[derive(Args)]
pub(crate) struct ImportArgs {
    #[command(flatten)]
    module: ModuleArgs,
    /// The file to import (`-` reads standard input).
    #[arg(long)]
    file: PathBuf,
    /// `csv` (a header row) or `jsonl` (one JSON object per line).
    #[arg(long, value_parser = ["csv", "jsonl"])]
    format: String,
    /// The entities' key prefix: keys are `PREFIX#tenant` / the record's id.
    #[arg(long)]
    prefix: String,
    /// The tenant the records belong to.
    #[arg(long)]
    tenant: String,
    /// The field holding each record's id.
    #[arg(long)]
    id_field: String,
    /// The field holding each record's name.
    #[arg(long)]
    name_field: Option<String>,
    /// Publish in sync (data table written before the next record) instead of leaving
    /// the commands to the projector.
    #[arg(long)]
    sync: bool,
}

/// Which module, on which endpoint.
#[derive(Args)]
pub(crate) struct ModuleArgs {
    /// The DynamoDB endpoint (plain HTTP), e.g. a `kura serve`.
    #[arg(long, default_value = "http://127.0.0.1:8000", env = "KURA_ENDPOINT",
          value_parser = crate::endpoint::parse)]
    endpoint: String,
    /// The environment part of the table names (`{env}-{app}-{module}-command`, ...).
    #[arg(long, env = "KURA_CQRS_ENV")]
    env: String,
    /// The application part of the table names.
    #[arg(long, env = "KURA_CQRS_APP")]
    app: String,
    /// The module part of the table names.
    #[arg(long, env = "KURA_CQRS_MODULE")]
    module: String,
    #[command(flatten)]
    objects: ObjectArgs,
}

/// Where the module keeps attributes too large for an item (`LargeAttributes`): read
/// back for the SQLite read model, written by an import.
#[derive(Args)]
pub(crate) struct ObjectArgs {
    /// A directory of buckets (a bucket is a directory, as `kura serve --buckets-dir`).
    #[arg(long, env = "KURA_CQRS_OBJECTS_DIR")]
    objects_dir: Option<PathBuf>,
    /// An S3 or S3-compatible endpoint instead (path-style; credentials from
    /// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
    #[arg(
        long,
        env = "KURA_CQRS_OBJECTS_S3_ENDPOINT",
        conflicts_with = "objects_dir"
    )]
    objects_s3_endpoint: Option<String>,
    /// The region of --objects-s3-endpoint.
    #[arg(long, default_value = "us-east-1")]
    objects_region: String,
    /// The bucket.
    #[arg(long, default_value = "kura-cqrs-attributes")]
    objects_bucket: String,
}

impl ObjectArgs {
    /// The configured store, if any.
    fn large(&self) -> Result<Option<LargeAttributes>, String> {
        let store: Arc<dyn kura_cqrs::ObjectStore> =
            match (&self.objects_dir, &self.objects_s3_endpoint) {
                (Some(dir), _) => Arc::new(kura_cqrs::DirectoryStore::new(dir)),
                (None, Some(endpoint)) => Arc::new(kura_cqrs::objects::S3Store::new(
                    crate::s3::client(endpoint, &self.objects_region)?,
                )),
                (None, None) => return Ok(None),
            };
        Ok(Some(LargeAttributes::new(store, &self.objects_bucket)))
    }
}

impl ModuleArgs {
    fn tables(&self) -> TableNames {
        TableNames::new(&self.env, &self.app, &self.module)
    }

    fn client(&self) -> aws_sdk_dynamodb::Client {
        kura_cqrs::endpoint::dynamodb_client(&self.endpoint)
    }

    /// The module as the command line configures it: its large-attribute store, and
    /// the SQLite read model when one is given.
    fn module(&self, sqlite: Option<&std::path::Path>) -> Result<Module, String> {
        let mut module = Module::new(self.client(), &self.env, &self.app, &self.module);
        if let Some(large) = self.objects.large()? {
            module = module.with_large_attributes(large);
        }
        if let Some(path) = sqlite {
            module = module.with_sync_handler(sqlite_model(path)?);
        }
        Ok(module)
    }

    fn projector(
        &self,
        sqlite: Option<&std::path::Path>,
        owner: Option<String>,
    ) -> Result<Projector, String> {
        Ok(self.module(sqlite)?.projector(
            kura_cqrs::endpoint::streams_client(&self.endpoint),
            ProjectorOptions {
                owner,
                ..ProjectorOptions::default()
            },
        ))
    }
}

#[derive(Args)]
pub(crate) struct ProjectArgs {
    #[command(flatten)]
    module: ModuleArgs,
    /// Also keep a SQLite read model in this file.
    #[arg(long)]
    sqlite: Option<PathBuf>,
    /// Milliseconds to wait when the stream has nothing new.
    #[arg(long, default_value_t = 100)]
    idle_ms: u64,
    /// The name this projector's shard leases carry: started again under the same name
    /// (a service manager's restart), it takes its shards back at once instead of
    /// waiting out its lease (30 s). Never give two running projectors one name.
    #[arg(long)]
    owner: Option<String>,
}

#[derive(Args)]
pub(crate) struct ReadModelArgs {
    #[command(flatten)]
    module: ModuleArgs,
    /// The SQLite read model the projector keeps (`kura cqrs project --sqlite`).
    #[arg(long)]
    sqlite: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct ResyncArgs {
    #[command(flatten)]
    module: ModuleArgs,
    /// The SQLite read model to fill.
    #[arg(long)]
    sqlite: PathBuf,
    /// Data rows read per request.
    #[arg(long, default_value_t = 100)]
    page: i32,
}

fn sqlite_model(path: &std::path::Path) -> Result<Arc<dyn SyncHandler>, String> {
    let model = kura_cqrs::sqlite::SqliteReadModel::open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    Ok(Arc::new(model))
}

pub(crate) fn run(command: CqrsCommand) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        match command {
            CqrsCommand::Project(args) => project(args).await,
            CqrsCommand::Failed(args) => failed(args).await,
            CqrsCommand::Redrive(args) => redrive(args).await,
            CqrsCommand::Resync(args) => resync(args).await,
            CqrsCommand::Import(args) => import(args).await,
            CqrsCommand::Lambda(args) => lambda(args).await,
        }
    })
}

async fn project(args: ProjectArgs) -> Result<(), String> {
    let tables = args.module.tables();
    kura_cqrs::ensure_tables(&args.module.client(), &tables)
        .await
        .map_err(|e| e.to_string())?;
    let projector = args.module.projector(args.sqlite.as_deref(), args.owner)?;
    let shutdown = crate::signals::shutdown_signal();
    // The readiness line scripts wait for; keep its wording stable.
    tracing::info!("kura projector running for {}", tables.command);
    projector
        .run(Duration::from_millis(args.idle_ms), shutdown)
        .await;
    Ok(())
}

async fn lambda(args: LambdaArgs) -> Result<(), String> {
    let projector = args.module.module(args.sqlite.as_deref())?.projector(
        kura_cqrs::endpoint::streams_client(&args.module.endpoint),
        ProjectorOptions {
            retry_for: std::time::Duration::from_millis(args.retry_for_ms),
            ..ProjectorOptions::default()
        },
    );
    let applied = match std::env::var_os("AWS_LAMBDA_RUNTIME_API") {
        Some(_) => kura_cqrs::lambda::run(projector).await,
        None => kura_cqrs::lambda::apply_stdin(&projector).await,
    };
    applied.map_err(|e| e.to_string())
}

async fn failed(args: ModuleArgs) -> Result<(), String> {
    let failed = kura_cqrs::redrive::failed(&args.client(), &args.tables())
        .await
        .map_err(|e| e.to_string())?;
    for f in failed {
        line(&json!({
            "pk": f.command.pk,
            "sk": f.command.sk,
            "version": f.command.version,
            "error": f.error,
            "parkedAt": f.parked_at,
            "handler": f.handler,
        }));
    }
    Ok(())
}

async fn redrive(args: ReadModelArgs) -> Result<(), String> {
    let projector = args.module.projector(args.sqlite.as_deref(), None)?;
    let report = kura_cqrs::redrive::redrive(&projector)
        .await
        .map_err(|e| e.to_string())?;
    for (command, error) in &report.still_failing {
        line(&json!({"command": command, "stillFailing": error}));
    }
    line(&json!({"replayed": report.replayed, "stillFailing": report.still_failing.len()}));
    Ok(())
}

async fn resync(args: ResyncArgs) -> Result<(), String> {
    let model = sqlite_model(&args.sqlite)?;
    let fed = kura_cqrs::redrive::resync(
        &args.module.client(),
        &args.module.tables(),
        model.as_ref(),
        args.page,
        args.module.objects.large()?.as_ref(),
    )
    .await
    .map_err(|e| e.to_string())?;
    line(&json!({"resynced": fed}));
    Ok(())
}

async fn import(args: ImportArgs) -> Result<(), String> {
    use kura_cqrs::import::{Format, Import, Mapping};
    let input: Box<dyn std::io::BufRead> = if args.file.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(&args.file)
            .map_err(|e| format!("cannot read {}: {e}", args.file.display()))?;
        Box::new(std::io::BufReader::new(file))
    };
    let format = if args.format == "csv" {
        Format::Csv
    } else {
        Format::JsonLines
    };
    let mut mapping = Mapping::new(&args.prefix, &args.tenant, &args.id_field);
    if let Some(field) = &args.name_field {
        mapping = mapping.with_name_field(field);
    }
    let (client, tables) = (args.module.client(), args.module.tables());
    kura_cqrs::ensure_tables(&client, &tables)
        .await
        .map_err(|e| e.to_string())?;
    // Index keys are computed by the module's own declarations when a command is
    // published; this command has none, and the new versions would leave the indexes.
    let described = client
        .describe_table()
        .table_name(&tables.data)
        .send()
        .await
        .map_err(|e| format!("cannot describe {}: {e}", tables.data))?;
    let indexes = described
        .table()
        .map_or(0, |t| t.global_secondary_indexes().len());
    if indexes > 0 {
        return Err(format!(
            "{} has {indexes} secondary indexes: import through the module's code \
             (kura_cqrs::import::Import with a CommandService::with_indexes), which \
             computes their keys",
            tables.data
        ));
    }
    let service = args.module.module(None)?.commands();
    let mut import = Import::new(&service, mapping).progress(1000, |r| {
        tracing::info!(
            records = r.records,
            published = r.published,
            rejected = r.rejected.len(),
            "importing"
        );
    });
    if args.sync {
        import = import.sync();
    }
    let report = import.run(format, input).await.map_err(|e| e.to_string())?;
    for rejected in &report.rejected {
        line(&json!({"line": rejected.line, "rejected": rejected.reason}));
    }
    line(&json!({
        "records": report.records,
        "published": report.published,
        "unchanged": report.unchanged,
        "rejected": report.rejected.len(),
    }));
    Ok(())
}

#[allow(clippy::print_stdout)] // a command-line tool's answer goes to stdout
fn line(value: &serde_json::Value) {
    println!("{value}");
}
