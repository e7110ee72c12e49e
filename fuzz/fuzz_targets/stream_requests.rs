//! DynamoDB Streams requests (shard iterators are Kura's own encoding) against a live
//! engine with a stream that has records: every input gets an answer or an error, never a
//! panic. Iterators are signed, so a fuzzed one stops at decoding: GetRecords is also run
//! with the iterator a fuzzed GetShardIterator request earned, and with each fuzzed limit.
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

/// The live stream's ARN and its first shard's id.
fn first_shard(engine: &Engine) -> (String, String) {
    let ctx = RequestContext::default();
    let streams = engine
        .list_streams(&ctx, ListStreamsInput::default())
        .expect("streams");
    let arn = streams.streams[0].stream_arn.clone();
    let described = engine
        .describe_stream(
            &ctx,
            serde_json::from_value(serde_json::json!({"StreamArn": arn})).expect("request"),
        )
        .expect("stream");
    let shard = described.stream_description.shards[0].shard_id.clone();
    (arn, shard)
}

/// A genuine iterator at the start of the stream's first shard.
fn trim_horizon(engine: &Engine) -> String {
    let (arn, shard) = first_shard(engine);
    let request = serde_json::json!(
        {"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}
    );
    engine
        .get_shard_iterator(serde_json::from_value(request).expect("request"))
        .expect("iterator")
        .shard_iterator
}

/// Reads on from an iterator, page after page, as a consumer does.
fn read_on(engine: &Engine, iterator: String) {
    let ctx = RequestContext::default();
    let mut next = Some(iterator);
    for _ in 0..4 {
        let Some(iterator) = next.take() else { break };
        let input = GetRecordsInput {
            shard_iterator: Some(iterator),
            limit: Some(2),
        };
        next = engine
            .get_records(&ctx, input)
            .ok()
            .and_then(|page| page.next_shard_iterator);
    }
}

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
        // As sent, and aimed at the live stream's first shard (its ARN carries the time the
        // table was made, which no seed can know), keeping the fuzzed type and number.
        let (arn, shard) = first_shard(engine);
        let aimed = GetShardIteratorInput {
            stream_arn: Some(arn),
            shard_id: Some(shard),
            ..input.clone()
        };
        for input in [input, aimed] {
            if let Ok(out) = engine.get_shard_iterator(input) {
                read_on(engine, out.shard_iterator);
            }
        }
    }
    if let Ok(input) = serde_json::from_slice::<GetRecordsInput>(data) {
        let limit = input.limit;
        let _ = engine.get_records(&ctx, input);
        // The fuzzed limit on a genuine iterator.
        let _ = engine.get_records(
            &ctx,
            GetRecordsInput {
                shard_iterator: Some(trim_horizon(engine)),
                limit,
            },
        );
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
