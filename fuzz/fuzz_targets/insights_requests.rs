//! The Contributor Insights operations against a live engine with a table, a GSI and
//! Contributor Insights on: every input gets an answer or an error, never a panic; items
//! written with arbitrary keys are recorded in the heavy-hitter summaries.
#![no_main]
use std::sync::{Arc, LazyLock};

use kura_engine::api::*;
use kura_engine::{Engine, RequestContext};
use libfuzzer_sys::fuzz_target;

static ENGINE: LazyLock<(tokio::runtime::Runtime, Arc<Engine>)> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let engine = Engine::in_memory();
    let table: CreateTableInput = serde_json::from_str(
        r#"{"TableName": "Watched", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "S"},
                                     {"AttributeName": "g", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [{"IndexName": "gsi1",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}]}"#,
    )
    .expect("table request");
    rt.block_on(engine.create_table(&RequestContext::default(), table))
        .expect("table");
    let enable: UpdateContributorInsightsInput = serde_json::from_str(
        r#"{"TableName": "Watched", "ContributorInsightsAction": "ENABLE"}"#,
    )
    .expect("enable request");
    rt.block_on(engine.update_contributor_insights(enable))
        .expect("enable");
    (rt, engine)
});

fuzz_target!(|data: &[u8]| {
    let (rt, engine) = &*ENGINE;
    if let Ok(input) = serde_json::from_slice::<UpdateContributorInsightsInput>(data) {
        let _ = rt.block_on(engine.update_contributor_insights(input));
    }
    if let Ok(input) = serde_json::from_slice::<DescribeContributorInsightsInput>(data) {
        let _ = engine.describe_contributor_insights(input);
    }
    if let Ok(input) = serde_json::from_slice::<ListContributorInsightsInput>(data) {
        let _ = engine.list_contributor_insights(input);
    }
    // Raw bytes as key values: whatever they are, recording them must hold.
    let text = String::from_utf8_lossy(data);
    let key = serde_json::json!({"TableName": "Watched",
        "Key": {"pk": {"S": text}, "sk": {"S": "s"}}});
    if let Ok(get) = serde_json::from_value::<GetItemInput>(key) {
        let _ = engine.get_item(get);
    }
    let counters = engine.telemetry().existing("Watched");
    if let Some(report) = counters.and_then(|c| c.insights.report(None, engine.now_ms(), 60, 5)) {
        assert!(report.most_accessed_items.keys.len() <= 5);
    }
});
