//! `kura backup`, `kura restore`, `kura export`, `kura import`: thin clients of the
//! DynamoDB API (any endpoint: a `kura serve`, or DynamoDB itself with its credentials in
//! the environment) that start the operation and follow it to its end. On a terminal they
//! draw a progress bar (items, rate, ETA where the total is known); otherwise they print
//! one JSON line per second and a last one with the outcome, for scripts.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::primitives::DateTime;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CsvOptions, ExportFormat, ExportType, ExportViewType,
    IncrementalExportSpecification, InputCompressionType, InputFormat, InputFormatOptions,
    KeySchemaElement, KeyType, S3BucketSource, ScalarAttributeType, TableCreationParameters,
    TableStatus,
};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

/// Where the DynamoDB API is.
#[derive(Args)]
pub struct Endpoint {
    /// The DynamoDB endpoint, e.g. a `kura serve`.
    #[arg(long, default_value = "http://127.0.0.1:8000", env = "KURA_ENDPOINT")]
    endpoint: String,
}

impl Endpoint {
    fn client(&self) -> Client {
        kura_cqrs::endpoint::dynamodb_client(&self.endpoint)
    }
}

#[derive(Args)]
pub struct BackupArgs {
    #[command(flatten)]
    endpoint: Endpoint,
    /// The table to back up.
    table: String,
    /// The backup's name (default: the table's name and the time).
    #[arg(long)]
    name: Option<String>,
}

#[derive(Args)]
pub struct RestoreArgs {
    #[command(flatten)]
    endpoint: Endpoint,
    /// The new table.
    #[arg(long)]
    target: String,
    /// Restore this backup.
    #[arg(long, conflicts_with = "source")]
    backup_arn: Option<String>,
    /// Restore this table (point-in-time recovery must be on) ...
    #[arg(long, required_unless_present = "backup_arn")]
    source: Option<String>,
    /// ... as it was at this time (RFC 3339 or epoch seconds; default: the latest).
    #[arg(long, requires = "source")]
    time: Option<String>,
}

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    endpoint: Endpoint,
    /// The table to export (point-in-time recovery must be on).
    table: String,
    /// The bucket.
    #[arg(long)]
    bucket: String,
    /// The key prefix in the bucket.
    #[arg(long)]
    prefix: Option<String>,
    /// DYNAMODB_JSON or ION.
    #[arg(long, default_value = "DYNAMODB_JSON")]
    format: String,
    /// A full export of the table at this time (RFC 3339 or epoch seconds; default: now).
    #[arg(long, conflicts_with = "from")]
    time: Option<String>,
    /// An incremental export of the changes from this time ...
    #[arg(long)]
    from: Option<String>,
    /// ... to this one (default: now).
    #[arg(long, requires = "from")]
    to: Option<String>,
    /// NEW_IMAGE or NEW_AND_OLD_IMAGES, for an incremental export.
    #[arg(long, requires = "from")]
    view: Option<String>,
}

#[derive(Args)]
pub struct ImportArgs {
    #[command(flatten)]
    endpoint: Endpoint,
    /// The table to create and fill.
    #[arg(long)]
    table: String,
    /// Its key: `pk:S`, then optionally `sk:N` (types S, N or B).
    #[arg(long = "key", required = true, num_args = 1..=2)]
    keys: Vec<String>,
    /// The bucket to read.
    #[arg(long)]
    bucket: String,
    /// The key prefix of the objects to read.
    #[arg(long, default_value = "")]
    prefix: String,
    /// DYNAMODB_JSON, ION or CSV.
    #[arg(long, default_value = "DYNAMODB_JSON")]
    format: String,
    /// GZIP, ZSTD or NONE.
    #[arg(long, default_value = "NONE")]
    compression: String,
    /// The CSV delimiter.
    #[arg(long)]
    csv_delimiter: Option<String>,
    /// The CSV header, comma separated, when the files have none.
    #[arg(long, value_delimiter = ',')]
    csv_header: Option<Vec<String>>,
}

