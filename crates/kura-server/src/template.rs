//! Template mode (`kura advise --template FILE`, the console's template upload): the
//! design advisor on table definitions before they are deployed. The tables a template
//! declares are created in an in-memory engine through the same CreateTable (and
//! UpdateTimeToLive, UpdateContinuousBackups) a client would call, so a definition DynamoDB would refuse is
//! refused here too, and the advisor then checks them as it checks live tables (with no
//! items and no traffic, the design rules only).
//!
//! Read: CloudFormation and SAM templates in JSON or YAML (`AWS::DynamoDB::Table`,
//! `AWS::DynamoDB::GlobalTable`, `AWS::Serverless::SimpleTable`; CDK's synth output is
//! one), Terraform plan JSON (`terraform show -json`: `aws_dynamodb_table`), and the
//! DescribeTable / CreateTable JSON `kura serve --schema` reads. Each finding names the
//! resource it comes from and, where the file says, its line.

use serde_json::{Map, Value, json};

/// One table a template declares, as the calls that make it.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    /// The template's name for it: a logical id, a Terraform address, or the table name.
    pub resource: String,
    /// The line of the file where it is declared (1-based), when it can be found.
    pub line: Option<usize>,
    pub create: Value,
    /// UpdateTimeToLive's TimeToLiveSpecification, when TTL is on.
    pub ttl: Option<Value>,
    pub pitr: bool,
}

/// The tables `text` declares.
pub fn declared(text: &str) -> Result<Vec<Declared>, String> {
    // JSON is YAML too, but JSON's own parser says more about a broken JSON file.
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(json) if text.trim_start().starts_with(['{', '[']) => {
            return Err(format!("not JSON ({json})"));
        }
        Err(_) => crate::advisor::template_yaml::to_json(text)?,
    };
    let mut tables = if let Some(resources) = value.get("Resources").and_then(Value::as_object) {
        cloudformation(resources)
    } else if value.get("planned_values").is_some() || value.get("format_version").is_some() {
        let mut found = Vec::new();
        terraform(&value["planned_values"]["root_module"], &mut found);
        found
    } else {
        crate::controls::seed::schema_inputs(text)?
            .into_iter()
            .map(|create| Declared {
                resource: create["TableName"].as_str().unwrap_or_default().to_owned(),
                line: None,
                create,
                ttl: None,
                pitr: false,
            })
            .collect()
    };
    let lines = MemberLines::of(text);
    for table in &mut tables {
        table.line = lines.line_of(&table.resource);
    }
    if tables.is_empty() {
        return Err("declares no DynamoDB table".into());
    }
    Ok(tables)
}

/// Where each member name of a template is first declared, read in one pass so that
/// finding the line of every table costs the text once, not once per table.
struct MemberLines<'a> {
    /// `"NAME"` followed by `:`, anywhere (JSON, YAML).
    quoted: std::collections::HashMap<&'a str, usize>,
    /// `NAME:` or `'NAME':` at the start of a YAML line.
    plain: std::collections::HashMap<&'a str, usize>,
}

impl<'a> MemberLines<'a> {
    fn of(text: &'a str) -> MemberLines<'a> {
        let mut quoted = std::collections::HashMap::new();
        let mut plain = std::collections::HashMap::new();
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let key = line.trim_start();
            let name = match key.strip_prefix('\'') {
                Some(rest) => rest.split_once('\''),
                None => key.split_once(':').map(|(name, _)| (name.trim_end(), ":")),
            };
            if let Some((name, after)) = name
                && after.trim_start().starts_with(':')
            {
                plain.entry(name).or_insert(number);
            }
            // JSON strings hold no line break, so a quote left open ends with its line.
            let mut rest = line;
            while let Some(open) = rest.find('"') {
                let inside = &rest[open + 1..];
                let Some(close) = closing_quote(inside) else {
                    break;
                };
                let after = &inside[close + 1..];
                if after.trim_start().starts_with(':') {
                    quoted.entry(&inside[..close]).or_insert(number);
                }
                rest = after;
            }
        }
        MemberLines { quoted, plain }
    }

