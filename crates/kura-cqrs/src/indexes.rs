//! A module's secondary indexes on its data table: declared once, their key attributes
//! computed from each command version when it is published and stored on the command row,
//! so that every projector (this crate's, `kura cqrs project`, one on another machine)
//! carries them to the data row without knowing the declarations. `ensure_tables_with`
//! creates them; `DataService::query_index` reads them.
//!
//! A key attribute is either a framework field already on every row (`tenantCode`,
//! `type`, `updatedAt`, ...: nothing is copied) or an attribute of its own whose value
//! is parts joined with `#`: framework fields, entity attributes and fixed text. An
//! entity that lacks a part is left out of the index (a sparse index), as DynamoDB does
//! with an item that lacks a key attribute. Up to four attributes per key make a
//! multi-attribute key (DynamoDB's, 2025).

use std::collections::{BTreeMap, HashSet};

use aws_sdk_dynamodb::types::{AttributeValue, ScalarAttributeType};
use serde_json::Value;

use crate::attributes::canonical_number;
use crate::command::CommandModel;
use crate::error::{CqrsError, Result};
use crate::keys::KEY_SEPARATOR;
use crate::names::{
    CODE, CREATED_AT, CREATED_BY, NAME, PK, SEQ, SK, TENANT_CODE, TYPE, UPDATED_AT, UPDATED_BY,
    VERSION, is_framework_attribute,
};

/// DynamoDB's limit of attributes in a partition or a sort key of a GSI.
const MAX_KEY_ATTRIBUTES: usize = 4;

/// One part of a key attribute's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyPart {
    /// A framework field of the row (`tenantCode`, `type`, `code`, `name`, `createdAt`,
    /// `updatedAt`, `createdBy`, `updatedBy`, `seq`, `version`, `pk`, `sk`).
    Field(&'static str),
    /// A top-level attribute of the entity (a string, a number or a boolean).
    Attribute(String),
    /// Fixed text, filled in on write and on query (an entity type such as `ORDER`).
    Literal(String),
}

/// One key attribute of an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexKey {
    /// The attribute's name on the row.
    pub attribute: String,
    /// `S`, or `N` for a number taken from one part.
    pub kind: ScalarAttributeType,
    /// Its value: the parts joined with `#`. Empty for a framework field used as it is.
    pub parts: Vec<KeyPart>,
}

impl IndexKey {
    /// A framework field used as the key as it is (`tenantCode`, `updatedAt`, `version`,
    /// ...): nothing is copied. `seq` and `version` are numbers, the rest strings.
    pub fn field(name: &'static str) -> IndexKey {
        let kind = if matches!(name, SEQ | VERSION) {
            ScalarAttributeType::N
        } else {
            ScalarAttributeType::S
        };
        IndexKey {
            attribute: name.to_owned(),
            kind,
            parts: Vec::new(),
        }
    }

    /// A string key attribute of its own, named `attribute`; add its parts with
    /// [`IndexKey::with_field`], [`IndexKey::with_attribute`] and [`IndexKey::with_literal`].
    pub fn string(attribute: impl Into<String>) -> IndexKey {
        IndexKey {
            attribute: attribute.into(),
            kind: ScalarAttributeType::S,
            parts: Vec::new(),
        }
    }

    /// A number key attribute of its own, named `attribute`, holding the entity's number
    /// attribute `from` (an entity whose `from` is not a number is left out).
    pub fn number(attribute: impl Into<String>, from: impl Into<String>) -> IndexKey {
        IndexKey {
            attribute: attribute.into(),
            kind: ScalarAttributeType::N,
            parts: vec![KeyPart::Attribute(from.into())],
        }
    }

    pub fn with_field(mut self, name: &'static str) -> IndexKey {
        self.parts.push(KeyPart::Field(name));
        self
    }

    pub fn with_attribute(mut self, name: impl Into<String>) -> IndexKey {
        self.parts.push(KeyPart::Attribute(name.into()));
        self
    }

    pub fn with_literal(mut self, text: impl Into<String>) -> IndexKey {
        self.parts.push(KeyPart::Literal(text.into()));
        self
    }

