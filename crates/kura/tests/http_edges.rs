//! The HTTP edges over real sockets: compressed request bodies, the 16 MB limit on
//! declared, chunked and inflated bodies (HTTP 413), bodies that are JSON but not an
//! object, overlong header lines, CORS preflights and the health answer. After each the
//! server keeps serving.

mod common;

use std::io::Write;
use std::time::Duration;

use bytes::Bytes;
use common::KuraProcess;
use flate2::Compression;
use flate2::write::{GzEncoder, ZlibEncoder};
use http_body_util::{BodyExt, Full};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const LIMIT: usize = 16 * 1024 * 1024;

struct Reply {
    status: u16,
    headers: http::HeaderMap,
    body: Bytes,
}

impl Reply {
    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }

    fn error_type(&self) -> String {
        self.json()["__type"]
            .as_str()
            .unwrap_or_default()
            .rsplit('#')
            .next()
            .unwrap_or_default()
            .to_owned()
    }
}

async fn send(request: http::Request<Full<Bytes>>) -> Reply {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<Bytes>>();
    let response = client.request(request).await.expect("send");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    Reply {
        status,
        headers,
        body,
    }
}

fn post(
    endpoint: &str,
    op: &str,
    encoding: Option<&str>,
    body: Vec<u8>,
) -> http::Request<Full<Bytes>> {
    let mut req = http::Request::post(format!("{endpoint}/"))
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", format!("DynamoDB_20120810.{op}"));
    if let Some(e) = encoding {
        req = req.header("content-encoding", e);
    }
    req.body(Full::new(Bytes::from(body))).expect("request")
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).expect("gzip");
    e.finish().expect("gzip")
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).expect("zlib");
    e.finish().expect("zlib")
}

