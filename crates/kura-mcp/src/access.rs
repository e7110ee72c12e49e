//! "How can this table be read?": the access patterns a table's keys and indexes serve,
//! each with a request the `query` tool takes as it is, and the entity types a sample of
//! its items shows (single-table designs prefix their keys with the type: `USER#42`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// Attribute names single-table designs keep an item's type in.
const TYPE_ATTRIBUTES: [&str; 5] = ["type", "Type", "entityType", "_type", "kind"];

/// The explanation of one table from its DescribeTable `Table`, its TTL description and
/// a sample of its items.
pub fn explain(table: &Value, ttl: &Value, sample: &[Value]) -> Value {
    let definitions = &table["AttributeDefinitions"];
    let mut patterns = vec![];
    let keys = key_pair(&table["KeySchema"]);
    if let Some((pk, sk)) = &keys {
        let mut get = format!("GetItem, BatchGetItem or a transaction's Get by {pk}");
        if let Some(sk) = sk {
            get.push_str(&format!(" and {sk}"));
        }
        patterns.push(json!({
            "via": "table",
            "operation": "GetItem",
            "reads": get + ": one item, strongly consistent if asked",
        }));
        patterns.push(query_pattern(
            "table",
            pk,
            sk.as_deref(),
            definitions,
            sample,
            true,
            "ALL",
        ));
    }
    for (kind, list, strong) in [
        (
            "global secondary index",
            &table["GlobalSecondaryIndexes"],
            false,
        ),
        (
            "local secondary index",
            &table["LocalSecondaryIndexes"],
            true,
        ),
    ] {
        for index in list.as_array().into_iter().flatten() {
            let Some((pk, sk)) = key_pair(&index["KeySchema"]) else {
                continue;
            };
            let name = index["IndexName"].as_str().unwrap_or("");
            let projection = index["Projection"]["ProjectionType"]
                .as_str()
                .unwrap_or("ALL");
            let mut pattern = query_pattern(
                kind,
                &pk,
                sk.as_deref(),
                definitions,
                sample,
                strong,
                projection,
            );
            pattern["index"] = name.into();
            pattern["request"]["index"] = name.into();
            if let Some(included) = index["Projection"].get("NonKeyAttributes") {
                pattern["projectedAttributes"] = included.clone();
            }
            patterns.push(pattern);
        }
    }
    patterns.push(json!({
        "via": "table",
        "operation": "Scan",
        "reads": "every item, a page at a time: for small tables, exports and one-off checks, not for a request path",
    }));
    for pattern in &mut patterns {
        if pattern.get("request").is_some() {
            pattern["request"]["table"] = table["TableName"].clone();
        }
    }
    let ttl_attribute = if ttl["TimeToLiveStatus"] == "ENABLED" {
        ttl["AttributeName"].clone()
    } else {
        Value::Null
    };
    json!({
        "table": table["TableName"],
        "itemCount": table["ItemCount"],
        "billingMode": table["BillingModeSummary"]["BillingMode"].as_str().unwrap_or("PROVISIONED"),
        "stream": table["StreamSpecification"]["StreamViewType"],
        "ttlAttribute": ttl_attribute,
        "accessPatterns": patterns,
        "entityTypes": entity_types(keys.as_ref(), sample),
        "sampled": sample.len(),
    })
}

/// A key schema's partition and sort key names.
fn key_pair(schema: &Value) -> Option<(String, Option<String>)> {
    let named = |kind: &str| {
        schema
            .as_array()?
            .iter()
            .find(|k| k["KeyType"] == kind)
            .and_then(|k| k["AttributeName"].as_str())
            .map(str::to_owned)
    };
    Some((named("HASH")?, named("RANGE")))
}

fn attribute_type<'a>(definitions: &'a Value, name: &str) -> &'a str {
    definitions
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d["AttributeName"] == name)
        .and_then(|d| d["AttributeType"].as_str())
        .unwrap_or("S")
}

