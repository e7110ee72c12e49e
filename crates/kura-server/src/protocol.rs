//! The DynamoDB JSON 1.0 protocol: `POST /` with `X-Amz-Target: DynamoDB_20120810.<Op>`,
//! a JSON body, and a response carrying `x-amzn-RequestId` and `x-amz-crc32` (botocore
//! verifies the CRC).

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use kura_auth::{Authenticator, HttpRequest, Verified};
use kura_engine::RequestContext;

use tracing::Instrument;

use crate::Shared;
use crate::body;
use crate::error::ApiError;
use crate::ops::{self, Call};

const DYNAMODB_PREFIX: &str = "DynamoDB_20120810.";
const STREAMS_PREFIX: &str = "DynamoDBStreams_20120810.";

/// The API an `X-Amz-Target` addresses, and the operation in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target<'a> {
    DynamoDb(&'a str),
    Streams(&'a str),
}
const CONTENT_TYPE: &str = "application/x-amz-json-1.0";

pub(crate) async fn handle(State(shared): State<Shared>, request: Request) -> Response {
    let request_id = uuid::Uuid::new_v4().simple().to_string().to_uppercase();
    let source_ip = request
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip());
    // Timed only when recorded: a clock read is a fifth of what recording costs.
    let started = shared.metrics.enabled().then(std::time::Instant::now);
    let observation = crate::metrics::Observation::default();
    // One engine for the whole request, even if a test control swaps it meanwhile.
    let engine = shared.engine();
    let (parts, body) = request.into_parts();
    let read = body::read(&parts.headers, body).await;
    // What the audit record needs from inside the dispatch: the decoded body and who.
    let mut audited: Option<(bytes::Bytes, Option<Verified>)> = None;
    let result = match read {
        Err(error) => Err(error),
        Ok((raw, body)) => {
            let operation = target_operation(&parts.headers);
            // The signature covers the body as sent, before any Content-Encoding is undone.
            let verified = match (&operation, &shared.auth) {
                (Some(_), Some(auth)) => authenticate(auth, &parts, &raw).map(Some),
                _ => Ok(None),
            };
            // A body that is JSON but no object is refused once the signer is known.
            let verified = verified.and_then(|v| body::require_object(&body).map(|()| v));
            match (operation, verified) {
                (None, _) => Err(ApiError::unknown_operation()),
                (Some(_), Err(error)) => Err(error),
                (Some(target), Ok(verified)) => {
                    if shared.audit.is_some() {
                        audited = Some((body.clone(), verified.clone()));
                    }
                    let (region, principal) = match verified {
                        Some(v) => (v.region, Some(v.principal)),
                        None => (signing_region(&parts.headers), None),
                    };
                    // Faults reach only operations Kura serves, after authentication.
                    let served = match target {
                        Target::DynamoDb(op) | Target::Streams(op) => {
                            ops::operation_index(op).is_some()
                        }
                    };
                    let injected = match &shared.controls {
                        Some(controls) if served && controls.faults.armed() => {
                            inject(controls, &engine, &target, &body, &observation).await
                        }
                        _ => None,
                    };
                    let call = Call {
                        engine: &engine,
                        ctx: RequestContext { region },
                        host: header_str(&parts.headers, header::HOST.as_str())
                            .unwrap_or("localhost:8000")
                            .to_owned(),
                        body,
                        principal,
                        source_ip,
                        observation: &observation,
                    };
                    match (injected, target) {
                        (Some(error), _) => Err(error),
                        (None, Target::DynamoDb(op)) => {
                            let span = tracing::debug_span!("request", op, id = %request_id);
                            ops::dispatch(op, call).instrument(span).await
                        }
                        (None, Target::Streams(op)) => {
                            let span = tracing::debug_span!("streams", op, id = %request_id);
                            ops::dispatch_streams(op, call).instrument(span).await
                        }
                    }
                }
            }
        }
    };
    let result = match &shared.audit {
        Some(log) => audit(log, &engine, &parts, audited, &request_id, result),
        None => result,
    };
    if let Some(started) = started
        && let Some(target) = target_operation(&parts.headers)
    {
        let operation = match target {
            Target::DynamoDb(op) | Target::Streams(op) => op,
        };
        let error = result.as_ref().err();
        shared
            .metrics
            .record(operation, &observation, started.elapsed(), error);
    }
    match result {
        Ok(body) => respond(StatusCode::OK, body, &request_id),
        Err(error) => {
            tracing::debug!(error = error.name(), message = ?error.message, "request failed");
            respond(error.status, error.body(), &request_id)
        }
    }
}

/// Applies a fault injection rule that matches the request: waits its latency, then
/// answers its error (None: the request runs).
async fn inject(
    controls: &crate::controls::TestControls,
    engine: &kura_engine::Engine,
    target: &Target<'_>,
    body: &[u8],
    observation: &crate::metrics::Observation,
) -> Option<ApiError> {
    let operation = match target {
        Target::DynamoDb(op) | Target::Streams(op) => op,
    };
    let request = crate::controls::faults::describe(operation, body, |table| {
        engine.partition_key_names(table, None)?.into_iter().next()
    });
    let injection = controls.faults.decide(&request)?;
    if !injection.latency.is_zero() {
        tokio::time::sleep(injection.latency).await;
    }
    if injection.error.is_some() {
        for table in &request.tables {
            observation.table(table);
        }
    }
    injection.error
}

