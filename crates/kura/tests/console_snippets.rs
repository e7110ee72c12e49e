//! The console's Rust code for a request runs as shown (issue 55: it was never compiled).
//! `console_snippets/query.rs` and `put.rs` are what the console shows for a Query and a
//! PutItem against `http://127.0.0.1:8000`, byte for byte (the first test holds them to
//! the generator); this file compiles them as they are, and the second test runs them
//! against a `kura serve` on that port.
#![allow(clippy::print_stdout)]
// the snippets print their answers, as shown
// `aws_sdk_dynamodb::Error` from main, as the SDK's own examples return it.
#![allow(clippy::result_large_err)]

use std::process::{Child, Command, Stdio};

mod query_snippet {
    include!("console_snippets/query.rs");

    pub fn run() -> Result<(), aws_sdk_dynamodb::Error> {
        main()
    }
}

mod put_snippet {
    include!("console_snippets/put.rs");

    pub fn run() -> Result<(), aws_sdk_dynamodb::Error> {
        main()
    }
}

const ENDPOINT: &str = "http://127.0.0.1:8000";

fn query_request() -> serde_json::Value {
    serde_json::json!({
        "TableName": "Snippets",
        "KeyConditionExpression": "#kura_pk = :kura_pk",
        "ExpressionAttributeNames": {"#kura_pk": "pk"},
        "ExpressionAttributeValues": {":kura_pk": {"S": "USER#1"}},
        "Limit": 20,
        "ReturnConsumedCapacity": "TOTAL",
    })
}

fn put_request() -> serde_json::Value {
    serde_json::json!({
        "TableName": "Snippets",
        "Item": {
            "pk": {"S": "USER#1"},
            "sk": {"S": "PROFILE"},
            "n": {"N": "42.5"},
            "b": {"B": "AAEC"},
            "tags": {"SS": ["a", "b"]},
            "m": {"M": {"l": {"L": [{"BOOL": true}, {"NULL": true}]}}},
        },
    })
}

fn rust_of(operation: &str, request: &serde_json::Value) -> String {
    kura_console::code::snippets(operation, request, ENDPOINT, "us-east-1")
        .into_iter()
        .find(|s| s.language.starts_with("Rust"))
        .map(|s| s.code)
        .expect("a Rust snippet")
}

#[test]
fn the_compiled_files_are_what_the_console_shows() {
    assert_eq!(
        rust_of("Query", &query_request()),
        include_str!("console_snippets/query.rs"),
        "the console's Rust for the Query changed: write it to console_snippets/query.rs"
    );
    assert_eq!(
        rust_of("PutItem", &put_request()),
        include_str!("console_snippets/put.rs"),
        "the console's Rust for the PutItem changed: write it to console_snippets/put.rs"
    );
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `kura serve` on port 8000, the port the snippets name.
fn serve_on_8000() -> Server {
    let child = Command::new(env!("CARGO_BIN_EXE_kura"))
        .args(["serve", "--in-memory", "--port", "8000"])
        .stderr(Stdio::null())
        .spawn()
        .expect("kura serve");
    let server = Server(child);
    for _ in 0..300 {
        if std::net::TcpStream::connect("127.0.0.1:8000").is_ok() {
            return server;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("nothing answers on 127.0.0.1:8000: is the port taken by another program?");
}

#[test]
fn the_snippets_run_as_shown() {
    let _server = serve_on_8000();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let client = runtime.block_on(async {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .endpoint_url(ENDPOINT)
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
            .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                "t", "t", None, None, "t",
            ))
            .build();
        let client = aws_sdk_dynamodb::Client::from_conf(config);
        let _ = client
            .create_table()
            .table_name("Snippets")
            .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
            .key_schema(key("pk", aws_sdk_dynamodb::types::KeyType::Hash))
            .key_schema(key("sk", aws_sdk_dynamodb::types::KeyType::Range))
            .attribute_definitions(attr("pk"))
            .attribute_definitions(attr("sk"))
            .send()
            .await
            .expect("create table");
        client
    });
    drop(runtime);
    put_snippet::run().expect("the PutItem snippet runs");
    query_snippet::run().expect("the Query snippet runs");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let items = runtime.block_on(async {
        client
            .scan()
            .table_name("Snippets")
            .send()
            .await
            .expect("scan")
            .items
            .unwrap_or_default()
    });
    assert_eq!(items.len(), 1);
    let item = &items[0];
    assert_eq!(item["n"].as_n().map(String::as_str), Ok("42.5"));
    assert_eq!(
        item["b"].as_b().map(|b| b.as_ref().to_vec()),
        Ok(vec![0, 1, 2])
    );
}

fn key(
    name: &str,
    kind: aws_sdk_dynamodb::types::KeyType,
) -> aws_sdk_dynamodb::types::KeySchemaElement {
    aws_sdk_dynamodb::types::KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()
        .expect("key")
}

fn attr(name: &str) -> aws_sdk_dynamodb::types::AttributeDefinition {
    aws_sdk_dynamodb::types::AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(aws_sdk_dynamodb::types::ScalarAttributeType::S)
        .build()
        .expect("attribute")
}
