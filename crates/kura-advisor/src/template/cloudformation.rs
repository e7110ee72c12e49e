//! CloudFormation and SAM resources (`AWS::DynamoDB::Table`, `AWS::DynamoDB::GlobalTable`,
//! `AWS::Serverless::SimpleTable`) read as CloudFormation would deploy them: intrinsic
//! functions resolved from parameter defaults and conditions
//! ([`crate::template_intrinsics`]), string booleans and numbers read as such, a
//! resource whose `Condition` is false left out. What only the deployment knows is carried
//! as [`NotLiteral`] parts, and the rules resting on them are not judged.

use std::collections::HashMap;

use crate::template_intrinsics::{NotLiteral, Template, coerce_scalars};
use serde_json::{Map, Value, json};

use super::declared::Declared;

/// The tables of a CloudFormation template (`document` is its JSON form, read from a text
/// of `text_bytes`). `Err` only when intrinsic functions expand past the template's budget.
pub(super) fn tables(
    document: &Value,
    text_bytes: usize,
    parameters: &HashMap<String, String>,
) -> Result<Vec<Declared>, String> {
    let template = Template::new(document, text_bytes, parameters.clone());
    let empty = Map::new();
    let resources = document["Resources"].as_object().unwrap_or(&empty);
    let mut tables = Vec::new();
    for (logical, resource) in resources {
        let kind = resource["Type"].as_str().unwrap_or_default();
        if !matches!(
            kind,
            "AWS::DynamoDB::Table" | "AWS::DynamoDB::GlobalTable" | "AWS::Serverless::SimpleTable"
        ) {
            continue;
        }
        let mut not_literal = Vec::new();
        if let Some(condition) = resource["Condition"].as_str() {
            match template.condition(condition)? {
                Ok(true) => {}
                Ok(false) => continue,
                Err(reason) => not_literal.push(NotLiteral {
                    path: "Condition".into(),
                    reason: format!("whether {condition} holds: {reason}"),
                }),
            }
        }
        let (mut properties, unknown) = template.resolve(&resource["Properties"], "Properties")?;
        // CloudFormation refuses Properties that are not a map; so does CreateTable the
        // empty definition read instead (never a panic on the member writes below).
        if !properties.is_object() {
            properties = json!({});
        }
        coerce_scalars(&mut properties);
        // A property only partly literal is left out whole (a TTL without its attribute
        // name would be refused, a guess judged): the rules resting on it are not judged.
        for part in &unknown {
            if !super::declared::is_kinesis_stream_arn(&part.path)
                && let Some(property) = super::declared::top_property(&part.path)
                && let Some(members) = properties.as_object_mut()
            {
                members.remove(property);
            }
        }
        not_literal.extend(unknown);
        let name_literal = !not_literal
            .iter()
            .any(|n| n.path.starts_with("Properties.TableName"));
        let name = properties["TableName"]
            .as_str()
            .filter(|_| name_literal)
            .unwrap_or(logical)
            .to_owned();
        let mut declared = match kind {
            "AWS::DynamoDB::Table" => table(&properties, &name),
            "AWS::DynamoDB::GlobalTable" => global_table(&properties, &name),
            _ => simple_table(&properties, &name),
        };
        declared.resource = logical.clone();
        declared.not_literal = not_literal;
        declared.no_line = Some("the logical id was not found in the text");
        tables.push(declared);
    }
    Ok(tables)
}

fn table(properties: &Value, name: &str) -> Declared {
    let mut create = properties.clone();
    create["TableName"] = json!(name);
    stream_on(&mut create);
    let pitr = &properties["PointInTimeRecoverySpecification"];
    let mut declared = Declared::new(super::declared::schema_input(create));
    declared.pitr = pitr["PointInTimeRecoveryEnabled"] == json!(true);
    declared.recovery_period_days = pitr["RecoveryPeriodInDays"].as_i64();
    declared.ttl = ttl(properties);
    declared.kinesis = kinesis(&properties["KinesisStreamSpecification"]);
    set_resource_policy(&mut declared.create, &properties["ResourcePolicy"]);
    declared
}

