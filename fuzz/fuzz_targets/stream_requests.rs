//! DynamoDB Streams requests (shard iterators are Kura's own encoding) against a live
//! engine with a stream that has records: every input gets an answer or an error, never a
//! panic.
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
        r#"{"TableName": "Streamed", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}"#,
    )
    .expect("table request");
    rt.block_on(engine.create_table(&RequestContext::default(), table))
        .expect("table");
    for i in 0..5 {
        let put: PutItemInput = serde_json::from_str(&format!(
            r#"{{"TableName": "Streamed", "Item": {{"pk": {{"S": "k{i}"}}}}}}"#
        ))
        .expect("put request");
        rt.block_on(engine.put_item(put)).expect("put");
    }
    (rt, engine)
});

fuzz_target!(|data: &[u8]| {
    let (_rt, engine) = &*ENGINE;
    let ctx = RequestContext::default();
    if let Ok(input) = serde_json::from_slice::<ListStreamsInput>(data) {
        let _ = engine.list_streams(&ctx, input);
    }
    if let Ok(input) = serde_json::from_slice::<DescribeStreamInput>(data) {
        let _ = engine.describe_stream(&ctx, input);
    }
    if let Ok(input) = serde_json::from_slice::<GetShardIteratorInput>(data) {
        let _ = engine.get_shard_iterator(input);
    }
    if let Ok(input) = serde_json::from_slice::<GetRecordsInput>(data) {
        let _ = engine.get_records(&ctx, input);
    }
    // Raw text as an iterator, the likeliest thing for a client to mangle.
    if let Ok(text) = std::str::from_utf8(data) {
        let input = GetRecordsInput {
            shard_iterator: Some(text.to_owned()),
            limit: None,
        };
        let _ = engine.get_records(&ctx, input);
    }
});