    /// The line where `name` is a member's name (followed by `:`), not a `Ref` to it:
    /// quoted anywhere, else plain at the start of a YAML line.
    fn line_of(&self, name: &str) -> Option<usize> {
        self.quoted
            .get(name)
            .or_else(|| self.plain.get(name))
            .copied()
    }
}

/// The index of the `"` that closes a JSON string starting at `text` (after its opening
/// quote), skipping escaped ones.
fn closing_quote(text: &str) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(at),
            _ => escaped = false,
        }
    }
    None
}

/// A literal string, or None for an intrinsic function (`Ref`, `Fn::Sub`, ...).
fn literal(value: &Value) -> Option<&str> {
    value.as_str()
}

fn cloudformation(resources: &Map<String, Value>) -> Vec<Declared> {
    let mut tables = Vec::new();
    for (logical, resource) in resources {
        let properties = &resource["Properties"];
        let name = literal(&properties["TableName"])
            .unwrap_or(logical)
            .to_owned();
        let (create, pitr) = match resource["Type"].as_str() {
            Some("AWS::DynamoDB::Table") => {
                let mut create = properties.clone();
                create["TableName"] = json!(name);
                stream_on(&mut create);
                let pitr = properties["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"]
                    == json!(true);
                (create, pitr)
            }
            Some("AWS::DynamoDB::GlobalTable") => {
                let mut create = properties.clone();
                create["TableName"] = json!(name);
                stream_on(&mut create);
                // Per-replica settings: the first replica's stand for the table.
                let replica = &properties["Replicas"][0];
                let pitr = replica["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"]
                    == json!(true);
                if let Some(protected) = replica["DeletionProtectionEnabled"].as_bool() {
                    create["DeletionProtectionEnabled"] = json!(protected);
                }
                (create, pitr)
            }
            Some("AWS::Serverless::SimpleTable") => {
                let key = &properties["PrimaryKey"];
                let key_name = key["Name"].as_str().unwrap_or("id");
                let kind = match key["Type"].as_str() {
                    Some("Number") => "N",
                    Some("Binary") => "B",
                    _ => "S",
                };
                let mut create = json!({
                    "TableName": name,
                    "KeySchema": [{"AttributeName": key_name, "KeyType": "HASH"}],
                    "AttributeDefinitions": [{"AttributeName": key_name, "AttributeType": kind}],
                    "BillingMode": "PAY_PER_REQUEST",
                });
                if let Some(throughput) = properties.get("ProvisionedThroughput") {
                    create["BillingMode"] = json!("PROVISIONED");
                    create["ProvisionedThroughput"] = throughput.clone();
                }
                (create, false)
            }
            _ => continue,
        };
        let ttl = properties
            .get("TimeToLiveSpecification")
            .filter(|t| t["Enabled"] == json!(true))
            .map(|t| json!({"AttributeName": t["AttributeName"], "Enabled": true}));
        tables.push(Declared {
            resource: logical.clone(),
            line: None,
            create: schema_input(create),
            ttl,
            pitr,
        });
    }
    tables
}

/// CloudFormation's StreamSpecification has only StreamViewType: the stream is on when
/// it is given.
fn stream_on(create: &mut Value) {
    if let Some(view) = create["StreamSpecification"]["StreamViewType"].as_str() {
        create["StreamSpecification"] = json!({"StreamEnabled": true, "StreamViewType": view});
    }
}

/// A CreateTable input cut to what CreateTable takes (as `--schema` does).
fn schema_input(create: Value) -> Value {
    crate::controls::seed::schema_inputs(&create.to_string())
        .ok()
        .and_then(|mut inputs| inputs.pop())
        .unwrap_or(create)
}

