//! The design advisor's findings for an assistant. A Kura server answers them itself
//! (`GET /kura/advise`, traffic included); any other endpoint, or Kura with `--auth`
//! (whose `/kura/` endpoints are off), gets them from the tables' definitions and a
//! sample of their items, read through the signed DynamoDB API and advised on here by the
//! advisor the binary hands in.

use serde_json::{Value, json};

use crate::McpError;
use kura_client::Endpoint;

/// The design advisor's findings on the tables of an engine, as JSON. kura-mcp runs it on
/// a local copy of a remote endpoint's tables; the binary hands kura-advisor's in, so no
/// crate but the binary and the console depends on the advisor (ADR 0033).
pub type Advisor = fn(&kura_engine::Engine) -> serde_json::Value;

/// Tables advised on when no table is named.
const MAX_TABLES: usize = 100;
/// Items sampled per table for the sample-based rules.
const SAMPLE_ITEMS: u32 = 100;

/// The findings on `table`, or on every table.
pub async fn advise(
    endpoint: &Endpoint,
    table: Option<&str>,
    advisor: Option<Advisor>,
) -> Result<Value, McpError> {
    let mut advice = match (endpoint.get_kura("/kura/advise").await, advisor) {
        (Ok(advice), _) if advice["findings"].is_array() => {
            let mut advice = advice;
            advice["source"] = "the server's advisor: definitions, items and traffic".into();
            advice
        }
        (_, Some(advisor)) => from_definitions(endpoint, table, advisor).await?,
        (_, None) => return Err(McpError::NoAdvisor),
    };
    if let (Some(table), Some(findings)) = (table, advice["findings"].as_array_mut()) {
        findings.retain(|f| f["table"] == table || f["table"].is_null());
    }
    Ok(advice)
}

async fn from_definitions(
    endpoint: &Endpoint,
    table: Option<&str>,
    advisor: Advisor,
) -> Result<Value, McpError> {
    let names = match table {
        Some(name) => vec![name.to_owned()],
        None => table_names(endpoint).await?,
    };
    let engine = kura_engine::Engine::in_memory();
    for name in &names {
        let description = endpoint
            .call("DescribeTable", &json!({"TableName": name}))
            .await?;
        local(&engine, "CreateTable", &create_input(&description["Table"])).await?;
        let ttl = endpoint
            .call("DescribeTimeToLive", &json!({"TableName": name}))
            .await
            .unwrap_or_default();
        let ttl = &ttl["TimeToLiveDescription"];
        if ttl["TimeToLiveStatus"] == "ENABLED" {
            let spec = json!({"Enabled": true, "AttributeName": ttl["AttributeName"]});
            local(
                &engine,
                "UpdateTimeToLive",
                &json!({"TableName": name, "TimeToLiveSpecification": spec}),
            )
            .await?;
        }
        let sample = endpoint
            .call("Scan", &json!({"TableName": name, "Limit": SAMPLE_ITEMS}))
            .await?;
        for item in sample["Items"].as_array().into_iter().flatten() {
            // An item the local copy refuses only leaves the sample smaller.
            let _ = local(
                &engine,
                "PutItem",
                &json!({"TableName": name, "Item": item}),
            )
            .await;
        }
    }
    let mut advice = tokio::task::spawn_blocking(move || advisor(&engine))
        .await
        .map_err(|e| McpError::Transport(format!("the advisor stopped: {e}")))?;
    advice["source"] = format!(
        "the tables' definitions and up to {SAMPLE_ITEMS} items of each, read through the DynamoDB API (the server's traffic is not visible this way)"
    )
    .into();
    Ok(advice)
}

async fn table_names(endpoint: &Endpoint) -> Result<Vec<String>, McpError> {
    let mut names = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let mut body = json!({"Limit": 100});
        if let Some(start) = start.take() {
            body["ExclusiveStartTableName"] = start;
        }
        let page = endpoint.call("ListTables", &body).await?;
        names.extend(
            page["TableNames"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|n| n.as_str().map(str::to_owned)),
        );
        match page.get("LastEvaluatedTableName") {
            Some(last) if names.len() < MAX_TABLES => start = Some(last.clone()),
            _ => break,
        }
    }
    names.truncate(MAX_TABLES);
    Ok(names)
}

async fn local(
    engine: &kura_engine::Engine,
    operation: &str,
    body: &Value,
) -> Result<(), McpError> {
    kura_api::invoke(engine, operation, bytes::Bytes::from(body.to_string()))
        .await
        .map(|_| ())
        .map_err(|e| McpError::Refused {
            type_name: e.name().to_owned(),
            message: e.message.clone().unwrap_or_default(),
        })
}

/// The CreateTable request that makes a table like the one `table` describes.
fn create_input(table: &Value) -> Value {
    let on_demand = table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST";
    let throughput = |t: &Value| {
        json!({
            "ReadCapacityUnits": t["ReadCapacityUnits"].as_u64().unwrap_or(1).max(1),
            "WriteCapacityUnits": t["WriteCapacityUnits"].as_u64().unwrap_or(1).max(1),
        })
    };
    let mut create = json!({
        "TableName": table["TableName"],
        "KeySchema": table["KeySchema"],
        "AttributeDefinitions": table["AttributeDefinitions"],
    });
    if on_demand {
        create["BillingMode"] = "PAY_PER_REQUEST".into();
    } else {
        create["ProvisionedThroughput"] = throughput(&table["ProvisionedThroughput"]);
    }
    let indexes = |list: &Value, global: bool| -> Vec<Value> {
        list.as_array()
            .into_iter()
            .flatten()
            .map(|index| {
                let mut out = json!({
                    "IndexName": index["IndexName"],
                    "KeySchema": index["KeySchema"],
                    "Projection": index["Projection"],
                });
                if global && !on_demand {
                    out["ProvisionedThroughput"] = throughput(&index["ProvisionedThroughput"]);
                }
                out
            })
            .collect()
    };
    let global = indexes(&table["GlobalSecondaryIndexes"], true);
    if !global.is_empty() {
        create["GlobalSecondaryIndexes"] = global.into();
    }
    let local = indexes(&table["LocalSecondaryIndexes"], false);
    if !local.is_empty() {
        create["LocalSecondaryIndexes"] = local.into();
    }
    if table["StreamSpecification"]["StreamEnabled"] == true {
        create["StreamSpecification"] = table["StreamSpecification"].clone();
    }
    if let Some(class) = table["TableClassSummary"]["TableClass"].as_str() {
        create["TableClass"] = class.into();
    }
    create
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_described_table_is_created_alike() {
        let described = json!({
            "TableName": "Orders",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "st", "AttributeType": "S"}],
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 0,
                                      "NumberOfDecreasesToday": 0},
            "GlobalSecondaryIndexes": [{"IndexName": "byStatus", "IndexStatus": "ACTIVE",
                "KeySchema": [{"AttributeName": "st", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 2}}],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"},
        });
        let engine = kura_engine::Engine::in_memory();
        local(&engine, "CreateTable", &create_input(&described))
            .await
            .expect("the same definition is accepted");
        let create = create_input(&described);
        assert_eq!(create["ProvisionedThroughput"]["WriteCapacityUnits"], 1);
        assert_eq!(create["GlobalSecondaryIndexes"][0]["IndexName"], "byStatus");
        assert!(
            create["GlobalSecondaryIndexes"][0]
                .get("IndexStatus")
                .is_none()
        );
    }
}
