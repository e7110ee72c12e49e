//! `kura backup`, `kura restore`, `kura export` and `kura import` against a spawned
//! `kura serve`: each follows its job to the end and prints JSON lines (no terminal
//! here), the last one with the outcome; a failure exits non-zero with DynamoDB's error.

mod common;

use std::process::Command;

use aws_sdk_dynamodb::types::AttributeValue as Av;
use common::backups::enable_pitr;
use common::{KuraProcess, create_table};
use serde_json::Value;

/// Runs `kura ARGS` against `endpoint`; returns the exit status and the last JSON line.
fn kura(endpoint: &str, args: &[&str]) -> (bool, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kura"))
        .args(args)
        .env("KURA_ENDPOINT", endpoint)
        .output()
        .expect("run kura");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let last = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .next_back()
        .unwrap_or(Value::Null);
    (
        out.status.success(),
        last,
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_movement_commands_follow_their_jobs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    create_table(&client, "CliSrc", "pk", None).await;
    enable_pitr(&client, "CliSrc").await;
    for i in 0..120 {
        client
            .put_item()
            .table_name("CliSrc")
            .item("pk", Av::S(format!("k{i}")))
            .item("n", Av::N(i.to_string()))
            .send()
            .await
            .expect("put");
    }
    let endpoint = server.endpoint.as_str();

    let (ok, out, err) = kura(endpoint, &["backup", "CliSrc", "--name", "cli-backup"]);
    assert!(ok, "{err}");
    let arn = out["outcome"]["BackupArn"]
        .as_str()
        .expect("arn")
        .to_owned();

    let (ok, out, err) = kura(
        endpoint,
        &["restore", "--backup-arn", &arn, "--target", "CliFromBackup"],
    );
    assert!(ok, "{err}");
    assert_eq!(out["outcome"]["TableStatus"], "ACTIVE");
    assert_eq!(out["outcome"]["ItemCount"], 120);

    let (ok, out, err) = kura(
        endpoint,
        &["restore", "--source", "CliSrc", "--target", "CliLatest"],
    );
    assert!(ok, "{err}");
    assert_eq!(out["outcome"]["ItemCount"], 120);

    let (ok, out, err) = kura(
        endpoint,
        &[
            "export",
            "CliSrc",
            "--bucket",
            "cli-bucket",
            "--prefix",
            "runs",
            "--format",
            "ION",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(out["outcome"]["ExportStatus"], "COMPLETED");
    assert_eq!(out["outcome"]["ItemCount"], 120);
    let manifest = out["outcome"]["ExportManifest"].as_str().expect("manifest");
    let data = manifest.replace("manifest-summary.json", "data/");

    let (ok, out, err) = kura(
        endpoint,
        &[
            "import",
            "--table",
            "CliImported",
            "--key",
            "pk:S",
            "--bucket",
            "cli-bucket",
            "--prefix",
            &data,
            "--format",
            "ION",
            "--compression",
            "GZIP",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(out["outcome"]["ImportStatus"], "COMPLETED");
    assert_eq!(out["outcome"]["counts"]["ImportedItemCount"], 120);
    let scanned = client
        .scan()
        .table_name("CliImported")
        .send()
        .await
        .expect("scan");
    assert_eq!(scanned.count(), 120);

    // The export's own directory, with neither --format nor --compression: both read
    // from its description, and its data files found under it (issue 55).
    let export_dir = manifest.trim_end_matches("/manifest-summary.json");
    let (ok, out, err) = kura(
        endpoint,
        &[
            "import",
            "--table",
            "CliDetected",
            "--key",
            "pk:S",
            "--bucket",
            "cli-bucket",
            "--prefix",
            export_dir,
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(out["outcome"]["counts"]["ImportedItemCount"], 120);
    assert_eq!(out["outcome"]["InputFormat"], "ION");
    assert_eq!(out["outcome"]["InputCompressionType"], "GZIP");
    assert_eq!(out["outcome"]["S3KeyPrefix"], data);
    assert!(
        out["outcome"]["FromExport"]
            .as_str()
            .is_some_and(|a| a.contains("/export/"))
    );

    // A prefix that holds nothing is a failure that says so, not an empty success.
    let (ok, out, err) = kura(
        endpoint,
        &[
            "import",
            "--table",
            "CliNothing",
            "--key",
            "pk:S",
            "--bucket",
            "cli-bucket",
            "--prefix",
            "nothing-here/",
        ],
    );
    assert!(!ok, "{out}");
    assert_eq!(
        err.trim_end(),
        "kura import: imported nothing: no objects under prefix \"nothing-here/\" of bucket \
         cli-bucket were read (table CliNothing was created empty)"
    );

    let (ok, _, err) = kura(
        endpoint,
        &["restore", "--source", "NoSuchTable", "--target", "CliNever"],
    );
    assert!(!ok);
    assert_eq!(
        err.trim_end(),
        "kura restore: TableNotFoundException: Table not found: NoSuchTable"
    );

    // On a terminal: a spinner with the time while the export runs (its answers carry no
    // item count until the end, so no bar stuck at 0/N), then one sentence that says what
    // was exported and where the files are, not the JSON line scripts get.
    let screen = on_a_terminal(
        endpoint,
        &[
            "export",
            "CliSrc",
            "--bucket",
            "cli-bucket",
            "--prefix",
            "tty",
        ],
    );
    assert!(screen.contains("exported 120 items ("), "{screen}");
    assert!(
        screen.contains("bytes) of CliSrc to bucket cli-bucket: data files under tty/AWSDynamoDB/"),
        "{screen}"
    );
    assert!(
        screen.contains("/data/, manifest tty/AWSDynamoDB/"),
        "{screen}"
    );
    assert!(
        screen.contains("<data dir>/buckets/cli-bucket)"),
        "{screen}"
    );
    assert!(!screen.contains("\"job\""), "{screen}");
    assert!(!screen.contains("0/120"), "{screen}");

    let screen = on_a_terminal(endpoint, &["backup", "CliSrc", "--name", "tty-backup"]);
    assert!(
        screen.contains("backed up CliSrc as tty-backup ("),
        "{screen}"
    );
    assert!(
        screen.contains("restore it with `kura restore --backup-arn arn:"),
        "{screen}"
    );

    let screen = on_a_terminal(
        endpoint,
        &["restore", "--source", "CliSrc", "--target", "CliTty"],
    );
    assert!(
        screen.contains("restored 120 items into CliTty, ACTIVE, in "),
        "{screen}"
    );
}

/// Runs `kura ARGS` on a pseudo-terminal (util-linux's `script`, in every Debian); what
/// the terminal showed, both streams.
fn on_a_terminal(endpoint: &str, args: &[&str]) -> String {
    let command = std::iter::once(env!("CARGO_BIN_EXE_kura"))
        .chain(args.iter().copied())
        .map(|word| format!("'{word}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .env("KURA_ENDPOINT", endpoint)
        .output()
        .expect("run script");
    let screen = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{screen}");
    screen
}
