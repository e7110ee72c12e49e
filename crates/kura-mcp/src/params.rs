//! The tools' arguments, as the JSON schemas assistants are shown. Keys, items and
//! expression values are DynamoDB JSON (`{"S": "USER#1"}`, `{"N": "42"}`), as the
//! DynamoDB API and its documentation write them.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListTables {
    /// Start after this table name (the previous page's `LastEvaluatedTableName`).
    pub start_after: Option<String>,
    /// At most this many names (1 to 100).
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TableName {
    /// The table's name.
    pub table: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct OptionalTable {
    /// One table; every table when left out.
    pub table: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetItem {
    pub table: String,
    /// The item's whole primary key in DynamoDB JSON, e.g. {"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}}.
    pub key: Map<String, Value>,
    /// Read the latest acknowledged write (a strongly consistent read).
    pub consistent_read: Option<bool>,
    /// Only these attributes (a ProjectionExpression).
    pub projection: Option<String>,
    /// Placeholders for attribute names (#name → name).
    pub names: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Query {
    pub table: String,
    /// A global or local secondary index to query instead of the table.
    pub index: Option<String>,
    /// The KeyConditionExpression, e.g. "#pk = :pk AND begins_with(#sk, :prefix)".
    pub key_condition: String,
    /// A FilterExpression applied after the key condition.
    pub filter: Option<String>,
    /// Only these attributes (a ProjectionExpression).
    pub projection: Option<String>,
    /// Placeholders for attribute names (#name → name).
    pub names: Option<Map<String, Value>>,
    /// Placeholders for values in DynamoDB JSON (:v → {"S": "..."}).
    pub values: Option<Map<String, Value>>,
    /// Newest sort keys first.
    pub descending: Option<bool>,
    /// Read the latest acknowledged writes (not on a global secondary index).
    pub consistent_read: Option<bool>,
    /// Items per page (1 to 100; 25 when left out).
    pub limit: Option<u32>,
    /// The previous page's LastEvaluatedKey, to read the next page.
    pub start_key: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Scan {
    pub table: String,
    /// A global or local secondary index to scan instead of the table.
    pub index: Option<String>,
    /// A FilterExpression: which of the read items to return.
    pub filter: Option<String>,
    /// Only these attributes (a ProjectionExpression).
    pub projection: Option<String>,
    /// Placeholders for attribute names (#name → name).
    pub names: Option<Map<String, Value>>,
    /// Placeholders for values in DynamoDB JSON (:v → {"S": "..."}).
    pub values: Option<Map<String, Value>>,
    /// Items read per page (1 to 100; 25 when left out).
    pub limit: Option<u32>,
    /// The previous page's LastEvaluatedKey, to read the next page.
    pub start_key: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Statement {
    /// A PartiQL statement, e.g. SELECT * FROM "Orders" WHERE pk = ?. Only SELECT unless
    /// the server was started with --allow-writes.
    pub statement: String,
    /// Values for the statement's `?` placeholders, in DynamoDB JSON.
    pub parameters: Option<Vec<Value>>,
    /// Items per page (1 to 100; 25 when left out).
    pub limit: Option<u32>,
    /// The previous page's NextToken.
    pub next_token: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PutItem {
    pub table: String,
    /// The whole item in DynamoDB JSON, its primary key included.
    pub item: Map<String, Value>,
    /// A ConditionExpression the write is refused without, e.g. "attribute_not_exists(pk)".
    pub condition: Option<String>,
    pub names: Option<Map<String, Value>>,
    pub values: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct UpdateItem {
    pub table: String,
    /// The item's whole primary key in DynamoDB JSON.
    pub key: Map<String, Value>,
    /// The UpdateExpression, e.g. "SET #s = :s REMOVE #old".
    pub update: String,
    /// A ConditionExpression the write is refused without.
    pub condition: Option<String>,
    pub names: Option<Map<String, Value>>,
    pub values: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteItem {
    pub table: String,
    /// The item's whole primary key in DynamoDB JSON.
    pub key: Map<String, Value>,
    /// A ConditionExpression the delete is refused without.
    pub condition: Option<String>,
    pub names: Option<Map<String, Value>>,
    pub values: Option<Map<String, Value>>,
}
