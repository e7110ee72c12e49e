//! Key schemas and the rules DynamoDB applies to primary keys in items and key maps.

use serde::{Deserialize, Serialize};

use crate::error::ModelError;
use crate::keycode::{self, ScalarType};
use crate::limits::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
use crate::messages;
use crate::size::value_size;
use crate::value::{AttributeValue, Item};

/// One key attribute: its name and scalar type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyAttribute {
    pub name: String,
    pub ty: ScalarType,
}

/// A table's (or, later, an index's) primary key: a partition key and an optional sort key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeySchema {
    pub hash: KeyAttribute,
    pub range: Option<KeyAttribute>,
}

/// The primary key values of one item, already validated against a [`KeySchema`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrimaryKey {
    pub hash: AttributeValue,
    pub range: Option<AttributeValue>,
}

impl KeyAttribute {
    /// Applies the key-value rules (non-empty, size limit) to a value of this attribute
    /// used as (part of) a partition key, e.g. in a key condition.
    pub fn check_partition_value(&self, value: &AttributeValue) -> Result<(), ModelError> {
        check_key_value(
            &self.name,
            value,
            MAX_PARTITION_KEY_BYTES,
            messages::PARTITION_KEY_TOO_LARGE,
        )
    }

    /// As [`KeyAttribute::check_partition_value`], for (part of) a sort key.
    pub fn check_sort_value(&self, value: &AttributeValue) -> Result<(), ModelError> {
        check_key_value(
            &self.name,
            value,
            MAX_SORT_KEY_BYTES,
            messages::SORT_KEY_TOO_LARGE,
        )
    }
}

impl KeySchema {
    /// The key attributes in schema order (partition key first).
    pub fn attributes(&self) -> impl Iterator<Item = &KeyAttribute> {
        std::iter::once(&self.hash).chain(self.range.as_ref())
    }

    /// Extracts the key of a full item, with PutItem's messages for missing or mistyped keys.
    pub fn key_of_item(&self, item: &Item) -> Result<PrimaryKey, ModelError> {
        let mut values = Vec::with_capacity(2);
        for attr in self.attributes() {
            let value = item
                .get(&attr.name)
                .ok_or_else(|| ModelError::validation(messages::missing_key_in_item(&attr.name)))?;
            if ScalarType::of(value) != Some(attr.ty) {
                return Err(ModelError::validation(messages::key_type_mismatch(
                    &attr.name,
                    attr.ty.descriptor(),
                    value.value_type().descriptor(),
                )));
            }
            values.push(value.clone());
        }
        self.finish(values)
    }

    /// Validates a key map (GetItem, DeleteItem, UpdateItem): exactly the key attributes,
    /// with the right types; anything else is "does not match the schema".
    pub fn key_of_key_map(&self, key: &Item) -> Result<PrimaryKey, ModelError> {
        let expected = self.attributes().count();
        if key.len() != expected {
            return Err(ModelError::validation(messages::KEY_SCHEMA_MISMATCH));
        }
        let mut values = Vec::with_capacity(2);
        for attr in self.attributes() {
            match key.get(&attr.name) {
                Some(value) if ScalarType::of(value) == Some(attr.ty) => values.push(value.clone()),
                _ => return Err(ModelError::validation(messages::KEY_SCHEMA_MISMATCH)),
            }
        }
        self.finish(values)
    }

    fn finish(&self, values: Vec<AttributeValue>) -> Result<PrimaryKey, ModelError> {
        let mut values = values.into_iter();
        let hash = values
            .next()
            .ok_or_else(|| ModelError::validation(messages::KEY_SCHEMA_MISMATCH))?;
        let range = values.next();
        check_key_value(
            &self.hash.name,
            &hash,
            MAX_PARTITION_KEY_BYTES,
            messages::PARTITION_KEY_TOO_LARGE,
        )?;
        if let (Some(attr), Some(value)) = (&self.range, &range) {
            check_key_value(
                &attr.name,
                value,
                MAX_SORT_KEY_BYTES,
                messages::SORT_KEY_TOO_LARGE,
            )?;
        }
        Ok(PrimaryKey { hash, range })
    }

    /// Applies the key-value rules (non-empty, size limit) to a partition-key value that
    /// arrives outside a key map, e.g. in a key condition.
    pub fn check_partition_value(&self, value: &AttributeValue) -> Result<(), ModelError> {
        check_key_value(
            &self.hash.name,
            value,
            MAX_PARTITION_KEY_BYTES,
            messages::PARTITION_KEY_TOO_LARGE,
        )
    }

    /// As [`KeySchema::check_partition_value`], for a sort-key value.
    pub fn check_sort_value(&self, value: &AttributeValue) -> Result<(), ModelError> {
        let name = self.range.as_ref().map_or("", |r| r.name.as_str());
        check_key_value(
            name,
            value,
            MAX_SORT_KEY_BYTES,
            messages::SORT_KEY_TOO_LARGE,
        )
    }

