//! The DynamoDB JSON 1.0 protocol: `POST /` with `X-Amz-Target: DynamoDB_20120810.<Op>`,
//! a JSON body, and a response carrying `x-amzn-RequestId` and `x-amz-crc32` (botocore
//! verifies the CRC).

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use kura_auth::{Authenticator, HttpRequest, Verified};

use crate::Shared;
use crate::{body, body_limits};
use kura_api::error::ApiError;
use kura_api::operation::Api;
use kura_api::pipeline::{self, Origin};

const DYNAMODB_PREFIX: &str = "DynamoDB_20120810.";
const STREAMS_PREFIX: &str = "DynamoDBStreams_20120810.";
const KINESIS_PREFIX: &str = "Kinesis_20131202.";

/// The API an `X-Amz-Target` addresses, and the operation in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target<'a> {
    DynamoDb(&'a str),
    Streams(&'a str),
    Kinesis(&'a str),
}
const CONTENT_TYPE: &str = "application/x-amz-json-1.0";
/// Kinesis speaks JSON 1.1.
const KINESIS_CONTENT_TYPE: &str = "application/x-amz-json-1.1";

/// `POST /`: the HTTP edge. It reads the body, finds the target, admits the request
/// (`crate::admission`), undoes any Content-Encoding, verifies the signature and hands the
/// request to the one pipeline ([`crate::pipeline`]); what it refuses itself is recorded
/// there too.
pub(crate) async fn handle(State(shared): State<Shared>, request: Request) -> Response {
    let request_id = pipeline::request_id();
    let received = shared.pipeline.timing();
    let (parts, body) = request.into_parts();
    let held = parts.extensions.get::<body_limits::HeldBytes>();
    let read = body::read(&parts.headers, body, held).await;
    let target = target_operation(&parts.headers);
    let kinesis = matches!(target, Some(Target::Kinesis(_)));
    // Kinesis in CBOR (the Java SDKs' default): read as JSON, answered in CBOR.
    let cbor = kinesis
        && header_str(&parts.headers, header::CONTENT_TYPE.as_str())
            .is_some_and(|t| t.trim().eq_ignore_ascii_case(crate::cbor::CONTENT_TYPE));
    let result = match target {
        None => read.and(Err(ApiError::unknown_operation())),
        Some(target) => {
            let (api, operation) = match target {
                Target::DynamoDb(op) => (Api::DynamoDb, op),
                Target::Streams(op) => (Api::Streams, op),
                Target::Kinesis(op) => (Api::Kinesis, op),
            };
            let mut request = pipeline::Request {
                api,
                operation,
                body: bytes::Bytes::new(),
                verified: None,
                region: String::new(),
                source_ip: parts
                    .extensions
                    .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                    .map(|info| info.0.ip()),
                host: header_str(&parts.headers, header::HOST.as_str()).unwrap_or("localhost:8000"),
                user_agent: header_str(&parts.headers, header::USER_AGENT.as_str()),
                request_id: &request_id,
                origin: Origin::Api,
                received,
            };
            // Admitted, or refused with a 503, once its body is in and before any work on
            // it (decoding included); the place is held until the answer is ready.
            let (_place, read) = match read {
                Ok(raw) => match shared.admission.enter().await {
                    Ok(place) => {
                        let decoded = body::decode(&parts.headers, raw.clone(), held);
                        (Some(place), decoded.map(|body| (raw, body)))
                    }
                    Err(refused) => (None, Err(refused)),
                },
                Err(error) => (None, Err(error)),
            };
            // One engine for the whole request, even if a test control swaps it meanwhile;
            // taken once admitted, so a request that waited runs on the engine served now.
            // Its region is the credential scope's, which a verified signature also has.
            let region = signing_region(&parts.headers);
            let (engine, read) = match shared.engine_for(&region) {
                Ok(engine) => (engine, read),
                Err(refused) => (shared.engine(), read.and(Err(refused))),
            };
            // The signature covers the body as sent, before any Content-Encoding is undone;
            // a body that is JSON but no object is refused once the signer is known.
            let verified = read.and_then(|(raw, body)| {
                let verified = match &shared.auth {
                    Some(auth) => Some(authenticate(auth, &parts, &raw, kinesis)?),
                    None => None,
                };
                let body = if cbor {
                    bytes::Bytes::from(
                        crate::cbor::request_to_json(&body).map_err(ApiError::serialization)?,
                    )
                } else {
                    body
                };
                kura_api::call::require_object(&body)?;
                Ok((body, verified))
            });
            match verified {
                Err(error) => {
                    request.region = region;
                    shared.pipeline.record(&engine, &request, Err(error))
                }
                Ok((body, verified)) => {
                    request.region = match &verified {
                        Some(v) => v.region.clone(),
                        None => region,
                    };
                    request.body = body;
                    request.verified = verified;
                    shared.pipeline.run(&engine, request).await
                }
            }
        }
    };
    answer(result, &request_id, kinesis, cbor)
}

/// The HTTP answer to a request's result: in CBOR when it came in CBOR, with Kinesis's
/// content type and error names for a Kinesis operation.
fn answer(
    result: Result<Vec<u8>, ApiError>,
    request_id: &str,
    kinesis: bool,
    cbor: bool,
) -> Response {
    let content_type = if cbor {
        crate::cbor::CONTENT_TYPE
    } else if kinesis {
        KINESIS_CONTENT_TYPE
    } else {
        CONTENT_TYPE
    };
    let encode = |body: Vec<u8>| {
        if cbor {
            crate::cbor::response_to_cbor(&body)
        } else {
            body
        }
    };
    match result {
        Ok(body) => respond(StatusCode::OK, encode(body), request_id, content_type),
        Err(mut error) => {
            tracing::debug!(error = error.name(), message = ?error.message, "request failed");
            // Kinesis names its errors without the coral namespace.
            if kinesis {
                error.type_name = error.name().to_owned();
            }
            respond(error.status, encode(error.body()), request_id, content_type)
        }
    }
}

fn respond(
    status: StatusCode,
    body: Vec<u8>,
    request_id: &str,
    content_type: &'static str,
) -> Response {
    let crc = crc32fast::hash(&body);
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(id) = HeaderValue::from_str(request_id) {
        headers.insert("x-amzn-requestid", id);
    }
    headers.insert("x-amz-crc32", HeaderValue::from(crc));
    response
}

/// Who signed the request: SigV4 over the method, path, query, headers and body, for the
/// DynamoDB and the Streams targets alike (service `dynamodb`), and Kinesis's (service
/// `kinesis`). Headers that are not UTF-8 are left out (a signature over them fails).
pub(crate) fn authenticate(
    auth: &Authenticator,
    parts: &axum::http::request::Parts,
    body: &[u8],
    kinesis: bool,
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
    let verified = if kinesis {
        auth.verify_for_service(&request, "kinesis")?
    } else {
        auth.verify(&request)?
    };
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
    if let Some(op) = target.strip_prefix(KINESIS_PREFIX) {
        return Some(Target::Kinesis(op));
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
