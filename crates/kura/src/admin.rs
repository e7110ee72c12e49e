//! `kura backup`, `kura restore`, `kura export`, `kura import`: thin clients of the
//! DynamoDB API (any endpoint: a `kura serve`, or DynamoDB itself with its credentials in
//! the environment) that start the operation and follow it to its end. They talk through
//! Kura's own client (`kura-client`: DynamoDB's JSON, signed with SigV4), so the README's
//! build has them without the AWS SDK. On a terminal they draw a progress bar (items,
//! rate, ETA where the total is known); otherwise they print one JSON line per second and
//! a last one with the outcome, for scripts.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

/// Where the DynamoDB API is.
#[derive(Args)]
pub struct Endpoint {
    /// The DynamoDB endpoint: a `kura serve` (http:// or https://), or DynamoDB itself.
    #[arg(long, default_value = "http://127.0.0.1:8000", env = "KURA_ENDPOINT",
          value_parser = crate::endpoint::parse)]
    endpoint: String,
}

impl Endpoint {
    fn client(&self) -> Result<kura_client::Endpoint, String> {
        kura_client::Endpoint::from_environment(&self.endpoint).map_err(|e| e.to_string())
    }
}

/// Calls `operation`; a failure as the command's one plain line.
async fn call(
    client: &kura_client::Endpoint,
    operation: &str,
    body: Value,
) -> Result<Value, String> {
    client
        .call(operation, &body)
        .await
        .map_err(|e| e.to_string())
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
    /// DYNAMODB_JSON, ION or CSV (default: the export's, when the prefix is one of this
    /// endpoint's exports, else DYNAMODB_JSON).
    #[arg(long)]
    format: Option<String>,
    /// GZIP, ZSTD or NONE (default: GZIP for an export's data, else NONE).
    #[arg(long)]
    compression: Option<String>,
    /// The CSV delimiter.
    #[arg(long)]
    csv_delimiter: Option<String>,
    /// The CSV header, comma separated, when the files have none.
    #[arg(long, value_delimiter = ',')]
    csv_header: Option<Vec<String>>,
}

/// A time from the command line, RFC 3339 or epoch seconds, as the epoch seconds
/// DynamoDB's JSON carries.
fn parse_time(text: &str) -> Result<f64, String> {
    if let Ok(seconds) = text.parse::<f64>() {
        return Ok(seconds);
    }
    let parsed = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .map_err(|e| format!("{text:?} is neither RFC 3339 nor epoch seconds: {e}"))?;
    Ok(parsed.unix_timestamp_nanos() as f64 / 1e9)
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
            Some(_) => "{msg} [{bar:40}] {pos}/{len} items, {rate}, ETA {eta}",
            None => "{spinner} {msg} {pos} items, {rate}, {elapsed}",
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
            // indicatif's own {per_sec} prints four decimals ("12.3457/s").
            let style = ProgressStyle::with_template(template)
                .unwrap_or_else(|_| ProgressStyle::default_spinner())
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = w.write_str(&rate_text(state.per_sec()));
                    },
                );
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

/// Items per second as a person reads a rate: whole items, thousands grouped.
fn rate_text(per_second: f64) -> String {
    format!("{} items/s", thousands(per_second.round() as i64))
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
    let client = args.endpoint.client()?;
    let name = args.name.unwrap_or_else(|| {
        let now = time::OffsetDateTime::now_utc();
        format!("{}-{}", args.table, now.unix_timestamp())
    });
    let progress = Progress::waiting("backup", format!("backing up {}", args.table));
    let out = call(
        &client,
        "CreateBackup",
        json!({"TableName": args.table, "BackupName": name}),
    )
    .await?;
    let details = &out["BackupDetails"];
    let arn = details["BackupArn"]
        .as_str()
        .ok_or("no BackupDetails in the answer")?;
    let size = details["BackupSizeBytes"].as_i64().unwrap_or(0);
    let outcome = json!({"BackupArn": arn, "BackupName": details["BackupName"],
        "BackupSizeBytes": details["BackupSizeBytes"]});
    progress.done(
        outcome,
        &format!(
            "backed up {} as {name} ({} bytes); restore it with `kura restore --backup-arn {arn} \
             --target NEW_TABLE`",
            args.table,
            thousands(size),
        ),
    );
    Ok(())
}

