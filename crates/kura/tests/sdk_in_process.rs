//! The SDK scenarios with Kura plugged in as the SDK's HTTP client (no sockets).

mod common;

use common::{
    backups, batches, expressions, fidelity, fidelity_iii, fidelity_iii_items, indexes, multi_keys,
    partiql, reads, scenarios, transactions,
};

#[tokio::test]
async fn table_lifecycle_in_memory() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    scenarios::table_lifecycle(&client).await;
}

#[tokio::test]
async fn table_lifecycle_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = kura_engine::Engine::open(dir.path()).expect("open");
    let client = kura_testkit::in_process_client(engine.clone());
    scenarios::table_lifecycle(&client).await;
    engine.shutdown();
}

#[tokio::test]
async fn list_tables_paging() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    scenarios::list_tables_paging(&client).await;
}

#[tokio::test]
async fn validation_errors() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    scenarios::validation_errors(&client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expression_seed_patterns() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    expressions::seed_patterns(&client, "Seeds").await;
}

#[tokio::test]
async fn query_and_scan_paging() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    reads::query_and_scan(&client, "Reads").await;
}

#[tokio::test]
async fn batch_reads_and_writes() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    batches::batches(&client, "BatchOne", "BatchTwo").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transactions_in_process() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    transactions::transactions(&client, "Bank").await;
}

#[tokio::test]
async fn secondary_indexes_in_process() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    indexes::seed_single_table(&client, "SingleTable").await;
    indexes::projections_and_errors(&client, "Projections").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_attribute_keys_in_process() {
    let engine = kura_engine::Engine::in_memory();
    let client = kura_testkit::in_process_client(engine.clone());
    let streams = kura_testkit::in_process_streams_client(engine);
    multi_keys::multi_attribute_keys(&client, &streams, "Matches").await;
    multi_keys::invalid_schemas(&client).await;
    multi_keys::multi_attribute_backfill(&client, "Docs", 2_000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn online_index_creation_in_process() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    indexes::online_index_creation(&client, "Backfill", 3_000).await;
}

#[tokio::test]
async fn fidelity_points_in_process() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    fidelity::table_arns(&client, "ByArn").await;
    fidelity::tag_rules(&client, "Tagged").await;
    fidelity::continuous_backups(&client, "Backups").await;
    fidelity::server_side_encryption(&client, "Sse").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partiql_in_process() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    partiql::partiql(&client, "Music").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backups_and_point_in_time_in_process() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    backups::on_demand(&client, "Mem").await;
    backups::point_in_time(&client, "Mem").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vector_search_in_process() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = kura_engine::Engine::open(dir.path()).expect("open");
    let client = kura_testkit::in_process_client(engine.clone());
    common::vectors::search_matches_brute_force(&client, "Vectors").await;
    engine.shutdown();
}

// Issue 58 ("Fidelity III"): one test per family, each on its own engine.

#[tokio::test]
async fn streams_shard_order_empty_shard_iterators_and_refusals() {
    let engine = kura_engine::Engine::in_memory();
    let client = kura_testkit::in_process_client(engine.clone());
    let streams = kura_testkit::in_process_streams_client(engine);
    fidelity_iii::streams(&client, &streams, "Shards").await;
}

#[tokio::test]
async fn index_key_and_projected_names_over_255_bytes_are_refused_first() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    fidelity_iii::index_name_limits(&client).await;
}

#[tokio::test]
async fn attribute_names_too_large_or_empty_are_refused() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    fidelity_iii::attribute_name_limits(&client, "Names").await;
}

#[tokio::test]
async fn update_table_gsi_definitions_and_duplicate_definitions() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    fidelity_iii::index_definitions(&client).await;
}

#[tokio::test]
async fn gsi_reads_refuse_unprojected_attributes_and_non_key_conditions() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    fidelity_iii::index_reads(&client).await;
}

#[tokio::test]
async fn expression_and_legacy_update_fidelity() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    fidelity_iii_items::expressions_and_legacy(&client, "Exprs").await;
}

#[tokio::test]
async fn start_keys_outside_the_schema_or_segment_are_refused() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    fidelity_iii_items::start_keys(&client).await;
}

#[tokio::test]
async fn tagging_refuses_non_table_arns_with_dynamodb_texts() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    fidelity_iii_items::resource_arns(&client, "Arns").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transaction_size_and_cancellation_reasons() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    fidelity_iii_items::transactions(&client, "Txns").await;
}
