//! The default build (no `clients` feature, the README's quick source build) asked for
//! what only `--features full` has: one plain line that says how to get it, and a
//! non-zero exit. The test command runs this file against that build:
//! `cargo test -p kura --test without_clients`.
#![cfg(not(feature = "clients"))]

mod common;

use std::process::Command;

use common::KuraProcess;

fn kura(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kura"))
        .args(args)
        .output()
        .expect("run kura");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sdk_client_commands_name_the_build_that_has_them() {
    for command in ["dev", "cqrs"] {
        let (code, _, stderr) = kura(&[command, "Users"]);
        assert_eq!(code, Some(2), "{command}: {stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "kura: `{command}` is not in this build of kura: build it with \
                 `cargo build --release -p kura --features full` (the static binary, the \
                 container image and the packages have it)"
            )
        );
    }
    let (code, _, stderr) = kura(&["bakup"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr.trim_end(),
        "kura: unrecognized subcommand 'bakup'; see `kura --help`"
    );
}

#[test]
fn help_lists_only_what_the_build_has() {
    let (code, stdout, _) = kura(&["--help"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("serve"), "{stdout}");
    assert!(stdout.contains("healthcheck"), "{stdout}");
    for command in ["backup", "restore", "export", "import", "mcp"] {
        assert!(stdout.contains(command), "{command}: {stdout}");
    }
    assert!(!stdout.contains("cqrs"), "{stdout}");
}

/// The admin commands are in this build, through Kura's own client: a backup of a table
/// on a real server says what the SDK build said (issue 55).
#[test]
fn admin_commands_work_without_the_sdk() {
    let server = KuraProcess::start(None);
    let endpoint = server.endpoint.clone();
    let (code, _, stderr) = kura(&["backup", "Users", "--endpoint", &endpoint]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "kura backup: TableNotFoundException: Table not found: Users"
    );
    let (code, stdout, stderr) = kura(&[
        "import",
        "--table",
        "Users",
        "--key",
        "pk:S",
        "--bucket",
        "b",
        "--prefix",
        "none/",
        "--endpoint",
        &endpoint,
    ]);
    drop(server);
    // Followed to its end and reported as the SDK build did.
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stdout.contains("\"ImportStatus\":\"FAILED\""), "{stdout}");
    assert_eq!(
        stderr.trim_end(),
        "kura import: import FAILED: The specified bucket does not exist: b"
    );
}

#[test]
fn serve_with_an_s3_endpoint_stops_at_start() {
    let (code, _, stderr) = kura(&[
        "serve",
        "--in-memory",
        "--port",
        "0",
        "--s3-endpoint",
        "http://127.0.0.1:9",
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("`--s3-endpoint` is not in this build of kura"),
        "{stderr}"
    );
    assert!(!stderr.contains("kura ready on"), "{stderr}");
}