/// A time from the command line: RFC 3339 or epoch seconds.
fn parse_time(text: &str) -> Result<DateTime, String> {
    if let Ok(seconds) = text.parse::<f64>() {
        return Ok(DateTime::from_secs_f64(seconds));
    }
    let parsed = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .map_err(|e| format!("{text:?} is neither RFC 3339 nor epoch seconds: {e}"))?;
    Ok(DateTime::from_secs_f64(
        parsed.unix_timestamp_nanos() as f64 / 1e9,
    ))
}

fn error<E: std::fmt::Debug + aws_sdk_dynamodb::error::ProvideErrorMetadata>(
    e: &aws_sdk_dynamodb::error::SdkError<E>,
) -> String {
    match e.as_service_error() {
        Some(s) => format!(
            "{}: {}",
            s.code().unwrap_or("error"),
            s.message().unwrap_or_default()
        ),
        None => format!("{e:?}"),
    }
}

/// Reports a running job: a bar on a terminal, JSON lines otherwise.
struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Instant,
    what: &'static str,
}

impl Progress {
    fn new(what: &'static str, total: Option<u64>) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = match total {
                Some(total) => ProgressBar::new(total).with_style(
                    ProgressStyle::with_template(
                        "{msg} [{bar:40}] {pos}/{len} items, {per_sec}, ETA {eta}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                ),
                None => ProgressBar::new_spinner().with_style(
                    ProgressStyle::with_template(
                        "{spinner} {msg} {pos} items, {per_sec}, {elapsed}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                ),
            };
            bar.set_message(what);
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            last_line: Instant::now() - Duration::from_secs(1),
            what,
        }
    }

    fn update(&mut self, items: u64, detail: serde_json::Value) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(items);
                bar.tick();
            }
            None if self.last_line.elapsed() >= Duration::from_secs(1) => {
                self.last_line = Instant::now();
                let elapsed = self.started.elapsed().as_secs_f64();
                line(
                    &json!({"job": self.what, "state": "running", "items": items,
                    "items_per_second": (items as f64 / elapsed.max(1e-3)).round(),
                    "elapsed_seconds": (elapsed * 10.0).round() / 10.0, "detail": detail}),
                );
            }
            None => {}
        }
    }

    fn done(self, outcome: serde_json::Value) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        let elapsed = (self.started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
        line(
            &json!({"job": self.what, "state": "done", "elapsed_seconds": elapsed, "outcome": outcome}),
        );
    }
}

#[allow(clippy::print_stdout)] // a command-line tool's answer goes to stdout
fn line(value: &serde_json::Value) {
    println!("{value}");
}

const POLL: Duration = Duration::from_millis(250);

pub async fn backup(args: BackupArgs) -> Result<(), String> {
    let client = args.endpoint.client();
    let name = args.name.unwrap_or_else(|| {
        let now = time::OffsetDateTime::now_utc();
        format!("{}-{}", args.table, now.unix_timestamp())
    });
    let out = client
        .create_backup()
        .table_name(&args.table)
        .backup_name(&name)
        .send()
        .await
        .map_err(|e| error(&e))?;
    let details = out
        .backup_details()
        .ok_or("no BackupDetails in the answer")?;
    line(&json!({"job": "backup", "state": "done", "outcome": {
        "BackupArn": details.backup_arn(), "BackupName": details.backup_name(),
        "BackupSizeBytes": details.backup_size_bytes()}}));
    Ok(())
}

/// Follows a restore until the table is ACTIVE.
async fn follow_table(client: &Client, table: &str, total: Option<u64>) -> Result<(), String> {
    let mut progress = Progress::new("restore", total);
    loop {
        let d = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| error(&e))?;
        let t = d.table().ok_or("no Table in the answer")?;
        let items = t.item_count().unwrap_or(0).max(0) as u64;
        if t.table_status() == Some(&TableStatus::Active) {
            progress.done(json!({"TableName": table, "TableStatus": "ACTIVE", "ItemCount": items}));
            return Ok(());
        }
        progress.update(
            items,
            json!({"TableStatus": t.table_status().map(|s| s.as_str())}),
        );
        tokio::time::sleep(POLL).await;
    }
}

