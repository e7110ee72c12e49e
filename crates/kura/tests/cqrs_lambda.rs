//! kura-cqrs's projector as an AWS Lambda function (`kura cqrs lambda`, the library's
//! `kura_cqrs::lambda`), fed real DynamoDB Streams event batches by Kura's own stream
//! triggers (`Function.Command`, `ReportBatchItemFailures`), as a Lambda event source
//! mapping would feed it on AWS: every version is applied; a batch the function cannot
//! finish (its writes failing, even the parking of the record) is reported from that
//! record, and delivered again with the ones after it until it is applied.

mod common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::KuraProcess;
use http_body_util::{BodyExt, Full};
use kura_cqrs::keys::VERSION_LATEST;
use kura_cqrs::{CommandInput, CommandService, Invoker, TableNames, ensure_tables};
use serde_json::{Value, json};

const ENTITIES: usize = 3;
const VERSIONS: i64 = 4;

async fn http(method: &str, url: &str, body: Option<Value>) -> (u16, Value) {
    let request = http::Request::builder()
        .method(method)
        .uri(url)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(
            body.map(|b| b.to_string()).unwrap_or_default(),
        )))
        .expect("request");
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<Bytes>>();
    let response = client.request(request).await.expect("send");
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn order(entity: usize, total: i64) -> CommandInput {
    CommandInput::new("ORDER#tenant001", format!("ORDER#{entity}"), VERSION_LATEST)
        .with_name("order")
        .with_tenant_code("tenant001")
        .with_kind("ORDER")
        .with_attribute("total", json!(total))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lambda_projector_applies_batches_from_kuras_triggers_and_reports_what_it_could_not_finish()
 {
    let server = KuraProcess::start_with(None, &["--test-controls", "--trigger-admin"]);
    let client = server.client();
    let tables = TableNames::new("t", "shop", "order");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables.clone());
    for version in 1..=VERSIONS {
        for entity in 0..ENTITIES {
            service
                .publish_async(&order(entity, version), &Invoker::default())
                .await
                .expect("publish");
        }
    }
    // The function's first attempt fails: its transaction, then the parking of the
    // record, each past the SDK's three attempts.
    for operation in ["TransactWriteItems", "PutItem"] {
        let (status, _) = http(
            "POST",
            &format!("{}/kura/admin/faults", server.endpoint),
            Some(json!({"operation": operation, "error": "InternalServerError", "count": 3})),
        )
        .await;
        assert_eq!(status, 200, "fault on {operation}");
    }
    let trigger = json!({
        "Name": "order-projector",
        "Table": tables.command,
        "Function": {"Command": [
            env!("CARGO_BIN_EXE_kura"), "cqrs", "lambda",
            "--endpoint", server.endpoint, "--env", "t", "--app", "shop", "--module", "order",
            "--retry-for-ms", "0"
        ]},
        "BatchSize": 5,
        "StartingPosition": "TRIM_HORIZON",
        "MaximumRetryAttempts": 10,
        "FunctionResponseTypes": ["ReportBatchItemFailures"]
    });
    let (status, answer) = http(
        "POST",
        &format!("{}/kura/triggers", server.endpoint),
        Some(trigger),
    )
    .await;
    assert_eq!(status, 201, "{answer}");

    // Every entity reaches its last version, each version applied once with history.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut done = true;
        for entity in 0..ENTITIES {
            let row = service
                .data_row("ORDER#tenant001", &format!("ORDER#{entity}"))
                .await
                .expect("data");
            done &= row.is_some_and(|r| r.version == VERSIONS);
        }
        if done {
            break;
        }
        assert!(Instant::now() < deadline, "not applied in 60 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for entity in 0..ENTITIES {
        let sk = format!("ORDER#{entity}");
        for version in 1..VERSIONS {
            let old = service
                .history_row("ORDER#tenant001", &sk, version)
                .await
                .expect("history")
                .expect("a history row");
            assert_eq!(old.attributes["total"], json!(version));
        }
        for version in 1..=VERSIONS {
            let status = service
                .status("ORDER#tenant001", &sk, version)
                .await
                .expect("status");
            // The mark after the apply may trail the data row by a moment.
            assert!(
                matches!(
                    status.as_deref(),
                    Some("finish:FINISHED" | "projection:STARTED")
                ),
                "{sk}@{version}: {status:?}"
            );
        }
    }
    let parked = client
        .scan()
        .table_name(&tables.dead_letter)
        .send()
        .await
        .expect("dead letters");
    assert_eq!(
        parked.count(),
        0,
        "nothing parked: the failure was the function's"
    );
    // The trigger delivered the unfinished record again.
    let (_, status) = http(
        "GET",
        &format!("{}/kura/triggers/order-projector", server.endpoint),
        None,
    )
    .await;
    let text = status.to_string();
    let retries = status
        .pointer("/retries")
        .or_else(|| status.pointer("/Retries"))
        .and_then(Value::as_u64);
    assert!(retries.is_some_and(|r| r >= 1), "no retry in {text}");
    // Reported as a batch item failure, not a crash of the function.
    assert_eq!(status.pointer("/FunctionErrors"), Some(&json!(0)), "{text}");
}

/// The module's SAM template (tables with point-in-time recovery and deletion
/// protection, the event source mapping, the least IAM policy) passes the design advisor
/// with nothing but the two findings the framework's design accepts, suppressed with
/// their reasons.
#[test]
fn the_modules_sam_template_passes_the_advisor() {
    let deploy = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../kura-cqrs/deploy");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kura"))
        .args([
            "advise",
            "--format",
            "json",
            "--fail-on",
            "info",
            "--template",
        ])
        .arg(deploy.join("template.yaml"))
        .arg("--suppressions")
        .arg(deploy.join("advise-suppressions.json"))
        .output()
        .expect("kura advise");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(report["findings"], json!([]), "{text}");
    assert_eq!(report["tables"], json!(4), "{text}");
    let mut accepted: Vec<&str> = report["suppressed"]
        .as_array()
        .expect("suppressed")
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    accepted.sort_unstable();
    accepted.dedup();
    assert_eq!(
        accepted,
        ["naming.key-attribute-descriptive", "streams.view-type"]
    );
}
