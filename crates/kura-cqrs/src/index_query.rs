//! A query on one of the module's secondary indexes: built from the declaration
//! ([`Index::query_by`], [`Indexes::query`]) or from positional values
//! ([`IndexQuery::new`]), one page at a time with a [`Cursor`] to continue.

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::command::CommandModel;
use crate::condition::SkCondition;
use crate::entity::{Entity, entities};
use crate::error::{CqrsError, Result};
use crate::indexes::{Index, IndexKey, Indexes, attribute_text};
use crate::rows::Item;

/// Where the next page of an index query starts: the last row's table and index keys.
/// [`Cursor::to_token`] gives it as text for a client to send back.
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor(pub(crate) Item);

impl Cursor {
    /// The cursor as JSON text (`{"pk":{"S":"…"},…}`, strings and numbers only).
    pub fn to_token(&self) -> String {
        let map: serde_json::Map<String, serde_json::Value> = self
            .0
            .iter()
            .filter_map(|(name, value)| {
                let (kind, text) = match value {
                    AttributeValue::S(s) => ("S", s),
                    AttributeValue::N(n) => ("N", n),
                    _ => return None,
                };
                Some((name.clone(), serde_json::json!({ kind: text })))
            })
            .collect();
        serde_json::Value::Object(map).to_string()
    }

    /// A cursor from [`Cursor::to_token`]'s text.
    pub fn from_token(token: &str) -> Result<Cursor> {
        let bad = |why: &str| CqrsError::InvalidKey(format!("a cursor token {why}"));
        let map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(token).map_err(|_| bad("is no JSON object"))?;
        let mut item = Item::new();
        for (name, typed) in map {
            let value = match (typed.get("S"), typed.get("N")) {
                (Some(serde_json::Value::String(s)), None) => AttributeValue::S(s.clone()),
                (None, Some(serde_json::Value::String(n))) => AttributeValue::N(n.clone()),
                _ => return Err(bad("holds a value that is no {\"S\"} or {\"N\"}")),
            };
            item.insert(name, value);
        }
        Ok(Cursor(item))
    }
}

/// One page of an index query and the cursor to continue after it.
#[derive(Debug, Clone)]
pub struct IndexPage<T = CommandModel> {
    pub items: Vec<T>,
    /// Pass it as [`IndexQuery::cursor`] for the next page; `None` at the end.
    pub cursor: Option<Cursor>,
}

impl IndexPage {
    /// The page's rows as entities of type `T`.
    pub fn typed<T: DeserializeOwned>(self) -> Result<IndexPage<Entity<T>>> {
        Ok(IndexPage {
            items: entities(self.items)?,
            cursor: self.cursor,
        })
    }
}

/// A query on one of the module's indexes ([`crate::Index`]).
#[derive(Debug, Clone)]
pub struct IndexQuery {
    pub index: Index,
    /// The variable parts of the partition key attributes, in order (fixed text is filled
    /// in; a framework field used as a key takes one value).
    pub partition: Vec<String>,
    /// Whole values of the leading sort key attributes (a multi-attribute sort key).
    pub sort_equal: Vec<String>,
    /// A condition on the next sort key attribute.
    pub sort: Option<SkCondition>,
    /// Rows per page (DynamoDB's Limit: counted before the soft-delete filter).
    pub limit: Option<i32>,
    /// Highest sort key first.
    pub descending: bool,
    /// Leave out rows with `isDeleted = true`.
    pub exclude_deleted: bool,
    /// Continue after the page this came with.
    pub cursor: Option<Cursor>,
}

impl IndexQuery {
    /// The rows of `index` whose partition key is made of `partition` (see the field).
    pub fn new<S: Into<String>>(
        index: &Index,
        partition: impl IntoIterator<Item = S>,
    ) -> IndexQuery {
        IndexQuery {
            index: index.clone(),
            partition: partition.into_iter().map(Into::into).collect(),
            sort_equal: Vec::new(),
            sort: None,
            limit: None,
            descending: false,
            exclude_deleted: false,
            cursor: None,
        }
    }

    pub fn sort_equal<S: Into<String>>(
        mut self,
        values: impl IntoIterator<Item = S>,
    ) -> IndexQuery {
        self.sort_equal = values.into_iter().map(Into::into).collect();
        self
    }

    pub fn sort(mut self, condition: SkCondition) -> IndexQuery {
        self.sort = Some(condition);
        self
    }

    pub fn limit(mut self, limit: i32) -> IndexQuery {
        self.limit = Some(limit);
        self
    }

    pub fn descending(mut self) -> IndexQuery {
        self.descending = true;
        self
    }

    pub fn exclude_deleted(mut self) -> IndexQuery {
        self.exclude_deleted = true;
        self
    }
}

impl Index {
    /// A query on this index whose partition key is built from the declaration: each
    /// part's value is read from `values` (a struct or a map that serializes to an object)
    /// by the part's own name (`tenantCode`, `type`, an entity attribute's name), fixed
    /// text filled in. A name the partition key needs and `values` lacks, a name it does
    /// not use, or a value that is not a string, a number or a boolean is refused here,
    /// before any request.
    ///
    /// ```
    /// use kura_cqrs::{Index, IndexKey, names::TENANT_CODE};
    /// let by_status = Index::new("byStatus").partition(
    ///     IndexKey::string("tenantStatus").with_field(TENANT_CODE).with_attribute("status"),
    /// );
    /// let query = by_status
    ///     .query_by(&serde_json::json!({"tenantCode": "t1", "status": "PENDING"}))
    ///     .unwrap();
    /// assert_eq!(query.partition, ["t1", "PENDING"]);
    /// assert!(by_status.query_by(&serde_json::json!({"status": "PENDING"})).is_err());
    /// ```
    pub fn query_by<V: serde::Serialize + ?Sized>(&self, values: &V) -> Result<IndexQuery> {
        let refuse =
            |problem: String| CqrsError::InvalidKey(format!("index {}: {problem}", self.name));
        let Value::Object(values) = serde_json::to_value(values)
            .map_err(|e| refuse(format!("the query's values do not serialize: {e}")))?
        else {
            return Err(refuse("the query's values are not an object".into()));
        };
        let names: Vec<&str> = self
            .partition
            .iter()
            .flat_map(IndexKey::variable_names)
            .collect();
        let mut partition = Vec::with_capacity(names.len());
        for name in &names {
            // Read, not taken: a part may appear in more than one key attribute.
            let value = values
                .get(*name)
                .ok_or_else(|| refuse(format!("the partition key needs a value for {name}")))?;
            partition.push(attribute_text(value).ok_or_else(|| {
                refuse(format!(
                    "{name} is {value}: a string, a number or a boolean"
                ))
            })?);
        }
        if let Some(extra) = values.keys().find(|k| !names.contains(&k.as_str())) {
            return Err(refuse(format!(
                "{extra} is not in the partition key (it takes {names:?})"
            )));
        }
        Ok(IndexQuery::new(self, partition))
    }
}

impl Indexes {
    /// A query on the declared index `name` ([`Index::query_by`]).
    pub fn query<V: serde::Serialize + ?Sized>(
        &self,
        name: &str,
        values: &V,
    ) -> Result<IndexQuery> {
        self.declared(name)?.query_by(values)
    }
}