/// Follows a restore until the table is ACTIVE.
async fn follow_table(
    client: &kura_client::Endpoint,
    table: &str,
    total: Option<u64>,
) -> Result<(), String> {
    let mut progress = Progress::items("restore", total);
    loop {
        let d = call(client, "DescribeTable", json!({"TableName": table})).await?;
        let t = &d["Table"];
        let items = t["ItemCount"].as_i64().unwrap_or(0).max(0) as u64;
        let status = t["TableStatus"].as_str().ok_or("no Table in the answer")?;
        if status == "ACTIVE" {
            progress.done(
                json!({"TableName": table, "TableStatus": "ACTIVE", "ItemCount": items}),
                &format!(
                    "restored {} items into {table}, ACTIVE",
                    thousands(items as i64)
                ),
            );
            return Ok(());
        }
        progress.update(Some(items), json!({"TableStatus": status}));
        tokio::time::sleep(POLL).await;
    }
}

pub async fn restore(args: RestoreArgs) -> Result<(), String> {
    let client = args.endpoint.client()?;
    let total = match (&args.backup_arn, &args.source) {
        (Some(arn), _) => {
            let described = call(&client, "DescribeBackup", json!({"BackupArn": arn})).await?;
            let total = described["BackupDescription"]["SourceTableDetails"]["ItemCount"].as_i64();
            call(
                &client,
                "RestoreTableFromBackup",
                json!({"BackupArn": arn, "TargetTableName": args.target}),
            )
            .await?;
            total
        }
        (None, Some(source)) => {
            let total = client
                .call("DescribeTable", &json!({"TableName": source}))
                .await
                .ok()
                .and_then(|d| d["Table"]["ItemCount"].as_i64());
            let mut request = json!({"SourceTableName": source, "TargetTableName": args.target});
            match &args.time {
                Some(t) => request["RestoreDateTime"] = json!(parse_time(t)?),
                None => request["UseLatestRestorableTime"] = json!(true),
            }
            call(&client, "RestoreTableToPointInTime", request).await?;
            // The table's count now, as an estimate of the count then.
            total
        }
        (None, None) => return Err("give --backup-arn or --source".into()),
    };
    follow_table(&client, &args.target, total.map(|t| t.max(0) as u64)).await
}

