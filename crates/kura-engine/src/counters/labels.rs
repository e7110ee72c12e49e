//! Short labels of key values for the hot-key and insight counters.

use kura_model::AttributeValue;

/// A key value as Contributor Insights shows it: a string as is, a number in its digits,
/// binary in base64.
pub fn key_text(value: &AttributeValue) -> String {
    use base64::Engine as _;
    match value {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.to_string(),
        AttributeValue::B(b) => base64::engine::general_purpose::STANDARD.encode(b),
        other => format!("{other:?}"),
    }
}
