//! Kura's own endpoints beside the DynamoDB API, under `/kura/` (a path the DynamoDB
//! protocol never uses): Contributor Insights reports and the stream triggers (listed,
//! created and deleted at run time). The design advisor's `/kura/advise` is a front end
//! the binary registers (the server knows no advisor); it answers as these do.
//! They carry no signature, and key values are data: with `--auth` on they answer 403
//! (the DynamoDB API's DescribeContributorInsights still works, signed).

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use crate::Shared;

/// The query string's parameters (no repeated keys; percent-decoding of `+` and `%XX`).
fn params(uri: &Uri) -> BTreeMap<String, String> {
    uri.query()
        .unwrap_or("")
        .split('&')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (!k.is_empty()).then(|| (decode(k), decode(v)))
        })
        .collect()
}

/// Form decoding: `+` is a space, then SigV4's percent-decoding (a `%` not followed by two
/// hex digits stays as it is).
fn decode(text: &str) -> String {
    String::from_utf8_lossy(&kura_auth::sigv4::uri_decode(&text.replace('+', " "))).into_owned()
}

/// A JSON answer, pretty-printed as Kura's own endpoints write them.
pub fn json_response<T: serde::Serialize>(status: StatusCode, body: &T) -> Response {
    match serde_json::to_vec_pretty(body) {
        Ok(bytes) => (
            status,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            bytes,
        )
            .into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

/// An error answer of Kura's own endpoints: `{"message": ...}`.
pub fn error(status: StatusCode, message: &str) -> Response {
    json_response(status, &serde_json::json!({ "message": message }))
}

/// With `--auth`, nothing unsigned reads what the tables hold.
pub(crate) fn refuse_when_signed(shared: &Shared) -> Option<Response> {
    shared.auth.is_some().then(|| {
        error(
            StatusCode::FORBIDDEN,
            "Kura's /kura/ endpoints are off while --auth is on: they carry no signature",
        )
    })
}

/// `GET /kura/insights/{table}?index=&minutes=&top=`: the most accessed and most throttled
/// keys over the last `minutes` (default 60, at most 60), `top` of each (default 10).
pub(crate) async fn insights(
    State(shared): State<Shared>,
    Path(table): Path<String>,
    uri: Uri,
) -> Response {
    if let Some(refused) = refuse_when_signed(&shared) {
        return refused;
    }
    let params = params(&uri);
    // The name of a parameter that is not a whole number, as the error.
    let number = |name: &'static str, default: usize| -> Result<usize, &'static str> {
        params
            .get(name)
            .map_or(Ok(default), |v| v.parse().map_err(|_| name))
    };
    let (minutes, top) = match (number("minutes", 60), number("top", 10)) {
        (Ok(m), Ok(t)) => (m, t),
        (Err(name), _) | (_, Err(name)) => {
            return error(
                StatusCode::BAD_REQUEST,
                &format!("{name} must be a whole number"),
            );
        }
    };
    let index = params.get("index").map(String::as_str);
    let engine = &shared.engine();
    if !engine.has_table(&table) {
        return error(StatusCode::NOT_FOUND, &format!("no table {table}"));
    }
    if let Some(index) = index
        && engine
            .design()
            .partition_key_names(&table, Some(index))
            .is_none()
    {
        return error(
            StatusCode::NOT_FOUND,
            &format!("no index {index} on {table}"),
        );
    }
    let report = engine
        .telemetry()
        .existing(&table)
        .and_then(|c| c.insights.report(index, engine.now_ms(), minutes, top));
    match report {
        Some(report) => json_response(StatusCode::OK, &report),
        None => error(
            StatusCode::CONFLICT,
            &format!(
                "Contributor Insights is not enabled on {table}{}: aws dynamodb update-contributor-insights --table-name {table}{} --contributor-insights-action ENABLE",
                index.map(|i| format!(" index {i}")).unwrap_or_default(),
                index
                    .map(|i| format!(" --index-name {i}"))
                    .unwrap_or_default(),
            ),
        ),
    }
}

/// The server's triggers, or the answer when it runs none (no `--triggers`, no `kura dev`).
#[allow(clippy::result_large_err)] // the error is the response itself, returned at once
fn triggers(shared: &Shared) -> Result<&std::sync::Arc<kura_triggers::Triggers>, Response> {
    if let Some(refused) = refuse_when_signed(shared) {
        return Err(refused);
    }
    shared.triggers.as_ref().ok_or_else(|| {
        error(
            StatusCode::NOT_FOUND,
            "this server runs no triggers (start it with kura serve --triggers FILE, or kura dev)",
        )
    })
}

/// The peer of a request that came over a connection (none for one made in process).
type Peer = Option<axum::Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>;

/// Creating and deleting triggers: only with `--trigger-admin`, only from this host (the
/// endpoint carries no signature, and a trigger runs a command or posts item images where
/// it says), and never from a browser page (a page on any site could otherwise POST one
/// to 127.0.0.1, since the DynamoDB API answers CORS for every origin).
fn refuse_trigger_change(
    shared: &Shared,
    headers: &axum::http::HeaderMap,
    peer: &Peer,
) -> Option<Response> {
    if !shared.trigger_admin {
        return Some(error(
            StatusCode::FORBIDDEN,
            "creating and deleting triggers at run time is off: start kura serve with --trigger-admin (kura dev has it on)",
        ));
    }
    if let Some(axum::Extension(axum::extract::ConnectInfo(addr))) = peer
        && !addr.ip().to_canonical().is_loopback()
    {
        return Some(error(
            StatusCode::FORBIDDEN,
            &format!(
                "triggers are created and deleted at run time from this host only (the request came from {}); put them in the --triggers file to manage them from elsewhere",
                addr.ip()
            ),
        ));
    }
    headers.contains_key(axum::http::header::ORIGIN).then(|| {
        error(
            StatusCode::FORBIDDEN,
            "triggers are not created or deleted from a browser page (the request has an Origin header)",
        )
    })
}

fn trigger_error(e: &kura_triggers::TriggerError) -> Response {
    use kura_triggers::TriggerError as E;
    let status = match e {
        E::NotFound(_) => StatusCode::NOT_FOUND,
        E::Exists(_) => StatusCode::CONFLICT,
        E::InvalidConfig(_) | E::InvalidPattern(_) => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    error(status, &e.to_string())
}

/// `GET /kura/triggers`: every trigger with its settings, shard positions and figures.
pub(crate) async fn list_triggers(State(shared): State<Shared>) -> Response {
    match triggers(&shared) {
        Ok(t) => json_response(StatusCode::OK, &serde_json::json!({ "Triggers": t.list() })),
        Err(answer) => answer,
    }
}

/// `GET /kura/triggers/{name}`.
pub(crate) async fn describe_trigger(
    State(shared): State<Shared>,
    Path(name): Path<String>,
) -> Response {
    match triggers(&shared) {
        Ok(t) => match t.status(&name) {
            Some(status) => json_response(StatusCode::OK, &status),
            None => error(
                StatusCode::NOT_FOUND,
                &format!("no trigger is named {name}"),
            ),
        },
        Err(answer) => answer,
    }
}

/// `POST /kura/triggers` with one trigger as the triggers file writes it: started at once,
/// its definition kept with its checkpoints so that it survives restarts.
pub(crate) async fn create_trigger(
    State(shared): State<Shared>,
    peer: Peer,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let t = match triggers(&shared) {
        Ok(t) => t,
        Err(answer) => return answer,
    };
    if let Some(refused) = refuse_trigger_change(&shared, &headers, &peer) {
        return refused;
    }
    let definition: serde_json::Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                &format!("the body is not JSON: {e}"),
            );
        }
    };
    match t.create(definition) {
        Ok(status) => json_response(StatusCode::CREATED, &status),
        Err(e) => trigger_error(&e),
    }
}

