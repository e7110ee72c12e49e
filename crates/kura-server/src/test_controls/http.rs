//! `/kura/admin/`: the test controls over HTTP. Registered only when the controls are on.
//! With `--auth`, each call must carry a valid SigV4 signature (any service name), and a
//! principal with policies needs one that allows `kura:Admin`. A request with an `Origin`
//! header (from a browser page) is refused.
//!
//! - `GET  /kura/admin` — clock, snapshots, fault rules, capacity emulation
//! - `POST /kura/admin/reset`
//! - `GET  /kura/admin/snapshots`, `POST|DELETE /kura/admin/snapshots/{name}`,
//!   `POST /kura/admin/snapshots/{name}/restore`
//! - `GET|POST /kura/admin/clock` (`{"advance_seconds": N}` or `{"advance_ms": N}`)
//! - `GET|POST|DELETE /kura/admin/faults`, `DELETE /kura/admin/faults/{id}`
//! - `GET /kura/admin/regions`, `POST /kura/admin/regions/{region}/isolate|heal` (the
//!   disaster-recovery drill, `--regions separate`)

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::TestControls;
use super::faults::FaultSpec;
use crate::Shared;

fn json(status: StatusCode, body: &serde_json::Value) -> Response {
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        serde_json::to_vec_pretty(body).unwrap_or_default(),
    )
        .into_response()
}

fn refuse(status: StatusCode, message: &str) -> Response {
    json(status, &serde_json::json!({ "message": message }))
}

/// The controls and the request body, once the caller may use them.
async fn admitted(
    shared: &Shared,
    request: Request,
) -> Result<(Arc<TestControls>, Bytes), Response> {
    let Some(controls) = shared.controls.clone() else {
        return Err(refuse(StatusCode::NOT_FOUND, "test controls are off"));
    };
    let (parts, body) = request.into_parts();
    // A page in a browser may send requests here (the DynamoDB API answers CORS for any
    // origin); none may reset or fault a server.
    if parts.headers.contains_key(axum::http::header::ORIGIN) {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            "the test controls do not take requests from a browser page (the request has an Origin header)",
        ));
    }
    let body = axum::body::to_bytes(body, 1 << 20).await.map_err(|_| {
        refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            "a control's body is at most 1 MiB",
        )
    })?;
    if let Some(auth) = &shared.auth {
        let verified = crate::protocol::authenticate(auth, &parts, &body, false).map_err(|e| {
            refuse(
                StatusCode::FORBIDDEN,
                e.message.as_deref().unwrap_or("not signed"),
            )
        })?;
        if let Some(policies) = &verified.principal.policies {
            let ctx = kura_api::authz::global_keys(&verified.principal, None);
            let decision = kura_auth::evaluate(policies, "kura:Admin", "*", &ctx);
            if decision != kura_auth::Decision::Allow {
                return Err(refuse(
                    StatusCode::FORBIDDEN,
                    &format!(
                        "{} is not allowed kura:Admin (the test controls)",
                        verified.principal.arn()
                    ),
                ));
            }
        }
    }
    Ok((controls, body))
}

/// Runs a blocking control off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Response> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()))
}

/// Runs a blocking control and answers with what it returned.
async fn answer_blocking<T: serde::Serialize + Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Response {
    match blocking(f).await {
        Ok(result) => answer(result),
        Err(e) => e,
    }
}

fn answer<T: serde::Serialize>(result: Result<T, String>) -> Response {
    match result {
        Ok(value) => json(
            StatusCode::OK,
            &serde_json::to_value(value).unwrap_or_default(),
        ),
        Err(message) => refuse(StatusCode::CONFLICT, &message),
    }
}

macro_rules! admit {
    ($shared:expr, $request:expr) => {
        match admitted(&$shared, $request).await {
            Ok(found) => found,
            Err(refused) => return refused,
        }
    };
}

pub(crate) async fn status(State(shared): State<Shared>, request: Request) -> Response {
    let (controls, _) = admit!(shared, request);
    let engine = controls.engine();
    json(
        StatusCode::OK,
        &serde_json::json!({
            "clock": clock_json(&controls),
            "snapshots": controls.snapshots(),
            "faults": controls.faults.list(),
            "enforce_capacity": engine.capacity().enforced(),
        }),
    )
}

fn clock_json(controls: &TestControls) -> serde_json::Value {
    serde_json::json!({
        "mode": if controls.manual_clock().is_some() { "manual" } else { "system" },
        "now_ms": controls.engine().now_ms(),
    })
}

pub(crate) async fn reset(State(shared): State<Shared>, request: Request) -> Response {
    let (controls, _) = admit!(shared, request);
    if let Some(refused) = triggers_running(&shared) {
        return refused;
    }
    answer_blocking(move || controls.reset()).await
}

/// Restore and reset replace the engine that triggers read from: refused while any runs.
fn triggers_running(shared: &Shared) -> Option<Response> {
    let names = shared
        .triggers
        .as_ref()
        .map(|t| t.names())
        .unwrap_or_default();
    (!names.is_empty()).then(|| {
        refuse(
            StatusCode::CONFLICT,
            &format!(
                "stream triggers are running ({}): restore and reset would leave them reading a stopped engine",
                names.join(", ")
            ),
        )
    })
}

pub(crate) async fn list_snapshots(State(shared): State<Shared>, request: Request) -> Response {
    let (controls, _) = admit!(shared, request);
    json(
        StatusCode::OK,
        &serde_json::json!({ "snapshots": controls.snapshots() }),
    )
}

pub(crate) async fn take_snapshot(
    State(shared): State<Shared>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    let (controls, _) = admit!(shared, request);
    answer_blocking(move || controls.snapshot(&name)).await
}

