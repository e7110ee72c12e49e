//! Terraform plans (`terraform show -json`): `aws_dynamodb_table` in every module, with
//! the `aws_dynamodb_resource_policy` and `aws_dynamodb_kinesis_streaming_destination`
//! resources that name a table, matched by the table's name or by the references the
//! plan's configuration records (`aws_dynamodb_table.orders.arn`).

use serde_json::{Value, json};

use super::declared::Declared;

/// The tables a plan declares, with their resource policies and Kinesis destinations.
pub(super) fn tables(plan: &Value) -> Vec<Declared> {
    let mut tables = Vec::new();
    module_tables(&plan["planned_values"]["root_module"], &mut tables);
    let mut references = Vec::new();
    configuration_references(&plan["configuration"]["root_module"], "", &mut references);
    let mut attached = Vec::new();
    module_attachments(&plan["planned_values"]["root_module"], &mut attached);
    for attachment in attached {
        let named = |t: &&mut Declared| {
            attachment.table_name.is_some()
                && t.create["TableName"].as_str() == attachment.table_name.as_deref()
        };
        let referenced = |t: &&mut Declared| {
            let config_address = without_index(&attachment.address);
            references
                .iter()
                .any(|(from, to)| from == &config_address && to == &without_index(&t.resource))
        };
        let Some(table) = tables.iter_mut().find(|t| named(t) || referenced(t)) else {
            continue;
        };
        match attachment.what {
            Attached::Policy(policy) => table.create["ResourcePolicy"] = json!(policy),
            Attached::Kinesis(stream) => table.kinesis.push(stream),
        }
    }
    tables
}

enum Attached {
    Policy(String),
    Kinesis(String),
}

/// A resource that attaches something to a table.
struct Attachment {
    address: String,
    /// The table's name, when the plan knows it (`table_name`, or the ARN's last part).
    table_name: Option<String>,
    what: Attached,
}

fn module_attachments(module: &Value, found: &mut Vec<Attachment>) {
    for resource in module["resources"].as_array().into_iter().flatten() {
        let v = &resource["values"];
        let address = resource["address"].as_str().unwrap_or_default().to_owned();
        let (table_name, what) = match resource["type"].as_str() {
            Some("aws_dynamodb_resource_policy") => (
                v["resource_arn"]
                    .as_str()
                    .and_then(|arn| arn.rsplit_once(":table/"))
                    .map(|(_, table)| table.split('/').next().unwrap_or(table).to_owned()),
                Attached::Policy(v["policy"].as_str().unwrap_or_default().to_owned()),
            ),
            Some("aws_dynamodb_kinesis_streaming_destination") => (
                v["table_name"].as_str().map(str::to_owned),
                Attached::Kinesis(
                    v["stream_arn"]
                        .as_str()
                        .unwrap_or("a stream known when applied")
                        .to_owned(),
                ),
            ),
            _ => continue,
        };
        found.push(Attachment {
            address,
            table_name,
            what,
        });
    }
    for child in module["child_modules"].as_array().into_iter().flatten() {
        module_attachments(child, found);
    }
}

/// Every (resource address, referenced resource address) of the configuration, with
/// module prefixes: `aws_dynamodb_table.orders.arn` names `aws_dynamodb_table.orders`.
fn configuration_references(module: &Value, prefix: &str, found: &mut Vec<(String, String)>) {
    for resource in module["resources"].as_array().into_iter().flatten() {
        let from = format!(
            "{prefix}{}",
            resource["address"].as_str().unwrap_or_default()
        );
        for expression in resource["expressions"].as_object().into_iter().flatten() {
            for reference in expression.1["references"].as_array().into_iter().flatten() {
                let Some(reference) = reference.as_str() else {
                    continue;
                };
                let mut parts = reference.split('.');
                if let (Some(kind), Some(name)) = (parts.next(), parts.next())
                    && kind.starts_with("aws_")
                {
                    found.push((from.clone(), format!("{prefix}{kind}.{name}")));
                }
            }
        }
    }
    for (name, call) in module["module_calls"].as_object().into_iter().flatten() {
        configuration_references(&call["module"], &format!("{prefix}module.{name}."), found);
    }
}

/// An address without `count`/`for_each` indexes (`a.b["x"]` is `a.b`), as the
/// configuration names it.
fn without_index(address: &str) -> String {
    let mut out = String::with_capacity(address.len());
    let mut depth = 0usize;
    for c in address.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Terraform's `aws_dynamodb_table` resources of a module and its children.
/// A key schema from a plan's `hash_key` and `range_key`.
fn schema(hash: &Value, range: &Value) -> Vec<Value> {
    let key = |name: &Value, kind: &str| {
        name.as_str()
            .map(|n| json!({"AttributeName": n, "KeyType": kind}))
    };
    key(hash, "HASH")
        .into_iter()
        .chain(key(range, "RANGE"))
        .collect()
}

fn projection(index: &Value) -> Value {
    let mut p = json!({"ProjectionType": index["projection_type"].as_str().unwrap_or("ALL")});
    if let Some(attributes) = index["non_key_attributes"]
        .as_array()
        .filter(|a| !a.is_empty())
    {
        p["NonKeyAttributes"] = json!(attributes);
    }
    p
}

fn throughput(x: &Value) -> Value {
    json!({"ReadCapacityUnits": x["read_capacity"].as_i64().unwrap_or(1),
           "WriteCapacityUnits": x["write_capacity"].as_i64().unwrap_or(1)})
}

/// A table's GSIs and LSIs (`v` its plan values), into its CreateTable input.
fn secondary_indexes(v: &Value, provisioned: bool, create: &mut Value) {
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
}

fn module_tables(module: &Value, tables: &mut Vec<Declared>) {
    for resource in module["resources"].as_array().into_iter().flatten() {
        if resource["type"] != "aws_dynamodb_table" {
            continue;
        }
        let v = &resource["values"];
        let provisioned = v["billing_mode"].as_str() == Some("PROVISIONED");
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
        secondary_indexes(v, provisioned, &mut create);
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
            .and_then(|p| p.first());
        let mut declared = Declared::new(create);
        declared.resource = resource["address"].as_str().unwrap_or_default().to_owned();
        declared.no_line = Some("a Terraform plan records no source lines");
        declared.ttl = ttl;
        declared.pitr = pitr.is_some_and(|p| p["enabled"] == json!(true));
        declared.recovery_period_days = pitr.and_then(|p| p["recovery_period_in_days"].as_i64());
        tables.push(declared);
    }
    for child in module["child_modules"].as_array().into_iter().flatten() {
        module_tables(child, tables);
    }
}
