//! JSON values to DynamoDB attribute values and back: commands carry their attributes as a
//! JSON-like map.
//!
//! Numbers are exact (the default `exact-numbers` feature). serde_json's
//! `arbitrary_precision` keeps a JSON number as its text,
//! so the 38 significant digits and the exponent range DynamoDB allows (`1E-130` to
//! `9.99…E+125`) survive both ways; no number passes through `f64`. Both directions
//! write a number in DynamoDB's canonical form (plain notation, no leading or trailing
//! zeros, no `-0`: `1.50` and `15E-1` are `1.5`, `-1E+2` is `-100`), so what a command
//! carries equals what DynamoDB gives back, and the "not dirty" check compares values.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Map, Number, Value};

/// A JSON value as an attribute value: numbers as N, null as NULL, arrays as L, objects as
/// M.
pub fn to_attribute(value: &Value) -> AttributeValue {
    match value {
        Value::Null => AttributeValue::Null(true),
        Value::Bool(b) => AttributeValue::Bool(*b),
        Value::Number(n) => {
            let text = n.to_string();
            AttributeValue::N(canonical_number(&text).unwrap_or(text))
        }
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

/// `value` with every number in canonical form (what a round trip through DynamoDB
/// gives).
pub fn canonical(value: &Value) -> Value {
    match value {
        Value::Number(n) => {
            let text = n.to_string();
            match canonical_number(&text) {
                Some(c) if c != text => number(&c),
                _ => value.clone(),
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        Value::Object(map) => Value::Object(canonical_map(map)),
        other => other.clone(),
    }
}

/// [`canonical`] over a map's values.
pub fn canonical_map(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect()
}

/// A DynamoDB number as JSON, digit for digit (a string only if it is no JSON number).
fn number(text: &str) -> Value {
    let text = canonical_number(text).unwrap_or_else(|| text.to_owned());
    match serde_json::from_str::<Number>(&text) {
        Ok(n) => Value::Number(n),
        Err(_) => Value::String(text),
    }
}

/// The widest exponent a canonical form is written out for: DynamoDB's range (10^-130 to
/// 10^126) with 38 digits of room either side; anything wider is no DynamoDB number and
/// is left as it is (DynamoDB refuses it).
const MAX_EXPONENT: i64 = 130 + 38;

/// DynamoDB's canonical text of a number: plain notation, no leading zeros, no trailing
/// fractional zeros, no `-0`. `None` when `text` is no decimal number (or is far out of
/// DynamoDB's range).
pub fn canonical_number(text: &str) -> Option<String> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    if exponent.abs() > MAX_EXPONENT * 2 {
        return None;
    }
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // value = digits × 10^exponent
    let digits = format!("{int}{frac}");
    let mut exponent = exponent - i64::try_from(frac.len()).ok()?;
    let digits = digits.trim_start_matches('0');
    let trimmed = digits.trim_end_matches('0');
    exponent += i64::try_from(digits.len() - trimmed.len()).ok()?;
    if trimmed.is_empty() {
        return Some("0".to_owned());
    }
    let length = i64::try_from(trimmed.len()).ok()?;
    if exponent > MAX_EXPONENT || exponent + length < -MAX_EXPONENT {
        return None;
    }
    let mut out = String::with_capacity(trimmed.len() + 2);
    if negative {
        out.push('-');
    }
    if exponent >= 0 {
        out.push_str(trimmed);
        out.extend(std::iter::repeat_n('0', usize::try_from(exponent).ok()?));
    } else {
        let point = length + exponent; // digits before the decimal point
        if point > 0 {
            let point = usize::try_from(point).ok()?;
            out.push_str(&trimmed[..point]);
            out.push('.');
            out.push_str(&trimmed[point..]);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', usize::try_from(-point).ok()?));
            out.push_str(trimmed);
        }
    }
    Some(out)
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

    /// Numbers past f64 keep every digit, both ways.
    #[test]
    #[cfg(feature = "exact-numbers")]
    fn numbers_are_exact() {
        for text in [
            "12345678901234567890123456789012345678",
            "-12345678901234567890123456789012345678",
            "0.1000000000000000000000000000000000001",
            "9007199254740993",
            "18446744073709551616",
            "-0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
        ] {
            let value = to_json(&AttributeValue::N(text.into()));
            assert_eq!(value.to_string(), text);
            assert_eq!(to_attribute(&value), AttributeValue::N(text.into()));
            let parsed: Value = serde_json::from_str(text).expect("json");
            assert_eq!(to_attribute(&parsed), AttributeValue::N(text.into()));
        }
    }

    #[test]
    fn canonical_forms() {
        let expect = |text: &str, canonical: &str| {
            assert_eq!(canonical_number(text).as_deref(), Some(canonical), "{text}");
        };
        expect("-1E+125", &format!("-1{}", "0".repeat(125)));
        expect("1e5", "100000");
        expect("1.50", "1.5");
        expect("0.000", "0");
        expect("-0", "0");
        expect("0012", "12");
        expect("1.0E2", "100");
        expect("-5e-3", "-0.005");
        expect("15E-1", "1.5");
        expect("1E-130", &format!("0.{}1", "0".repeat(129)));
        expect("120", "120");
        expect(".5", "0.5");
        for bad in [
            "",
            "-",
            "abc",
            "1e",
            "1.2.3",
            "0x10",
            "1e99999999999999999999",
            ".",
        ] {
            assert_eq!(canonical_number(bad), None, "{bad}");
        }
        // JSON in, canonical N out; canonical N in, the same JSON text out.
        let big: Value = serde_json::from_str("-1E+125").expect("json");
        let AttributeValue::N(text) = to_attribute(&big) else {
            panic!("not a number")
        };
        assert_eq!(text, format!("-1{}", "0".repeat(125)));
        assert_eq!(canonical(&json!({"a": [big]}))["a"][0].to_string(), text);
    }
}
