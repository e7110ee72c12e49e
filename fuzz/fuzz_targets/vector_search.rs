//! SearchVectors requests against a live in-memory engine whose table has vector indexes
//! (partitioned, filtered, one per distance function) and items: an answer or an error,
//! never a panic, and never more than TopK results.
#![no_main]
use std::sync::{Arc, LazyLock};

use kura_engine::api::*;
use kura_engine::{Engine, RequestContext};
use libfuzzer_sys::fuzz_target;

static ENGINE: LazyLock<(tokio::runtime::Runtime, Arc<Engine>)> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let engine = Engine::in_memory();
    let index = |name: &str, distance: &str, schema: &str| {
        format!(
            r#"{{"IndexName": "{name}", "VectorAttribute": {{"AttributeName": "v"}},
                "Dimensions": 3, "DistanceFunction": "{distance}",
                "Projection": {{"ProjectionType": "ALL"}} {schema}}}"#
        )
    };
    let schema = r#", "SearchSchema": [
        {"AttributeName": "t", "SearchSchemaElementType": "HASH"},
        {"AttributeName": "c", "SearchSchemaElementType": "INLINE_FILTER"}]"#;
    let create: CreateTableInput = serde_json::from_str(&format!(
        r#"{{"TableName": "Vectors", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{{"AttributeName": "pk", "AttributeType": "S"}},
                                     {{"AttributeName": "t", "AttributeType": "S"}},
                                     {{"AttributeName": "c", "AttributeType": "N"}}],
            "KeySchema": [{{"AttributeName": "pk", "KeyType": "HASH"}}],
            "VectorIndexes": [{}, {}, {}]}}"#,
        index("cos", "COSINE", schema),
        index("euclid", "EUCLIDEAN", ""),
        index("dot", "DOT_PRODUCT", ""),
    ))
    .expect("table request");
    rt.block_on(engine.create_table(&RequestContext::default(), create))
        .expect("table");
    for i in 0..50 {
        let put: PutItemInput = serde_json::from_str(&format!(
            r#"{{"TableName": "Vectors", "Item": {{"pk": {{"S": "k{i}"}}, "t": {{"S": "t{}"}},
                "c": {{"N": "{}"}}, "v": {{"L": [{{"N": "{}"}}, {{"N": "{}"}}, {{"N": "0.5"}}]}}}}}}"#,
            i % 3,
            i % 5,
            i % 7,
            i as f32 / 10.0,
        ))
        .expect("put request");
        rt.block_on(engine.put_item(put)).expect("put");
    }
    (rt, engine)
});

fuzz_target!(|data: &[u8]| {
    let (rt, engine) = &*ENGINE;
    if let Ok(mut input) = serde_json::from_slice::<SearchVectorsInput>(data) {
        input.table_name = Some("Vectors".into());
        let top_k = input.top_k;
        if let Ok(output) = rt.block_on(engine.search_vectors(input)) {
            let top_k = usize::try_from(top_k.unwrap_or(0)).unwrap_or(0);
            assert!(output.search_results.len() <= top_k);
        }
    }
});