pub async fn restore(args: RestoreArgs) -> Result<(), String> {
    let client = args.endpoint.client();
    let total = match (&args.backup_arn, &args.source) {
        (Some(arn), _) => {
            let total = client
                .describe_backup()
                .backup_arn(arn)
                .send()
                .await
                .map_err(|e| error(&e))?
                .backup_description()
                .and_then(|d| d.source_table_details())
                .and_then(|s| s.item_count());
            client
                .restore_table_from_backup()
                .backup_arn(arn)
                .target_table_name(&args.target)
                .send()
                .await
                .map_err(|e| error(&e))?;
            total
        }
        (None, Some(source)) => {
            let total = client
                .describe_table()
                .table_name(source)
                .send()
                .await
                .ok()
                .and_then(|d| d.table().and_then(|t| t.item_count()));
            let mut request = client
                .restore_table_to_point_in_time()
                .source_table_name(source)
                .target_table_name(&args.target);
            request = match &args.time {
                Some(t) => request.restore_date_time(parse_time(t)?),
                None => request.use_latest_restorable_time(true),
            };
            request.send().await.map_err(|e| error(&e))?;
            // The table's count now, as an estimate of the count then.
            total
        }
        (None, None) => return Err("give --backup-arn or --source".into()),
    };
    follow_table(&client, &args.target, total.map(|t| t.max(0) as u64)).await
}

pub async fn export(args: ExportArgs) -> Result<(), String> {
    let client = args.endpoint.client();
    let table = client
        .describe_table()
        .table_name(&args.table)
        .send()
        .await
        .map_err(|e| error(&e))?;
    let arn = table
        .table()
        .and_then(|t| t.table_arn())
        .ok_or("no TableArn")?
        .to_owned();
    let mut request = client
        .export_table_to_point_in_time()
        .table_arn(arn)
        .s3_bucket(&args.bucket)
        .set_s3_prefix(args.prefix.clone())
        .export_format(ExportFormat::from(args.format.as_str()));
    if let Some(t) = &args.time {
        request = request.export_time(parse_time(t)?);
    }
    if let Some(from) = &args.from {
        let mut spec =
            IncrementalExportSpecification::builder().export_from_time(parse_time(from)?);
        if let Some(to) = &args.to {
            spec = spec.export_to_time(parse_time(to)?);
        }
        if let Some(view) = &args.view {
            spec = spec.export_view_type(ExportViewType::from(view.as_str()));
        }
        request = request
            .export_type(ExportType::IncrementalExport)
            .incremental_export_specification(spec.build());
    }
    let started = request.send().await.map_err(|e| error(&e))?;
    let export_arn = started
        .export_description()
        .and_then(|d| d.export_arn())
        .ok_or("no ExportArn")?
        .to_owned();
    let total = table
        .table()
        .and_then(|t| t.item_count())
        .map(|t| t.max(0) as u64);
    let mut progress = Progress::new("export", total.filter(|_| args.from.is_none()));
    loop {
        let d = client
            .describe_export()
            .export_arn(&export_arn)
            .send()
            .await
            .map_err(|e| error(&e))?;
        let d = d.export_description().ok_or("no ExportDescription")?;
        match d.export_status().map(|s| s.as_str()) {
            Some("IN_PROGRESS") | None => progress.update(0, json!({"ExportArn": export_arn})),
            Some(status) => {
                let outcome = json!({"ExportArn": export_arn, "ExportStatus": status,
                    "ItemCount": d.item_count(), "ExportManifest": d.export_manifest(),
                    "FailureCode": d.failure_code(), "FailureMessage": d.failure_message()});
                progress.done(outcome);
                return if status == "COMPLETED" {
                    Ok(())
                } else {
                    Err(format!(
                        "export {status}: {}",
                        d.failure_message().unwrap_or_default()
                    ))
                };
            }
        }
        tokio::time::sleep(POLL).await;
    }
}

