// Cargo.toml: aws-sdk-dynamodb = "1", tokio = { version = "1", features = ["full"] }
use std::collections::HashMap;

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

#[tokio::main]
async fn main() -> Result<(), aws_sdk_dynamodb::Error> {
    // Local placeholders: a kura serve without --auth takes any key. Not for AWS.
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url("http://127.0.0.1:8000")
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "kura"))
        .build();
    let client = aws_sdk_dynamodb::Client::from_conf(config);
    let response = client
        .put_item()
        .item("b", AttributeValue::B(Blob::new(vec![0, 1, 2])))
        .item("m", AttributeValue::M(HashMap::from([("l".to_owned(), AttributeValue::L(vec![AttributeValue::Bool(true), AttributeValue::Null(true)]))])))
        .item("n", AttributeValue::N("42.5".to_owned()))
        .item("pk", AttributeValue::S("USER#1".to_owned()))
        .item("sk", AttributeValue::S("PROFILE".to_owned()))
        .item("tags", AttributeValue::Ss(vec!["a".to_owned(), "b".to_owned()]))
        .table_name("Snippets")
        .send()
        .await?;
    println!("{response:?}");
    Ok(())
}
