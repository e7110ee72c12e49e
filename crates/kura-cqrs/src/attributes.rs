//! JSON values to DynamoDB attribute values and back: commands carry their attributes as a
//! JSON-like map.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Map, Number, Value};

/// A JSON value as an attribute value: numbers as N, null as NULL, arrays as L, objects as
/// M.
pub fn to_attribute(value: &Value) -> AttributeValue {
    match value {
        Value::Null => AttributeValue::Null(true),
        Value::Bool(b) => AttributeValue::Bool(*b),
        Value::Number(n) => AttributeValue::N(n.to_string()),
        Value::String(s) => AttributeValue::S(s.clone()),
        Value::Array(items) => AttributeValue::L(items.iter().map(to_attribute).collect()),
        Value::Object(map) => AttributeValue::M(to_item(map)),
    }
}

/// A JSON object as an item (or map attribute).
pub fn to_item(map: &Map<String, Value>) -> HashMap<String, AttributeValue> {
    map.iter()
        .map(|(k, v)| (k.clone(), to_attribute(v)))
        .collect()
}

/// An attribute value as JSON. Sets become arrays, binaries base64-free byte arrays are
/// not expected in commands and become arrays of numbers.
pub fn to_json(value: &AttributeValue) -> Value {
    match value {
        AttributeValue::Null(_) => Value::Null,
        AttributeValue::Bool(b) => Value::Bool(*b),
        AttributeValue::N(n) => number(n),
        AttributeValue::S(s) => Value::String(s.clone()),
        AttributeValue::L(items) => Value::Array(items.iter().map(to_json).collect()),
        AttributeValue::M(map) => Value::Object(from_item(map)),
        AttributeValue::Ss(set) => Value::Array(set.iter().cloned().map(Value::String).collect()),
        AttributeValue::Ns(set) => Value::Array(set.iter().map(|n| number(n)).collect()),
        AttributeValue::B(blob) => bytes(blob.as_ref()),
        AttributeValue::Bs(set) => Value::Array(set.iter().map(|b| bytes(b.as_ref())).collect()),
        _ => Value::Null,
    }
}

/// An item (or map attribute) as a JSON object.
pub fn from_item(item: &HashMap<String, AttributeValue>) -> Map<String, Value> {
    item.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()
}

/// A DynamoDB number as JSON: an integer or a float when it round-trips, else the text.
fn number(text: &str) -> Value {
    if let Ok(i) = text.parse::<i64>() {
        return Value::Number(i.into());
    }
    match text.parse::<f64>().ok().and_then(Number::from_f64) {
        Some(n) if n.to_string() == text => Value::Number(n),
        _ => text
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map_or_else(|| Value::String(text.to_owned()), Value::Number),
    }
}

fn bytes(b: &[u8]) -> Value {
    Value::Array(b.iter().map(|x| Value::Number((*x).into())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_round_trips() {
        let value = json!({"a": 1, "b": [true, null, "x", 2.5], "c": {"d": -7}});
        let back = to_json(&to_attribute(&value));
        assert_eq!(back, value);
    }
}
