//! What a handler gets: the engine, the caller, the body, and where to note what the
//! metrics are labelled with. Built once per request by the pipeline.

use std::sync::Arc;

use bytes::Bytes;
use kura_engine::{Engine, RequestContext};
use kura_model::messages;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// What a handler needs besides its body.
pub struct Call<'a> {
    /// The operation the request was sent as.
    pub op: crate::operation::Op,
    pub engine: &'a Engine,
    pub ctx: RequestContext,
    /// The `Host` the client used (DescribeEndpoints answers with it).
    pub host: String,
    pub body: Bytes,
    /// Who signed the request, when `--auth` is on (None when Kura runs open).
    pub principal: Option<kura_auth::Principal>,
    /// The peer's address (`aws:SourceIp`), when the listener reports it.
    pub source_ip: Option<std::net::IpAddr>,
    /// What the metrics are labelled with (the table, items returned).
    pub observation: &'a crate::metrics::Observation,
    /// The key schemas of the tables the request names, looked up once.
    pub schemas: &'a crate::schemas::Schemas<'a>,
    /// Every region's engine, when regions are kept apart (global tables need them).
    pub regions: Option<&'a Arc<kura_engine::replication::Regions>>,
    /// The hook that may delay or answer the request (fault injection), when one is set
    /// and armed and the request is the API's own traffic.
    pub interceptor: Option<&'a dyn crate::intercept::Interceptor>,
}

impl Call<'_> {
    /// Parses the body as the operation's input. Shape errors are SerializationException.
    pub fn input<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        require_object(&self.body)?;
        let body: &[u8] = if self.body.is_empty() {
            b"{}"
        } else {
            &self.body
        };
        serde_json::from_slice(body).map_err(|e| ApiError::serialization(shape_error(&e)))
    }
}

/// Refuses a decoded body that is JSON but not an object, before anything reads it (the
/// operation's input, authorization, faults): serde would read `[]` as a struct and
/// `"x"` would reach handlers that parse leniently. An empty body stays `{}`.
pub fn require_object(body: &[u8]) -> Result<(), ApiError> {
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        None | Some(b'{') => Ok(()),
        Some(_) => Err(ApiError::serialization(messages::BODY_NOT_AN_OBJECT)),
    }
}

fn shape_error(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    match e.classify() {
        Category::Syntax | Category::Eof => messages::body_not_json(&e.to_string()),
        Category::Data | Category::Io => {
            // A value rule checked while reading (base64) keeps its own text, without the
            // reader's position.
            let text = e.to_string();
            let position = format!(" at line {} column {}", e.line(), e.column());
            match text.strip_suffix(&position) {
                Some(bare) if bare.ends_with(messages::INVALID_BASE64_END) => bare.to_owned(),
                _ => messages::body_wrong_shape(&text),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_objects_are_request_bodies() {
        for ok in [&b""[..], b"{}", b"  \n{\"TableName\":\"T\"}", b"{"] {
            assert!(require_object(ok).is_ok(), "{ok:?}");
        }
        for bad in [&b"[]"[..], b"\"x\"", b"1", b"null", b" true", b"[{}]"] {
            let err = require_object(bad).unwrap_err();
            assert_eq!(err.name(), "SerializationException", "{bad:?}");
        }
    }
}
