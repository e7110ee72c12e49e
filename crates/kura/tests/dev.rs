//! `kura dev`: one process runs the server, the projector of a kura-cqrs module and a
//! stream trigger. A command published through the framework reaches the data table (the
//! dev stack's projector, not the test's) and the trigger's function (a command that
//! appends each event to a file), and the stack is ready well under a second.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kura_cqrs::keys::{self, VERSION_FIRST};
use kura_cqrs::{CommandInput, CommandService, DataService, Invoker, TableNames};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kura_dev_runs_the_server_the_projector_and_the_triggers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let events = dir.path().join("events.jsonl");
    let config = dir.path().join("kura.dev.json");
    std::fs::write(
        &config,
        json!({
            "Env": "dev", "App": "shop", "Modules": ["order"],
            "Triggers": [{
                "Name": "order-events", "Table": "dev-shop-order-command",
                "Function": {"Command": ["sh", "-c",
                    format!("cat >> {}; echo >> {}", events.display(), events.display())]}
            }]
        })
        .to_string(),
    )
    .expect("config");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kura"))
        .args(["dev", "--port", "0", "--data-dir"])
        .arg(dir.path().join("data"))
        .arg("--config")
        .arg(&config)
        .env("KURA_LOG", "info")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("kura dev");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut endpoint = None;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("kura ready on ").nth(1) {
                endpoint = rest.split_whitespace().next().map(str::to_owned);
            }
            if let Some(rest) = line.split("kura dev ready in ").nth(1) {
                let ms: u64 = rest
                    .split_whitespace()
                    .next()
                    .and_then(|m| m.parse().ok())
                    .unwrap_or(u64::MAX);
                let _ = tx.send((endpoint.clone(), ms));
            }
        }
    });
    let (endpoint, ready_ms) = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("kura dev ready");
    let endpoint = endpoint.expect("the server's endpoint");
    let wall = started.elapsed();
    assert!(ready_ms < 1000, "the stack took {ready_ms} ms");
    eprintln!("kura dev ready in {ready_ms} ms ({wall:?} from spawn to the ready line)");

    // A client subscribes to the command notifications of its tenant before publishing.
    let subscription = subscribe(
        &endpoint,
        "/kura/dev/notifications?module=order&tenant=tenant001",
    );

    let client = kura_cqrs::endpoint::dynamodb_client(&endpoint);
    let tables = TableNames::new("dev", "shop", "order");
    let commands = CommandService::new(client.clone(), tables.clone());
    let order = keys::parent("ORDER", "tenant001", &keys::new_ulid()).expect("key");
    commands
        .publish_async(
            &CommandInput::for_key(&order, VERSION_FIRST)
                .with_name("order")
                .with_kind("ORDER")
                .with_entity(&json!({"status": "NEW"}))
                .expect("an object"),
            &Invoker::default(),
        )
        .await
        .expect("publish");

    // The dev stack's projector applies it to the data table.
    let data = DataService::new(client, tables);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(row) = data.get_item(&order.pk, &order.sk).await.expect("get") {
            assert_eq!(row.version, 1);
            assert_eq!(row.attributes["status"], json!("NEW"));
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the projector did not apply the command"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The subscriber is told the command finished, as server-sent events.
    let told = subscription
        .recv_timeout(Duration::from_secs(30))
        .expect("a notification");
    let told: serde_json::Value = serde_json::from_str(&told).expect("notification JSON");
    assert_eq!(told["pk"], json!(order.pk));
    assert_eq!(told["sk"], json!(format!("{}@1", order.sk)));
    assert_eq!(told["status"], "finish:FINISHED");
    assert_eq!(told["table"], "dev-shop-order-command");
    // The trigger delivers the command table's record in Lambda's event shape.
    loop {
        let text = std::fs::read_to_string(&events).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| !l.trim().is_empty()) {
            let event: serde_json::Value = serde_json::from_str(line).expect("event JSON");
            let record = &event["Records"][0];
            assert_eq!(record["eventName"], "INSERT");
            assert_eq!(record["eventSource"], "aws:dynamodb");
            assert!(
                record["eventSourceARN"]
                    .as_str()
                    .is_some_and(|a| a.contains(":table/dev-shop-order-command/stream/"))
            );
            assert_eq!(record["dynamodb"]["Keys"]["pk"]["S"], json!(order.pk));
            break;
        }
        assert!(Instant::now() < deadline, "the trigger delivered nothing");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = child.wait().expect("wait");
    assert!(status.success(), "kura dev stopped with {status}");
}

/// Opens `path` on the server as an event stream; the `data:` of each `command` event
/// arrives on the channel.
fn subscribe(endpoint: &str, path: &str) -> std::sync::mpsc::Receiver<String> {
    use std::io::Write;
    let host = endpoint.trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&host).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .expect("request");
    let (tx, rx) = std::sync::mpsc::channel();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut event = String::new();
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if line.starts_with("HTTP/1.1 ") {
                let _ = ready_tx.send(line.contains(" 200 "));
            } else if let Some(name) = line.strip_prefix("event:") {
                event = name.trim().to_owned();
            } else if let Some(data) = line.strip_prefix("data:")
                && event == "command"
            {
                let _ = tx.send(data.trim().to_owned());
            }
        }
    });
    assert_eq!(
        ready_rx.recv_timeout(Duration::from_secs(10)),
        Ok(true),
        "the event stream answers 200"
    );
    rx
}
