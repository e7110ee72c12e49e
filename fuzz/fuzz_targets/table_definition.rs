//! CreateTable and UpdateTable requests, index definitions included, run against a live
//! in-memory engine: validation answers with an error or a table, never a panic, and a
//! table it accepts describes and deletes cleanly.
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
    let base: CreateTableInput = serde_json::from_str(
        r#"{"TableName": "Base", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}]}"#,
    )
    .expect("base table request");
    rt.block_on(engine.create_table(&RequestContext::default(), base))
        .expect("base table");
    (rt, engine)
});

fn named(name: &str) -> TableNameInput {
    TableNameInput {
        table_name: Some(name.to_owned()),
    }
}

fuzz_target!(|data: &[u8]| {
    let (rt, engine) = &*ENGINE;
    let ctx = RequestContext::default();
    if let Ok(mut input) = serde_json::from_slice::<CreateTableInput>(data) {
        input.table_name = Some("Fuzzed".into());
        if rt.block_on(engine.create_table(&ctx, input)).is_ok() {
            rt.block_on(engine.describe_table(&ctx, named("Fuzzed")))
                .expect("a created table describes");
            rt.block_on(engine.delete_table(&ctx, named("Fuzzed")))
                .expect("a created table deletes");
        }
    }
    if let Ok(mut input) = serde_json::from_slice::<UpdateTableInput>(data) {
        input.table_name = Some("Base".into());
        let _ = rt.block_on(engine.update_table(&ctx, input));
    }
});