/// Terraform's `aws_dynamodb_table` resources of a module and its children.
fn terraform(module: &Value, tables: &mut Vec<Declared>) {
    for resource in module["resources"].as_array().into_iter().flatten() {
        if resource["type"] != "aws_dynamodb_table" {
            continue;
        }
        let v = &resource["values"];
        let key = |name: &Value, kind: &str| {
            name.as_str()
                .map(|n| json!({"AttributeName": n, "KeyType": kind}))
        };
        let schema = |hash: &Value, range: &Value| -> Vec<Value> {
            key(hash, "HASH")
                .into_iter()
                .chain(key(range, "RANGE"))
                .collect()
        };
        let projection = |index: &Value| {
            let mut p =
                json!({"ProjectionType": index["projection_type"].as_str().unwrap_or("ALL")});
            if let Some(attributes) = index["non_key_attributes"]
                .as_array()
                .filter(|a| !a.is_empty())
            {
                p["NonKeyAttributes"] = json!(attributes);
            }
            p
        };
        let provisioned = v["billing_mode"].as_str() == Some("PROVISIONED");
        let throughput = |x: &Value| {
            json!({"ReadCapacityUnits": x["read_capacity"].as_i64().unwrap_or(1),
                   "WriteCapacityUnits": x["write_capacity"].as_i64().unwrap_or(1)})
        };
        let mut create = json!({
            "TableName": v["name"],
            "KeySchema": schema(&v["hash_key"], &v["range_key"]),
            "AttributeDefinitions": v["attribute"].as_array().into_iter().flatten()
                .map(|a| json!({"AttributeName": a["name"], "AttributeType": a["type"]}))
                .collect::<Vec<_>>(),
            "BillingMode": if provisioned { "PROVISIONED" } else { "PAY_PER_REQUEST" },
        });
        if provisioned {
            create["ProvisionedThroughput"] = throughput(v);
        }
        let gsis: Vec<Value> = v["global_secondary_index"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|g| {
                let mut gsi = json!({"IndexName": g["name"],
                    "KeySchema": schema(&g["hash_key"], &g["range_key"]),
                    "Projection": projection(g)});
                if provisioned {
                    gsi["ProvisionedThroughput"] = throughput(g);
                }
                gsi
            })
            .collect();
        if !gsis.is_empty() {
            create["GlobalSecondaryIndexes"] = json!(gsis);
        }
        let lsis: Vec<Value> = v["local_secondary_index"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|l| {
                json!({"IndexName": l["name"],
                "KeySchema": schema(&v["hash_key"], &l["range_key"]),
                "Projection": projection(l)})
            })
            .collect();
        if !lsis.is_empty() {
            create["LocalSecondaryIndexes"] = json!(lsis);
        }
        if v["stream_enabled"] == json!(true) {
            create["StreamSpecification"] =
                json!({"StreamEnabled": true, "StreamViewType": v["stream_view_type"]});
        }
        if let Some(protected) = v["deletion_protection_enabled"].as_bool() {
            create["DeletionProtectionEnabled"] = json!(protected);
        }
        if let Some(sse) = v["server_side_encryption"]
            .as_array()
            .and_then(|s| s.first())
            .filter(|s| s["enabled"] == json!(true))
        {
            create["SSESpecification"] = json!({"Enabled": true, "SSEType": "KMS"});
            if let Some(key) = sse["kms_key_arn"].as_str().filter(|k| !k.is_empty()) {
                create["SSESpecification"]["KMSMasterKeyId"] = json!(key);
            }
        }
        let ttl = v["ttl"]
            .as_array()
            .and_then(|t| t.first())
            .filter(|t| t["enabled"] == json!(true))
            .map(|t| json!({"AttributeName": t["attribute_name"], "Enabled": true}));
        let pitr = v["point_in_time_recovery"]
            .as_array()
            .and_then(|p| p.first())
            .is_some_and(|p| p["enabled"] == json!(true));
        tables.push(Declared {
            resource: resource["address"].as_str().unwrap_or_default().to_owned(),
            line: None,
            create,
            ttl,
            pitr,
        });
    }
    for child in module["child_modules"].as_array().into_iter().flatten() {
        terraform(child, tables);
    }
}

