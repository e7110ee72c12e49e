//! The DynamoDB endpoint the tools ask: its JSON protocol over HTTP(S), every request
//! signed with SigV4 (so Kura's `--auth` policies, DynamoDB Local and AWS all apply).

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kura_auth::sign::{SigningKey, Unsigned, sign};
use serde_json::Value;

use crate::McpError;

/// The most bytes of an answer read back: more than DynamoDB's largest response (a 16 MB
/// BatchGetItem), so only a server that is not DynamoDB's reaches it.
const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;

/// One DynamoDB endpoint with the key and region its requests are signed for.
#[derive(Clone)]
pub struct Endpoint {
    url: String,
    uri: hyper::Uri,
    host: String,
    key: SigningKey,
    region: String,
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
}

impl Endpoint {
    /// `url` is `http(s)://host[:port]`.
    pub fn new(url: &str, key: SigningKey, region: &str) -> Result<Endpoint, McpError> {
        let url = url.trim_end_matches('/').to_owned();
        let uri: hyper::Uri = format!("{url}/")
            .parse()
            .map_err(|e| McpError::Unreachable {
                endpoint: url.clone(),
                message: format!("not a URL: {e}"),
            })?;
        let host = uri
            .authority()
            .map(|a| a.as_str().to_owned())
            .ok_or_else(|| McpError::Unreachable {
                endpoint: url.clone(),
                message: "the URL names no host".to_owned(),
            })?;
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .build();
        Ok(Endpoint {
            url,
            uri,
            host,
            key,
            region: region.to_owned(),
            client: Client::builder(TokioExecutor::new()).build(connector),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Calls one DynamoDB operation (`ListTables`, `Query`, ...): the answer's JSON, or
    /// DynamoDB's refusal as [`McpError::Refused`].
    pub async fn call(&self, operation: &str, body: &Value) -> Result<Value, McpError> {
        let body = body.to_string();
        let target = format!("DynamoDB_20120810.{operation}");
        let headers = [
            ("content-type", "application/x-amz-json-1.0"),
            ("x-amz-target", target.as_str()),
        ];
        let unsigned = Unsigned {
            method: "POST",
            host: &self.host,
            path: "/",
            query: "",
            headers: &headers,
            body: body.as_bytes(),
        };
        let signed = sign(
            &unsigned,
            &self.key,
            &self.region,
            "dynamodb",
            time::OffsetDateTime::now_utc(),
        );
        let mut request = hyper::Request::post(self.uri.clone()).header("host", &self.host);
        for (name, value) in headers.iter().copied() {
            request = request.header(name, value);
        }
        for (name, value) in &signed {
            request = request.header(*name, value.as_str());
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| self.unreachable(e.to_string()))?;
        let (status, bytes) = self.send(request).await?;
        let answer: Value = serde_json::from_slice(&bytes).map_err(|_| {
            self.unreachable(format!(
                "answered {status} with a body that is not JSON: {}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
            ))
        })?;
        if status.is_success() {
            return Ok(answer);
        }
        let type_name = answer["__type"].as_str().unwrap_or("");
        let type_name = type_name.rsplit('#').next().unwrap_or(type_name);
        let message = answer["message"]
            .as_str()
            .or(answer["Message"].as_str())
            .unwrap_or("");
        Err(McpError::Refused {
            type_name: if type_name.is_empty() {
                format!("HTTP {status}")
            } else {
                type_name.to_owned()
            },
            message: message.to_owned(),
        })
    }

    /// GETs one of a Kura server's own `/kura/` endpoints (unsigned, as they are).
    pub async fn get_kura(&self, path: &str) -> Result<Value, McpError> {
        let uri: hyper::Uri = format!("{}{path}", self.url)
            .parse()
            .map_err(|e: hyper::http::uri::InvalidUri| self.unreachable(e.to_string()))?;
        let request = hyper::Request::get(uri)
            .body(Full::new(Bytes::new()))
            .map_err(|e| self.unreachable(e.to_string()))?;
        let (status, bytes) = self.send(request).await?;
        let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if status.is_success() {
            return Ok(answer);
        }
        Err(McpError::Refused {
            type_name: format!("HTTP {status}"),
            message: answer["message"].as_str().unwrap_or("").to_owned(),
        })
    }

    async fn send(
        &self,
        request: hyper::Request<Full<Bytes>>,
    ) -> Result<(hyper::StatusCode, Bytes), McpError> {
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| self.unreachable(format!("cannot reach it: {e}")))?;
        let status = response.status();
        let body = http_body_util::Limited::new(response.into_body(), MAX_ANSWER_BYTES)
            .collect()
            .await
            .map_err(|e| self.unreachable(format!("the answer broke off: {e}")))?
            .to_bytes();
        Ok((status, body))
    }

    fn unreachable(&self, message: String) -> McpError {
        McpError::Unreachable {
            endpoint: self.url.clone(),
            message,
        }
    }
}
