//! `GET /kura/advise[?environments=dev,qa,prod]`: the design advisor's findings on every
//! table (docs/advisor.md), of every region under `--regions separate`, with the team's
//! environment identifiers when given. A front end
//! the binary registers beside the API, as it registers the console: the server knows no
//! advisor. Off under `--auth`, as Kura's other unsigned endpoints are.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use axum::routing::get;
use kura_server::ServerHandle;
use kura_server::own_endpoints::{error, json_response};

/// The route, for `ServerOptions::front_ends`.
pub fn front_end() -> kura_server::FrontEnd {
    Arc::new(|server: ServerHandle| {
        Router::new()
            .route("/kura/advise", get(advise))
            .with_state(server)
    })
}

async fn advise(State(server): State<ServerHandle>, uri: Uri) -> Response {
    if let Some(refused) = server.refuse_when_signed() {
        return refused;
    }
    let asked = uri
        .query()
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|pair| pair.strip_prefix("environments="));
    let options = match asked {
        None => kura_advisor::Options::default(),
        Some(text) => match kura_advisor::Options::with_environments(&text.replace("%2C", ",")) {
            Ok(options) => options,
            Err(e) => return error(StatusCode::BAD_REQUEST, &e),
        },
    };
    // Under --regions separate every region is its own namespace: each is advised, and
    // each finding names its region. A region the drill isolates is left out.
    let regions: Vec<(String, Arc<kura_engine::Engine>)> = server
        .regions()
        .into_iter()
        .filter_map(|region| Some((region.clone(), server.engine_for(&region).ok()?)))
        .collect();
    let engine = server.engine();
    // It samples every table: off the async workers.
    let advise = move || match regions.is_empty() {
        true => kura_advisor::advise_with(&engine, &options),
        false => kura_advisor::advise_regions(&regions, &options),
    };
    match tokio::task::spawn_blocking(advise).await {
        Ok(advice) => json_response(StatusCode::OK, &advice),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}