/// Records the request when the audit log takes it; the response waits for the line. A
/// line that cannot be written fails the request (InternalServerError).
fn audit(
    log: &crate::audit::AuditLog,
    engine: &kura_engine::Engine,
    parts: &axum::http::request::Parts,
    audited: Option<(bytes::Bytes, Option<Verified>)>,
    request_id: &str,
    result: Result<Vec<u8>, ApiError>,
) -> Result<Vec<u8>, ApiError> {
    let Some(target) = target_operation(&parts.headers) else {
        return result;
    };
    let (operation, streams) = match target {
        Target::DynamoDb(op) => (op, false),
        Target::Streams(op) => (op, true),
    };
    let (body, verified) = audited.unwrap_or_default();
    let region = verified
        .as_ref()
        .map_or_else(|| signing_region(&parts.headers), |v| v.region.clone());
    let event = crate::audit::Event {
        operation,
        streams,
        region: &region,
        source_ip: parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map_or_else(|| "127.0.0.1".to_owned(), |c| c.0.ip().to_string()),
        user_agent: header_str(&parts.headers, header::USER_AGENT.as_str()),
        identity: crate::audit::Identity {
            principal: verified.as_ref().map(|v| &v.principal),
            access_key_id: verified.as_ref().map(|v| v.access_key_id.as_str()),
        },
        body: &body,
        request_id,
        error: result
            .as_ref()
            .err()
            .map(|e| (e.name(), e.message.as_deref())),
        engine: Some(engine),
    };
    log.record(&event).and(result)
}

fn respond(status: StatusCode, body: Vec<u8>, request_id: &str) -> Response {
    let crc = crc32fast::hash(&body);
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
    if let Ok(id) = HeaderValue::from_str(request_id) {
        headers.insert("x-amzn-requestid", id);
    }
    headers.insert("x-amz-crc32", HeaderValue::from(crc));
    response
}

/// Who signed the request: SigV4 over the method, path, query, headers and body, for the
/// DynamoDB and the Streams targets alike. Headers that are not UTF-8 are left out (a
/// signature over them fails).
pub(crate) fn authenticate(
    auth: &Authenticator,
    parts: &axum::http::request::Parts,
    body: &[u8],
) -> Result<Verified, ApiError> {
    let request = HttpRequest {
        method: parts.method.as_str(),
        path: parts.uri.path(),
        query: parts.uri.query().unwrap_or(""),
        headers: parts
            .headers
            .iter()
            .filter_map(|(n, v)| Some((n.as_str(), v.to_str().ok()?)))
            .collect(),
        body,
    };
    let verified = auth.verify(&request)?;
    tracing::debug!(principal = %verified.principal.arn(), "authenticated");
    Ok(verified)
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The operation named by `X-Amz-Target`, if it addresses DynamoDB or DynamoDB Streams
/// (both share the port, as DynamoDB Local does).
fn target_operation(headers: &HeaderMap) -> Option<Target<'_>> {
    let target = header_str(headers, "x-amz-target")?;
    if let Some(op) = target.strip_prefix(DYNAMODB_PREFIX) {
        return Some(Target::DynamoDb(op));
    }
    target.strip_prefix(STREAMS_PREFIX).map(Target::Streams)
}

/// The region from a SigV4 `Authorization` header's credential scope
/// (`Credential=AKID/20260101/eu-west-1/dynamodb/aws4_request`); `us-east-1` without one.
/// Used when Kura runs without `--auth` (with it, the verified scope's region is used);
/// either way any key and region share one namespace.
fn signing_region(headers: &HeaderMap) -> String {
    header_str(headers, header::AUTHORIZATION.as_str())
        .and_then(|auth| auth.split("Credential=").nth(1))
        .and_then(|cred| cred.split('/').nth(2))
        .filter(|r| {
            !r.is_empty()
                && r.len() < 64
                && r.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
        .unwrap_or("us-east-1")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_comes_from_the_credential_scope() {
        let mut h = HeaderMap::new();
        assert_eq!(signing_region(&h), "us-east-1");
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static(
                "AWS4-HMAC-SHA256 Credential=AKID/20260101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc",
            ),
        );
        assert_eq!(signing_region(&h), "eu-west-1");
    }

    #[test]
    fn target_needs_the_dynamodb_prefix() {
        let mut h = HeaderMap::new();
        h.insert(
            "x-amz-target",
            HeaderValue::from_static("DynamoDB_20120810.PutItem"),
        );
        assert_eq!(target_operation(&h), Some(Target::DynamoDb("PutItem")));
        h.insert("x-amz-target", HeaderValue::from_static("Other.PutItem"));
        assert_eq!(target_operation(&h), None);
    }
}
