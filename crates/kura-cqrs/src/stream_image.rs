//! Stream records' images as DynamoDB items: aws-sdk-dynamodbstreams and aws-sdk-dynamodb
//! have separate attribute value types.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodbstreams::types::AttributeValue as StreamValue;

use crate::rows::Item;

/// A streams attribute value as a DynamoDB one (the two SDKs have separate types).
fn convert(value: &StreamValue) -> AttributeValue {
    match value {
        StreamValue::S(v) => AttributeValue::S(v.clone()),
        StreamValue::N(v) => AttributeValue::N(v.clone()),
        StreamValue::B(v) => AttributeValue::B(v.clone()),
        StreamValue::Bool(v) => AttributeValue::Bool(*v),
        StreamValue::Null(v) => AttributeValue::Null(*v),
        StreamValue::Ss(v) => AttributeValue::Ss(v.clone()),
        StreamValue::Ns(v) => AttributeValue::Ns(v.clone()),
        StreamValue::Bs(v) => AttributeValue::Bs(v.clone()),
        StreamValue::L(v) => AttributeValue::L(v.iter().map(convert).collect()),
        StreamValue::M(v) => AttributeValue::M(stream_image(v)),
        _ => AttributeValue::Null(true),
    }
}

/// A stream record's image as a DynamoDB item.
pub fn stream_image(item: &HashMap<String, StreamValue>) -> Item {
    item.iter().map(|(k, v)| (k.clone(), convert(v))).collect()
}
