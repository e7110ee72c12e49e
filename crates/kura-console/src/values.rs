//! Attribute values as the console shows and takes them: DynamoDB JSON (`{"S": "x"}`),
//! plain JSON (`"x"`), a short cell text, and keys packed into URLs.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};

/// The type descriptors of DynamoDB JSON.
const TYPES: &[&str] = &["S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"];

/// Whether `value` is one attribute value in DynamoDB JSON (`{"S": ...}` and so on).
pub(crate) fn is_typed(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.len() == 1 && map.keys().all(|k| TYPES.contains(&k.as_str())),
        _ => false,
    }
}

/// Plain JSON as DynamoDB JSON: strings are S, numbers N, booleans BOOL, null NULL, arrays
/// L and objects M. A value already in DynamoDB JSON is kept as it is, so sets and binary
/// can be written where plain JSON has no word for them.
pub(crate) fn to_typed(value: &Value) -> Value {
    if is_typed(value) {
        return value.clone();
    }
    match value {
        Value::String(s) => json!({ "S": s }),
        Value::Number(n) => json!({ "N": n.to_string() }),
        Value::Bool(b) => json!({ "BOOL": b }),
        Value::Null => json!({ "NULL": true }),
        Value::Array(list) => json!({ "L": list.iter().map(to_typed).collect::<Vec<_>>() }),
        Value::Object(map) => json!({ "M": to_typed_map(map) }),
    }
}

/// Every member of a plain JSON object as DynamoDB JSON (an item, or expression values).
pub(crate) fn to_typed_map(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter().map(|(k, v)| (k.clone(), to_typed(v))).collect()
}

/// DynamoDB JSON as plain JSON, in a form [`to_typed`] turns back into the same value:
/// strings, numbers (as JSON numbers when they are exactly one), booleans, null, lists
/// and maps become plain; sets and binary stay in DynamoDB JSON (plain JSON has no word for
/// them), and so does a map whose plain form would read as a typed value.
pub(crate) fn to_plain(value: &Value) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    let Some((kind, inner)) = map.iter().next() else {
        return value.clone();
    };
    match (kind.as_str(), inner) {
        ("S", Value::String(s)) => Value::String(s.clone()),
        ("N", Value::String(n)) => match n.parse::<serde_json::Number>() {
            // Only when the JSON number writes back as the same digits.
            Ok(number) if number.to_string() == *n => Value::Number(number),
            _ => value.clone(),
        },
        ("BOOL", Value::Bool(b)) => Value::Bool(*b),
        ("NULL", _) => Value::Null,
        ("L", Value::Array(list)) => Value::Array(list.iter().map(to_plain).collect()),
        ("M", Value::Object(members)) => {
            let plain: Map<String, Value> = members
                .iter()
                .map(|(k, v)| (k.clone(), to_plain(v)))
                .collect();
            let plain = Value::Object(plain);
            if is_typed(&plain) {
                value.clone()
            } else {
                plain
            }
        }
        _ => value.clone(),
    }
}

/// A whole item as plain JSON.
pub(crate) fn item_to_plain(item: &Map<String, Value>) -> Value {
    Value::Object(item.iter().map(|(k, v)| (k.clone(), to_plain(v))).collect())
}

/// A value as text: strings, numbers and binary as they are, sets in braces, documents as
/// compact plain JSON.
pub(crate) fn text(value: &Value) -> String {
    match value {
        Value::Object(map) => match map.iter().next().map(|(k, v)| (k.as_str(), v)) {
            Some(("S" | "N" | "B", Value::String(s))) => s.clone(),
            Some(("BOOL", Value::Bool(b))) => b.to_string(),
            Some(("NULL", _)) => "null".to_owned(),
            Some(("SS" | "NS" | "BS", Value::Array(list))) => format!(
                "{{{}}}",
                list.iter()
                    .map(|v| v.as_str().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => to_plain(value).to_string(),
        },
        other => other.to_string(),
    }
}

/// The type descriptor of a DynamoDB JSON value (`S`, `M`, ...).
pub(crate) fn type_of(value: &Value) -> &str {
    value
        .as_object()
        .and_then(|m| m.keys().next())
        .map_or("", String::as_str)
}

/// `text` cut to `max` characters, with an ellipsis when cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// A key (or any JSON) packed for a URL: base64url of its JSON.
pub(crate) fn pack(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

/// [`pack`] undone; None when the text is not one.
pub(crate) fn unpack(text: &str) -> Option<Value> {
    let bytes = URL_SAFE_NO_PAD.decode(text.trim()).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// A key attribute's value typed as the key schema says (`S`, `N` or `B`).
pub(crate) fn key_value(kind: &str, text: &str) -> Value {
    let kind = if matches!(kind, "N" | "B") { kind } else { "S" };
    json!({ kind: text })
}

/// A DynamoDB epoch-seconds time as UTC text.
pub(crate) fn time_text(seconds: &Value) -> String {
    let Some(s) = seconds.as_f64() else {
        return String::new();
    };
    time::OffsetDateTime::from_unix_timestamp_nanos((s * 1e9) as i128)
        .ok()
        .and_then(|t| {
            t.format(time::macros::format_description!(
                "[year]-[month]-[day] [hour]:[minute]:[second] UTC"
            ))
            .ok()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_json_becomes_dynamodb_json_and_back() {
        let plain = json!({"a": "x", "n": 1.5, "b": true, "z": null, "l": [1, "y"], "m": {"k": 2}});
        let typed = to_typed_map(plain.as_object().expect("object"));
        assert_eq!(typed["a"], json!({"S": "x"}));
        assert_eq!(typed["n"], json!({"N": "1.5"}));
        assert_eq!(typed["l"], json!({"L": [{"N": "1"}, {"S": "y"}]}));
        assert_eq!(typed["m"], json!({"M": {"k": {"N": "2"}}}));
        assert_eq!(item_to_plain(&typed), plain);
        // Plain numbers keep every digit DynamoDB keeps.
        let long: Value =
            serde_json::from_str(r#"{"n": 123456789012345678901234567890.5}"#).expect("json");
        let typed = to_typed_map(long.as_object().expect("object"));
        assert_eq!(typed["n"], json!({"N": "123456789012345678901234567890.5"}));
        // A typed value inside plain JSON stays typed (sets have no plain form).
        assert_eq!(to_typed(&json!({"SS": ["a"]})), json!({"SS": ["a"]}));
    }

    #[test]
    fn the_plain_view_gives_back_every_type_unchanged() {
        let item = json!({
            "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": ["AAE="]},
            "b": {"B": "AAE="}, "big": {"N": "12345678901234567890123456789012345678"},
            "exp": {"N": "1E+3"}, "m": {"M": {"S": {"S": "looks typed"}}},
            "l": {"L": [{"M": {"k": {"NULL": true}}}, {"BOOL": false}]}});
        let plain = item_to_plain(item.as_object().expect("object"));
        let back = to_typed_map(plain.as_object().expect("object"));
        assert_eq!(Value::Object(back), item);
    }

    #[test]
    fn cells_are_short_and_keys_survive_the_url() {
        assert_eq!(cut(&text(&json!({"S": "héllo"})), 2), "hé…");
        assert_eq!(text(&json!({"SS": ["a", "b"]})), "{a, b}");
        assert_eq!(text(&json!({"M": {"k": {"N": "1"}}})), "{\"k\":1}");
        let key = json!({"pk": {"S": "a/b?c"}});
        assert_eq!(unpack(&pack(&key)), Some(key));
        assert_eq!(unpack("%%%"), None);
    }
}