pub async fn export(args: ExportArgs) -> Result<(), String> {
    let client = args.endpoint.client()?;
    let table = call(&client, "DescribeTable", json!({"TableName": args.table})).await?;
    let arn = table["Table"]["TableArn"].as_str().ok_or("no TableArn")?;
    let mut request = json!({"TableArn": arn, "S3Bucket": args.bucket,
        "ExportFormat": args.format});
    if let Some(prefix) = &args.prefix {
        request["S3Prefix"] = json!(prefix);
    }
    if let Some(t) = &args.time {
        request["ExportTime"] = json!(parse_time(t)?);
    }
    if let Some(from) = &args.from {
        let mut spec = json!({"ExportFromTime": parse_time(from)?});
        if let Some(to) = &args.to {
            spec["ExportToTime"] = json!(parse_time(to)?);
        }
        if let Some(view) = &args.view {
            spec["ExportViewType"] = json!(view);
        }
        request["ExportType"] = json!("INCREMENTAL_EXPORT");
        request["IncrementalExportSpecification"] = spec;
    }
    let started = call(&client, "ExportTableToPointInTime", request).await?;
    let export_arn = started["ExportDescription"]["ExportArn"]
        .as_str()
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
        let d = call(&client, "DescribeExport", json!({"ExportArn": export_arn})).await?;
        let d = &d["ExportDescription"];
        match d["ExportStatus"].as_str() {
            Some("IN_PROGRESS") | None => progress.update(None, json!({"ExportArn": export_arn})),
            Some(status) => {
                let outcome = json!({"ExportArn": export_arn, "ExportStatus": status,
                    "ItemCount": d["ItemCount"], "S3Bucket": d["S3Bucket"],
                    "ExportManifest": d["ExportManifest"],
                    "FailureCode": d["FailureCode"], "FailureMessage": d["FailureMessage"]});
                if status != "COMPLETED" {
                    progress.failed(outcome);
                    return Err(format!(
                        "export {status}: {}",
                        d["FailureMessage"].as_str().unwrap_or_default()
                    ));
                }
                let manifest = d["ExportManifest"].as_str().unwrap_or_default();
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
                        thousands(d["ItemCount"].as_i64().unwrap_or(0)),
                        thousands(d["BilledSizeBytes"].as_i64().unwrap_or(0)),
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
fn key_attribute(text: &str) -> Result<(String, &str), String> {
    let (name, ty) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("{text:?} is not NAME:TYPE"))?;
    match ty {
        "S" | "N" | "B" => Ok((name.to_owned(), ty)),
        other => Err(format!("{other:?} is not S, N or B")),
    }
}

/// An export of this endpoint that `prefix` in `bucket` names (its directory, its `data/`
/// or its manifest): its format, and the prefix of its data files.
async fn export_at(
    client: &kura_client::Endpoint,
    bucket: &str,
    prefix: &str,
) -> Result<Option<(String, String, String)>, String> {
    let mut next: Option<Value> = None;
    for _ in 0..40 {
        let mut request = json!({"MaxResults": 25});
        if let Some(token) = next.take() {
            request["NextToken"] = token;
        }
        let page = call(client, "ListExports", request).await?;
        for summary in page["ExportSummaries"].as_array().into_iter().flatten() {
            let Some(arn) = summary["ExportArn"].as_str() else {
                continue;
            };
            let id = arn.rsplit('/').next().unwrap_or_default();
            if id.is_empty() || !prefix.contains(id) {
                continue;
            }
            let d = call(client, "DescribeExport", json!({"ExportArn": arn})).await?;
            let d = &d["ExportDescription"];
            let manifest = d["ExportManifest"].as_str().unwrap_or_default();
            let Some((dir, _)) = manifest.rsplit_once('/') else {
                continue;
            };
            let named = [dir, &format!("{dir}/data"), manifest];
            if d["S3Bucket"] == bucket && named.contains(&prefix.trim_end_matches('/')) {
                let format = d["ExportFormat"].as_str().unwrap_or("DYNAMODB_JSON");
                return Ok(Some((
                    arn.to_owned(),
                    format.to_owned(),
                    format!("{dir}/data/"),
                )));
            }
        }
        match page.get("NextToken") {
            Some(token) if !token.is_null() => next = Some(token.clone()),
            _ => break,
        }
    }
    Ok(None)
}

/// The ImportTable request: the new table (on demand, keyed by `--key`s), the source and
/// its format.
fn import_request(
    args: &ImportArgs,
    format: &str,
    compression: &str,
    prefix: &str,
) -> Result<serde_json::Value, String> {
    let mut definitions = Vec::new();
    let mut schema = Vec::new();
    for (i, key) in args.keys.iter().enumerate() {
        let (name, ty) = key_attribute(key)?;
        definitions.push(json!({"AttributeName": name, "AttributeType": ty}));
        let key_type = if i == 0 { "HASH" } else { "RANGE" };
        schema.push(json!({"AttributeName": name, "KeyType": key_type}));
    }
    let mut request = json!({
        "S3BucketSource": {"S3Bucket": args.bucket, "S3KeyPrefix": prefix},
        "InputFormat": format,
        "InputCompressionType": compression,
        "TableCreationParameters": {"TableName": args.table, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": definitions, "KeySchema": schema},
    });
    if args.csv_delimiter.is_some() || args.csv_header.is_some() {
        let mut csv = json!({});
        if let Some(delimiter) = &args.csv_delimiter {
            csv["Delimiter"] = json!(delimiter);
        }
        if let Some(header) = &args.csv_header {
            csv["HeaderList"] = json!(header);
        }
        request["InputFormatOptions"] = json!({"Csv": csv});
    }
    Ok(request)
}

pub async fn import(args: ImportArgs) -> Result<(), String> {
    let client = args.endpoint.client()?;
    // Kura's (and DynamoDB's) exports are gzipped files in a format their description
    // names: an import of one needs neither flag (issue 55).
    let detected = if args.format.is_none() || args.compression.is_none() {
        export_at(&client, &args.bucket, &args.prefix).await?
    } else {
        None
    };
    let (format, compression, prefix) = match &detected {
        Some((_, format, data)) => (
            args.format.clone().unwrap_or_else(|| format.clone()),
            args.compression
                .clone()
                .unwrap_or_else(|| "GZIP".to_owned()),
            data.clone(),
        ),
        None => (
            args.format
                .clone()
                .unwrap_or_else(|| "DYNAMODB_JSON".to_owned()),
            args.compression
                .clone()
                .unwrap_or_else(|| "NONE".to_owned()),
            args.prefix.clone(),
        ),
    };
    let request = import_request(&args, &format, &compression, &prefix)?;
    let started = call(&client, "ImportTable", request).await?;
    let import_arn = started["ImportTableDescription"]["ImportArn"]
        .as_str()
        .ok_or("no ImportArn")?
        .to_owned();
    let mut progress = Progress::items("import", None);
    loop {
        let d = call(&client, "DescribeImport", json!({"ImportArn": import_arn})).await?;
        let d = &d["ImportTableDescription"];
        let imported = d["ImportedItemCount"].as_i64().unwrap_or(0);
        let read_mb = d["ProcessedSizeBytes"].as_i64().unwrap_or(0) as f64 / 1e6;
        let counts = json!({"ProcessedItemCount": d["ProcessedItemCount"],
            "ImportedItemCount": imported, "ErrorCount": d["ErrorCount"].as_i64().unwrap_or(0),
            "ProcessedSizeBytes": d["ProcessedSizeBytes"]});
        match d["ImportStatus"].as_str() {
            Some("IN_PROGRESS") | None => {
                if let Some(bar) = &progress.bar {
                    bar.set_message(format!(
                        "import ({read_mb:.1} MB read, {} refused)",
                        d["ErrorCount"].as_i64().unwrap_or(0)
                    ));
                }
                progress.update(Some(imported.max(0) as u64), counts)
            }
            Some(status) => {
                let mut outcome = json!({"ImportArn": import_arn, "ImportStatus": status,
                    "counts": counts, "FailureCode": d["FailureCode"],
                    "FailureMessage": d["FailureMessage"],
                    "InputFormat": format, "InputCompressionType": compression,
                    "S3KeyPrefix": prefix});
                if let Some((export, _, _)) = &detected {
                    outcome["FromExport"] = json!(export);
                }
                if status != "COMPLETED" {
                    progress.failed(outcome);
                    return Err(format!(
                        "import {status}: {}",
                        d["FailureMessage"].as_str().unwrap_or_default()
                    ));
                }
                let read_nothing = d["ProcessedItemCount"].as_i64().unwrap_or(0) == 0
                    && d["ProcessedSizeBytes"].as_i64().unwrap_or(0) == 0;
                if read_nothing {
                    progress.failed(outcome);
                    return Err(format!(
                        "imported nothing: no objects under prefix {prefix:?} of bucket {} \
                         were read (table {} was created empty)",
                        args.bucket, args.table
                    ));
                }
                progress.done(
                    outcome,
                    &format!(
                        "imported {} items into {} from bucket {} ({read_mb:.1} MB read)",
                        thousands(imported),
                        args.table,
                        args.bucket,
                    ),
                );
                return Ok(());
            }
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_whole_items_per_second() {
        assert_eq!(rate_text(12.345_678), "12 items/s");
        assert_eq!(rate_text(1_234_567.5), "1,234,568 items/s");
        assert_eq!(rate_text(0.0), "0 items/s");
    }
}
