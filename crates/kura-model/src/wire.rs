//! DynamoDB JSON for attribute values: `{"S": "x"}`, `{"N": "1"}`, `{"B": "<base64>"}`, ...
//!
//! Decoding runs in two steps so that each failure gets DynamoDB's exception type: serde
//! reads the JSON shape into [`AttributeValueJson`] (a shape error is a
//! `SerializationException`), then [`AttributeValueJson::into_value`] applies DynamoDB's
//! value rules (a broken rule is a `ValidationException`).

use std::collections::{BTreeMap, HashSet};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};

use crate::error::ModelError;
use crate::limits::{MAX_ATTRIBUTE_NAME_BYTES, MAX_NESTING_DEPTH};
use crate::messages;
use crate::number::Number;
use crate::value::{AttributeValue, Item};

/// An attribute value as it arrives: every type field optional, nothing validated yet.
/// Serialized (absent types left out) only to quote a request back, as DynamoDB does in
/// some constraint failures.
#[derive(Debug, Default, Clone, Deserialize, Serialize)]
pub struct AttributeValueJson {
    #[serde(rename = "S", skip_serializing_if = "Option::is_none")]
    s: Option<String>,
    #[serde(rename = "N", skip_serializing_if = "Option::is_none")]
    n: Option<String>,
    #[serde(
        rename = "B",
        default,
        deserialize_with = "base64_text",
        skip_serializing_if = "Option::is_none"
    )]
    b: Option<String>,
    #[serde(rename = "BOOL", skip_serializing_if = "Option::is_none")]
    bool: Option<bool>,
    #[serde(rename = "NULL", skip_serializing_if = "Option::is_none")]
    null: Option<bool>,
    #[serde(rename = "L", skip_serializing_if = "Option::is_none")]
    l: Option<Vec<AttributeValueJson>>,
    #[serde(rename = "M", skip_serializing_if = "Option::is_none")]
    m: Option<BTreeMap<String, AttributeValueJson>>,
    #[serde(rename = "SS", skip_serializing_if = "Option::is_none")]
    ss: Option<Vec<String>>,
    #[serde(rename = "NS", skip_serializing_if = "Option::is_none")]
    ns: Option<Vec<String>>,
    #[serde(
        rename = "BS",
        default,
        deserialize_with = "base64_texts",
        skip_serializing_if = "Option::is_none"
    )]
    bs: Option<Vec<String>>,
}

/// An item as it arrives.
pub type ItemJson = BTreeMap<String, AttributeValueJson>;

/// Validates every name and value of an item (or key, or any attribute map).
pub fn item_from_json(item: ItemJson) -> Result<Item, ModelError> {
    item.into_iter()
        .map(|(name, value)| {
            check_attribute_name(&name)?;
            Ok((name, value.into_value()?))
        })
        .collect()
}

/// A top-level attribute name as DynamoDB takes it: not empty, under 65,536 bytes.
pub fn check_attribute_name(name: &str) -> Result<(), ModelError> {
    if name.is_empty() {
        return Err(ModelError::validation(messages::one_validation_error(
            messages::EMPTY_ATTRIBUTE_NAME,
        )));
    }
    check_name_size(name)
}

/// Any attribute name, a nested map key included: under 65,536 bytes. (An empty map key
/// is a value DynamoDB stores; only top-level names must not be empty.)
pub fn check_name_size(name: &str) -> Result<(), ModelError> {
    if name.len() > MAX_ATTRIBUTE_NAME_BYTES {
        return Err(ModelError::validation(messages::one_validation_error(
            messages::ATTRIBUTE_NAME_TOO_LARGE,
        )));
    }
    Ok(())
}

impl AttributeValueJson {
    /// The value of a string (`S`) as sent, when it is one and nothing else.
    pub fn as_string(&self) -> Option<&str> {
        let only_s = self.n.is_none() && self.b.is_none() && self.bool.is_none();
        self.s.as_deref().filter(|_| only_s)
    }

    /// The text of a scalar key value as sent (`S`, `N`, or the base64 of `B`), for the
    /// `dynamodb:LeadingKeys` condition key; None for any other type.
    pub fn key_text(&self) -> Option<&str> {
        self.s
            .as_deref()
            .or(self.n.as_deref())
            .or(self.b.as_deref())
    }

    /// Applies DynamoDB's value rules: exactly one type, numbers in range, sets non-empty
    /// and duplicate-free, `NULL` true, nesting at most 32 levels.
    pub fn into_value(self) -> Result<AttributeValue, ModelError> {
        self.into_value_at(1)
    }

    fn type_count(&self) -> usize {
        [
            self.s.is_some(),
            self.n.is_some(),
            self.b.is_some(),
            self.bool.is_some(),
            self.null.is_some(),
            self.l.is_some(),
            self.m.is_some(),
            self.ss.is_some(),
            self.ns.is_some(),
            self.bs.is_some(),
        ]
        .into_iter()
        .filter(|set| *set)
        .count()
    }