    /// The key as an attribute map (what GetItem's `Key` looks like).
    pub fn key_item(&self, key: &PrimaryKey) -> Item {
        let mut item = Item::new();
        item.insert(self.hash.name.clone(), key.hash.clone());
        if let (Some(attr), Some(value)) = (&self.range, &key.range) {
            item.insert(attr.name.clone(), value.clone());
        }
        item
    }
}

impl PrimaryKey {
    /// The order-preserving encoding of the partition key alone.
    pub fn encode_hash(&self) -> Result<Vec<u8>, ModelError> {
        let mut out = Vec::new();
        keycode::encode_key_value(&self.hash, &mut out)
            .map_err(|e| ModelError::validation(e.to_string()))?;
        Ok(out)
    }

    /// The order-preserving encoding of the sort key (empty without one).
    pub fn encode_range(&self) -> Result<Vec<u8>, ModelError> {
        let mut out = Vec::new();
        if let Some(range) = &self.range {
            keycode::encode_key_value(range, &mut out)
                .map_err(|e| ModelError::validation(e.to_string()))?;
        }
        Ok(out)
    }
}

fn check_key_value(
    name: &str,
    value: &AttributeValue,
    max: usize,
    too_large: &str,
) -> Result<(), ModelError> {
    match value {
        AttributeValue::S(s) if s.is_empty() => {
            return Err(ModelError::validation(messages::empty_key_string(name)));
        }
        AttributeValue::B(b) if b.is_empty() => {
            return Err(ModelError::validation(messages::empty_key_binary(name)));
        }
        _ => {}
    }
    if value_size(value) > max {
        return Err(ModelError::validation(too_large));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::Number;

    fn schema() -> KeySchema {
        KeySchema {
            hash: KeyAttribute {
                name: "pk".into(),
                ty: ScalarType::S,
            },
            range: Some(KeyAttribute {
                name: "sk".into(),
                ty: ScalarType::N,
            }),
        }
    }

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    fn n(s: &str) -> AttributeValue {
        AttributeValue::N(Number::parse(s).expect("number"))
    }

    fn err(r: Result<PrimaryKey, ModelError>) -> String {
        match r {
            Err(ModelError::Validation(m)) => m,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn item_keys() {
        let s = schema();
        let ok = item(&[
            ("pk", AttributeValue::s("a")),
            ("sk", n("1")),
            ("x", AttributeValue::Null),
        ]);
        assert!(s.key_of_item(&ok).is_ok());
        assert_eq!(
            err(s.key_of_item(&item(&[("pk", AttributeValue::s("a"))]))),
            messages::missing_key_in_item("sk")
        );
        assert_eq!(
            err(s.key_of_item(&item(&[("pk", n("1")), ("sk", n("1"))]))),
            messages::key_type_mismatch("pk", "S", "N")
        );
        assert_eq!(
            err(s.key_of_item(&item(&[("pk", AttributeValue::s("")), ("sk", n("1"))]))),
            messages::empty_key_string("pk")
        );
    }

    #[test]
    fn key_maps_must_match_exactly() {
        let s = schema();
        let extra = item(&[
            ("pk", AttributeValue::s("a")),
            ("sk", n("1")),
            ("x", n("2")),
        ]);
        assert_eq!(err(s.key_of_key_map(&extra)), messages::KEY_SCHEMA_MISMATCH);
        let wrong_type = item(&[
            ("pk", AttributeValue::s("a")),
            ("sk", AttributeValue::s("1")),
        ]);
        assert_eq!(
            err(s.key_of_key_map(&wrong_type)),
            messages::KEY_SCHEMA_MISMATCH
        );
    }

    #[test]
    fn key_size_limits() {
        let s = schema();
        let at_limit = item(&[("pk", AttributeValue::s("a".repeat(2048))), ("sk", n("1"))]);
        assert!(s.key_of_item(&at_limit).is_ok());
        let over = item(&[("pk", AttributeValue::s("a".repeat(2049))), ("sk", n("1"))]);
        assert_eq!(err(s.key_of_item(&over)), messages::PARTITION_KEY_TOO_LARGE);
        let hash_only = KeySchema {
            hash: KeyAttribute {
                name: "pk".into(),
                ty: ScalarType::S,
            },
            range: Some(KeyAttribute {
                name: "sk".into(),
                ty: ScalarType::S,
            }),
        };
        let over_sk = item(&[
            ("pk", AttributeValue::s("a")),
            ("sk", AttributeValue::s("b".repeat(1025))),
        ]);
        assert_eq!(
            err(hash_only.key_of_item(&over_sk)),
            messages::SORT_KEY_TOO_LARGE
        );
    }
}
