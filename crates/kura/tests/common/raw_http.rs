//! Raw HTTP requests to a running server, for tests that check bodies byte by byte:
//! each answer carries the protocol headers and a CRC-32 that matches its body.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};

pub struct Reply {
    pub status: u16,
    pub body: serde_json::Value,
}

pub async fn post(endpoint: &str, target: Option<&str>, body: impl Into<Bytes>) -> Reply {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<Bytes>>();
    let mut req = http::Request::post(format!("{endpoint}/"))
        .header("content-type", "application/x-amz-json-1.0");
    if let Some(t) = target {
        req = req.header("x-amz-target", format!("DynamoDB_20120810.{t}"));
    }
    let response = client
        .request(req.body(Full::new(body.into())).expect("request"))
        .await
        .expect("send");
    let status = response.status().as_u16();
    let crc: u32 = response
        .headers()
        .get("x-amz-crc32")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("x-amz-crc32 header");
    assert!(
        response.headers().contains_key("x-amzn-requestid"),
        "x-amzn-RequestId header"
    );
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    assert_eq!(
        crc,
        crc32fast_check(&bytes),
        "x-amz-crc32 must match the body"
    );
    let body = serde_json::from_slice(&bytes).expect("JSON body");
    Reply { status, body }
}

/// CRC-32 (IEEE), computed here independently of the server's crate.
fn crc32fast_check(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

pub fn error_type(reply: &Reply) -> &str {
    reply.body["__type"]
        .as_str()
        .unwrap_or_default()
        .rsplit('#')
        .next()
        .unwrap_or_default()
}

pub fn error_message(reply: &Reply) -> &str {
    reply.body["message"].as_str().unwrap_or_default()
}
