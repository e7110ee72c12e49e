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
    /// The DynamoDB endpoint: a `kura serve` (http:// or https://), or DynamoDB itself.
    #[arg(long, default_value = "http://127.0.0.1:8000", env = "KURA_ENDPOINT",
          value_parser = crate::endpoint::parse)]
    endpoint: String,
}

impl Endpoint {
    fn client(&self) -> Client {
        let hyper =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build(crate::observe::https_or_http());
        kura_cqrs::endpoint::dynamodb_client_over(
            &self.endpoint,
            kura_cqrs::endpoint::sdk_http_client(hyper),
        )
    }

    /// The plain line for an SDK error of a request to this endpoint.
    fn error<E>(&self, error: aws_sdk_dynamodb::error::SdkError<E>) -> String
    where
        E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + 'static,
    {
        crate::endpoint::sdk_error(&self.endpoint, &error)
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

/// Reports a running job: on a terminal a bar (or, for a job whose answers carry no item
/// count until its end, a spinner with the time) and a last plain sentence that says what
/// was done and where the result is; otherwise one JSON line per second and a last one with
/// the outcome, for scripts.
struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Instant,
    what: &'static str,
}

impl Progress {
    /// A job whose item count grows as it runs, towards `total` when known.
    fn items(what: &'static str, total: Option<u64>) -> Progress {
        let template = match total {
            Some(_) => "{msg} [{bar:40}] {pos}/{len} items, {per_sec}, ETA {eta}",
            None => "{spinner} {msg} {pos} items, {per_sec}, {elapsed}",
        };
        Progress::start(what, what.to_owned(), template, total)
    }

    /// A job that says nothing until it ends (DescribeExport has no item count while
    /// IN_PROGRESS): the time it has taken, never a count that stays at 0.
    fn waiting(what: &'static str, message: String) -> Progress {
        Progress::start(what, message, "{spinner} {msg} ({elapsed})", None)
    }

    fn start(what: &'static str, message: String, template: &str, total: Option<u64>) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = match total {
                Some(total) => ProgressBar::new(total),
                None => ProgressBar::new_spinner(),
            };
            let style = ProgressStyle::with_template(template)
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            bar.set_message(message);
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            last_line: Instant::now() - Duration::from_secs(1),
            what,
        }
    }

    /// The job's state: its item count when its answers carry one.
    fn update(&mut self, items: Option<u64>, detail: serde_json::Value) {
        match &self.bar {
            Some(bar) => bar.set_position(items.unwrap_or(0)),
            None if self.last_line.elapsed() >= Duration::from_secs(1) => {
                self.last_line = Instant::now();
                let elapsed = self.started.elapsed().as_secs_f64();
                let mut record = json!({"job": self.what, "state": "running",
                    "elapsed_seconds": (elapsed * 10.0).round() / 10.0, "detail": detail});
                if let Some(items) = items {
                    record["items"] = json!(items);
                    record["items_per_second"] = json!((items as f64 / elapsed.max(1e-3)).round());
                }
                line(&record);
            }
            None => {}
        }
    }

    /// An end that is a failure: the caller's error is the terminal's last line; scripts
    /// still get the outcome's JSON line.
    fn failed(self, outcome: serde_json::Value) {
        match &self.bar {
            Some(bar) => bar.finish_and_clear(),
            None => {
                let elapsed = (self.started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
                line(
                    &json!({"job": self.what, "state": "done", "elapsed_seconds": elapsed, "outcome": outcome}),
                );
            }
        }
    }

    /// The end: `summary` (a sentence without the time) on a terminal, the outcome's JSON
    /// line otherwise.
    fn done(self, outcome: serde_json::Value, summary: &str) {
        let elapsed = (self.started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
        match &self.bar {
            Some(bar) => {
                bar.finish_and_clear();
                say(&format!("{summary}, in {elapsed} s"));
            }
            None => line(
                &json!({"job": self.what, "state": "done", "elapsed_seconds": elapsed, "outcome": outcome}),
            ),
        }
    }
}

#[allow(clippy::print_stdout)] // a command-line tool's answer goes to stdout
fn line(value: &serde_json::Value) {
    println!("{value}");
}

#[allow(clippy::print_stdout)]
fn say(sentence: &str) {
    println!("{sentence}");
}

/// `1234567` as `1,234,567`.
fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

const POLL: Duration = Duration::from_millis(250);

pub async fn backup(args: BackupArgs) -> Result<(), String> {
    let endpoint = &args.endpoint;
    let client = endpoint.client();
    let name = args.name.unwrap_or_else(|| {
        let now = time::OffsetDateTime::now_utc();
        format!("{}-{}", args.table, now.unix_timestamp())
    });
    let progress = Progress::waiting("backup", format!("backing up {}", args.table));
    let out = client
        .create_backup()
        .table_name(&args.table)
        .backup_name(&name)
        .send()
        .await
        .map_err(|e| endpoint.error(e))?;
    let details = out
        .backup_details()
        .ok_or("no BackupDetails in the answer")?;
    let outcome = json!({"BackupArn": details.backup_arn(), "BackupName": details.backup_name(),
        "BackupSizeBytes": details.backup_size_bytes()});
    let size = details.backup_size_bytes().unwrap_or(0);
    progress.done(
        outcome,
        &format!(
            "backed up {} as {name} ({} bytes); restore it with `kura restore --backup-arn {} \
             --target NEW_TABLE`",
            args.table,
            thousands(size),
            details.backup_arn()
        ),
    );
    Ok(())
}

/// Follows a restore until the table is ACTIVE.
async fn follow_table(
    endpoint: &Endpoint,
    client: &Client,
    table: &str,
    total: Option<u64>,
) -> Result<(), String> {
    let mut progress = Progress::items("restore", total);
    loop {
        let d = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| endpoint.error(e))?;
        let t = d.table().ok_or("no Table in the answer")?;
        let items = t.item_count().unwrap_or(0).max(0) as u64;
        if t.table_status() == Some(&TableStatus::Active) {
            progress.done(
                json!({"TableName": table, "TableStatus": "ACTIVE", "ItemCount": items}),
                &format!(
                    "restored {} items into {table}, ACTIVE",
                    thousands(items as i64)
                ),
            );
            return Ok(());
        }
        progress.update(
            Some(items),
            json!({"TableStatus": t.table_status().map(|s| s.as_str())}),
        );
        tokio::time::sleep(POLL).await;
    }
}

