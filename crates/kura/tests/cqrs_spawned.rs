//! kura-cqrs against a spawned `kura serve` over HTTP:
//! - the projector as its own process (`kura cqrs project`), killed with kill -9 at
//!   varying points while commands keep coming: in the end the data table, the history
//!   table and a SQLite read model equal the command log, with no version lost or applied
//!   twice;
//! - concurrent publishers of one entity: exactly one wins each version;
//! - a poison record (a handler that fails for one item) is parked in the dead-letter
//!   table while other items keep flowing; versions 1..12 give the right latest.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::KuraProcess;
use kura_cqrs::keys::VERSION_LATEST;
use kura_cqrs::sqlite::SqliteReadModel;
use kura_cqrs::{CommandInput, CommandService, Invoker, TableNames, ensure_tables};
use serde_json::json;

const ENTITIES: usize = 12;

fn start_projector(endpoint: &str, sqlite: &Path) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kura"))
        .args(["cqrs", "project", "--endpoint", endpoint])
        .args([
            "--env",
            "t",
            "--app",
            "shop",
            "--module",
            "order",
            "--idle-ms",
            "10",
            // One projector, killed and started again by its service manager.
            "--owner",
            "the-projector",
        ])
        .arg("--sqlite")
        .arg(sqlite)
        .env("KURA_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the projector");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("kura projector running") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the projector did not start");
    child
}

