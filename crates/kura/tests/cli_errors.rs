//! The client commands on bad input (issue 36): a server that is not there, an endpoint
//! that is not a URL, a service error. Each is one plain line on standard error, prefixed
//! with the command, without a log timestamp or a client library's debug dump, and the
//! exit status says which kind it was (docs/cli.md).

mod common;

use std::net::TcpListener;
use std::process::Command;

use common::KuraProcess;

/// Runs `kura ARGS`; the exit code and standard error.
fn kura(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kura"))
        .args(args)
        .env_remove("KURA_ENDPOINT")
        .output()
        .expect("run kura");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

fn assert_plain_line(stderr: &str) {
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    for dump in [
        "DispatchFailure",
        "ConnectorError",
        "Error {",
        "source:",
        " ERROR ",
    ] {
        assert!(!stderr.contains(dump), "{dump:?} in {stderr}");
    }
    // A log record starts with its time (2026-11-28T10:00:00.000000Z).
    assert!(!stderr.starts_with("20"), "a timestamp: {stderr}");
}

#[test]
fn a_server_that_is_not_there_is_one_line_that_says_what_to_try() {
    let endpoint = format!("http://127.0.0.1:{}", closed_port());
    let commands: [&[&str]; 6] = [
        &["backup", "Orders"],
        &["export", "Orders", "--bucket", "b"],
        &["restore", "--source", "Orders", "--target", "Copy"],
        &["advise"],
        &["insights", "Orders"],
        &["fault", "list"],
    ];
    for args in commands {
        let mut args = args.to_vec();
        args.extend(["--endpoint", &endpoint]);
        let (code, stderr) = kura(&args);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert_plain_line(&stderr);
        let expected = format!("kura {}: cannot connect to {endpoint} (", args[0]);
        assert!(stderr.starts_with(&expected), "{args:?}: {stderr}");
        assert!(
            stderr
                .trim_end()
                .ends_with("): is `kura serve` running there?"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("refused"), "the cause: {stderr}");
    }
}

#[test]
fn an_endpoint_that_is_not_a_url_is_refused_before_any_request() {
    for args in [
        &["backup", "Orders", "--endpoint", "notaurl"][..],
        &["advise", "--endpoint", "127.0.0.1:8000"][..],
        &["healthcheck", "--endpoint", "ftp://host"][..],
    ] {
        let (code, stderr) = kura(args);
        // 2: the command line is wrong, as for every other bad argument.
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        let value = args[args.len() - 1];
        assert!(
            stderr.contains(&format!(
                "invalid value '{value}' for '--endpoint <ENDPOINT>': not an http:// or \
                 https:// URL with a host (e.g. http://127.0.0.1:8000)"
            )),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("Request"), "{stderr}");
    }
}

#[test]
fn verbose_keeps_the_log_record() {
    let endpoint = format!("http://127.0.0.1:{}", closed_port());
    let (code, stderr) = kura(&["advise", "--endpoint", &endpoint, "--verbose"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("ERROR"), "{stderr}");
    assert!(stderr.contains("cannot connect to"), "{stderr}");
}

/// `kura serve` on a data directory another `kura serve` holds: one line that says so and
/// what to do, not fjall's `Locked` (issue 55).
#[test]
fn a_data_directory_in_use_is_said_plainly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().to_str().expect("path");
    let first = KuraProcess::start(Some(dir.path()));
    let (code, stderr) = kura(&["serve", "--port", "0", "--data-dir", data]);
    drop(first);
    assert_eq!(code, Some(1), "{stderr}");
    // One line, not the storage engine's INFO lines before it (issue 55).
    assert_plain_line(&stderr);
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("kura serve: cannot open "), "{stderr}");
    assert!(
        last.contains("is a kura serve already running on it?"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("FjallError") && !stderr.contains("Locked"),
        "{stderr}"
    );
}

/// A port in use fails before the data directory is made (issue 55: it was created first).
#[test]
fn a_port_in_use_leaves_no_data_directory() {
    let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("addr").port().to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("never-made");
    let (code, stderr) = kura(&[
        "serve",
        "--port",
        &port,
        "--data-dir",
        data.to_str().expect("path"),
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_plain_line(&stderr);
    assert!(
        stderr.starts_with(&format!("kura serve: cannot listen on 127.0.0.1:{port}")),
        "{stderr}"
    );
    assert!(!data.exists(), "the data directory was created");
}

/// `kura fault` against a server without `--test-controls` says what to start it with
/// (issue 55: it asked whether the endpoint was a kura serve at all).
#[test]
fn fault_on_a_server_without_test_controls_names_the_flag() {
    let server = KuraProcess::start(None);
    let endpoint = server.endpoint.clone();
    let (code, stderr) = kura(&["fault", "list", "--endpoint", &endpoint]);
    drop(server);
    assert_eq!(code, Some(1), "{stderr}");
    assert_plain_line(&stderr);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "kura fault: {endpoint} has no test controls: start it with `kura serve --test-controls` (docs/testing.md)"
        )
    );
}