    fn into_value_at(self, depth: usize) -> Result<AttributeValue, ModelError> {
        match self.type_count() {
            0 => return Err(ModelError::validation(messages::EMPTY_ATTRIBUTE_VALUE)),
            1 => {}
            _ => return Err(ModelError::validation(messages::MULTIPLE_DATATYPES)),
        }
        // DynamoDB counts the attribute as level 1 and refuses any value, scalar or not,
        // below level 32 (paritysuite/dynamodb-conformance `nestingDepth.test.ts`, AWS
        // 2026: a leaf under 31 maps is accepted, under 32 refused).
        if depth > MAX_NESTING_DEPTH {
            return Err(ModelError::validation(messages::NESTING_TOO_DEEP));
        }
        let value = if let Some(s) = self.s {
            AttributeValue::S(s)
        } else if let Some(n) = self.n {
            AttributeValue::N(Number::parse(&n)?)
        } else if let Some(b) = self.b {
            AttributeValue::B(decode_base64(&b)?)
        } else if let Some(b) = self.bool {
            AttributeValue::Bool(b)
        } else if let Some(null) = self.null {
            if !null {
                return Err(ModelError::validation(messages::NULL_MUST_BE_TRUE));
            }
            AttributeValue::Null
        } else if let Some(list) = self.l {
            AttributeValue::L(
                list.into_iter()
                    .map(|v| v.into_value_at(depth + 1))
                    .collect::<Result<_, _>>()?,
            )
        } else if let Some(map) = self.m {
            AttributeValue::M(
                map.into_iter()
                    .map(|(k, v)| {
                        check_name_size(&k)?;
                        Ok((k, v.into_value_at(depth + 1)?))
                    })
                    .collect::<Result<_, ModelError>>()?,
            )
        } else if let Some(ss) = self.ss {
            check_set(&ss, "string", |items| {
                messages::set_duplicates(&format!("[{}]", items.join(", ")))
            })?;
            AttributeValue::Ss(ss)
        } else if let Some(ns) = self.ns {
            if ns.is_empty() {
                return Err(ModelError::validation(messages::empty_set("number")));
            }
            let numbers = ns
                .iter()
                .map(|n| Number::parse(n))
                .collect::<Result<Vec<_>, _>>()?;
            let mut seen = HashSet::with_capacity(numbers.len());
            if !numbers.iter().all(|n| seen.insert(n)) {
                return Err(ModelError::validation(messages::NUMBER_SET_DUPLICATES));
            }
            AttributeValue::Ns(numbers)
        } else if let Some(bs) = self.bs {
            let decoded = bs
                .iter()
                .map(|b| decode_base64(b))
                .collect::<Result<Vec<_>, _>>()?;
            if decoded.is_empty() {
                return Err(ModelError::validation(messages::EMPTY_BINARY_SET));
            }
            check_set(&decoded, "binary", |_| {
                messages::binary_set_duplicates(&format!("[{}]", bs.join(", ")))
            })?;
            AttributeValue::Bs(decoded)
        } else {
            // type_count() == 1 guarantees one branch above matched.
            return Err(ModelError::validation(messages::EMPTY_ATTRIBUTE_VALUE));
        };
        Ok(value)
    }
}

fn check_set<T: Eq + std::hash::Hash>(
    items: &[T],
    kind: &str,
    duplicates: impl FnOnce(&[T]) -> String,
) -> Result<(), ModelError> {
    if items.is_empty() {
        return Err(ModelError::validation(messages::empty_set(kind)));
    }
    let mut seen = HashSet::with_capacity(items.len());
    if !items.iter().all(|x| seen.insert(x)) {
        return Err(ModelError::validation(duplicates(items)));
    }
    Ok(())
}

/// Base64 is checked while the JSON is read, as DynamoDB's reader does: text no decoder
/// takes is a SerializationException wherever a binary value appears (Item, Key,
/// ExpressionAttributeValues, ExclusiveStartKey, PartiQL parameters, ...) and before any
/// validation of the request.
fn base64_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text = Option::<String>::deserialize(d)?;
    if let Some(t) = &text {
        check_base64(t)?;
    }
    Ok(text)
}

fn base64_texts<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    let texts = Option::<Vec<String>>::deserialize(d)?;
    for t in texts.iter().flatten() {
        check_base64(t)?;
    }
    Ok(texts)
}

fn check_base64<E: serde::de::Error>(text: &str) -> Result<(), E> {
    BASE64
        .decode(text)
        .map(drop)
        .map_err(|_| E::custom(messages::invalid_base64(text)))
}

fn decode_base64(text: &str) -> Result<Vec<u8>, ModelError> {
    BASE64
        .decode(text)
        .map_err(|_| ModelError::Serialization(messages::invalid_base64(text)))
}

impl Serialize for AttributeValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            AttributeValue::S(s) => map.serialize_entry("S", s)?,
            AttributeValue::N(n) => map.serialize_entry("N", &n.to_string())?,
            AttributeValue::B(b) => map.serialize_entry("B", &BASE64.encode(b))?,
            AttributeValue::Bool(b) => map.serialize_entry("BOOL", b)?,
            AttributeValue::Null => map.serialize_entry("NULL", &true)?,
            AttributeValue::L(l) => map.serialize_entry("L", l)?,
            AttributeValue::M(m) => map.serialize_entry("M", m)?,
            AttributeValue::Ss(ss) => map.serialize_entry("SS", ss)?,
            AttributeValue::Ns(ns) => map.serialize_entry("NS", &DisplaySeq(ns))?,
            AttributeValue::Bs(bs) => map.serialize_entry("BS", &Base64Seq(bs))?,
        }
        map.end()
    }
}