/// The advisor's answer on the tables `text` declares, each finding with its `resource`
/// and `line`; a table CreateTable refuses is an error finding of its own
/// (`template.create-table`).
pub async fn advise(text: &str) -> Result<Value, String> {
    let tables = declared(text)?;
    let engine = kura_engine::Engine::in_memory();
    let mut refused = Vec::new();
    for table in &tables {
        let name = table.create["TableName"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if let Err(e) = call(&engine, "CreateTable", &table.create).await {
            refused.push(json!({
                "rule": "template.create-table", "severity": "error",
                "section": "CreateTable", "table": name,
                "evidence": format!("DynamoDB would refuse this definition: {e}"),
                "fix": "Correct the table's definition (key schema, attribute definitions, indexes, capacity).",
            }));
            continue;
        }
        if let Some(ttl) = &table.ttl {
            call(
                &engine,
                "UpdateTimeToLive",
                &json!({"TableName": name, "TimeToLiveSpecification": ttl}),
            )
            .await
            .map_err(|e| format!("{}: TimeToLiveSpecification: {e}", table.resource))?;
        }
        if table.pitr {
            call(
                &engine,
                "UpdateContinuousBackups",
                &json!({"TableName": name,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}),
            )
            .await
            .map_err(|e| format!("{}: PointInTimeRecoverySpecification: {e}", table.resource))?;
        }
    }
    let engine_for_advice = engine.clone();
    let advice = tokio::task::spawn_blocking(move || crate::advisor::advise(&engine_for_advice))
        .await
        .map_err(|e| format!("the advisor stopped: {e}"))?;
    let mut advice = serde_json::to_value(&advice).map_err(|e| e.to_string())?;
    // Definitions only: no traffic and no items are evidence here.
    if let Some(map) = advice.as_object_mut() {
        map.remove("trafficSince");
        map.remove("samples");
    }
    let findings = advice["findings"]
        .as_array_mut()
        .map(std::mem::take)
        .unwrap_or_default();
    // Each table's declaration by name, once: a template of 10,000 tables has at least
    // as many findings, and a search of the list for each was 10^8 comparisons.
    let mut by_name = std::collections::HashMap::new();
    for declared in &tables {
        if let Some(name) = declared.create["TableName"].as_str() {
            by_name.entry(name).or_insert(declared);
        }
    }
    let located: Vec<Value> = refused
        .into_iter()
        .chain(findings)
        .map(|mut finding| {
            let declared = finding["table"]
                .as_str()
                .and_then(|table| by_name.get(table));
            if let Some(declared) = declared {
                finding["resource"] = json!(declared.resource);
                if let Some(line) = declared.line {
                    finding["line"] = json!(line);
                }
            }
            finding
        })
        .collect();
    advice["findings"] = json!(located);
    Ok(advice)
}

async fn call(engine: &kura_engine::Engine, operation: &str, body: &Value) -> Result<(), String> {
    crate::invoke(engine, operation, bytes::Bytes::from(body.to_string()))
        .await
        .map(|_| ())
        .map_err(|e| format!("{}: {}", e.name(), e.message.as_deref().unwrap_or("")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFN: &str = r#"{
  "AWSTemplateFormatVersion": "2010-09-09",
  "Resources": {
    "OrdersTable": {
      "Type": "AWS::DynamoDB::Table",
      "Properties": {
        "TableName": "prod-shop-orders",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "TimeToLiveSpecification": {"AttributeName": "ttl", "Enabled": true},
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true},
        "Tags": [{"Key": "team", "Value": "shop"}]
      }
    },
    "Sessions": {
      "Type": "AWS::Serverless::SimpleTable",
      "Properties": {"PrimaryKey": {"Name": "id", "Type": "String"}}
    },
    "Queue": {"Type": "AWS::SQS::Queue"}
  }
}"#;

    #[test]
    fn cloudformation_and_sam_tables_are_read_with_their_lines() {
        let tables = declared(CFN).expect("tables");
        assert_eq!(tables.len(), 2);
        let orders = &tables[0];
        assert_eq!(orders.resource, "OrdersTable");
        assert_eq!(orders.line, Some(4));
        assert_eq!(orders.create["TableName"], "prod-shop-orders");
        assert!(
            orders.create.get("Tags").is_none(),
            "cut to CreateTable's members"
        );
        assert_eq!(
            orders.ttl,
            Some(json!({"AttributeName": "ttl", "Enabled": true}))
        );
        assert!(orders.pitr);
        assert_eq!(tables[1].create["TableName"], "Sessions");
        assert_eq!(tables[1].create["KeySchema"][0]["AttributeName"], "id");
    }

    #[test]
    fn a_ref_before_the_resource_is_not_its_line_and_streams_are_on() {
        let text = r#"{"Resources": {
  "Fn": {"Type": "AWS::Lambda::Function", "DependsOn": "Orders"},
  "Orders": {"Type": "AWS::DynamoDB::Table", "Properties": {
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "StreamSpecification": {"StreamViewType": "NEW_IMAGE"}}}}}"#;
        let tables = declared(text).expect("tables");
        assert_eq!(tables[0].line, Some(3));
        assert_eq!(
            tables[0].create["StreamSpecification"],
            json!({"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"})
        );
    }

    /// Every table of a large template is found at its own line, in JSON and in YAML;
    /// the lines are read in one pass (10,000 tables used to cost a scan of the text
    /// each: 34 s).
    #[test]
    fn the_lines_of_many_tables_are_read_in_one_pass() {
        const TABLES: usize = 10_000;
        let table = r#"{"Type": "AWS::DynamoDB::Table", "Properties": {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}}"#;
        let json_text = format!(
            "{{\"Resources\": {{\n{}\n}}}}",
            (0..TABLES)
                .map(|i| format!("  \"T{i}\": {table}"))
                .collect::<Vec<_>>()
                .join(",\n")
        );
        let lines = MemberLines::of(&json_text);
        for i in [0, 1, 4_999, TABLES - 1] {
            assert_eq!(lines.line_of(&format!("T{i}")), Some(i + 2), "T{i}");
        }
        let yaml_text = format!(
            "Resources:\n{}",
            (0..TABLES)
                .map(|i| format!("  T{i}:\n    Type: AWS::DynamoDB::Table\n"))
                .collect::<String>()
        );
        let lines = MemberLines::of(&yaml_text);
        for i in [0, 1, 4_999, TABLES - 1] {
            assert_eq!(lines.line_of(&format!("T{i}")), Some(2 + 2 * i), "T{i}");
        }
        // A quote left open on a line does not hide the members after it.
        let lines = MemberLines::of("Description: say \"hi\nOrders:\n  \"Key\": 1\n");
        assert_eq!(lines.line_of("Orders"), Some(2));
        assert_eq!(lines.line_of("Key"), Some(3));
        assert_eq!(lines.line_of("hi"), None);
    }

    #[test]
    fn terraform_plans_are_read_in_every_module() {
        let plan = json!({"format_version": "1.2", "planned_values": {"root_module": {
            "resources": [],
            "child_modules": [{"resources": [{
                "address": "module.db.aws_dynamodb_table.orders", "type": "aws_dynamodb_table",
                "values": {"name": "prod-shop-orders", "hash_key": "pk", "range_key": "sk",
                    "billing_mode": "PROVISIONED", "read_capacity": 5, "write_capacity": 5,
                    "attribute": [{"name": "pk", "type": "S"}, {"name": "sk", "type": "S"}, {"name": "status", "type": "S"}],
                    "global_secondary_index": [{"name": "by-status", "hash_key": "status", "range_key": null,
                        "projection_type": "KEYS_ONLY", "non_key_attributes": [], "read_capacity": 1, "write_capacity": 1}],
                    "ttl": [{"attribute_name": "expires", "enabled": true}],
                    "point_in_time_recovery": [{"enabled": false}],
                    "stream_enabled": false, "deletion_protection_enabled": true}}]}]}}});
        let tables = declared(&plan.to_string()).expect("tables");
        assert_eq!(tables.len(), 1);
        let t = &tables[0];
        assert_eq!(t.resource, "module.db.aws_dynamodb_table.orders");
        assert_eq!(
            t.create["KeySchema"][1],
            json!({"AttributeName": "sk", "KeyType": "RANGE"})
        );
        assert_eq!(
            t.create["GlobalSecondaryIndexes"][0]["Projection"]["ProjectionType"],
            "KEYS_ONLY"
        );
        assert_eq!(t.create["ProvisionedThroughput"]["ReadCapacityUnits"], 5);
        assert_eq!(t.create["DeletionProtectionEnabled"], true);
        assert!(!t.pitr && t.ttl.is_some());
    }

    #[test]
    fn a_file_without_tables_says_so() {
        assert!(declared(r#"{"Resources": {}}"#).is_err());
        assert!(declared("Resources:\n  T:\n    Type: AWS::SQS::Queue\n").is_err());
        let broken = declared("{\"Resources\": ").err().unwrap_or_default();
        assert!(broken.starts_with("not JSON"), "{broken}");
    }

    #[test]
    fn a_yaml_template_reads_as_its_json_form() {
        let text = "\
AWSTemplateFormatVersion: '2010-09-09'
Parameters:
  Env:
    Type: String
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub '${Env}-orders'
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - AttributeName: pk
          AttributeType: S
      KeySchema:
        - AttributeName: pk
          KeyType: HASH
      TimeToLiveSpecification:
        AttributeName: expires
        Enabled: true
  Queue:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: !GetAtt Orders.Arn
";
        let tables = declared(text).expect("tables");
        assert_eq!(tables.len(), 1);
        let t = &tables[0];
        assert_eq!((t.resource.as_str(), t.line), ("Orders", Some(6)));
        // A name given by an intrinsic function is checked under the logical id.
        assert_eq!(t.create["TableName"], "Orders");
        assert_eq!(
            t.create["KeySchema"][0],
            json!({"AttributeName": "pk", "KeyType": "HASH"})
        );
        assert!(t.ttl.is_some());
    }

    #[tokio::test]
    async fn the_advisor_checks_what_a_template_declares() {
        let bad = r#"{"Resources": {"Users": {"Type": "AWS::DynamoDB::Table", "Properties": {
            "TableName": "Users",
            "AttributeDefinitions": [{"AttributeName": "UserId", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "UserId", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST"}},
          "Broken": {"Type": "AWS::DynamoDB::Table", "Properties": {
            "TableName": "prod-shop-broken",
            "AttributeDefinitions": [],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}}}}"#;
        let advice = advise(bad).await.expect("advice");
        let findings = advice["findings"].as_array().cloned().unwrap_or_default();
        let refused: Vec<&Value> = findings
            .iter()
            .filter(|f| f["rule"] == "template.create-table")
            .collect();
        assert_eq!(refused.len(), 1, "{findings:#?}");
        assert_eq!(refused[0]["resource"], "Broken");
        let naming = findings
            .iter()
            .find(|f| f["rule"] == "naming.table-name-pattern")
            .expect("the naming rule fires on Users");
        assert_eq!(naming["resource"], "Users");
        assert_eq!(naming["line"], 1);
    }
}