/// `name:TYPE` of `--key`.
fn key_attribute(text: &str) -> Result<(String, ScalarAttributeType), String> {
    let (name, ty) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("{text:?} is not NAME:TYPE"))?;
    let ty = match ty {
        "S" => ScalarAttributeType::S,
        "N" => ScalarAttributeType::N,
        "B" => ScalarAttributeType::B,
        other => return Err(format!("{other:?} is not S, N or B")),
    };
    Ok((name.to_owned(), ty))
}

pub async fn import(args: ImportArgs) -> Result<(), String> {
    let client = args.endpoint.client();
    let mut creation = TableCreationParameters::builder()
        .table_name(&args.table)
        .billing_mode(BillingMode::PayPerRequest);
    for (i, key) in args.keys.iter().enumerate() {
        let (name, ty) = key_attribute(key)?;
        creation = creation
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(&name)
                    .attribute_type(ty)
                    .build()
                    .map_err(|e| e.to_string())?,
            )
            .key_schema(
                KeySchemaElement::builder()
                    .attribute_name(name)
                    .key_type(if i == 0 {
                        KeyType::Hash
                    } else {
                        KeyType::Range
                    })
                    .build()
                    .map_err(|e| e.to_string())?,
            );
    }
    let mut request = client
        .import_table()
        .s3_bucket_source(
            S3BucketSource::builder()
                .s3_bucket(&args.bucket)
                .s3_key_prefix(&args.prefix)
                .build()
                .map_err(|e| e.to_string())?,
        )
        .input_format(InputFormat::from(args.format.as_str()))
        .input_compression_type(InputCompressionType::from(args.compression.as_str()))
        .table_creation_parameters(creation.build().map_err(|e| e.to_string())?);
    if args.csv_delimiter.is_some() || args.csv_header.is_some() {
        request = request.input_format_options(
            InputFormatOptions::builder()
                .csv(
                    CsvOptions::builder()
                        .set_delimiter(args.csv_delimiter.clone())
                        .set_header_list(args.csv_header.clone())
                        .build(),
                )
                .build(),
        );
    }
    let started = request.send().await.map_err(|e| error(&e))?;
    let import_arn = started
        .import_table_description()
        .and_then(|d| d.import_arn())
        .ok_or("no ImportArn")?
        .to_owned();
    let mut progress = Progress::new("import", None);
    loop {
        let d = client
            .describe_import()
            .import_arn(&import_arn)
            .send()
            .await
            .map_err(|e| error(&e))?;
        let d = d
            .import_table_description()
            .ok_or("no ImportTableDescription")?;
        let counts = json!({"ProcessedItemCount": d.processed_item_count(),
            "ImportedItemCount": d.imported_item_count(), "ErrorCount": d.error_count(),
            "ProcessedSizeBytes": d.processed_size_bytes()});
        match d.import_status().map(|s| s.as_str()) {
            Some("IN_PROGRESS") | None => {
                if let Some(bar) = &progress.bar {
                    let mb = d.processed_size_bytes().unwrap_or(0) as f64 / 1e6;
                    bar.set_message(format!(
                        "import ({mb:.1} MB read, {} refused)",
                        d.error_count()
                    ));
                }
                progress.update(d.imported_item_count().max(0) as u64, counts)
            }
            Some(status) => {
                progress.done(
                    json!({"ImportArn": import_arn, "ImportStatus": status, "counts": counts,
                    "FailureCode": d.failure_code(), "FailureMessage": d.failure_message()}),
                );
                return if status == "COMPLETED" {
                    Ok(())
                } else {
                    Err(format!(
                        "import {status}: {}",
                        d.failure_message().unwrap_or_default()
                    ))
                };
            }
        }
        tokio::time::sleep(POLL).await;
    }
}