fn query_pattern(
    via: &str,
    pk: &str,
    sk: Option<&str>,
    definitions: &Value,
    sample: &[Value],
    strong: bool,
    projection: &str,
) -> Value {
    let mut reads = format!("Query by {pk} = a value: the item collection sharing it");
    let mut conditions = vec![];
    if let Some(sk) = sk {
        reads.push_str(&format!(", ordered by {sk}"));
        conditions.extend(["=", "<", "<=", ">", ">=", "BETWEEN"]);
        if attribute_type(definitions, sk) != "N" {
            conditions.push("begins_with");
        }
    }
    let example = sample.iter().find_map(|item| item.get(pk)).cloned();
    let request = json!({
        "key_condition": "#pk = :pk",
        "names": {"#pk": pk},
        "values": {":pk": example.unwrap_or_else(|| json!({attribute_type(definitions, pk): "…"}))},
    });
    json!({
        "via": via,
        "operation": "Query",
        "partitionKey": pk,
        "sortKey": sk,
        "sortKeyConditions": conditions,
        "reads": reads,
        "consistency": if strong { "strong or eventual" } else { "eventual only" },
        "projection": projection,
        "request": request,
    })
}

/// The key prefixes (the text before the first `#`) of the sample's string keys, and the
/// values of its type attributes, with how many sampled items show each.
fn entity_types(keys: Option<&(String, Option<String>)>, sample: &[Value]) -> Value {
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    let key_names = keys
        .map(|(pk, sk)| [Some(pk.as_str()), sk.as_deref()])
        .unwrap_or_default();
    for item in sample {
        for name in key_names.iter().flatten() {
            if let Some((prefix, _)) = item[*name]["S"].as_str().and_then(|s| s.split_once('#')) {
                *seen
                    .entry((name.to_string(), prefix.to_owned()))
                    .or_default() += 1;
            }
        }
        for name in TYPE_ATTRIBUTES {
            if let Some(value) = item[name]["S"].as_str() {
                *seen.entry((name.to_owned(), value.to_owned())).or_default() += 1;
            }
        }
    }
    seen.into_iter()
        .map(|((attribute, value), items)| json!({"attribute": attribute, "value": value, "items": items}))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_table_design_is_explained() {
        let table = json!({
            "TableName": "App",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
                {"AttributeName": "gsi1pk", "AttributeType": "S"}, {"AttributeName": "n", "AttributeType": "N"}],
            "GlobalSecondaryIndexes": [{"IndexName": "byStatus",
                "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
        });
        let sample = vec![
            json!({"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}, "type": {"S": "User"}}),
            json!({"pk": {"S": "USER#1"}, "sk": {"S": "ORDER#7"}, "type": {"S": "Order"}}),
        ];
        let ttl = json!({"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"});
        let explained = explain(&table, &ttl, &sample);
        assert_eq!(explained["ttlAttribute"], "expires");
        let patterns = explained["accessPatterns"].as_array().expect("patterns");
        assert_eq!(patterns.len(), 4, "{patterns:?}");
        assert_eq!(
            patterns[1]["request"]["values"][":pk"],
            json!({"S": "USER#1"})
        );
        assert!(
            patterns[1]["sortKeyConditions"]
                .to_string()
                .contains("begins_with")
        );
        assert_eq!(patterns[2]["index"], "byStatus");
        assert_eq!(patterns[2]["consistency"], "eventual only");
        assert!(
            !patterns[2]["sortKeyConditions"]
                .to_string()
                .contains("begins_with")
        );
        let types = explained["entityTypes"].to_string();
        assert!(
            types.contains(r#""attribute":"pk","items":2,"value":"USER""#),
            "{types}"
        );
        assert!(
            types.contains(r#""attribute":"sk","items":1,"value":"ORDER""#),
            "{types}"
        );
        assert!(types.contains(r#""value":"Order""#), "{types}");
    }
}