    /// Whether the key is a framework field used as it is (nothing written).
    fn is_field(&self) -> bool {
        self.parts.is_empty()
    }

    /// How many values a query gives for this key: one per part that is not fixed text
    /// (one for a framework field).
    fn variable_parts(&self) -> usize {
        if self.is_field() {
            return 1;
        }
        self.parts
            .iter()
            .filter(|p| !matches!(p, KeyPart::Literal(_)))
            .count()
    }

    /// The names of the values a query gives for this key, in order: the field's name for
    /// a framework field used as it is, else each part's that is not fixed text.
    pub(crate) fn variable_names(&self) -> Vec<&str> {
        if self.is_field() {
            return vec![self.attribute.as_str()];
        }
        self.parts
            .iter()
            .filter_map(|p| match p {
                KeyPart::Field(name) => Some(*name),
                KeyPart::Attribute(name) => Some(name.as_str()),
                KeyPart::Literal(_) => None,
            })
            .collect()
    }

    /// The key's value for `row`; `None` when a part is missing (the row stays out).
    fn value_of(&self, row: &CommandModel) -> Option<AttributeValue> {
        let mut texts = Vec::with_capacity(self.parts.len());
        for part in &self.parts {
            texts.push(match part {
                KeyPart::Field(name) => field_text(row, name)?,
                KeyPart::Attribute(name) => attribute_text(row.attributes.get(name)?)?,
                KeyPart::Literal(text) => text.clone(),
            });
        }
        // DynamoDB refuses an empty string as an index key: the row stays out instead.
        Some(texts.join(KEY_SEPARATOR))
            .filter(|t| !t.is_empty())
            .and_then(|t| self.typed(t))
    }

    /// The key's value from a query's values (fixed text filled in).
    fn value_from(&self, values: &mut std::slice::Iter<'_, String>) -> Result<AttributeValue> {
        let mut next = || {
            values.next().cloned().ok_or_else(|| {
                CqrsError::InvalidKey(format!("no value for the index key {}", self.attribute))
            })
        };
        let text = if self.is_field() {
            next()?
        } else {
            let mut texts = Vec::with_capacity(self.parts.len());
            for part in &self.parts {
                texts.push(match part {
                    KeyPart::Literal(text) => text.clone(),
                    _ => next()?,
                });
            }
            texts.join(KEY_SEPARATOR)
        };
        self.typed(text).ok_or_else(|| {
            CqrsError::InvalidKey(format!("the index key {} is a number", self.attribute))
        })
    }

    fn typed(&self, text: String) -> Option<AttributeValue> {
        match self.kind {
            ScalarAttributeType::N => canonical_number(&text).map(AttributeValue::N),
            _ => Some(AttributeValue::S(text)),
        }
    }
}

/// The text of a framework field of `row`.
fn field_text(row: &CommandModel, name: &str) -> Option<String> {
    Some(match name {
        PK => row.pk.clone(),
        SK => row.base_sk().to_owned(),
        TENANT_CODE => row.tenant_code.clone(),
        TYPE => row.kind.clone(),
        CODE => row.code.clone(),
        NAME => row.name.clone(),
        CREATED_AT => row.audit.created_at.clone(),
        UPDATED_AT => row.audit.updated_at.clone(),
        CREATED_BY => row.audit.created_by.clone(),
        UPDATED_BY => row.audit.updated_by.clone(),
        VERSION => row.version.to_string(),
        SEQ => row.seq?.to_string(),
        _ => return None,
    })
}

pub(crate) fn attribute_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

const FIELDS: [&str; 12] = [
    PK,
    SK,
    TENANT_CODE,
    TYPE,
    CODE,
    NAME,
    CREATED_AT,
    UPDATED_AT,
    CREATED_BY,
    UPDATED_BY,
    VERSION,
    SEQ,
];

/// A global secondary index of the data table (projection `ALL`: its rows read back as
/// whole data rows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    pub name: String,
    /// One to four attributes.
    pub partition: Vec<IndexKey>,
    /// None to four attributes.
    pub sort: Vec<IndexKey>,
}