pub(crate) async fn restore_snapshot(
    State(shared): State<Shared>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    let (controls, _) = admit!(shared, request);
    if let Some(refused) = triggers_running(&shared) {
        return refused;
    }
    match blocking(move || controls.restore(&name)).await {
        Ok(Err(message)) if message.starts_with("no snapshot") => {
            refuse(StatusCode::NOT_FOUND, &message)
        }
        Ok(result) => answer(result),
        Err(e) => e,
    }
}

pub(crate) async fn delete_snapshot(
    State(shared): State<Shared>,
    Path(name): Path<String>,
    request: Request,
) -> Response {
    let (controls, _) = admit!(shared, request);
    if controls.drop_snapshot(&name) {
        json(StatusCode::OK, &serde_json::json!({ "deleted": name }))
    } else {
        refuse(
            StatusCode::NOT_FOUND,
            &format!("no snapshot is named {name}"),
        )
    }
}

pub(crate) async fn get_clock(State(shared): State<Shared>, request: Request) -> Response {
    let (controls, _) = admit!(shared, request);
    json(StatusCode::OK, &clock_json(&controls))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Advance {
    advance_seconds: Option<f64>,
    advance_ms: Option<i64>,
}

pub(crate) async fn move_clock(State(shared): State<Shared>, request: Request) -> Response {
    let (controls, body) = admit!(shared, request);
    let advance: Advance = match serde_json::from_slice(&body) {
        Ok(a) => a,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, &format!("not a clock move: {e}")),
    };
    let millis = match (advance.advance_seconds, advance.advance_ms) {
        (Some(s), None) if s.is_finite() && (0.0..=1e14).contains(&s) => {
            (s * 1000.0).round() as i64
        }
        (None, Some(ms)) => ms,
        _ => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "give one of advance_seconds (0 to 1e14) or advance_ms",
            );
        }
    };
    let moved = blocking({
        let controls = controls.clone();
        move || controls.advance(millis)
    })
    .await;
    match moved {
        Ok(Ok(_)) => json(StatusCode::OK, &clock_json(&controls)),
        Ok(Err(message)) => refuse(StatusCode::CONFLICT, &message),
        Err(e) => e,
    }
}

pub(crate) async fn list_faults(State(shared): State<Shared>, request: Request) -> Response {
    let (controls, _) = admit!(shared, request);
    json(
        StatusCode::OK,
        &serde_json::json!({ "faults": controls.faults.list() }),
    )
}

pub(crate) async fn add_fault(State(shared): State<Shared>, request: Request) -> Response {
    let (controls, body) = admit!(shared, request);
    let spec: FaultSpec = match serde_json::from_slice(&body) {
        Ok(spec) => spec,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, &format!("not a fault: {e}")),
    };
    match controls.faults.add(spec) {
        Ok(rule) => json(
            StatusCode::OK,
            &serde_json::to_value(rule).unwrap_or_default(),
        ),
        Err(message) => refuse(StatusCode::BAD_REQUEST, &message),
    }
}

pub(crate) async fn clear_faults(State(shared): State<Shared>, request: Request) -> Response {
    let (controls, _) = admit!(shared, request);
    let cleared = controls.faults.clear(None);
    json(StatusCode::OK, &serde_json::json!({ "cleared": cleared }))
}

pub(crate) async fn clear_fault(
    State(shared): State<Shared>,
    Path(id): Path<u64>,
    request: Request,
) -> Response {
    let (controls, _) = admit!(shared, request);
    match controls.faults.clear(Some(id)) {
        0 => refuse(StatusCode::NOT_FOUND, &format!("no fault rule {id}")),
        cleared => json(StatusCode::OK, &serde_json::json!({ "cleared": cleared })),
    }
}

/// The answer when regions are not kept apart.
fn shared_regions() -> Response {
    refuse(
        StatusCode::NOT_FOUND,
        "every region shares one namespace: start Kura with --regions separate",
    )
}

/// `GET /kura/admin/regions`: the regions, their outages, the replication backlog (the
/// changes an isolated region's loss would lose) and latency.
pub(crate) async fn regions_status(State(shared): State<Shared>, request: Request) -> Response {
    let _ = admit!(shared, request);
    let Some(regions) = shared.regions.clone() else {
        return shared_regions();
    };
    answer_blocking(move || {
        let backlog = regions.backlog().map_err(|e| e.to_string())?;
        Ok(serde_json::json!({
            "home": regions.home(),
            "regions": regions.open_regions(),
            "outages": regions.outages(),
            "backlog": backlog,
            "latency": regions.lag().iter().map(|l| serde_json::json!({
                "table": l.table, "from": l.from, "to": l.to, "latency_ms": l.latency_ms,
            })).collect::<Vec<_>>(),
        }))
    })
    .await
}

/// `POST /kura/admin/regions/{region}/isolate` and `.../heal`.
pub(crate) async fn region_action(
    State(shared): State<Shared>,
    Path((region, action)): Path<(String, String)>,
    request: Request,
) -> Response {
    let _ = admit!(shared, request);
    let Some(regions) = shared.regions.clone() else {
        return shared_regions();
    };
    let outage = match action.as_str() {
        "isolate" => regions.isolate(&region).map(Some),
        // An MRSC replica catches up before it serves again: that is async work.
        "heal" => regions.heal(&region).await,
        other => return answer::<()>(Err(format!("no region action {other}: isolate or heal"))),
    };
    answer_blocking(move || {
        let outage = outage.map_err(|e| e.to_string())?;
        let backlog = regions.backlog().map_err(|e| e.to_string())?;
        Ok(serde_json::json!({ "outage": outage, "backlog": backlog }))
    })
    .await
}
