//! The SDK scenarios against a spawned `kura serve` over real HTTP, plus process behaviour:
//! readiness, graceful shutdown, data surviving a clean restart.

mod common;

use common::{
    KuraProcess, backups, batches, expressions, fidelity, indexes, multi_keys, partiql, reads,
    scenarios, transactions,
};

#[tokio::test]
async fn scenarios_over_http() {
    let server = KuraProcess::start(None);
    let client = server.client();
    scenarios::table_lifecycle(&client).await;
    scenarios::list_tables_paging(&client).await;
    scenarios::validation_errors(&client).await;
    fidelity::table_arns(&client, "ByArn").await;
    fidelity::tag_rules(&client, "Tagged").await;
    fidelity::continuous_backups(&client, "Backups").await;
    fidelity::server_side_encryption(&client, "Sse").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expression_seed_patterns_over_http_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    expressions::seed_patterns(&server.client(), "Seeds").await;
}

#[tokio::test]
async fn query_and_scan_over_http_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    reads::query_and_scan(&server.client(), "Reads").await;
    batches::batches(&server.client(), "BatchOne", "BatchTwo").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transactions_over_http_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    transactions::transactions(&server.client(), "Bank").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partiql_over_http_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    partiql::partiql(&server.client(), "Music").await;
}

#[tokio::test]
async fn secondary_indexes_over_http_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    indexes::seed_single_table(&client, "SingleTable").await;
    indexes::projections_and_errors(&client, "Projections").await;
    indexes::online_index_creation(&client, "Backfill", 1_000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_attribute_keys_over_http_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    multi_keys::multi_attribute_keys(&client, &server.streams_client(), "Matches").await;
    multi_keys::multi_attribute_backfill(&client, "Docs", 1_000).await;
}

#[tokio::test]
async fn ready_endpoint_and_clean_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    let ready = raw_get(&server.endpoint, "/ready").await;
    assert_eq!(ready, (200, "ready".to_owned()));

    let client = server.client();
    common::create_table(&client, "Kept", "pk", None).await;
    client
        .put_item()
        .table_name("Kept")
        .item("pk", aws_sdk_dynamodb::types::AttributeValue::S("a".into()))
        .send()
        .await
        .expect("put");
    assert!(server.terminate().success(), "SIGTERM must exit cleanly");

    let server = KuraProcess::start(Some(dir.path()));
    let got = server
        .client()
        .get_item()
        .table_name("Kept")
        .key("pk", aws_sdk_dynamodb::types::AttributeValue::S("a".into()))
        .send()
        .await
        .expect("get");
    assert!(got.item().is_some(), "data must survive a clean restart");
}

async fn raw_get(endpoint: &str, path: &str) -> (u16, String) {
    use http_body_util::BodyExt;
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<http_body_util::Empty<bytes::Bytes>>();
    let uri: http::Uri = format!("{endpoint}{path}").parse().expect("uri");
    let response = client.get(uri).await.expect("GET");
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backups_and_point_in_time_over_http_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = KuraProcess::start(Some(dir.path()));
    let client = server.client();
    backups::on_demand(&client, "Disk").await;
    backups::point_in_time(&client, "Disk").await;
}