/// `DELETE /kura/triggers/{name}`: stops the trigger and forgets its checkpoints.
pub(crate) async fn delete_trigger(
    State(shared): State<Shared>,
    peer: Peer,
    headers: axum::http::HeaderMap,
    Path(name): Path<String>,
) -> Response {
    let t = match triggers(&shared) {
        Ok(t) => t.clone(),
        Err(answer) => return answer,
    };
    if let Some(refused) = refuse_trigger_change(&shared, &headers, &peer) {
        return refused;
    }
    match t.delete(&name).await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => trigger_error(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // The query string is the client's: any text decodes without panicking.
        #[test]
        fn any_query_string_decodes(query in "[a-z%0-9A-F=&+é]{0,40}") {
            let _ = decode(&query);
            if let Ok(uri) = format!("/kura/insights/t?{query}").parse::<Uri>() {
                let _ = params(&uri);
            }
        }
    }

    #[test]
    fn query_parameters_are_decoded() {
        let uri: Uri = "/kura/insights/t?index=by%2Dname&minutes=5&x"
            .parse()
            .expect("uri");
        let p = params(&uri);
        assert_eq!(p["index"], "by-name");
        assert_eq!(p["minutes"], "5");
        assert_eq!(p["x"], "");
        assert_eq!(decode("a+b%zz%4"), "a b%zz%4");
        assert_eq!(decode("%é%41"), "%é%41".replace("%41", "A"));
    }
}
