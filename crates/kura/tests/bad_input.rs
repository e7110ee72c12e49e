//! Bad input over raw HTTP: each gets DynamoDB's `__type`, status and message, carries the
//! protocol headers, and the server keeps serving.

mod common;

use bytes::Bytes;
use common::KuraProcess;
use http_body_util::{BodyExt, Full};

struct Reply {
    status: u16,
    body: serde_json::Value,
}

async fn post(endpoint: &str, target: Option<&str>, body: impl Into<Bytes>) -> Reply {
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

fn error_type(reply: &Reply) -> &str {
    reply.body["__type"]
        .as_str()
        .unwrap_or_default()
        .rsplit('#')
        .next()
        .unwrap_or_default()
}

fn error_message(reply: &Reply) -> &str {
    reply.body["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn bad_requests_get_dynamodb_errors_and_the_server_keeps_serving() {
    let server = KuraProcess::start(None);
    let e = server.endpoint.as_str();
    let create = r#"{"TableName":"Tab1","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
        "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    assert_eq!(post(e, Some("CreateTable"), create).await.status, 200);

    let cases: Vec<(Option<&str>, String, &str, Option<&str>)> = vec![
        (Some("PutItem"), "{not json".into(), "SerializationException", None),
        (Some("PutItem"), r#"{"TableName": 5}"#.into(), "SerializationException", None),
        (Some("PutItem"), r#"{"TableName":"Tab1","Item":{"pk":{"S":1}}}"#.into(), "SerializationException", None),
        (Some("NoSuchOperation"), "{}".into(), "UnknownOperationException", None),
        (None, "{}".into(), "UnknownOperationException", None),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"},"x":{}}}"#.into(),
            "ValidationException",
            Some("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"},"x":{"S":"a","N":"1"}}}"#.into(),
            "ValidationException",
            Some("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"},"x":{"N":"12abc"}}}"#.into(),
            "ValidationException",
            Some("The parameter cannot be converted to a numeric value: 12abc"),
        ),
        (
            Some("PutItem"),
            format!(r#"{{"TableName":"Tab1","Item":{{"pk":{{"S":"a"}},"x":{{"N":"1{}"}}}}}}"#, "1".repeat(38)),
            "ValidationException",
            Some("Attempting to store more than 38 significant digits in a Number"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"},"x":{"N":"1e-131"}}}"#.into(),
            "ValidationException",
            Some("Number underflow. Attempting to store a number with magnitude smaller than supported range"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"},"x":{"SS":[]}}}"#.into(),
            "ValidationException",
            Some("One or more parameter values were invalid: An string set  may not be empty"),
        ),
        (
            Some("PutItem"),
            format!(r#"{{"TableName":"Tab1","Item":{{"pk":{{"S":"{}"}}}}}}"#, "k".repeat(2049)),
            "ValidationException",
            Some("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"),
        ),
        (
            Some("GetItem"),
            r#"{"TableName":"ab","Key":{"pk":{"S":"a"}}}"#.into(),
            "ValidationException",
            Some("1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"),
        ),
        (
            Some("PutItem"),
            r#"{"Item":{"pk":{"S":"a"}}}"#.into(),
            "ValidationException",
            Some("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"}},"ReturnValues":"ALL_NEW"}"#.into(),
            "ValidationException",
            Some("ReturnValues can only be ALL_OLD or NONE"),
        ),
        (
            Some("CreateTable"),
            r#"{"TableName":"Tab2","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[]}"#.into(),
            "ValidationException",
            Some("One or more parameter values were invalid: List of GlobalSecondaryIndexes is empty"),
        ),
        (
            Some("ExecuteStatement"),
            r#"{"Statement":"SELEC * FROM Tab1"}"#.into(),
            "ValidationException",
            Some("Statement wasn't well formed, can't be processed: Expected data manipulation"),
        ),
        (
            Some("Query"),
            r#"{"TableName":"Tab1","KeyConditionExpression":"pk = :p OR pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}"#.into(),
            "ValidationException",
            Some("Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: OR"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"}},"ConditionExpression":"((((((((((a = :v))))))))))","ExpressionAttributeValues":{":v":{"S":"a"}}}"#.into(),
            "ValidationException",
            Some("Invalid ConditionExpression: The expression has redundant parentheses;"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"}},"ConditionExpression":"a = :v","ExpressionAttributeValues":{":v":{"Q":"a"}}}"#.into(),
            "ValidationException",
            Some("ExpressionAttributeValues contains invalid value: Supplied AttributeValue is empty, must contain exactly one of the supported datatypes for key :v"),
        ),
        (
            Some("DeleteTable"),
            r#"{"TableName":"Missing"}"#.into(),
            "ResourceNotFoundException",
            Some("Requested resource not found: Table: Missing not found"),
        ),
    ];
    for (target, body, expected_type, expected_message) in cases {
        let reply = post(e, target, body.clone()).await;
        assert_eq!(reply.status, 400, "{target:?} {body:.80}");
        assert_eq!(
            error_type(&reply),
            expected_type,
            "{target:?} {body:.80}: {}",
            reply.body
        );
        if let Some(m) = expected_message {
            assert_eq!(error_message(&reply), m, "{target:?} {body:.80}");
        }
    }

    // Nesting deeper than 32 levels.
    let mut deep = r#"{"S":"leaf"}"#.to_owned();
    for _ in 0..33 {
        deep = format!(r#"{{"L":[{deep}]}}"#);
    }
    let reply = post(
        e,
        Some("PutItem"),
        format!(r#"{{"TableName":"Tab1","Item":{{"pk":{{"S":"a"}},"d":{deep}}}}}"#),
    )
    .await;
    assert_eq!(
        error_message(&reply),
        "Nesting Levels have exceeded supported limits"
    );

    // Bodies over the 16 MB limit: see http_edges.rs.

    // Still serving, and nothing was written by the refused requests.
    let reply = post(e, Some("DescribeTable"), r#"{"TableName":"Tab1"}"#).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["Table"]["ItemCount"], 0);
}
