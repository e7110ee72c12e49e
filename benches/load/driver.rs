//! How requests reach a target: DynamoDB's JSON protocol over HTTP (any endpoint), or the
//! engine called in process with the same JSON bodies and no HTTP.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;

use crate::workload::Request;

/// Every local peer wants an Authorization header with a credential scope (DynamoDB Local
/// refuses requests without one); none of them checks the signature.
const AUTHORIZATION: &str = "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000000000000000000000000000000000000000000000000000000000000000";

/// What came back: success, or the error's short `__type` (`ValidationException`,
/// `http 500`, `io`).
pub struct Outcome {
    pub error: Option<String>,
    pub body: Bytes,
}

// One per client task, built once; the hyper client's size depends on the features other
// crates of the same build turn on (testcontainers' Docker client adds HTTP/2).
#[allow(clippy::large_enum_variant)]
pub enum Driver {
    Http {
        client: Client<HttpConnector, Full<Bytes>>,
        uri: http::Uri,
    },
    Embedded(Arc<kura_engine::Engine>),
}

impl Driver {
    pub fn http(endpoint: &str) -> Result<Self, String> {
        let uri: http::Uri = endpoint
            .parse()
            .map_err(|e| format!("bad endpoint {endpoint}: {e}"))?;
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(1024)
            .build(connector);
        Ok(Driver::Http { client, uri })
    }

    pub async fn call(&self, request: &Request) -> Outcome {
        match self {
            Driver::Http { client, uri } => {
                let built = http::Request::post(uri.clone())
                    .header("content-type", "application/x-amz-json-1.0")
                    .header(
                        "x-amz-target",
                        format!("DynamoDB_20120810.{}", request.operation),
                    )
                    .header("x-amz-date", "20260101T000000Z")
                    .header("authorization", AUTHORIZATION)
                    .body(Full::new(request.body.clone()));
                let built = match built {
                    Ok(b) => b,
                    Err(e) => return failed(format!("request: {e}")),
                };
                let response = match client.request(built).await {
                    Ok(r) => r,
                    Err(_) => return failed("io".into()),
                };
                let status = response.status();
                let body = match response.into_body().collect().await {
                    Ok(b) => b.to_bytes(),
                    Err(_) => return failed("io".into()),
                };
                if status.is_success() {
                    Outcome { error: None, body }
                } else {
                    Outcome {
                        error: Some(error_type(&body).unwrap_or_else(|| format!("http {status}"))),
                        body,
                    }
                }
            }
            Driver::Embedded(engine) => {
                match kura_api::invoke(engine, request.operation, request.body.clone()).await {
                    Ok(body) => Outcome {
                        error: None,
                        body: Bytes::from(body),
                    },
                    Err(e) => Outcome {
                        error: Some(e.name().to_owned()),
                        body: Bytes::new(),
                    },
                }
            }
        }
    }

    /// POSTs an empty body to `path` of an HTTP target (Kura's test controls) and insists
    /// on a 2xx answer.
    pub async fn admin(&self, path: &str) -> Result<(), String> {
        let Driver::Http { client, uri } = self else {
            return Err("the embedded engine has no test controls".into());
        };
        let target = format!("{}{}", uri.to_string().trim_end_matches('/'), path);
        let built = http::Request::post(target)
            .body(Full::new(Bytes::new()))
            .map_err(|e| e.to_string())?;
        let response = client.request(built).await.map_err(|e| e.to_string())?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        if status.is_success() {
            Ok(())
        } else {
            Err(format!(
                "{path}: {status}: {}",
                String::from_utf8_lossy(&body)
            ))
        }
    }

    /// Calls and insists on success (set-up requests).
    pub async fn must(&self, request: &Request) -> Result<Bytes, String> {
        let out = self.call(request).await;
        match out.error {
            None => Ok(out.body),
            Some(e) => Err(format!(
                "{} failed: {e}: {}",
                request.operation,
                String::from_utf8_lossy(&out.body)
            )),
        }
    }
}

fn failed(error: String) -> Outcome {
    Outcome {
        error: Some(error),
        body: Bytes::new(),
    }
}

/// The part of `__type` after `#`: `com.amazonaws.dynamodb.v20120810#X` → `X`.
fn error_type(body: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct ErrorBody {
        #[serde(rename = "__type")]
        kind: String,
    }
    let parsed: ErrorBody = serde_json::from_slice(body).ok()?;
    Some(
        parsed
            .kind
            .rsplit('#')
            .next()
            .unwrap_or(&parsed.kind)
            .to_owned(),
    )
}

/// The loopback baseline: an HTTP server on the stack Kura uses (hyper via axum, two
/// worker threads) that reads each request whole and answers with a canned response of the
/// size Kura's would have: an item for GetItem, a page of 25 items for Query and Scan,
/// `{}` for writes. It does no database work, so it is the machine's HTTP limit for these
/// exchanges.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

pub async fn serve_echo(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    use axum::extract::State;
    use axum::http::HeaderMap;
    use axum::routing::post;

    struct Canned {
        item: Bytes,
        page: Bytes,
        large_page: Bytes,
        batch: Bytes,
    }
    async fn answer(
        State(canned): State<Arc<Canned>>,
        headers: HeaderMap,
        body: Bytes,
    ) -> ([(&'static str, &'static str); 1], Bytes) {
        let target = headers
            .get("x-amz-target")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let operation = target.rsplit('.').next().unwrap_or_default();
        let body = match operation {
            "GetItem" => canned.item.clone(),
            // The large Scan page: the one request that asks for 100 items.
            "Scan" if contains(&body, b"\"Limit\":100") => canned.large_page.clone(),
            "Query" | "Scan" => canned.page.clone(),
            "BatchWriteItem" => canned.batch.clone(),
            _ => Bytes::from_static(b"{}"),
        };
        ([("content-type", "application/x-amz-json-1.0")], body)
    }
    let mut rng = fastrand::Rng::with_seed(3);
    let item = crate::workload::item("part#0000001", "item#0001", &mut rng);
    let mut page = |n: usize| {
        let items: Vec<serde_json::Value> = (0..n)
            .map(|i| crate::workload::item("part#0000001", &format!("item#{i:04}"), &mut rng))
            .collect();
        Bytes::from(
            serde_json::json!({
                "Items": items, "Count": n, "ScannedCount": n,
                "LastEvaluatedKey": {"pk": {"S": "part#0000001"}, "sk": {"S": format!("item#{:04}", n - 1)}},
            })
            .to_string(),
        )
    };
    let canned = Arc::new(Canned {
        page: page(crate::workload::PAGE),
        large_page: page(crate::workload::LARGE_PAGE),
        item: Bytes::from(serde_json::json!({ "Item": item }).to_string()),
        batch: Bytes::from_static(b"{\"UnprocessedItems\":{}}"),
    });
    let app = axum::Router::new()
        .route("/", post(answer))
        .with_state(canned);
    axum::serve(listener, app).await
}
