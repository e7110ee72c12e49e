//! Schema files: the tables a JSON file describes (a `TableDescription`, a list of them,
//! `{"Tables": [...]}`, or CreateTable inputs), as the CreateTable inputs that make them.
//! The test controls' seeds (`--schema`) and the advisor's template mode read them.

use serde_json::{Value, json};

/// The CreateTable inputs a schema file's text describes.
pub fn schema_inputs(text: &str) -> Result<Vec<Value>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let tables: Vec<Value> = match value {
        Value::Array(list) => list,
        Value::Object(ref o) if o.contains_key("Tables") => o["Tables"]
            .as_array()
            .cloned()
            .ok_or("Tables is not a list")?,
        other => vec![other],
    };
    Ok(tables
        .into_iter()
        .map(|table| {
            let description = table.get("Table").cloned().unwrap_or(table);
            create_table_input(&description)
        })
        .collect())
}

/// A CreateTable input from a TableDescription (or a CreateTable input, kept as it is).
fn create_table_input(d: &Value) -> Value {
    let mut input = json!({
        "TableName": d["TableName"],
        "KeySchema": d["KeySchema"],
        "AttributeDefinitions": d["AttributeDefinitions"],
    });
    let billing = d["BillingModeSummary"]["BillingMode"]
        .as_str()
        .or(d["BillingMode"].as_str());
    let throughput = |t: &Value| {
        json!({
            "ReadCapacityUnits": t["ReadCapacityUnits"],
            "WriteCapacityUnits": t["WriteCapacityUnits"],
        })
    };
    let provisioned = billing != Some("PAY_PER_REQUEST")
        && d["ProvisionedThroughput"]["ReadCapacityUnits"]
            .as_i64()
            .is_some_and(|r| r > 0);
    if provisioned {
        input["BillingMode"] = json!("PROVISIONED");
        input["ProvisionedThroughput"] = throughput(&d["ProvisionedThroughput"]);
    } else {
        input["BillingMode"] = json!("PAY_PER_REQUEST");
    }
    if let Some(gsis) = d["GlobalSecondaryIndexes"].as_array() {
        let gsis: Vec<Value> = gsis
            .iter()
            .map(|g| {
                let mut gsi = json!({
                    "IndexName": g["IndexName"],
                    "KeySchema": g["KeySchema"],
                    "Projection": g["Projection"],
                });
                if provisioned {
                    gsi["ProvisionedThroughput"] = throughput(&g["ProvisionedThroughput"]);
                }
                gsi
            })
            .collect();
        input["GlobalSecondaryIndexes"] = json!(gsis);
    }
    if let Some(lsis) = d["LocalSecondaryIndexes"].as_array() {
        let lsis: Vec<Value> = lsis
            .iter()
            .map(|l| json!({"IndexName": l["IndexName"], "KeySchema": l["KeySchema"], "Projection": l["Projection"]}))
            .collect();
        input["LocalSecondaryIndexes"] = json!(lsis);
    }
    if d["StreamSpecification"]["StreamEnabled"].as_bool() == Some(true) {
        input["StreamSpecification"] = d["StreamSpecification"].clone();
    }
    if let Some(class) = d["TableClassSummary"]["TableClass"]
        .as_str()
        .or(d["TableClass"].as_str())
    {
        input["TableClass"] = json!(class);
    }
    if let Some(protected) = d["DeletionProtectionEnabled"].as_bool() {
        input["DeletionProtectionEnabled"] = json!(protected);
    }
    // A KMS key, from a description (SSEDescription), a CreateTable input
    // (SSESpecification.Enabled) or a CloudFormation template (its SSEEnabled).
    let sse = &d["SSESpecification"];
    let on =
        |v: &Value| v == &json!(true) || v.as_str().is_some_and(|t| t.eq_ignore_ascii_case("true"));
    if d["SSEDescription"]["SSEType"] == "KMS"
        || on(&sse["Enabled"])
        || on(&sse["SSEEnabled"])
        || (sse["Enabled"].is_null() && sse["SSEEnabled"].is_null() && sse["SSEType"] == "KMS")
    {
        let mut spec = json!({"Enabled": true, "SSEType": "KMS"});
        if let Some(key) = sse["KMSMasterKeyId"]
            .as_str()
            .or(d["SSEDescription"]["KMSMasterKeyArn"].as_str())
        {
            spec["KMSMasterKeyId"] = json!(key);
        }
        input["SSESpecification"] = spec;
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_becomes_a_create_table_input() {
        let description = json!({
            "TableName": "Orders",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "TableStatus": "ACTIVE",
            "ItemCount": 3,
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 2, "NumberOfDecreasesToday": 0},
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"},
        });
        let input = create_table_input(&description);
        assert_eq!(input["BillingMode"], "PROVISIONED");
        assert_eq!(input["ProvisionedThroughput"]["WriteCapacityUnits"], 2);
        assert!(input.get("ItemCount").is_none());
        assert_eq!(input["StreamSpecification"]["StreamViewType"], "NEW_IMAGE");
        let on_demand = json!({
            "TableName": "T", "KeySchema": [], "AttributeDefinitions": [],
            "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0},
        });
        assert_eq!(
            create_table_input(&on_demand)["BillingMode"],
            "PAY_PER_REQUEST"
        );
    }
}
