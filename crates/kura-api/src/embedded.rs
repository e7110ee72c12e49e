//! One DynamoDB operation without HTTP, through the same pipeline as `POST /`.

use kura_engine::Engine;

use crate::{error, operation, pipeline};

/// Runs one DynamoDB operation without HTTP: the JSON request body in, the JSON response
/// body (or the error) out, through the same pipeline as `POST /` without its metrics,
/// audit or test controls (for embedding, and the benchmark's embedded mode). `operation`
/// is the part of `X-Amz-Target` after the dot. Unlike `POST /`, it does not cap the body
/// size and uses the default region.
pub async fn invoke(
    engine: &Engine,
    operation: &str,
    body: bytes::Bytes,
) -> Result<Vec<u8>, error::ApiError> {
    embedded(engine, operation::Api::DynamoDb, operation, body).await
}

/// [`invoke`] for the DynamoDB Streams operations (`GetRecords`, ...).
pub async fn invoke_streams(
    engine: &Engine,
    operation: &str,
    body: bytes::Bytes,
) -> Result<Vec<u8>, error::ApiError> {
    embedded(engine, operation::Api::Streams, operation, body).await
}

async fn embedded(
    engine: &Engine,
    api: operation::Api,
    operation: &str,
    body: bytes::Bytes,
) -> Result<Vec<u8>, error::ApiError> {
    let request = pipeline::Request {
        api,
        operation,
        body,
        verified: None,
        region: kura_engine::RequestContext::default().region,
        source_ip: None,
        host: "localhost:8000",
        user_agent: None,
        request_id: "",
        origin: pipeline::Origin::Embedded,
        received: None,
    };
    pipeline::Pipeline::bare().run(engine, request).await
}