fn command(entity: usize, total: u64) -> CommandInput {
    CommandInput {
        pk: "ORDER#tenant001".into(),
        sk: format!("ORDER#{entity:02}"),
        code: format!("{entity}"),
        name: "order".into(),
        version: VERSION_LATEST,
        tenant_code: "tenant001".into(),
        kind: "ORDER".into(),
        is_deleted: false,
        seq: None,
        ttl: None,
        attributes: json!({"total": total})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn projector_survives_kill9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(&dir.path().join("data")));
    let client = server.client();
    let tables = TableNames::new("t", "shop", "order");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = Arc::new(CommandService::new(client.clone(), tables.clone()));
    let sqlite = dir.path().join("read-model.db");

    // Publishers keep publishing new versions while the projector is killed and restarted.
    // Each cycle kills the projector only after a whole round was published while it ran,
    // so the kills land mid-stream however slow the machine's fsync is.
    let stop = Arc::new(AtomicBool::new(false));
    let rounds = Arc::new(AtomicU64::new(0));
    let publisher = {
        let service = service.clone();
        let stop = stop.clone();
        let rounds = rounds.clone();
        tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                let round = rounds.load(Ordering::SeqCst);
                for entity in 0..ENTITIES {
                    service
                        .publish_async(&command(entity, round), &Invoker::default())
                        .await
                        .expect("publish");
                }
                rounds.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    for cycle in 0..4u64 {
        let mut projector = start_projector(&server.endpoint, &sqlite);
        let started_at_round = rounds.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(150 + cycle * 120)).await;
        let deadline = Instant::now() + Duration::from_secs(60);
        while rounds.load(Ordering::SeqCst) < started_at_round + 2 {
            assert!(
                Instant::now() < deadline,
                "the publishers finished no whole round in 60 s while the projector ran"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        projector.kill().expect("kill -9");
        projector.wait().expect("wait");
    }
    stop.store(true, Ordering::SeqCst);
    publisher.await.expect("publisher");

    // A last run catches up; then the tables must match the command log.
    let mut projector = start_projector(&server.endpoint, &sqlite);
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut latest = Vec::new();
    for entity in 0..ENTITIES {
        let sk = format!("ORDER#{entity:02}");
        let command = service
            .latest_command("ORDER#tenant001", &sk)
            .await
            .expect("latest")
            .expect("exists");
        loop {
            let row = service
                .data_row("ORDER#tenant001", &sk)
                .await
                .expect("data");
            if row.as_ref().is_some_and(|r| r.version == command.version) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the projector did not catch up on {sk}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        latest.push(command);
    }
    let _ = Command::new("kill")
        .args(["-TERM", &projector.id().to_string()])
        .status();
    let status = projector.wait().expect("wait");
    assert!(
        status.success(),
        "the projector stops cleanly on SIGTERM: {status}"
    );

    let model = SqliteReadModel::open(&sqlite).expect("read model");
    let entities = model.entities().expect("entities");
    assert_eq!(entities.len(), ENTITIES);
    for command in &latest {
        let row = service
            .data_row(&command.pk, command.base_sk())
            .await
            .expect("data")
            .expect("row");
        assert_eq!(row.attributes, command.attributes, "{}", command.sk);
        // Every earlier version is in history, with its own content.
        for version in 1..command.version.get() {
            let old = service
                .history_row(&command.pk, command.base_sk(), version)
                .await
                .expect("history")
                .unwrap_or_else(|| panic!("{} version {version} missing from history", command.id));
            let published = service
                .command(&command.pk, command.base_sk(), version)
                .await
                .expect("command")
                .expect("exists");
            assert_eq!(old.attributes, published.attributes);
        }
        let (_, version, attributes) = entities
            .iter()
            .find(|(id, _, _)| *id == command.id)
            .expect("in the read model");
        assert_eq!(*version, command.version);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(attributes).expect("json"),
            serde_json::Value::Object(command.attributes.clone())
        );
        assert_eq!(
            model.versions_seen(&command.id).expect("versions"),
            command.version,
            "every version of {} reached the read model",
            command.id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_winner_per_version_over_http() {
    let server = KuraProcess::start(None);
    let client = server.client();
    let tables = TableNames::new("t", "shop", "race");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = Arc::new(CommandService::new(client, tables));
    let mut first = command(0, 0);
    first.version = kura_cqrs::Version::FIRST;
    service
        .publish_async(&first, &Invoker::default())
        .await
        .expect("create");
    let mut tasks = Vec::new();
    for writer in 0..6u64 {
        let service = service.clone();
        tasks.push(tokio::spawn(async move {
            let mut won = Vec::new();
            for round in 0..10u64 {
                let base = service
                    .latest_command("ORDER#tenant001", "ORDER#00")
                    .await
                    .expect("latest")
                    .map_or(kura_cqrs::Version::FIRST, |l| l.version);
                let mut next = command(0, writer * 100 + round + 1);
                next.version = base;
                match service.publish_async(&next, &Invoker::default()).await {
                    Ok(Some(stored)) => won.push(stored.version.get()),
                    Ok(None) => {}
                    Err(kura_cqrs::CqrsError::VersionConflict { .. }) => {}
                    Err(e) => panic!("unexpected: {e}"),
                }
            }
            won
        }));
    }
    let mut won = Vec::new();
    for task in tasks {
        won.extend(task.await.expect("task"));
    }
    won.sort_unstable();
    let latest = service
        .latest_command("ORDER#tenant001", "ORDER#00")
        .await
        .expect("latest")
        .expect("exists")
        .version
        .get();
    assert_eq!(
        won,
        (2..=latest).collect::<Vec<_>>(),
        "exactly one winner per version"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poison_is_parked_and_others_flow_over_http() {
    struct Picky;
    impl kura_cqrs::SyncHandler for Picky {
        fn id(&self) -> &str {
            "picky"
        }
        fn up<'a>(
            &'a self,
            command: &'a kura_cqrs::CommandModel,
        ) -> kura_cqrs::sync::HandlerFuture<'a> {
            Box::pin(async move {
                if command.sk.starts_with("ORDER#03@") {
                    Err("entity 3 is poison".into())
                } else {
                    Ok(())
                }
            })
        }
    }
    let server = KuraProcess::start(None);
    let client = server.client();
    let tables = TableNames::new("t", "shop", "poison");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables.clone());
    for round in 0..12u64 {
        for entity in 0..5 {
            service
                .publish_async(&command(entity, round), &Invoker::default())
                .await
                .expect("publish");
        }
    }
    let mut projector = kura_cqrs::Projector::new(
        client.clone(),
        server.streams_client(),
        tables.clone(),
        kura_cqrs::ProjectorOptions {
            retry_for: Duration::from_millis(5),
            first_backoff: Duration::from_millis(1),
            page: 16,
            ..kura_cqrs::ProjectorOptions::default()
        },
    );
    projector.register(Arc::new(Picky));
    while projector.run_once().await.expect("round") > 0 {}
    for entity in 0..5usize {
        let sk = format!("ORDER#{entity:02}");
        let latest = service
            .latest_command("ORDER#tenant001", &sk)
            .await
            .expect("latest")
            .expect("exists");
        assert_eq!(latest.version, 12, "versions 1..12: @12 is the latest");
        let row = service
            .data_row("ORDER#tenant001", &sk)
            .await
            .expect("data")
            .expect("row");
        assert_eq!(row.version, 12, "{sk} reached its latest version");
    }
    let parked = client
        .scan()
        .table_name(&tables.dead_letter)
        .send()
        .await
        .expect("scan");
    assert_eq!(
        parked.count(),
        12,
        "each version of entity 3 parked, nothing else"
    );
    assert_eq!(
        service
            .status("ORDER#tenant001", "ORDER#03", 12)
            .await
            .expect("status")
            .as_deref(),
        Some("finish:FAILED")
    );

    // The command line lists the twelve failures; a redrive without the handler that
    // failed ("picky") replays none of them (it would mark them finished without the
    // handler ever getting them); a new SQLite read model is backfilled from the data
    // table.
    let failed = cqrs_cli(&server.endpoint, &["failed"]);
    assert_eq!(failed.len(), 12, "{failed:?}");
    assert!(failed.iter().all(|f| {
        f["pk"] == "ORDER#tenant001"
            && f["sk"]
                .as_str()
                .is_some_and(|sk| sk.starts_with("ORDER#03@"))
            && f["error"]
                .as_str()
                .is_some_and(|e| e.contains("entity 3 is poison"))
            && f["parkedAt"].is_string()
    }));
    let redriven = cqrs_cli(&server.endpoint, &["redrive"]);
    assert_eq!(
        redriven.last(),
        Some(&json!({"replayed": 0, "stillFailing": 12}))
    );
    assert!(
        redriven[0]["stillFailing"]
            .as_str()
            .is_some_and(|e| e.contains("picky"))
    );
    assert_eq!(cqrs_cli(&server.endpoint, &["failed"]).len(), 12);
    let dir = tempfile::tempdir().expect("dir");
    let sqlite = dir.path().join("late.sqlite");
    let sqlite_arg = sqlite.to_str().expect("utf-8 path");
    let resynced = cqrs_cli(&server.endpoint, &["resync", "--sqlite", sqlite_arg]);
    assert_eq!(resynced, [json!({"resynced": 5})]);
    let late = SqliteReadModel::open(&sqlite).expect("open");
    let entities = late.entities().expect("entities");
    assert_eq!(entities.len(), 5);
    assert!(entities.iter().all(|(_, version, _)| *version == 12));

    // The console's kura-cqrs page shows the same failures, and the module's tasks.
    let tasks = kura_cqrs::tasks::TaskService::new(
        service.clone(),
        kura_cqrs::DataService::new(client.clone(), tables.clone()),
    );
    let invoker = Invoker::default();
    let inputs = vec![json!(1), json!(2), json!(3)];
    let task = tasks
        .create("tenant001", "reindex", json!({}), inputs, &invoker)
        .await
        .expect("task");
    tasks.start(&task, &invoker).await.expect("start");
    tasks
        .end_sub_task(&task, 1, Ok(json!("done")), &invoker)
        .await
        .expect("end 1");
    tasks
        .fail_sub_task(&task, 2, "disk full", &invoker)
        .await
        .expect("end 2");
    let modules = console_page(&server.endpoint, "/console/framework");
    assert!(modules.contains("t-shop-poison"), "{modules}");
    let page = console_page(&server.endpoint, "/console/framework/t-shop-poison");
    assert!(
        page.contains("Failed commands <span class=\"count\">· 12</span>"),
        "{page}"
    );
    assert_eq!(page.matches("entity 3 is poison").count(), 12);
    assert!(page.contains("ORDER#03@12"));
    assert!(page.contains("the projector, parked"));
    assert!(page.contains("kura cqrs redrive --env t --app shop --module poison"));
    assert!(page.contains(&task.sk), "the task is listed");
    assert!(page.contains("2 of 3 ended, 1 failed"), "{page}");
    assert!(page.contains("STARTED"));
}

/// A console page's HTML, fetched as a browser would (the console needs no sign-in on a
/// server without --auth).
fn console_page(endpoint: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let address = endpoint.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    response
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_a_csv_file_from_the_command_line() {
    let server = KuraProcess::start(None);
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("products.csv");
    std::fs::write(&file, "sku,title\nA-1,Tea\n,nameless\nA-2,Cup\n").expect("write");
    let file = file.to_str().expect("utf-8 path");
    let args = [
        "import",
        "--file",
        file,
        "--format",
        "csv",
        "--prefix",
        "PRODUCT",
        "--tenant",
        "tenant001",
        "--id-field",
        "sku",
        "--name-field",
        "title",
        "--sync",
    ];
    let out = cqrs_cli_module(&server.endpoint, "catalog", &args);
    assert_eq!(
        out,
        [
            json!({"line": 3, "rejected": "no sku"}),
            json!({"records": 3, "published": 2, "unchanged": 0, "rejected": 1})
        ]
    );
    let tables = TableNames::new("t", "shop", "catalog");
    let data = kura_cqrs::DataService::new(server.client(), tables);
    let tea = data
        .get_item("PRODUCT#tenant001", "A-1")
        .await
        .expect("read")
        .expect("imported in sync");
    assert_eq!(tea.name, "Tea");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_too_large_for_an_item_is_imported_with_an_objects_dir() {
    let server = KuraProcess::start(None);
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("manuals.jsonl");
    let body = "lorem ipsum ".repeat(40_000); // 480 KB
    let line = json!({"id": "M-1", "title": "Manual", "body": body});
    std::fs::write(&file, format!("{line}\n")).expect("write");
    let file = file.to_str().expect("utf-8 path");
    let objects = dir.path().join("buckets");
    let mut args = vec![
        "import",
        "--file",
        file,
        "--format",
        "jsonl",
        "--prefix",
        "DOC",
        "--tenant",
        "t1",
        "--id-field",
        "id",
        "--name-field",
        "title",
        "--sync",
    ];
    // Without a store, DynamoDB refuses the item and the record is reported.
    let refused = cqrs_cli_module(&server.endpoint, "manuals", &args);
    assert_eq!(refused[1]["rejected"], 1, "{refused:?}");
    args.extend(["--objects-dir", objects.to_str().expect("utf-8 path")]);
    let imported = cqrs_cli_module(&server.endpoint, "manuals", &args);
    assert_eq!(
        imported,
        [json!({"records": 1, "published": 1, "unchanged": 0, "rejected": 0})]
    );
    let store = kura_cqrs::DirectoryStore::new(&objects);
    let large = kura_cqrs::LargeAttributes::new(std::sync::Arc::new(store), "kura-cqrs-attributes");
    let data =
        kura_cqrs::DataService::new(server.client(), TableNames::new("t", "shop", "manuals"))
            .with_large_attributes(large);
    let manual = data
        .get_item("DOC#t1", "M-1")
        .await
        .expect("read")
        .expect("imported in sync");
    assert_eq!(manual.attributes["body"], json!(body));
    assert!(manual.attributes_ref.is_some());
}

#[test]
fn an_objects_s3_endpoint_without_credentials_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_kura"))
        .args(["cqrs", "redrive", "--endpoint", "http://127.0.0.1:9"])
        .args(["--env", "t", "--app", "shop", "--module", "m"])
        .args(["--objects-s3-endpoint", "http://127.0.0.1:9"])
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .output()
        .expect("run kura cqrs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
        "{stderr}"
    );
}

/// Runs `kura cqrs SUBCOMMAND` on the poison module; its stdout's JSON lines.
fn cqrs_cli(endpoint: &str, args: &[&str]) -> Vec<serde_json::Value> {
    cqrs_cli_module(endpoint, "poison", args)
}

/// Runs `kura cqrs SUBCOMMAND` on `module` of app `shop`, env `t`.
fn cqrs_cli_module(endpoint: &str, module: &str, args: &[&str]) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_kura"))
        .arg("cqrs")
        .arg(args[0])
        .args(["--endpoint", endpoint, "--env", "t", "--app", "shop"])
        .args(["--module", module])
        .args(&args[1..])
        .output()
        .expect("run kura cqrs");
    assert!(
        out.status.success(),
        "kura cqrs {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}
