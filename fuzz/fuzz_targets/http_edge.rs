//! The API's HTTP edge through the real router to a live in-memory engine: the body as
//! sent, its Content-Encoding layers (gzip, deflate, unknown, too many), the target
//! header and the JSON behind them. Every input gets an answer with a status, never a
//! panic, and no answer is a 200 for a body that was not a JSON object. The first byte
//! picks the encoding, the second the target, the third whether the rest is compressed
//! first (so the JSON past the inflate is reached too).
#![no_main]
use std::io::Write;
use std::sync::LazyLock;

use axum::body::Body;
use axum::http::{Request, header};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

const ENCODINGS: [&str; 8] = [
    "",
    "gzip",
    "deflate",
    "gzip, gzip",
    "gzip, gzip, gzip",
    "identity, gzip",
    "br",
    "x-gzip",
];

const TARGETS: [&str; 8] = [
    "DynamoDB_20120810.PutItem",
    "DynamoDB_20120810.GetItem",
    "DynamoDB_20120810.Query",
    "DynamoDB_20120810.ListTables",
    "DynamoDB_20120810.ExecuteStatement",
    "DynamoDBStreams_20120810.GetRecords",
    "DynamoDB_20120810.NoSuchOperation",
    "",
];

struct World {
    rt: tokio::runtime::Runtime,
    router: axum::Router,
}

static WORLD: LazyLock<World> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let engine = kura_engine::Engine::in_memory();
    rt.block_on(async {
        let table = serde_json::json!({
            "TableName": "fuzz", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]});
        kura_api::invoke(&engine, "CreateTable", table.to_string().into())
            .await
            .expect("table");
    });
    World {
        rt,
        router: kura_server::router(engine),
    }
});

fn compress(encoding: &str, data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    for layer in encoding.split(',').map(str::trim) {
        out = match layer {
            "gzip" | "x-gzip" => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(&out).expect("gzip");
                e.finish().expect("gzip")
            }
            "deflate" => {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(&out).expect("zlib");
                e.finish().expect("zlib")
            }
            _ => out,
        };
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let [encoding, target, packed, rest @ ..] = data else {
        return;
    };
    let world = &*WORLD;
    let encoding = ENCODINGS[*encoding as usize % ENCODINGS.len()];
    let target = TARGETS[*target as usize % TARGETS.len()];
    let body = if packed % 2 == 1 {
        compress(encoding, rest)
    } else {
        rest.to_vec()
    };
    let mut request = Request::post("/").header(header::CONTENT_TYPE, "application/x-amz-json-1.0");
    if !encoding.is_empty() {
        request = request.header(header::CONTENT_ENCODING, encoding);
    }
    if !target.is_empty() {
        request = request.header("x-amz-target", target);
    }
    let request = request.body(Body::from(body)).expect("request");
    let response = world
        .rt
        .block_on(world.router.clone().oneshot(request))
        .expect("an answer");
    let status = response.status();
    assert!(
        status.is_success() || status.is_client_error() || status.is_server_error(),
        "{status}"
    );
    if status.is_success() {
        let first = rest.iter().find(|b| !b.is_ascii_whitespace());
        assert!(
            packed % 2 == 1 || !encoding.is_empty() || matches!(first, None | Some(b'{')),
            "a body that is no object was served"
        );
    }
});
