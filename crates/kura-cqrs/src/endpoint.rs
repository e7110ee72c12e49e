//! SDK clients for a DynamoDB endpoint over plain HTTP (`http://host:port`: a `kura
//! serve`, DynamoDB Local), with hyper-util's client and no TLS stack, for the `kura`
//! binary and the examples; over HTTPS too with the `tls` feature (rustls, the Mozilla
//! roots), which the suite uses to run against AWS (`scripts/cqrs-on-aws.sh`). An
//! application on AWS builds its clients with `aws-config` instead; the framework only
//! needs an `aws_sdk_dynamodb::Client` and an `aws_sdk_dynamodbstreams::Client`.
//!
//! Credentials and region come from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` (and
//! `AWS_SESSION_TOKEN`) and `AWS_REGION` when set, else static placeholders (`kura`,
//! `us-east-1`): local endpoints accept any signature, but DynamoDB Local keeps one
//! database per access key and region, so every client of one test run must agree.

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::HttpRequest;
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector as HyperHttpConnector;
use hyper_util::rt::TokioExecutor;

/// A DynamoDB client for `endpoint`, e.g. `http://127.0.0.1:8000`.
pub fn dynamodb_client(endpoint: &str) -> aws_sdk_dynamodb::Client {
    dynamodb_client_over(endpoint, http_for(endpoint))
}

/// A DynamoDB client for `endpoint` over the caller's HTTP client (for HTTPS, one made
/// with [`sdk_http_client`] over a TLS connector), with the same credentials and region.
pub fn dynamodb_client_over(endpoint: &str, http: SharedHttpClient) -> aws_sdk_dynamodb::Client {
    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
    let (key, secret, token, region) = credentials();
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(region))
        .credentials_provider(Credentials::new(key, secret, token, None, "kura-cqrs"))
        .endpoint_url(endpoint)
        .http_client(http)
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

/// A DynamoDB Streams client for `endpoint` (Kura and DynamoDB Local serve both APIs on
/// one port).
pub fn streams_client(endpoint: &str) -> aws_sdk_dynamodbstreams::Client {
    use aws_sdk_dynamodbstreams::config::{BehaviorVersion, Credentials, Region};
    let (key, secret, token, region) = credentials();
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(region))
        .credentials_provider(Credentials::new(key, secret, token, None, "kura-cqrs"))
        .endpoint_url(endpoint)
        .http_client(http_for(endpoint))
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}

/// Access key, secret, session token and region: the environment's, else placeholders.
fn credentials() -> (String, String, Option<String>, String) {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let (key, secret, token) = match (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY")) {
        (Some(key), Some(secret)) => (key, secret, var("AWS_SESSION_TOKEN")),
        _ => ("kura".to_owned(), "kura".to_owned(), None),
    };
    let region = var("AWS_REGION")
        .or_else(|| var("AWS_DEFAULT_REGION"))
        .unwrap_or_else(|| "us-east-1".to_owned());
    (key, secret, token, region)
}

/// Plain HTTP; HTTPS too (with the Mozilla roots) when the `tls` feature is on. Without
/// it an `https://` endpoint fails on the first call, saying so.
fn http_for(endpoint: &str) -> SharedHttpClient {
    #[cfg(feature = "tls")]
    if endpoint.starts_with("https://") {
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .build();
        return sdk_http_client(HyperClient::builder(TokioExecutor::new()).build(https));
    }
    if endpoint.starts_with("https://") && cfg!(not(feature = "tls")) {
        tracing::error!(
            endpoint,
            "an https endpoint needs kura-cqrs's `tls` feature"
        );
    }
    let hyper = HyperClient::builder(TokioExecutor::new()).build(HyperHttpConnector::new());
    sdk_http_client(hyper)
}

/// An AWS SDK HTTP client over `hyper`, for any connector (plain HTTP, or HTTPS with the
/// caller's TLS stack): bodies are held in memory, as DynamoDB's JSON and Kura's export
/// objects are.
pub fn sdk_http_client<C>(hyper: HyperClient<C, Full<Bytes>>) -> SharedHttpClient
where
    C: hyper_util::client::legacy::connect::Connect + Clone + Send + Sync + 'static,
{
    SharedHttpClient::new(Fixed(SharedHttpConnector::new(PlainHttp { hyper })))
}

/// Hands the SDK the same connector whatever its settings.
#[derive(Debug)]
struct Fixed(SharedHttpConnector);

impl HttpClient for Fixed {
    fn http_connector(
        &self,
        _: &HttpConnectorSettings,
        _: &RuntimeComponents,
    ) -> SharedHttpConnector {
        self.0.clone()
    }
}

#[derive(Clone)]
struct PlainHttp<C> {
    hyper: HyperClient<C, Full<Bytes>>,
}

impl<C> std::fmt::Debug for PlainHttp<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlainHttp")
    }
}

impl<C> HttpConnector for PlainHttp<C>
where
    C: hyper_util::client::legacy::connect::Connect + Clone + Send + Sync + 'static,
{
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let hyper = self.hyper.clone();
        HttpConnectorFuture::new(async move {
            let request = request
                .try_into_http1x()
                .map_err(|e| ConnectorError::other(e.into(), None))?;
            let (parts, body) = request.into_parts();
            // DynamoDB requests and export objects are held in memory, never streamed.
            let bytes = Bytes::copy_from_slice(body.bytes().unwrap_or_default());
            let request = http::Request::from_parts(parts, Full::new(bytes));
            let response = hyper
                .request(request)
                .await
                .map_err(|e| ConnectorError::io(e.into()))?;
            let (parts, body) = response.into_parts();
            let bytes = body
                .collect()
                .await
                .map_err(|e| ConnectorError::io(e.into()))?
                .to_bytes();
            aws_smithy_runtime_api::client::orchestrator::HttpResponse::try_from(
                http::Response::from_parts(parts, SdkBody::from(bytes)),
            )
            .map_err(|e| ConnectorError::other(e.into(), None))
        })
    }
}
