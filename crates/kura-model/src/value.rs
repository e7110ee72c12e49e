//! `AttributeValue`: the ten DynamoDB data types, validated.
//!
//! The wire form (`{"S": "x"}`) lives in the `wire` module; a value of this type has passed
//! DynamoDB's validation (one type set, sets non-empty and duplicate-free, numbers in range).

use std::collections::BTreeMap;

use crate::number::Number;

/// An item or any map value: attribute name to value. Ordered so output is deterministic.
pub type Item = BTreeMap<String, AttributeValue>;

/// One DynamoDB attribute value.
///
/// Sets keep the caller's order (DynamoDB does not promise any) but never hold duplicates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttributeValue {
    S(String),
    N(Number),
    B(Vec<u8>),
    Bool(bool),
    Null,
    L(Vec<AttributeValue>),
    M(Item),
    Ss(Vec<String>),
    Ns(Vec<Number>),
    Bs(Vec<Vec<u8>>),
}

/// The type of an attribute value, named as DynamoDB names it on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValueType {
    S,
    N,
    B,
    Bool,
    Null,
    L,
    M,
    Ss,
    Ns,
    Bs,
}

impl ValueType {
    /// The descriptor DynamoDB uses in JSON and in messages (`S`, `BOOL`, `SS`, ...).
    pub fn descriptor(self) -> &'static str {
        match self {
            ValueType::S => "S",
            ValueType::N => "N",
            ValueType::B => "B",
            ValueType::Bool => "BOOL",
            ValueType::Null => "NULL",
            ValueType::L => "L",
            ValueType::M => "M",
            ValueType::Ss => "SS",
            ValueType::Ns => "NS",
            ValueType::Bs => "BS",
        }
    }
}

impl AttributeValue {
    pub fn value_type(&self) -> ValueType {
        match self {
            AttributeValue::S(_) => ValueType::S,
            AttributeValue::N(_) => ValueType::N,
            AttributeValue::B(_) => ValueType::B,
            AttributeValue::Bool(_) => ValueType::Bool,
            AttributeValue::Null => ValueType::Null,
            AttributeValue::L(_) => ValueType::L,
            AttributeValue::M(_) => ValueType::M,
            AttributeValue::Ss(_) => ValueType::Ss,
            AttributeValue::Ns(_) => ValueType::Ns,
            AttributeValue::Bs(_) => ValueType::Bs,
        }
    }

    /// Convenience constructor for tests and examples.
    pub fn s(value: impl Into<String>) -> Self {
        AttributeValue::S(value.into())
    }
}