struct DisplaySeq<'a>(&'a [Number]);
impl Serialize for DisplaySeq<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for n in self.0 {
            seq.serialize_element(&n.to_string())?;
        }
        seq.end()
    }
}

struct Base64Seq<'a>(&'a [Vec<u8>]);
impl Serialize for Base64Seq<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for b in self.0 {
            seq.serialize_element(&BASE64.encode(b))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<AttributeValue, ModelError> {
        let raw: AttributeValueJson =
            serde_json::from_str(json).map_err(|e| ModelError::Serialization(e.to_string()))?;
        raw.into_value()
    }

    #[test]
    fn bad_base64_fails_while_reading() {
        for json in [
            r#"{"B": "not base64!"}"#,
            r#"{"B": "abc"}"#,
            r#"{"BS": ["AQ==", "%%"]}"#,
            r#"{"L": [{"M": {"x": {"B": "@"}}}]}"#,
        ] {
            let err = serde_json::from_str::<AttributeValueJson>(json).unwrap_err();
            assert!(
                err.to_string().contains(messages::INVALID_BASE64_END),
                "{json}: {err}"
            );
        }
        assert_eq!(
            parse(r#"{"B": "AAH/"}"#).unwrap(),
            AttributeValue::B(vec![0, 1, 255])
        );
    }

    fn validation(json: &str) -> String {
        match parse(json) {
            Err(ModelError::Validation(m)) => m,
            other => panic!("expected a validation error for {json}, got {other:?}"),
        }
    }

    #[test]
    fn every_type_round_trips_through_json() {
        let json = r#"{"M":{"b":{"B":"AAEC"},"bool":{"BOOL":true},"bs":{"BS":["AA==","AQ=="]},"l":{"L":[{"S":"x"},{"N":"1"}]},"n":{"N":"-12.5"},"ns":{"NS":["1","2"]},"null":{"NULL":true},"s":{"S":""},"ss":{"SS":["a","b"]}}}"#;
        let value = parse(json).expect("valid");
        assert_eq!(serde_json::to_string(&value).expect("serialise"), json);
    }

    #[test]
    fn type_count_rules() {
        assert_eq!(validation("{}"), messages::EMPTY_ATTRIBUTE_VALUE);
        assert_eq!(
            validation(r#"{"S":"a","N":"1"}"#),
            messages::MULTIPLE_DATATYPES
        );
        // A null member counts as absent, as DynamoDB's JSON reader treats it.
        assert_eq!(parse(r#"{"S":"a","N":null}"#), Ok(AttributeValue::s("a")));
    }

    #[test]
    fn set_rules() {
        assert_eq!(validation(r#"{"SS":[]}"#), messages::empty_set("string"));
        assert_eq!(validation(r#"{"NS":[]}"#), messages::empty_set("number"));
        assert_eq!(validation(r#"{"BS":[]}"#), messages::EMPTY_BINARY_SET);
        assert_eq!(
            validation(r#"{"BS":["Yg==","Yg=="]}"#),
            messages::binary_set_duplicates("[Yg==, Yg==]")
        );
        // Empty members are allowed in SS and BS (AWS Developer Guide, "Sets").
        assert!(parse(r#"{"BS":["","Yg=="]}"#).is_ok());
        assert!(parse(r#"{"SS":["","a"]}"#).is_ok());
        assert_eq!(
            validation(r#"{"SS":["a","a"]}"#),
            messages::set_duplicates("[a, a]")
        );
        // Duplicate by value, not by spelling.
        assert_eq!(
            validation(r#"{"NS":["1","1.0"]}"#),
            messages::NUMBER_SET_DUPLICATES
        );
    }

    #[test]
    fn null_must_be_true() {
        assert_eq!(validation(r#"{"NULL":false}"#), messages::NULL_MUST_BE_TRUE);
    }

    #[test]
    fn shape_errors_are_serialization_errors() {
        assert!(matches!(
            parse(r#"{"S":5}"#),
            Err(ModelError::Serialization(_))
        ));
        assert!(matches!(
            parse(r#"{"B":"!!"}"#),
            Err(ModelError::Serialization(_))
        ));
        assert!(matches!(
            parse(r#"{"L":{}}"#),
            Err(ModelError::Serialization(_))
        ));
    }

    #[test]
    fn nesting_limit_is_32_levels() {
        let nest = |levels: usize| {
            let mut json = r#"{"S":"leaf"}"#.to_owned();
            for _ in 0..levels {
                json = format!(r#"{{"L":[{json}]}}"#);
            }
            json
        };
        assert!(parse(&nest(31)).is_ok());
        assert_eq!(validation(&nest(32)), messages::NESTING_TOO_DEEP);
    }
}