/// Writes `head` and then `body_chunks` on a raw connection and returns the status line.
async fn raw_status(endpoint: &str, head: String, body_chunks: Vec<Vec<u8>>) -> String {
    let addr = endpoint.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let (mut read, mut write) = stream.split();
    let writer = async move {
        if write.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        for chunk in body_chunks {
            // The server may answer and stop reading before all of it is sent.
            if write.write_all(&chunk).await.is_err() {
                return;
            }
        }
    };
    let reader = async move {
        let mut buf = vec![0u8; 4096];
        let mut got = Vec::new();
        while !got.windows(2).any(|w| w == b"\r\n") {
            match read.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        String::from_utf8_lossy(&got)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    let (_, status) = tokio::time::timeout(Duration::from_secs(30), async {
        tokio::join!(writer, reader)
    })
    .await
    .expect("the server answers an oversized request promptly");
    status
}

async fn item_count(endpoint: &str) -> serde_json::Value {
    let reply = send(post(
        endpoint,
        "DescribeTable",
        None,
        br#"{"TableName":"Edges"}"#.to_vec(),
    ))
    .await;
    assert_eq!(reply.status, 200, "still serving");
    reply.json()["Table"]["ItemCount"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_edges() {
    let server = KuraProcess::start(None);
    let e = server.endpoint.as_str();
    let create = br#"{"TableName":"Edges","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
        "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    // A compressed CreateTable, then compressed puts in each encoding.
    let reply = send(post(e, "CreateTable", Some("gzip"), gzip(create))).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let put = |pk: &str| format!(r#"{{"TableName":"Edges","Item":{{"pk":{{"S":"{pk}"}}}}}}"#);
    for (pk, encoding, body) in [
        ("gz", Some("gzip"), gzip(put("gz").as_bytes())),
        ("xgz", Some("x-gzip"), gzip(put("xgz").as_bytes())),
        ("zl", Some("deflate"), zlib(put("zl").as_bytes())),
        ("id", Some("identity"), put("id").into_bytes()),
        (
            "twice",
            Some("gzip, gzip"),
            gzip(&gzip(put("twice").as_bytes())),
        ),
    ] {
        let reply = send(post(e, "PutItem", encoding, body)).await;
        assert_eq!(reply.status, 200, "{pk}: {:?}", reply.body);
    }
    assert_eq!(item_count(e).await, 5);

    // Malformed or unknown encodings: a clear SerializationException.
    for (encoding, body) in [
        ("gzip", b"this is not gzip".to_vec()),
        ("deflate", b"nor deflate".to_vec()),
        ("gzip", gzip(put("cut").as_bytes())[..20].to_vec()),
        ("br", put("br").into_bytes()),
    ] {
        let reply = send(post(e, "PutItem", Some(encoding), body)).await;
        assert_eq!(reply.status, 400, "{encoding}");
        assert_eq!(reply.error_type(), "SerializationException", "{encoding}");
        assert!(reply.headers.contains_key("x-amzn-requestid"));
    }

    // A small body that inflates past 16 MB costs bounded memory and gets 413.
    let bomb = gzip(&vec![b' '; LIMIT + 1]);
    assert!(bomb.len() < 200_000);
    let reply = send(post(e, "PutItem", Some("gzip"), bomb)).await;
    assert_eq!(reply.status, 413);
    assert!(reply.body.is_empty(), "DynamoDB's 413 has no body");
    assert!(reply.headers.contains_key("x-amzn-requestid"));

    // A body declared over the limit is answered before it is read (a client still
    // sending then sees the connection close, as with DynamoDB).
    let head = format!(
        "POST / HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: DynamoDB_20120810.PutItem\r\nContent-Length: {}\r\n\r\n",
        e.trim_start_matches("http://"),
        LIMIT + 1
    );
    let status = raw_status(e, head, Vec::new()).await;
    assert!(status.contains(" 413 "), "declared length: {status}");
    // Chunked, with no length declared.
    let head = format!(
        "POST / HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: DynamoDB_20120810.PutItem\r\nTransfer-Encoding: chunked\r\n\r\n",
        e.trim_start_matches("http://")
    );
    let chunk = {
        let data = vec![b' '; 1024 * 1024];
        let mut c = format!("{:x}\r\n", data.len()).into_bytes();
        c.extend_from_slice(&data);
        c.extend_from_slice(b"\r\n");
        c
    };
    let status = raw_status(e, head, vec![chunk; 17]).await;
    assert!(status.contains(" 413 "), "chunked: {status}");
    // Exactly at the limit is read (and then judged as JSON).
    let mut at_limit = put("limit").into_bytes();
    at_limit.resize(LIMIT, b' ');
    let reply = send(post(e, "PutItem", None, at_limit)).await;
    assert_eq!(reply.status, 200, "{:?}", reply.json());

    // JSON that is not an object.
    // ListTables takes no required member: it once read `[]` as `{}`.
    for operation in ["PutItem", "ListTables", "DescribeLimits"] {
        for body in ["[]", "null", "\"PutItem\"", "5", "true", " [{}]"] {
            let reply = send(post(e, operation, None, body.as_bytes().to_vec())).await;
            assert_eq!(reply.status, 400, "{operation} {body}");
            assert_eq!(
                reply.error_type(),
                "SerializationException",
                "{operation} {body}"
            );
        }
    }

    // An overlong header line is refused, and the server goes on.
    let head = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n\
         X-Long: {}\r\nContent-Length: 2\r\n\r\n{{}}",
        "a".repeat(1024 * 1024)
    );
    let status = raw_status(e, head, Vec::new()).await;
    assert!(
        status.contains(" 431 ") || status.contains(" 400 "),
        "overlong header: {status}"
    );
    let head = format!(
        "GET /{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(1024 * 1024)
    );
    let status = raw_status(e, head, Vec::new()).await;
    assert!(
        status.starts_with("HTTP/1.1 4"),
        "overlong request line: {status}"
    );

    // CORS: a preflight from a browser tool, then the request itself.
    let preflight = http::Request::options(format!("{e}/"))
        .header("origin", "http://localhost:3000")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "content-type,x-amz-target,authorization,x-amz-date",
        )
        .body(Full::new(Bytes::new()))
        .expect("preflight");
    let reply = send(preflight).await;
    assert_eq!(reply.status, 200);
    let header = |r: &Reply, name: &str| {
        r.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    assert_eq!(header(&reply, "access-control-allow-origin"), "*");
    assert!(header(&reply, "access-control-allow-methods").contains("post"));
    assert!(header(&reply, "access-control-allow-headers").contains("x-amz-target"));
    let mut request = post(e, "ListTables", None, b"{}".to_vec());
    request.headers_mut().insert(
        "origin",
        http::HeaderValue::from_static("http://localhost:3000"),
    );
    let reply = send(request).await;
    assert_eq!(reply.status, 200);
    assert_eq!(header(&reply, "access-control-allow-origin"), "*");
    assert!(header(&reply, "access-control-expose-headers").contains("x-amzn-requestid"));

    // The health answer.
    let health = http::Request::get(format!("{e}/"))
        .body(Full::new(Bytes::new()))
        .expect("get");
    let reply = send(health).await;
    assert_eq!(reply.status, 200);
    assert!(String::from_utf8_lossy(&reply.body).starts_with("healthy"));

    // Nothing refused was written.
    assert_eq!(item_count(e).await, 6);
}

fn header(r: &Reply, name: &str) -> Option<String> {
    r.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Issue 58: CORS headers only for a request with an Origin, preflights that echo what
/// they are asked; TagResource and UntagResource answer an empty body; a request line or
/// header block over 16 KB gets a 400.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_tag_bodies_and_16_kb_heads() {
    let server = KuraProcess::start(None);
    let e = server.endpoint.as_str();
    let cors_headers = |r: &Reply| -> Vec<String> {
        r.headers
            .keys()
            .map(|k| k.as_str().to_owned())
            .filter(|k| k.starts_with("access-control-"))
            .collect()
    };
    // No Origin: no CORS headers, on GET, POST and OPTIONS.
    let reply = send(post(e, "ListTables", None, b"{}".to_vec())).await;
    assert_eq!(reply.status, 200);
    assert!(cors_headers(&reply).is_empty(), "{:?}", reply.headers);
    let get = http::Request::get(format!("{e}/"))
        .body(Full::new(Bytes::new()))
        .expect("get");
    assert!(cors_headers(&send(get).await).is_empty());
    let options = http::Request::options(format!("{e}/"))
        .header("access-control-request-method", "POST")
        .body(Full::new(Bytes::new()))
        .expect("options");
    assert!(cors_headers(&send(options).await).is_empty());

    // A preflight echoes the method and headers asked for, and exposes headers too.
    let preflight = http::Request::options(format!("{e}/"))
        .header("origin", "http://localhost:3000")
        .header("access-control-request-method", "PUT")
        .header("access-control-request-headers", "x-amz-target,x-custom")
        .body(Full::new(Bytes::new()))
        .expect("preflight");
    let reply = send(preflight).await;
    assert_eq!(reply.status, 200);
    assert!(reply.body.is_empty());
    assert_eq!(
        header(&reply, "access-control-allow-origin").as_deref(),
        Some("*")
    );
    assert_eq!(
        header(&reply, "access-control-allow-methods").as_deref(),
        Some("PUT")
    );
    assert_eq!(
        header(&reply, "access-control-allow-headers").as_deref(),
        Some("x-amz-target,x-custom")
    );
    assert!(header(&reply, "access-control-max-age").is_some());
    let exposed = header(&reply, "access-control-expose-headers").unwrap_or_default();
    assert!(
        exposed.to_ascii_lowercase().contains("x-amzn-requestid"),
        "{exposed}"
    );
    // An answer to a request with an Origin: no preflight headers.
    let mut request = post(e, "ListTables", None, b"{}".to_vec());
    request.headers_mut().insert(
        "origin",
        http::HeaderValue::from_static("http://localhost:3000"),
    );
    let reply = send(request).await;
    assert_eq!(
        header(&reply, "access-control-allow-origin").as_deref(),
        Some("*")
    );
    assert!(header(&reply, "access-control-expose-headers").is_some());
    assert!(header(&reply, "access-control-allow-methods").is_none());
    assert!(header(&reply, "access-control-max-age").is_none());

    // TagResource and UntagResource: an empty body.
    let create = br#"{"TableName":"Tagged","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
        "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    assert_eq!(
        send(post(e, "CreateTable", None, create.to_vec()))
            .await
            .status,
        200
    );
    let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/Tagged";
    for (op, body) in [
        (
            "TagResource",
            format!(r#"{{"ResourceArn":"{arn}","Tags":[{{"Key":"k","Value":"v"}}]}}"#),
        ),
        (
            "UntagResource",
            format!(r#"{{"ResourceArn":"{arn}","TagKeys":["k"]}}"#),
        ),
    ] {
        let reply = send(post(e, op, None, body.into_bytes())).await;
        assert_eq!(reply.status, 200, "{op}");
        assert!(reply.body.is_empty(), "{op}: {:?}", reply.body);
        assert_eq!(header(&reply, "x-amz-crc32").as_deref(), Some("0"), "{op}");
        assert_eq!(
            header(&reply, "content-type").as_deref(),
            Some("application/x-amz-json-1.0")
        );
    }

    // Heads over 16 KB: a 400; just under: served.
    let with_header = |len: usize| {
        let mut request = post(e, "ListTables", None, b"{}".to_vec());
        request.headers_mut().insert(
            "x-long",
            http::HeaderValue::from_str(&"a".repeat(len)).expect("value"),
        );
        request
    };
    assert_eq!(send(with_header(15 * 1024)).await.status, 200);
    assert_eq!(send(with_header(17 * 1024)).await.status, 400);
    let long_target = http::Request::post(format!("{e}/?{}", "q".repeat(17 * 1024)))
        .header("content-type", "application/x-amz-json-1.0")
        .header("x-amz-target", "DynamoDB_20120810.ListTables")
        .body(Full::new(Bytes::from_static(b"{}")))
        .expect("request");
    assert_eq!(send(long_target).await.status, 400);
    // Many headers that add up to more than 16 KB.
    let mut many = post(e, "ListTables", None, b"{}".to_vec());
    for i in 0..20 {
        many.headers_mut().insert(
            http::HeaderName::from_bytes(format!("x-part-{i}").as_bytes()).expect("name"),
            http::HeaderValue::from_str(&"b".repeat(1000)).expect("value"),
        );
    }
    assert_eq!(send(many).await.status, 400);
    assert_eq!(
        send(post(e, "ListTables", None, b"{}".to_vec()))
            .await
            .status,
        200
    );
}

/// Reads from `stream` until the server closes it or `within` passes; what it sent.
async fn read_until_closed(stream: &mut tokio::net::TcpStream, within: Duration) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let _ = tokio::time::timeout(within, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    got
}

/// Clients that trickle a request lose their connection (headers) or get HTTP 408
/// RequestTimeoutException (body) after `--request-read-timeout`, and connections beyond
/// `--max-connections` wait until one closes; the server serves on throughout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_clients_and_the_connection_cap() {
    let server = KuraProcess::start_with(None, &["--request-read-timeout", "1"]);
    let e = server.endpoint.as_str();
    let addr = e.trim_start_matches("http://");
    let started = std::time::Instant::now();
    // A body that stops arriving: 408, with the SDKs' retryable error type.
    let mut body = tokio::net::TcpStream::connect(addr).await.expect("connect");
    body.write_all(
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n\
          X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 100\r\n\r\n{\"Li",
    )
    .await
    .expect("write");
    // Headers that stop arriving: the connection is closed without an answer.
    let mut head = tokio::net::TcpStream::connect(addr).await.expect("connect");
    head.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Ta")
        .await
        .expect("write");
    let answer = read_until_closed(&mut body, Duration::from_secs(20)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    assert!(answer.contains("RequestTimeoutException"), "{answer}");
    assert!(
        read_until_closed(&mut head, Duration::from_secs(20))
            .await
            .is_empty()
    );
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "closed promptly"
    );
    let reply = send(post(e, "ListTables", None, b"{}".to_vec())).await;
    assert_eq!(reply.status, 200, "still serving");
    drop(server);

    // Two connections at most: a third is accepted only when one of them closes.
    let server = KuraProcess::start_with(None, &["--max-connections", "2"]);
    let addr = server.endpoint.trim_start_matches("http://").to_owned();
    let first = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let _second = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let mut third = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("in the backlog");
    third
        .write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let waiting = read_until_closed(&mut third, Duration::from_millis(500)).await;
    assert!(waiting.is_empty(), "served past the cap");
    drop(first);
    let answer = read_until_closed(&mut third, Duration::from_secs(10)).await;
    assert!(
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200 "),
        "served once a place is free"
    );
}

/// Takes the only place of a server started with `--max-in-flight 1 --test-controls`: a
/// ListTables that a fault slows down by `ms`, sent in the background; returns 300 ms
/// later, while it holds the place (its answer is the task's).
async fn hold_the_only_place(endpoint: &str, ms: u64) -> tokio::task::JoinHandle<Reply> {
    let rule = http::Request::post(format!("{endpoint}/kura/admin/faults"))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(format!(
            r#"{{"operation":"ListTables","latency_ms":{ms},"count":1}}"#
        ))))
        .expect("request");
    assert_eq!(send(rule).await.status, 200);
    let slow = tokio::spawn({
        let e = endpoint.to_owned();
        async move { send(post(&e, "ListTables", None, b"{}".to_vec())).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    slow
}

/// With every place taken, a request waits `--max-queue-wait-ms` and is then answered 503
/// `ServiceUnavailable` (retryable); once the place frees, requests are served again.
#[tokio::test]
async fn requests_beyond_the_places_are_refused_with_503() {
    let server = KuraProcess::start_with(
        None,
        &[
            "--test-controls",
            "--max-in-flight",
            "1",
            "--max-queue-wait-ms",
            "50",
        ],
    );
    let e = server.endpoint.clone();
    let slow = hold_the_only_place(&e, 2000).await;
    let started = std::time::Instant::now();
    let refused = send(post(&e, "DescribeLimits", None, b"{}".to_vec())).await;
    assert_eq!(refused.status, 503, "{:?}", refused.body);
    assert_eq!(refused.error_type(), "ServiceUnavailable");
    assert_eq!(refused.json()["message"], "Service Unavailable");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "refused after the wait, not after the slow request"
    );
    let slow = slow.await.expect("joined");
    assert_eq!(slow.status, 200, "the admitted request is served");
    let again = send(post(&e, "DescribeLimits", None, b"{}".to_vec())).await;
    assert_eq!(again.status, 200, "served once the place is free");
}

/// The AWS SDK reads the 503 as `ServiceUnavailable` and retries it: with its retries
/// off the error reaches the caller, with them on the call succeeds once a place frees.
#[tokio::test]
async fn the_sdk_retries_a_503_until_a_place_frees() {
    use aws_sdk_dynamodb::config::retry::RetryConfig;
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    let server = KuraProcess::start_with(
        None,
        &[
            "--test-controls",
            "--max-in-flight",
            "1",
            "--max-queue-wait-ms",
            "50",
        ],
    );
    let e = server.endpoint.clone();
    let slow = hold_the_only_place(&e, 1000).await;
    let with_retries = |retry: RetryConfig| {
        let config = server
            .client()
            .config()
            .to_builder()
            .retry_config(retry)
            .build();
        aws_sdk_dynamodb::Client::from_conf(config)
    };
    let refused = with_retries(RetryConfig::disabled())
        .describe_limits()
        .send()
        .await
        .expect_err("no place within the wait");
    assert_eq!(refused.code(), Some("ServiceUnavailable"), "{refused:?}");
    let retrying = with_retries(
        RetryConfig::standard()
            .with_max_attempts(50)
            .with_initial_backoff(Duration::from_millis(20))
            .with_max_backoff(Duration::from_millis(100)),
    );
    retrying
        .describe_limits()
        .send()
        .await
        .expect("served after retries once the place frees");
    assert_eq!(slow.await.expect("joined").status, 200);
}

/// Every route's body has the same deadline as the API's: a trickled body to the test
/// controls or to a console form loses its answer and connection after
/// `--request-read-timeout`, and the server serves on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_outside_the_api_have_the_deadline_too() {
    let server = KuraProcess::start_with(None, &["--request-read-timeout", "1", "--test-controls"]);
    let addr = server.endpoint.trim_start_matches("http://").to_owned();
    let started = std::time::Instant::now();
    let mut trickles = Vec::new();
    for path in ["/kura/admin/faults", "/console/tables"] {
        let mut stream = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        stream
            .write_all(
                format!(
                    "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
                     Content-Length: 1000\r\n\r\n{{\"op"
                )
                .as_bytes(),
            )
            .await
            .expect("write");
        trickles.push((path, stream));
    }
    for (path, mut stream) in trickles {
        let answer = read_until_closed(&mut stream, Duration::from_secs(20)).await;
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            !answer.starts_with("HTTP/1.1 200"),
            "{path}: a body that never finished was served: {answer}"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "both cut at the deadline, not when the client gave up"
    );
    let reply = send(post(&server.endpoint, "ListTables", None, b"{}".to_vec())).await;
    assert_eq!(reply.status, 200, "still serving");
}

/// Request bytes have one budget for all connections (`--request-memory-mb`): while one
/// client holds most of it with a large body it has not finished, a request that would
/// go past it is answered 503 ServiceUnavailable (retryable) instead of being buffered;
/// once the first client is gone, the same request is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_bytes_share_one_budget() {
    let server = KuraProcess::start_with(
        None,
        &["--request-memory-mb", "16", "--request-read-timeout", "20"],
    );
    let e = server.endpoint.clone();
    let addr = e.trim_start_matches("http://").to_owned();
    // 12 MiB of a 15 MiB body, then silence.
    let mut holder = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    holder
        .write_all(
            format!(
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n\
                 X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: {}\r\n\r\n{{",
                15 << 20
            )
            .as_bytes(),
        )
        .await
        .expect("write");
    holder
        .write_all(&vec![b' '; 12 << 20])
        .await
        .expect("write");
    tokio::time::sleep(Duration::from_millis(500)).await;
    // A 6 MiB ListTables: valid JSON, over what is left.
    let padded = |n: usize| {
        let mut body = b"{".to_vec();
        body.extend(std::iter::repeat_n(b' ', n));
        body.push(b'}');
        body
    };
    let head = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        (6 << 20) + 2
    );
    let status = raw_status(&e, head.clone(), vec![padded(6 << 20)]).await;
    assert!(status.starts_with("HTTP/1.1 503"), "{status}");
    // Small requests still fit beside the holder.
    let reply = send(post(&e, "ListTables", None, b"{}".to_vec())).await;
    assert_eq!(reply.status, 200);
    drop(holder);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let status = raw_status(&e, head, vec![padded(6 << 20)]).await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
}

/// This host's address on a non-loopback interface, if it has one (the source address
/// the kernel would pick for a packet to the documentation range; nothing is sent).
fn non_loopback_address() -> Option<std::net::IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// Triggers are created at run time from this host only: the endpoint is unsigned and a
/// trigger runs a command, so with `--bind 0.0.0.0` a client on another address is
/// refused (403) while one on loopback is served.
#[tokio::test]
async fn runtime_triggers_are_managed_from_this_host_only() {
    let server = KuraProcess::start_with(None, &["--trigger-admin", "--bind", "0.0.0.0"]);
    let port = server.endpoint.rsplit(':').next().expect("port").to_owned();
    let create = |host: String| {
        http::Request::post(format!("http://{host}:{port}/kura/triggers"))
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from_static(
                br#"{"Name":"t","Table":"Missing","Function":{"Command":["true"]}}"#,
            )))
            .expect("request")
    };
    let Some(ip) = non_loopback_address() else {
        eprintln!("no non-loopback address on this host: only the loopback half is checked");
        let local = send(create("127.0.0.1".into())).await;
        assert_ne!(local.status, 403, "{:?}", local.body);
        return;
    };
    let remote = send(create(ip.to_string())).await;
    assert_eq!(remote.status, 403, "{:?}", remote.body);
    let message = remote.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("from this host only"), "{message}");
    let local = send(create("127.0.0.1".into())).await;
    assert_ne!(local.status, 403, "{:?}", local.body);
}

/// A body with more Content-Encodings than Kura undoes is refused before any is inflated,
/// with a SerializationException that counts them; the item is not written.
#[tokio::test]
async fn three_content_encodings_are_refused() {
    let server = KuraProcess::start(None);
    let e = server.endpoint.as_str();
    let create = br#"{"TableName":"Layers","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    assert_eq!(
        send(post(e, "CreateTable", None, create.to_vec()))
            .await
            .status,
        200
    );
    let put = br#"{"TableName":"Layers","Item":{"pk":{"S":"three"}}}"#;
    let body = gzip(&gzip(&gzip(put)));
    let reply = send(post(e, "PutItem", Some("gzip, gzip, gzip"), body)).await;
    assert_eq!(reply.status, 400, "{:?}", reply.body);
    assert_eq!(reply.error_type(), "SerializationException");
    let message = reply.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("3 Content-Encodings"), "{message}");
    let count = send(post(
        e,
        "Scan",
        None,
        br#"{"TableName":"Layers","Select":"COUNT"}"#.to_vec(),
    ))
    .await;
    assert_eq!(count.json()["Count"], 0);
}