pub async fn restore(args: RestoreArgs) -> Result<(), String> {
    let endpoint = &args.endpoint;
    let client = endpoint.client();
    let total = match (&args.backup_arn, &args.source) {
        (Some(arn), _) => {
            let total = client
                .describe_backup()
                .backup_arn(arn)
                .send()
                .await
                .map_err(|e| endpoint.error(e))?
                .backup_description()
                .and_then(|d| d.source_table_details())
                .and_then(|s| s.item_count());
            client
                .restore_table_from_backup()
                .backup_arn(arn)
                .target_table_name(&args.target)
                .send()
                .await
                .map_err(|e| endpoint.error(e))?;
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
            request.send().await.map_err(|e| endpoint.error(e))?;
            // The table's count now, as an estimate of the count then.
            total
        }
        (None, None) => return Err("give --backup-arn or --source".into()),
    };
    follow_table(
        endpoint,
        &client,
        &args.target,
        total.map(|t| t.max(0) as u64),
    )
    .await
}

pub async fn export(args: ExportArgs) -> Result<(), String> {
    let endpoint = &args.endpoint;
    let client = endpoint.client();
    let table = client
        .describe_table()
        .table_name(&args.table)
        .send()
        .await
        .map_err(|e| endpoint.error(e))?;
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
    let started = request.send().await.map_err(|e| endpoint.error(e))?;
    let export_arn = started
        .export_description()
        .and_then(|d| d.export_arn())
        .ok_or("no ExportArn")?
        .to_owned();
    let kind = if args.from.is_some() {
        "incremental export"
    } else {
        "export"
    };
    let mut progress = Progress::waiting(
        "export",
        format!("{kind} of {} to bucket {}", args.table, args.bucket),
    );
    loop {
        let d = client
            .describe_export()
            .export_arn(&export_arn)
            .send()
            .await
            .map_err(|e| endpoint.error(e))?;
        let d = d.export_description().ok_or("no ExportDescription")?;
        match d.export_status().map(|s| s.as_str()) {
            Some("IN_PROGRESS") | None => progress.update(None, json!({"ExportArn": export_arn})),
            Some(status) => {
                let outcome = json!({"ExportArn": export_arn, "ExportStatus": status,
                    "ItemCount": d.item_count(), "S3Bucket": d.s3_bucket(),
                    "ExportManifest": d.export_manifest(),
                    "FailureCode": d.failure_code(), "FailureMessage": d.failure_message()});
                if status != "COMPLETED" {
                    progress.failed(outcome);
                    return Err(format!(
                        "export {status}: {}",
                        d.failure_message().unwrap_or_default()
                    ));
                }
                let manifest = d.export_manifest().unwrap_or_default();
                let data = manifest
                    .rsplit_once('/')
                    .map(|(dir, _)| format!("{dir}/data/"))
                    .unwrap_or_default();
                progress.done(
                    outcome,
                    &format!(
                        "exported {} items ({} bytes) of {} to bucket {bucket}: data files \
                         under {data}, manifest {manifest} (a kura serve keeps bucket {bucket} \
                         in its --buckets-dir, by default <data dir>/buckets/{bucket})",
                        thousands(d.item_count().unwrap_or(0)),
                        thousands(d.billed_size_bytes().unwrap_or(0)),
                        args.table,
                        bucket = args.bucket,
                    ),
                );
                return Ok(());
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
    let endpoint = &args.endpoint;
    let client = endpoint.client();
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
    let started = request.send().await.map_err(|e| endpoint.error(e))?;
    let import_arn = started
        .import_table_description()
        .and_then(|d| d.import_arn())
        .ok_or("no ImportArn")?
        .to_owned();
    let mut progress = Progress::items("import", None);
    loop {
        let d = client
            .describe_import()
            .import_arn(&import_arn)
            .send()
            .await
            .map_err(|e| endpoint.error(e))?;
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
                progress.update(Some(d.imported_item_count().max(0) as u64), counts)
            }
            Some(status) => {
                let outcome = json!({"ImportArn": import_arn, "ImportStatus": status,
                    "counts": counts, "FailureCode": d.failure_code(),
                    "FailureMessage": d.failure_message()});
                if status != "COMPLETED" {
                    progress.failed(outcome);
                    return Err(format!(
                        "import {status}: {}",
                        d.failure_message().unwrap_or_default()
                    ));
                }
                progress.done(
                    outcome,
                    &format!(
                        "imported {} items into {} from bucket {} ({:.1} MB read)",
                        thousands(d.imported_item_count()),
                        args.table,
                        args.bucket,
                        d.processed_size_bytes().unwrap_or(0) as f64 / 1e6,
                    ),
                );
                return Ok(());
            }
        }
        tokio::time::sleep(POLL).await;
    }
}
