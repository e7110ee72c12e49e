//! What each tool asks DynamoDB: the operation and its JSON body, built from the tool's
//! arguments without sending anything (so the fuzz target `mcp_inputs` reaches every
//! builder). Limits are set by [`crate::pages`] when the page is asked.

use serde_json::{Map, Value, json};

use crate::McpError;
use crate::params::{
    DeleteItem, GetItem, ListTables, PutItem, Query, Scan, Statement, TableName, UpdateItem,
};
use crate::statement;

/// Copies the optional expression parts of a tool's arguments into a request.
fn expressions(
    body: &mut Value,
    names: Option<Map<String, Value>>,
    values: Option<Map<String, Value>>,
) {
    if let Some(names) = names.filter(|n| !n.is_empty()) {
        body["ExpressionAttributeNames"] = Value::Object(names);
    }
    if let Some(values) = values.filter(|v| !v.is_empty()) {
        body["ExpressionAttributeValues"] = Value::Object(values);
    }
}

fn set_some<T: Into<Value>>(body: &mut Value, name: &str, value: Option<T>) {
    if let Some(value) = value {
        body[name] = value.into();
    }
}

pub fn list_tables(p: ListTables) -> Value {
    let mut body = json!({"Limit": p.limit.unwrap_or(100).clamp(1, 100)});
    set_some(&mut body, "ExclusiveStartTableName", p.start_after);
    body
}

pub fn describe_table(p: TableName) -> Value {
    json!({"TableName": p.table})
}

pub fn get_item(p: GetItem) -> Value {
    let mut body = json!({"TableName": p.table, "Key": p.key});
    set_some(&mut body, "ConsistentRead", p.consistent_read);
    set_some(&mut body, "ProjectionExpression", p.projection);
    expressions(&mut body, p.names, None);
    body
}

pub fn query(p: Query) -> (Value, Option<u32>) {
    let mut body = json!({"TableName": p.table, "KeyConditionExpression": p.key_condition});
    set_some(&mut body, "IndexName", p.index);
    set_some(&mut body, "FilterExpression", p.filter);
    set_some(&mut body, "ProjectionExpression", p.projection);
    set_some(&mut body, "ScanIndexForward", p.descending.map(|d| !d));
    set_some(&mut body, "ConsistentRead", p.consistent_read);
    set_some(
        &mut body,
        "ExclusiveStartKey",
        p.start_key.map(Value::Object),
    );
    expressions(&mut body, p.names, p.values);
    (body, p.limit)
}

pub fn scan(p: Scan) -> (Value, Option<u32>) {
    let mut body = json!({"TableName": p.table});
    set_some(&mut body, "IndexName", p.index);
    set_some(&mut body, "FilterExpression", p.filter);
    set_some(&mut body, "ProjectionExpression", p.projection);
    set_some(
        &mut body,
        "ExclusiveStartKey",
        p.start_key.map(Value::Object),
    );
    expressions(&mut body, p.names, p.values);
    (body, p.limit)
}

/// The statement's request, or the read-only server's refusal of a write.
pub fn execute_statement(
    p: Statement,
    allow_writes: bool,
) -> Result<(Value, Option<u32>), McpError> {
    if !allow_writes && !statement::reads_only(&p.statement) {
        let keyword = statement::first_keyword(&p.statement);
        let what = if keyword.is_empty() {
            "This statement".to_owned()
        } else {
            keyword
        };
        return Err(McpError::WritesOff(what));
    }
    let mut body = json!({"Statement": p.statement});
    set_some(&mut body, "Parameters", p.parameters);
    set_some(&mut body, "NextToken", p.next_token);
    Ok((body, p.limit))
}

pub fn put_item(p: PutItem) -> Value {
    let mut body = json!({"TableName": p.table, "Item": p.item});
    set_some(&mut body, "ConditionExpression", p.condition);
    expressions(&mut body, p.names, p.values);
    body
}

pub fn update_item(p: UpdateItem) -> Value {
    let mut body = json!({"TableName": p.table, "Key": p.key,
        "UpdateExpression": p.update, "ReturnValues": "ALL_NEW"});
    set_some(&mut body, "ConditionExpression", p.condition);
    expressions(&mut body, p.names, p.values);
    body
}

pub fn delete_item(p: DeleteItem) -> Value {
    let mut body = json!({"TableName": p.table, "Key": p.key, "ReturnValues": "ALL_OLD"});
    set_some(&mut body, "ConditionExpression", p.condition);
    expressions(&mut body, p.names, p.values);
    body
}

/// The request a call of `tool` with `arguments` would send, as (operation, body); a
/// tool that reads more than one operation (advise, explain_access_patterns) answers its
/// first. For the fuzz target and tests: the tools themselves call the builders above.
pub fn request_for(
    tool: &str,
    arguments: Value,
    allow_writes: bool,
) -> Result<(&'static str, Value), McpError> {
    fn parsed<T: serde::de::DeserializeOwned>(arguments: Value) -> Result<T, McpError> {
        serde_json::from_value(arguments).map_err(|e| McpError::Invalid(e.to_string()))
    }
    Ok(match tool {
        "list_tables" => ("ListTables", list_tables(parsed(arguments)?)),
        "describe_table" | "explain_access_patterns" => {
            ("DescribeTable", describe_table(parsed(arguments)?))
        }
        "get_item" => ("GetItem", get_item(parsed(arguments)?)),
        "query" => ("Query", query(parsed(arguments)?).0),
        "scan" => ("Scan", scan(parsed(arguments)?).0),
        "execute_statement" => (
            "ExecuteStatement",
            execute_statement(parsed(arguments)?, allow_writes)?.0,
        ),
        "put_item" => ("PutItem", put_item(parsed(arguments)?)),
        "update_item" => ("UpdateItem", update_item(parsed(arguments)?)),
        "delete_item" => ("DeleteItem", delete_item(parsed(arguments)?)),
        other => return Err(McpError::Invalid(format!("no tool {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_call_is_the_query_request() {
        let (operation, body) = request_for(
            "query",
            json!({"table": "T", "index": "byStatus", "key_condition": "#s = :s",
                   "names": {"#s": "status"}, "values": {":s": {"S": "OPEN"}},
                   "descending": true, "names_unused": 1}),
            false,
        )
        .expect("query");
        assert_eq!(operation, "Query");
        assert_eq!(body["IndexName"], "byStatus");
        assert_eq!(body["ScanIndexForward"], false);
        assert_eq!(body["ExpressionAttributeValues"][":s"]["S"], "OPEN");
    }

    #[test]
    fn a_partiql_write_is_refused_unless_allowed() {
        let delete = json!({"statement": "DELETE FROM t WHERE pk = 'a'"});
        let refused = request_for("execute_statement", delete.clone(), false);
        assert!(matches!(refused, Err(McpError::WritesOff(w)) if w == "DELETE"));
        assert!(request_for("execute_statement", delete, true).is_ok());
        assert!(request_for("query", json!({"table": 1}), false).is_err());
    }
}
