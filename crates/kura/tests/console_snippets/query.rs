// Cargo.toml: aws-sdk-dynamodb = "1", tokio = { version = "1", features = ["full"] }
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
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
        .query()
        .expression_attribute_names("#kura_pk", "pk")
        .expression_attribute_values(":kura_pk", AttributeValue::S("USER#1".to_owned()))
        .key_condition_expression("#kura_pk = :kura_pk")
        .limit(20)
        .table_name("Snippets")
        .send()
        .await?;
    println!("{response:?}");
    Ok(())
}
