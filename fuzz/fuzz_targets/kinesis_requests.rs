//! Kinesis Data Streams requests against a live engine with a stream that has records:
//! every input gets an answer or an error, never a panic. Each input is tried as every
//! operation's shape; GetShardIterator is also aimed at the live stream's shard and read
//! on, and GetRecords is also run with a genuine iterator and the fuzzed limit (iterators
//! are signed, so a fuzzed one stops at decoding).
#![no_main]
use std::sync::{Arc, LazyLock};

use kura_engine::api::kinesis::*;
use kura_engine::{Engine, RequestContext};
use libfuzzer_sys::fuzz_target;

const LIVE: &str = "Fuzzed";

static ENGINE: LazyLock<(tokio::runtime::Runtime, Arc<Engine>)> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let engine = Engine::in_memory();
    let create: CreateStreamInput =
        serde_json::from_str(r#"{"StreamName": "Fuzzed", "ShardCount": 2}"#).expect("request");
    rt.block_on(engine.kinesis_create_stream(create))
        .expect("stream");
    for i in 0..6 {
        let put: PutRecordInput = serde_json::from_str(&format!(
            r#"{{"StreamName": "Fuzzed", "Data": "aGVsbG8=", "PartitionKey": "k{i}"}}"#
        ))
        .expect("put request");
        rt.block_on(engine.kinesis_put_record(put)).expect("put");
    }
    (rt, engine)
});

/// A genuine iterator at the start of the live stream's first shard.
fn trim_horizon(engine: &Engine) -> Option<String> {
    let request = serde_json::json!({"StreamName": LIVE, "ShardId": "shardId-000000000000",
        "ShardIteratorType": "TRIM_HORIZON"});
    let input = serde_json::from_value(request).ok()?;
    Some(engine.kinesis_get_shard_iterator(input).ok()?.shard_iterator)
}

/// Reads on from an iterator, page after page, as a consumer does.
fn read_on(engine: &Engine, iterator: String) {
    let mut next = Some(iterator);
    for _ in 0..4 {
        let Some(iterator) = next.take() else { break };
        let input = GetRecordsInput {
            shard_iterator: Some(iterator),
            limit: Some(2),
            stream_arn: None,
        };
        next = engine
            .kinesis_get_records(input)
            .ok()
            .and_then(|page| page.next_shard_iterator);
    }
}

fuzz_target!(|data: &[u8]| {
    let (rt, engine) = &*ENGINE;
    let ctx = RequestContext::default();
    macro_rules! parse {
        ($shape:ty) => {
            serde_json::from_slice::<$shape>(data).ok()
        };
    }
    if let Some(input) = parse!(CreateStreamInput) {
        let name = input.stream_name.clone();
        if rt.block_on(engine.kinesis_create_stream(input)).is_ok() && name.as_deref() != Some(LIVE) {
            // Made, so it goes again: the account's shard quota stays free.
            let delete: DeleteStreamInput =
                serde_json::from_value(serde_json::json!({"StreamName": name})).expect("request");
            let _ = rt.block_on(engine.kinesis_delete_stream(delete));
        }
    }
    if let Some(input) = parse!(DescribeStreamInput) {
        let _ = engine.kinesis_describe_stream(&ctx, input);
    }
    if let Some(input) = parse!(DescribeStreamSummaryInput) {
        let _ = engine.kinesis_describe_stream_summary(&ctx, input);
    }
    if let Some(input) = parse!(ListStreamsInput) {
        let _ = engine.kinesis_list_streams(&ctx, input);
    }
    if let Some(input) = parse!(ListShardsInput) {
        let _ = engine.kinesis_list_shards(input);
    }
    if let Some(input) = parse!(PutRecordInput) {
        let _ = rt.block_on(engine.kinesis_put_record(input));
    }
    if let Some(input) = parse!(PutRecordsInput) {
        let _ = rt.block_on(engine.kinesis_put_records(input));
    }
    if let Some(input) = parse!(RetentionPeriodInput) {
        let _ = rt.block_on(engine.kinesis_increase_retention(input.clone()));
        let _ = rt.block_on(engine.kinesis_decrease_retention(input));
    }
    if let Some(input) = parse!(AddTagsToStreamInput) {
        let _ = rt.block_on(engine.kinesis_add_tags(input));
    }
    if let Some(input) = parse!(RemoveTagsFromStreamInput) {
        let _ = rt.block_on(engine.kinesis_remove_tags(input));
    }
    if let Some(input) = parse!(ListTagsForStreamInput) {
        let _ = engine.kinesis_list_tags(input);
    }
    if let Some(input) = parse!(GetShardIteratorInput) {
        // As sent, and aimed at the live stream's first shard, keeping the fuzzed type,
        // sequence number and time.
        let aimed = GetShardIteratorInput {
            stream_name: Some(LIVE.to_owned()),
            stream_arn: None,
            shard_id: Some("shardId-000000000000".to_owned()),
            ..input.clone()
        };
        for input in [input, aimed] {
            if let Ok(out) = engine.kinesis_get_shard_iterator(input) {
                read_on(engine, out.shard_iterator);
            }
        }
    }
    if let Some(input) = parse!(GetRecordsInput) {
        let limit = input.limit;
        let _ = engine.kinesis_get_records(input);
        if let Some(iterator) = trim_horizon(engine) {
            let _ = engine.kinesis_get_records(GetRecordsInput {
                shard_iterator: Some(iterator),
                limit,
                stream_arn: None,
            });
        }
    }
    // Raw text as an iterator, the likeliest thing for a client to mangle.
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = engine.kinesis_get_records(GetRecordsInput {
            shard_iterator: Some(text.to_owned()),
            limit: None,
            stream_arn: None,
        });
    }
});