/// A global table, judged as its weakest replica: PITR and deletion protection on only
/// when every replica has them, the shortest recovery period, the first public resource
/// policy (else the first), every replica's Kinesis destination. Provisioned capacity
/// comes from the write auto scaling's minimum and the first replica's reads.
fn global_table(properties: &Value, name: &str) -> Declared {
    let mut create = properties.clone();
    create["TableName"] = json!(name);
    stream_on(&mut create);
    let replicas = properties["Replicas"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let first = replicas.first().cloned().unwrap_or(Value::Null);
    // CloudFormation's default for a global table is PROVISIONED.
    if properties["BillingMode"].as_str() != Some("PAY_PER_REQUEST") {
        provision(&mut create, properties, &first);
    }
    let every = |member: &str, flag: &str| {
        !replicas.is_empty() && replicas.iter().all(|r| r[member][flag] == json!(true))
    };
    create["DeletionProtectionEnabled"] = json!(
        !replicas.is_empty()
            && replicas
                .iter()
                .all(|r| r["DeletionProtectionEnabled"] == json!(true))
    );
    if let Some(class) = first["TableClass"].as_str() {
        create["TableClass"] = json!(class);
    }
    let mut declared = Declared::new(super::declared::schema_input(create));
    let region = |replica: &Value| replica["Region"].as_str().unwrap_or("?").to_owned();
    let period = |replica: &Value| {
        replica["PointInTimeRecoverySpecification"]["RecoveryPeriodInDays"].as_i64()
    };
    declared.pitr = every(
        "PointInTimeRecoverySpecification",
        "PointInTimeRecoveryEnabled",
    );
    let shortest = replicas
        .iter()
        .filter(|r| period(r).is_some())
        .min_by_key(|r| period(r));
    declared.recovery_period_days = shortest.and_then(period);
    let without_pitr = replicas.iter().find(|r| {
        r["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] != json!(true)
    });
    let unprotected = replicas
        .iter()
        .find(|r| r["DeletionProtectionEnabled"] != json!(true));
    let behind = [
        ("availability.pitr", without_pitr),
        ("availability.pitr-recovery-period", shortest),
        ("availability.deletion-protection", unprotected),
    ];
    for (rule, replica) in behind {
        if let Some(replica) = replica {
            declared.replica_behind.push((rule, region(replica)));
        }
    }
    declared.ttl = ttl(properties);
    declared.kinesis = replicas
        .iter()
        .flat_map(|r| {
            kinesis(&r["KinesisStreamSpecification"])
                .into_iter()
                .map(|k| format!("{k}, from the replica in {}", region(r)))
        })
        .collect();
    let policies: Vec<&Value> = replicas
        .iter()
        .map(|r| &r["ResourcePolicy"])
        .filter(|p| !p.is_null())
        .collect();
    let policy = policies
        .iter()
        .find(|p| crate::public_statement(&policy_text(p)).is_some())
        .or(policies.first());
    if let Some(policy) = policy {
        set_resource_policy(&mut declared.create, policy);
        if let Some(replica) = replicas.iter().find(|r| &&r["ResourcePolicy"] == policy) {
            declared
                .replica_behind
                .push(("security.resource-policy-public", region(replica)));
        }
    }
    declared
}

/// A provisioned global table's capacity, as CreateTable takes it: writes from the write
/// auto scaling's minimum, reads from the first replica's (the table's and each GSI's).
fn provision(create: &mut Value, properties: &Value, first: &Value) {
    create["BillingMode"] = json!("PROVISIONED");
    create["ProvisionedThroughput"] = json!({
        "ReadCapacityUnits": read_capacity(&first["ReadProvisionedThroughputSettings"]),
        "WriteCapacityUnits": write_capacity(&properties["WriteProvisionedThroughputSettings"]),
    });
    let Some(gsis) = create["GlobalSecondaryIndexes"].as_array_mut() else {
        return;
    };
    for gsi in gsis.iter_mut().filter(|g| g.is_object()) {
        let replica_gsi = first["GlobalSecondaryIndexes"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["IndexName"] == gsi["IndexName"])
            .cloned()
            .unwrap_or(Value::Null);
        gsi["ProvisionedThroughput"] = json!({
            "ReadCapacityUnits": read_capacity(&replica_gsi["ReadProvisionedThroughputSettings"]),
            "WriteCapacityUnits": write_capacity(&gsi["WriteProvisionedThroughputSettings"]),
        });
    }
}

fn simple_table(properties: &Value, name: &str) -> Declared {
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
    if let Some(sse) = properties.get("SSESpecification") {
        create["SSESpecification"] = sse.clone();
    }
    Declared::new(super::declared::schema_input(create))
}

/// UpdateTimeToLive's specification, when TTL is on.
fn ttl(properties: &Value) -> Option<Value> {
    properties
        .get("TimeToLiveSpecification")
        .filter(|t| t["Enabled"] == json!(true))
        .map(|t| json!({"AttributeName": t["AttributeName"], "Enabled": true}))
}

/// A Kinesis streaming destination's ARN, or what stands for one known only when
/// deployed (a `Fn::GetAtt` of the stream, as templates usually give it).
fn kinesis(specification: &Value) -> Vec<String> {
    if specification.is_null() {
        return Vec::new();
    }
    vec![
        specification["StreamArn"]
            .as_str()
            .unwrap_or("a stream known when deployed")
            .to_owned(),
    ]
}

/// Read capacity from a replica's settings: the units, or auto scaling's minimum.
fn read_capacity(settings: &Value) -> Value {
    settings["ReadCapacityUnits"]
        .as_i64()
        .or_else(|| settings["ReadCapacityAutoScalingSettings"]["MinCapacity"].as_i64())
        .map_or(json!(1), |units| json!(units))
}

/// Write capacity of a global table or its index: auto scaling's minimum.
fn write_capacity(settings: &Value) -> Value {
    settings["WriteCapacityAutoScalingSettings"]["MinCapacity"]
        .as_i64()
        .map_or(json!(1), |units| json!(units))
}

/// A `ResourcePolicy` property's document as CreateTable's `ResourcePolicy` string.
fn set_resource_policy(create: &mut Value, resource_policy: &Value) {
    if !resource_policy["PolicyDocument"].is_null() {
        create["ResourcePolicy"] = json!(policy_text(resource_policy));
    }
}

fn policy_text(resource_policy: &Value) -> String {
    match &resource_policy["PolicyDocument"] {
        Value::String(text) => text.clone(),
        document => document.to_string(),
    }
}

/// CloudFormation's StreamSpecification has only StreamViewType: the stream is on when
/// it is given.
fn stream_on(create: &mut Value) {
    if let Some(view) = create["StreamSpecification"]["StreamViewType"].as_str() {
        create["StreamSpecification"] = json!({"StreamEnabled": true, "StreamViewType": view});
    }
}