impl Index {
    pub fn new(name: impl Into<String>) -> Index {
        Index {
            name: name.into(),
            partition: Vec::new(),
            sort: Vec::new(),
        }
    }

    /// Adds a partition key attribute (more than one: a multi-attribute key).
    pub fn partition(mut self, key: IndexKey) -> Index {
        self.partition.push(key);
        self
    }

    /// Adds a sort key attribute (more than one: a multi-attribute key).
    pub fn sort(mut self, key: IndexKey) -> Index {
        self.sort.push(key);
        self
    }

    pub fn keys(&self) -> impl Iterator<Item = &IndexKey> {
        self.partition.iter().chain(&self.sort)
    }

    fn check(&self) -> Result<()> {
        let refuse = |problem: String| {
            Err(CqrsError::InvalidKey(format!(
                "index {}: {problem}",
                self.name
            )))
        };
        if !(1..=MAX_KEY_ATTRIBUTES).contains(&self.partition.len()) {
            return refuse(format!(
                "a partition key has 1 to {MAX_KEY_ATTRIBUTES} attributes, not {}",
                self.partition.len()
            ));
        }
        if self.sort.len() > MAX_KEY_ATTRIBUTES {
            return refuse(format!(
                "a sort key has at most {MAX_KEY_ATTRIBUTES} attributes, not {}",
                self.sort.len()
            ));
        }
        let mut seen = HashSet::new();
        for key in self.keys() {
            if !seen.insert(key.attribute.as_str()) {
                return refuse(format!("{} is in the key twice", key.attribute));
            }
            if key.is_field() {
                if !FIELDS.contains(&key.attribute.as_str()) {
                    return refuse(format!(
                        "{} is no framework field (one of {FIELDS:?}); give it parts",
                        key.attribute
                    ));
                }
            } else if is_framework_attribute(&key.attribute) {
                return refuse(format!(
                    "{} is a framework attribute: name the key attribute otherwise",
                    key.attribute
                ));
            }
            if key.kind == ScalarAttributeType::N && key.parts.len() > 1 {
                return refuse(format!("the number key {} has one part", key.attribute));
            }
            if let Some(KeyPart::Field(name)) = key
                .parts
                .iter()
                .find(|p| matches!(p, KeyPart::Field(f) if !FIELDS.contains(f)))
            {
                return refuse(format!("{name} is no framework field (one of {FIELDS:?})"));
            }
        }
        Ok(())
    }
}

/// The indexes of one module, checked together (names unique, one type per attribute).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Indexes(Vec<Index>);

impl Indexes {
    pub fn new(indexes: impl IntoIterator<Item = Index>) -> Result<Indexes> {
        let indexes: Vec<Index> = indexes.into_iter().collect();
        let mut names = HashSet::new();
        let mut kinds: BTreeMap<&str, &IndexKey> = BTreeMap::new();
        for index in &indexes {
            index.check()?;
            if !names.insert(index.name.as_str()) {
                return Err(CqrsError::InvalidKey(format!(
                    "two indexes are named {}",
                    index.name
                )));
            }
            for key in index.keys() {
                // One attribute holds one value: two indexes sharing it must compute it
                // the same way.
                if let Some(other) = kinds.insert(&key.attribute, key)
                    && other != key
                {
                    return Err(CqrsError::InvalidKey(format!(
                        "the index attribute {} is declared two ways",
                        key.attribute
                    )));
                }
            }
        }
        Ok(Indexes(indexes))
    }

    pub fn iter(&self) -> impl Iterator<Item = &Index> {
        self.0.iter()
    }

    pub fn get(&self, name: &str) -> Option<&Index> {
        self.0.iter().find(|i| i.name == name)
    }

    /// The declared index `name`, or an error naming the declared ones.
    pub fn declared(&self, name: &str) -> Result<&Index> {
        self.get(name).ok_or_else(|| {
            let declared: Vec<&str> = self.0.iter().map(|i| i.name.as_str()).collect();
            CqrsError::InvalidKey(format!(
                "no index {name} is declared (the module declares {declared:?})"
            ))
        })
    }

