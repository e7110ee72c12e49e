//! aws-sdk-dynamodb and -dynamodbstreams clients for an in-process engine (no sockets)
//! or an endpoint over plain HTTP.

use std::sync::Arc;

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector as HyperHttpConnector;
use hyper_util::rt::TokioExecutor;
use tower::ServiceExt;

/// An SDK client whose requests are served in-process by `engine`.
pub fn in_process_client(engine: Arc<kura_engine::Engine>) -> aws_sdk_dynamodb::Client {
    let connector = InProcess {
        router: kura_server::router(engine),
    };
    client(
        "http://kura.in-process",
        SharedHttpClient::new(Fixed(SharedHttpConnector::new(connector))),
    )
}

/// An SDK client for a DynamoDB endpoint over plain HTTP, e.g. `http://127.0.0.1:8000`.
pub fn endpoint_client(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let hyper = HyperClient::builder(TokioExecutor::new()).build(HyperHttpConnector::new());
    endpoint_client_with(endpoint, hyper)
}

/// [`endpoint_client`] through the given hyper client, e.g. one with an HTTPS connector
/// that trusts a test CA (this crate carries no TLS stack of its own).
pub fn endpoint_client_with<C>(
    endpoint: &str,
    hyper: HyperClient<C, Full<Bytes>>,
) -> aws_sdk_dynamodb::Client
where
    C: hyper_util::client::legacy::connect::Connect + Clone + Send + Sync + 'static,
{
    client(endpoint, kura_cqrs::endpoint::sdk_http_client(hyper))
}

/// A DynamoDB Streams client whose requests are served in-process by `engine`.
pub fn in_process_streams_client(
    engine: Arc<kura_engine::Engine>,
) -> aws_sdk_dynamodbstreams::Client {
    let connector = InProcess {
        router: kura_server::router(engine),
    };
    streams_client(
        "http://kura.in-process",
        SharedHttpClient::new(Fixed(SharedHttpConnector::new(connector))),
    )
}

/// A DynamoDB Streams client for an endpoint over plain HTTP (Kura serves both APIs on
/// one port).
pub fn endpoint_streams_client(endpoint: &str) -> aws_sdk_dynamodbstreams::Client {
    let hyper = HyperClient::builder(TokioExecutor::new()).build(HyperHttpConnector::new());
    streams_client(endpoint, kura_cqrs::endpoint::sdk_http_client(hyper))
}

fn streams_client(endpoint: &str, http: SharedHttpClient) -> aws_sdk_dynamodbstreams::Client {
    use aws_sdk_dynamodbstreams::config::{BehaviorVersion, Credentials, Region};
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("kura", "kura", None, None, "kura-testkit"))
        .endpoint_url(endpoint)
        .http_client(http)
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}

fn client(endpoint: &str, http: SharedHttpClient) -> aws_sdk_dynamodb::Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("kura", "kura", None, None, "kura-testkit"))
        .endpoint_url(endpoint)
        .http_client(http)
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
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

fn to_http1(request: HttpRequest) -> Result<http::Request<Bytes>, ConnectorError> {
    let request = request
        .try_into_http1x()
        .map_err(|e| ConnectorError::other(e.into(), None))?;
    let (parts, body) = request.into_parts();
    // DynamoDB requests are JSON held in memory, never streamed.
    let bytes = Bytes::copy_from_slice(body.bytes().unwrap_or_default());
    Ok(http::Request::from_parts(parts, bytes))
}

/// Reads a whole HTTP response (DynamoDB responses are JSON held in memory) into the SDK's
/// response type.
async fn from_http1<B>(response: http::Response<B>) -> Result<HttpResponse, ConnectorError>
where
    B: http_body::Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let (parts, body) = response.into_parts();
    let bytes = body
        .collect()
        .await
        .map_err(|e| ConnectorError::io(e.into()))?
        .to_bytes();
    HttpResponse::try_from(http::Response::from_parts(parts, SdkBody::from(bytes)))
        .map_err(|e| ConnectorError::other(e.into(), None))
}

#[derive(Clone)]
struct InProcess {
    router: axum::Router,
}

impl std::fmt::Debug for InProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InProcess")
    }
}

impl HttpConnector for InProcess {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let router = self.router.clone();
        HttpConnectorFuture::new(async move {
            let request = to_http1(request)?.map(axum::body::Body::from);
            let response = router
                .oneshot(request)
                .await
                .map_err(|e| ConnectorError::other(e.into(), None))?;
            from_http1(response).await
        })
    }
}
