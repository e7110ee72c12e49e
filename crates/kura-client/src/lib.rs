//! Kura's own DynamoDB client: the JSON protocol over HTTP(S) with hyper, every request
//! signed with SigV4 (so Kura's `--auth` policies, DynamoDB Local and AWS all apply), and
//! no AWS SDK — what `kura mcp` and the admin commands (`kura backup`, `restore`,
//! `export`, `import`) of the README's build talk through. Requests and answers are
//! DynamoDB's JSON as `serde_json::Value`; a refusal is DynamoDB's error type and message.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kura_auth::sign::{Unsigned, sign};
use serde_json::Value;

pub use kura_auth::sign::SigningKey;

/// Why a call got no answer from DynamoDB.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The request never reached the endpoint (refused, reset, a name that does not
    /// resolve).
    #[error("cannot connect to {endpoint} ({cause}): is `kura serve` running there?")]
    Unreachable { endpoint: String, cause: String },
    /// The endpoint answered, but not as DynamoDB does.
    #[error("{endpoint} answered, but not as DynamoDB does ({detail}): is it a DynamoDB endpoint?")]
    NotDynamoDb { endpoint: String, detail: String },
    /// DynamoDB's own refusal, with its error type and message word for word.
    #[error("{type_name}: {message}")]
    Refused { type_name: String, message: String },
    /// A URL that names no endpoint.
    #[error("{endpoint}: {detail}")]
    BadEndpoint { endpoint: String, detail: String },
}

/// The innermost error of a chain ("Connection refused (os error 111)"): the wrappers
/// around it name the library's layers, not what the user can change.
pub fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut innermost = error;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    innermost.to_string()
}

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
    pub fn new(url: &str, key: SigningKey, region: &str) -> Result<Endpoint, ClientError> {
        let url = url.trim_end_matches('/').to_owned();
        let bad = |detail: String| ClientError::BadEndpoint {
            endpoint: url.clone(),
            detail,
        };
        let uri: hyper::Uri = format!("{url}/")
            .parse()
            .map_err(|e| bad(format!("not a URL: {e}")))?;
        let host = uri
            .authority()
            .map(|a| a.as_str().to_owned())
            .ok_or_else(|| bad("the URL names no host".to_owned()))?;
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

    /// An endpoint signed as the AWS SDKs sign by default: the key in `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` (placeholders when unset, which an
    /// open `kura serve` accepts), for `AWS_REGION` or `AWS_DEFAULT_REGION` (else
    /// us-east-1).
    pub fn from_environment(url: &str) -> Result<Endpoint, ClientError> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let key = match (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY")) {
            (Some(access_key_id), Some(secret_access_key)) => SigningKey {
                access_key_id,
                secret_access_key,
                session_token: var("AWS_SESSION_TOKEN"),
            },
            _ => SigningKey {
                access_key_id: "kura".to_owned(),
                secret_access_key: "kura".to_owned(),
                session_token: None,
            },
        };
        let region = var("AWS_REGION")
            .or_else(|| var("AWS_DEFAULT_REGION"))
            .unwrap_or_else(|| "us-east-1".to_owned());
        Endpoint::new(url, key, &region)
    }

    /// The endpoint's URL, without a trailing slash.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Calls one DynamoDB operation (`ListTables`, `Query`, ...): the answer's JSON, or
    /// DynamoDB's refusal as [`ClientError::Refused`].
    pub async fn call(&self, operation: &str, body: &Value) -> Result<Value, ClientError> {
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
            .map_err(|e| self.not_dynamodb(e.to_string()))?;
        let (status, bytes) = self.send(request).await?;
        let answer: Value = serde_json::from_slice(&bytes).map_err(|_| {
            self.not_dynamodb(format!(
                "HTTP {status} with a body that is not JSON: {}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
            ))
        })?;
        if status.is_success() {
            return Ok(answer);
        }
        let type_name = answer["__type"].as_str().unwrap_or("");
        let type_name = type_name.rsplit('#').next().unwrap_or(type_name);
        if type_name.is_empty() {
            return Err(self.not_dynamodb(format!("HTTP {status} without an error type")));
        }
        let message = answer["message"]
            .as_str()
            .or(answer["Message"].as_str())
            .unwrap_or("");
        Err(ClientError::Refused {
            type_name: type_name.to_owned(),
            message: message.to_owned(),
        })
    }

    /// GETs one of a Kura server's own `/kura/` endpoints (unsigned, as they are).
    pub async fn get_kura(&self, path: &str) -> Result<Value, ClientError> {
        let uri: hyper::Uri = format!("{}{path}", self.url)
            .parse()
            .map_err(|e: hyper::http::uri::InvalidUri| self.not_dynamodb(e.to_string()))?;
        let request = hyper::Request::get(uri)
            .body(Full::new(Bytes::new()))
            .map_err(|e| self.not_dynamodb(e.to_string()))?;
        let (status, bytes) = self.send(request).await?;
        let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if status.is_success() {
            return Ok(answer);
        }
        Err(ClientError::Refused {
            type_name: format!("HTTP {status}"),
            message: answer["message"].as_str().unwrap_or("").to_owned(),
        })
    }

    async fn send(
        &self,
        request: hyper::Request<Full<Bytes>>,
    ) -> Result<(hyper::StatusCode, Bytes), ClientError> {
        let response =
            self.client
                .request(request)
                .await
                .map_err(|e| ClientError::Unreachable {
                    endpoint: self.url.clone(),
                    cause: root_cause(&e),
                })?;
        let status = response.status();
        let body = http_body_util::Limited::new(response.into_body(), MAX_ANSWER_BYTES)
            .collect()
            .await
            .map_err(|e| self.not_dynamodb(format!("the answer broke off: {e}")))?
            .to_bytes();
        Ok((status, body))
    }

    fn not_dynamodb(&self, detail: String) -> ClientError {
        ClientError::NotDynamoDb {
            endpoint: self.url.clone(),
            detail,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SigningKey {
        SigningKey {
            access_key_id: "kura".into(),
            secret_access_key: "kura".into(),
            session_token: None,
        }
    }

    #[tokio::test]
    async fn a_closed_port_is_unreachable_with_its_cause() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let endpoint =
            Endpoint::new(&format!("http://127.0.0.1:{port}/"), key(), "us-east-1").expect("url");
        assert_eq!(endpoint.url(), format!("http://127.0.0.1:{port}"));
        let error = endpoint
            .call("ListTables", &serde_json::json!({}))
            .await
            .expect_err("nothing listens");
        let text = error.to_string();
        assert!(
            text.starts_with(&format!("cannot connect to http://127.0.0.1:{port} (")),
            "{text}"
        );
        assert!(
            text.ends_with("): is `kura serve` running there?"),
            "{text}"
        );
    }

    #[test]
    fn a_url_without_a_host_is_refused() {
        assert!(matches!(
            Endpoint::new("not a url", key(), "us-east-1"),
            Err(ClientError::BadEndpoint { .. })
        ));
    }
}