    /// Refuses a query on an index this module does not declare, or declares otherwise
    /// (its key would be computed one way on write and another on read).
    pub(crate) fn check_query(&self, index: &Index) -> Result<()> {
        if self.declared(&index.name)? != index {
            return Err(CqrsError::InvalidKey(format!(
                "index {} is declared otherwise by the module",
                index.name
            )));
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The key attributes every index needs on `row`, computed from it (framework fields
    /// are on the row already; a key with a missing part is left out).
    pub fn keys_of(&self, row: &CommandModel) -> BTreeMap<String, AttributeValue> {
        let mut keys = BTreeMap::new();
        for key in self.0.iter().flat_map(Index::keys) {
            if key.is_field() {
                continue;
            }
            if let Some(value) = key.value_of(row) {
                keys.insert(key.attribute.clone(), value);
            }
        }
        keys
    }
}

/// A key condition expression with its placeholders.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct KeyCondition {
    pub expression: String,
    pub names: BTreeMap<String, String>,
    pub values: BTreeMap<String, AttributeValue>,
    /// The same as data: each attribute that must equal a value...
    pub equal: Vec<(String, AttributeValue)>,
    /// ... and the attribute the sort condition is on, with its operands.
    pub range: Option<(String, Vec<AttributeValue>)>,
}

/// The key condition of a query on `index`: `partition` gives the variable parts of
/// every partition key attribute in order (fixed text is filled in; a framework field
/// takes one value); `sort_equal` the whole values of leading sort key attributes (a
/// multi-attribute sort key); `sort` a condition on the next one.
pub(crate) fn key_condition(
    index: &Index,
    partition: &[String],
    sort_equal: &[String],
    sort: Option<&crate::condition::SkCondition>,
) -> Result<KeyCondition> {
    let expected = index
        .partition
        .iter()
        .map(IndexKey::variable_parts)
        .sum::<usize>();
    if partition.len() != expected {
        return Err(CqrsError::InvalidKey(format!(
            "index {} takes {expected} partition values, not {}",
            index.name,
            partition.len()
        )));
    }
    let used = sort_equal.len() + usize::from(sort.is_some());
    if used > index.sort.len() {
        return Err(CqrsError::InvalidKey(format!(
            "index {} has {} sort key attributes, the query names {used}",
            index.name,
            index.sort.len()
        )));
    }
    let mut clauses = Vec::new();
    let mut names = BTreeMap::new();
    let mut values = BTreeMap::new();
    let mut equal = Vec::new();
    let mut parts = partition.iter();
    for (i, key) in index.partition.iter().enumerate() {
        let value = key.value_from(&mut parts)?;
        names.insert(format!("#p{i}"), key.attribute.clone());
        values.insert(format!(":p{i}"), value.clone());
        clauses.push(format!("#p{i} = :p{i}"));
        equal.push((key.attribute.clone(), value));
    }
    for (i, (key, value)) in index.sort.iter().zip(sort_equal).enumerate() {
        let value = typed_whole(key, value)?;
        names.insert(format!("#s{i}"), key.attribute.clone());
        values.insert(format!(":s{i}"), value.clone());
        clauses.push(format!("#s{i} = :s{i}"));
        equal.push((key.attribute.clone(), value));
    }
    let mut range = None;
    if let Some(condition) = sort {
        let key = &index.sort[sort_equal.len()];
        names.insert("#r".into(), key.attribute.clone());
        let (text, operands) = condition.expression_on("#r");
        let mut typed = Vec::new();
        for (name, operand) in [":a", ":b"].iter().zip(operands) {
            let value = typed_whole(key, &operand)?;
            values.insert((*name).into(), value.clone());
            typed.push(value);
        }
        clauses.push(text);
        range = Some((key.attribute.clone(), typed));
    }
    Ok(KeyCondition {
        expression: clauses.join(" AND "),
        names,
        values,
        equal,
        range,
    })
}

fn typed_whole(key: &IndexKey, value: &str) -> Result<AttributeValue> {
    key.typed(value.to_owned()).ok_or_else(|| {
        CqrsError::InvalidKey(format!(
            "{value:?} is no number for the index key {}",
            key.attribute
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{CommandInput, Invoker};
    use serde_json::json;

    fn order(status: Option<&str>, total: serde_json::Value) -> CommandModel {
        let mut attributes = serde_json::Map::new();
        if let Some(status) = status {
            attributes.insert("status".into(), json!(status));
        }
        attributes.insert("total".into(), total);
        let input = CommandInput::new("ORDER#t1", "ORDER#1", 0).with_attributes(attributes);
        CommandModel::from_input(
            &input,
            1,
            &Invoker::default(),
            None,
            "2026-03-10T09:00:00.000Z",
        )
    }

    fn by_status() -> Index {
        Index::new("by-status")
            .partition(
                IndexKey::string("gsiStatus")
                    .with_field(TENANT_CODE)
                    .with_literal("ORDER")
                    .with_attribute("status"),
            )
            .sort(IndexKey::field(UPDATED_AT))
    }

    #[test]
    fn keys_are_written_from_the_row_and_left_out_when_a_part_is_missing() {
        let indexes = Indexes::new([
            by_status(),
            Index::new("by-total")
                .partition(IndexKey::field(TYPE))
                .sort(IndexKey::number("gsiTotal", "total")),
        ])
        .expect("valid");
        let keys = indexes.keys_of(&order(Some("PENDING"), json!(12.50)));
        assert_eq!(
            keys,
            BTreeMap::from([
                (
                    "gsiStatus".into(),
                    AttributeValue::S("t1#ORDER#PENDING".into())
                ),
                ("gsiTotal".into(), AttributeValue::N("12.5".into())),
            ])
        );
        let sparse = indexes.keys_of(&order(None, json!("n/a")));
        assert!(sparse.is_empty(), "{sparse:?}");
    }

    #[test]
    fn a_query_fills_in_fixed_text() {
        let KeyCondition {
            expression,
            names,
            values,
            ..
        } = key_condition(
            &by_status(),
            &["t1".into(), "PENDING".into()],
            &[],
            Some(&crate::condition::SkCondition::Ge("2026-03".into())),
        )
        .expect("condition");
        assert_eq!(expression, "#p0 = :p0 AND #r >= :a");
        assert_eq!(names["#p0"], "gsiStatus");
        assert_eq!(values[":p0"], AttributeValue::S("t1#ORDER#PENDING".into()));
        assert!(key_condition(&by_status(), &["t1".into()], &[], None).is_err());
    }

    #[test]
    fn declarations_are_checked() {
        let clash = Index::new("x").partition(IndexKey::string("status").with_attribute("status"));
        assert!(
            Indexes::new([clash]).is_err(),
            "status is the command's own"
        );
        assert!(Indexes::new([Index::new("x")]).is_err(), "no partition key");
        let unknown = Index::new("x").partition(IndexKey::field("colour"));
        assert!(Indexes::new([unknown]).is_err());
        let twice = [by_status(), by_status()];
        assert!(Indexes::new(twice).is_err());
        let five = (0..5).fold(Index::new("x"), |i, n| {
            i.partition(IndexKey::string(format!("k{n}")).with_attribute("a"))
        });
        assert!(Indexes::new([five]).is_err());
        let typed = [
            Index::new("a").partition(IndexKey::string("k").with_attribute("a")),
            Index::new("b").partition(IndexKey::number("k", "a")),
        ];
        assert!(Indexes::new(typed).is_err(), "one type per attribute");
        let two_ways = [
            Index::new("a").partition(IndexKey::string("k").with_attribute("a")),
            Index::new("b").partition(IndexKey::string("k").with_attribute("b")),
        ];
        assert!(Indexes::new(two_ways).is_err(), "one value per attribute");
        let shared = [
            Index::new("a").partition(IndexKey::string("k").with_attribute("a")),
            Index::new("b")
                .partition(IndexKey::string("k").with_attribute("a"))
                .sort(IndexKey::field(UPDATED_AT)),
        ];
        assert!(Indexes::new(shared).is_ok(), "the same key in two indexes");
    }
}
