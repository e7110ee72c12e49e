//! Buckets on an S3 or S3-compatible server (`kura serve --s3-endpoint URL`), for the
//! engine's exports and imports, through aws-sdk-s3 over hyper (HTTPS with the Mozilla
//! roots, or plain HTTP for a local server). Addressing is path-style, which every
//! S3-compatible server accepts. Credentials come from `AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.

use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_s3::error::ProvideErrorMetadata;
use aws_sdk_s3::primitives::ByteStream;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use kura_engine::objects::{ObjectError, Objects};

pub struct S3Buckets {
    client: aws_sdk_s3::Client,
    runtime: tokio::runtime::Handle,
}

impl S3Buckets {
    /// A client for `endpoint` in `region`; `runtime` runs its requests (the engine calls
    /// from its own threads).
    pub fn new(
        endpoint: &str,
        region: &str,
        runtime: tokio::runtime::Handle,
    ) -> Result<Self, String> {
        Ok(S3Buckets {
            client: client(endpoint, region)?,
            runtime,
        })
    }
}

/// An S3 client for `endpoint` in `region`, path-style, with the credentials of the
/// environment (also the one `kura cqrs --objects-s3-endpoint` keeps large attributes
/// through).
pub fn client(endpoint: &str, region: &str) -> Result<aws_sdk_s3::Client, String> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let (Some(key), Some(secret)) = (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY")) else {
        return Err(format!(
            "the S3 endpoint {endpoint} needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        ));
    };
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_webpki_roots()
        .https_or_http()
        .enable_http1()
        .build();
    let hyper = HyperClient::builder(TokioExecutor::new()).build(https);
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(region.to_owned()))
        .credentials_provider(Credentials::new(
            key,
            secret,
            var("AWS_SESSION_TOKEN"),
            None,
            "kura",
        ))
        .endpoint_url(endpoint)
        .force_path_style(true)
        .http_client(kura_cqrs::endpoint::sdk_http_client(hyper))
        .build();
    Ok(aws_sdk_s3::Client::from_conf(config))
}

/// An SDK error as an export's or import's FailureCode: `S3` and S3's error code.
fn failure<E: ProvideErrorMetadata + std::fmt::Debug>(
    err: &aws_sdk_s3::error::SdkError<E>,
    what: &str,
) -> ObjectError {
    match err.as_service_error().and_then(|e| e.code()) {
        Some(code) => ObjectError::new(
            &format!("S3{code}"),
            format!(
                "{} ({what})",
                err.as_service_error()
                    .and_then(|e| e.message())
                    .unwrap_or(code)
            ),
        ),
        None => ObjectError::new("S3ServiceUnavailable", format!("{what}: {err:?}")),
    }
}

impl Objects for S3Buckets {
    fn put(&self, bucket: &str, key: &str, body: &[u8]) -> Result<(), ObjectError> {
        let request = self
            .client
            .put_object()
            .bucket(bucket)
            .key(key)
            .body(ByteStream::from(body.to_vec()));
        self.runtime
            .block_on(request.send())
            .map(drop)
            .map_err(|e| failure(&e, key))
    }

    fn get(&self, bucket: &str, key: &str, max: u64) -> Result<Vec<u8>, ObjectError> {
        self.runtime.block_on(async {
            let mut out = self
                .client
                .get_object()
                .bucket(bucket)
                .key(key)
                .send()
                .await
                .map_err(|e| failure(&e, key))?;
            if out
                .content_length()
                .is_some_and(|n| u64::try_from(n).unwrap_or(0) > max)
            {
                return Err(ObjectError::too_large(key, max));
            }
            // Read piece by piece, so a server that sends more than it declared is cut too.
            let mut body = Vec::new();
            while let Some(piece) = out
                .body
                .try_next()
                .await
                .map_err(|e| ObjectError::new("S3InternalError", format!("{key}: {e}")))?
            {
                if (body.len() + piece.len()) as u64 > max {
                    return Err(ObjectError::too_large(key, max));
                }
                body.extend_from_slice(&piece);
            }
            Ok(body)
        })
    }

    fn list(&self, bucket: &str, prefix: &str, max: usize) -> Result<Vec<String>, ObjectError> {
        self.runtime.block_on(async {
            let mut keys = Vec::new();
            let mut token: Option<String> = None;
            loop {
                let out = self
                    .client
                    .list_objects_v2()
                    .bucket(bucket)
                    .prefix(prefix)
                    .set_continuation_token(token.take())
                    .send()
                    .await
                    .map_err(|e| failure(&e, prefix))?;
                keys.extend(
                    out.contents()
                        .iter()
                        .filter_map(|o| o.key().map(str::to_owned)),
                );
                // Stop paging once past the bound: the rest is never held.
                if keys.len() > max {
                    return Err(ObjectError::too_many(prefix, max));
                }
                match out.next_continuation_token() {
                    Some(next) if out.is_truncated() == Some(true) => token = Some(next.to_owned()),
                    _ => break,
                }
            }
            keys.sort();
            Ok(keys)
        })
    }
}
