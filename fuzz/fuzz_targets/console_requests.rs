//! The web console's inputs: query strings (the item browser's builder and its packed
//! start keys, the editor's key) and form bodies (the item editor, the PartiQL editor,
//! table updates, the stream tail's cursor, item loads), sent through the real router to a live
//! in-memory engine with a table, an index, a stream and items. Every input gets a page,
//! never a panic. The first byte picks the page; the rest is the query or the form.
#![no_main]
use std::sync::{Arc, LazyLock};

use axum::body::Body;
use axum::http::{Request, header};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

struct World {
    rt: tokio::runtime::Runtime,
    router: axum::Router,
    cookie: String,
    csrf: String,
}

static WORLD: LazyLock<World> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let engine = kura_engine::Engine::in_memory();
    let router = kura_server::router_with(
        Arc::clone(&engine),
        kura_server::ServerOptions {
            front_ends: vec![kura_console::front_end(false)],
            ..kura_server::ServerOptions::default()
        },
    );
    let (cookie, csrf) = rt.block_on(async {
        let call = |op: &'static str, body: serde_json::Value| {
            let engine = Arc::clone(&engine);
            async move {
                kura_api::invoke(&engine, op, body.to_string().into())
                    .await
                    .expect(op)
            }
        };
        call("CreateTable", serde_json::json!({
            "TableName": "fuzz", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"},
                                     {"AttributeName": "g", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [{"IndexName": "by_g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}))
        .await;
        for i in 0..5 {
            call("PutItem", serde_json::json!({"TableName": "fuzz", "Item": {
                "pk": {"S": format!("p{}", i % 2)}, "sk": {"N": i.to_string()},
                "g": {"S": "x"}, "m": {"M": {"l": {"L": [{"SS": ["a"]}]}}}}}))
            .await;
        }
        // A session: its cookie and the CSRF token its forms carry.
        let page = router
            .clone()
            .oneshot(Request::get("/console/partiql").body(Body::empty()).expect("request"))
            .await
            .expect("page");
        let cookie = page.headers()[header::SET_COOKIE]
            .to_str()
            .expect("cookie")
            .split(';')
            .next()
            .expect("cookie pair")
            .to_owned();
        let html = axum::body::to_bytes(page.into_body(), usize::MAX).await.expect("body");
        let html = String::from_utf8_lossy(&html);
        let at = html.find("name=\"csrf\" value=\"").expect("csrf field") + 19;
        (cookie, html[at..at + 32].to_owned())
    });
    World { rt, router, cookie, csrf }
});

const GETS: [&str; 5] = [
    "/console/tables/fuzz/items?",
    "/console/tables/fuzz/item?",
    "/console/advisor?",
    "/console/tables/fuzz/metrics?",
    "/console/tables?",
];
const POSTS: [&str; 7] = [
    "/console/tables/fuzz/item",
    "/console/tables/fuzz/item/delete",
    "/console/partiql",
    "/console/tables/fuzz/update",
    "/console/tables/fuzz/protection",
    "/console/tables/fuzz/stream/poll",
    "/console/tables/fuzz/load",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let world = &*WORLD;
    let text = String::from_utf8_lossy(rest);
    let request = if pick % 2 == 0 {
        let path = GETS[(pick as usize / 2) % GETS.len()];
        // Bytes a URI cannot hold are refused before the console; keep the rest.
        let query: String = text.chars().filter(|c| c.is_ascii_graphic()).collect();
        match Request::get(format!("{path}{query}")).header(header::COOKIE, &world.cookie).body(Body::empty()) {
            Ok(r) => r,
            Err(_) => return,
        }
    } else {
        let path = POSTS[(pick as usize / 2) % POSTS.len()];
        let body = format!("csrf={}&{text}", world.csrf);
        Request::post(path)
            .header(header::COOKIE, &world.cookie)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .expect("request")
    };
    world.rt.block_on(async {
        let answer = world.router.clone().oneshot(request).await.expect("infallible");
        assert!(!answer.status().is_server_error(), "{}", answer.status());
        let _ = axum::body::to_bytes(answer.into_body(), usize::MAX).await;
    });
});
