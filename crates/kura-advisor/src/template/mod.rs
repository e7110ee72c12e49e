//! Template mode (`kura advise --template FILE`, the console's template upload): the
//! design advisor on table definitions before they are deployed. The tables a template
//! declares are created in an in-memory engine through the same CreateTable (and
//! UpdateTimeToLive, UpdateContinuousBackups) a client would call, so a definition
//! DynamoDB would refuse is refused here too, and the advisor then checks them as it
//! checks live tables (with no items and no traffic, the design rules only).
//!
//! Read: CloudFormation and SAM templates in JSON or YAML (`cloudformation`; CDK's synth
//! output is one), Terraform plan JSON (`terraform`), and the DescribeTable / CreateTable
//! JSON `kura serve --schema` reads. Each finding names the resource it comes from and,
//! where the file says, the line of the property that breaks the rule (`lines`).

mod cloudformation;
mod declared;
mod lines;
mod terraform;

use std::collections::HashMap;

use crate::rules;
use crate::template_intrinsics::NotLiteral;
use serde_json::{Value, json};

use lines::MemberLines;

pub use declared::Declared;
use declared::{is_kinesis_stream_arn, top_property};

/// The tables `text` declares; `parameters` are CloudFormation parameter values over
/// their defaults.
pub fn declared(text: &str, parameters: &HashMap<String, String>) -> Result<Vec<Declared>, String> {
    // JSON is YAML too, but JSON's own parser says more about a broken JSON file.
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(json) if text.trim_start().starts_with(['{', '[']) => {
            return Err(format!("not JSON ({json})"));
        }
        Err(_) => crate::template_yaml::to_json(text)?,
    };
    let mut tables = if value.get("Resources").and_then(Value::as_object).is_some() {
        cloudformation::tables(&value, text.len(), parameters)?
    } else if value.get("planned_values").is_some() || value.get("format_version").is_some() {
        terraform::tables(&value)
    } else {
        kura_api::schema_file::schema_inputs(text)?
            .into_iter()
            .map(Declared::new)
            .collect()
    };
    if tables.is_empty() {
        return Err("declares no DynamoDB table".into());
    }
    if let Some(resources) = value.get("Resources").and_then(Value::as_object) {
        locate_resources(&mut tables, resources, &MemberLines::of(text));
    }
    Ok(tables)
}

/// Each CloudFormation table's line (its logical id inside `Resources`) and where the
/// next resource starts.
fn locate_resources(
    tables: &mut [Declared],
    resources: &serde_json::Map<String, Value>,
    lines: &MemberLines,
) {
    let from = lines.line_of("Resources").unwrap_or(1);
    let mut starts: Vec<usize> = resources
        .keys()
        .filter_map(|logical| lines.member_between(logical, from, usize::MAX))
        .collect();
    starts.sort_unstable();
    for table in tables {
        table.line = lines.member_between(&table.resource, from, usize::MAX);
        table.end_line = table.line.and_then(|line| {
            let next = starts.partition_point(|s| *s <= line);
            starts.get(next).copied()
        });
    }
}

/// What a part that is not literal keeps from being judged.
enum Unjudged {
    /// The table's keys or indexes: it is not checked at all.
    Table,
    /// The rules whose ids start with these.
    Rules(&'static [&'static str]),
}

/// What a part at `path` that is not literal keeps from being judged.
fn unjudged_by(path: &str) -> Unjudged {
    if is_kinesis_stream_arn(path) {
        return Unjudged::Rules(&[]);
    }
    Unjudged::Rules(match top_property(path).unwrap_or_default() {
        "KeySchema"
        | "AttributeDefinitions"
        | "GlobalSecondaryIndexes"
        | "LocalSecondaryIndexes"
        | "PrimaryKey" => return Unjudged::Table,
        "TableName" => &["naming.table-name-pattern", "naming.mixed-environments"],
        "BillingMode" | "ProvisionedThroughput" | "WriteProvisionedThroughputSettings" => {
            &["capacity."]
        }
        "PointInTimeRecoverySpecification" => &["availability.pitr"],
        "DeletionProtectionEnabled" => &["availability.deletion-protection"],
        "SSESpecification" => &["security.sse-kms"],
        "ResourcePolicy" => &["security.resource-policy-public"],
        "StreamSpecification" => &["streams."],
        "KinesisStreamSpecification" => &["streams.kinesis-destination"],
        "TimeToLiveSpecification" => &["ttl."],
        "Replicas" => &[
            "availability.",
            "capacity.",
            "security.resource-policy-public",
            "streams.kinesis-destination",
        ],
        _ => &[],
    })
}

/// The properties a rule's finding rests on, in the order to look for them.
fn properties_of(rule: &str) -> &'static [&'static str] {
    match rule {
        "naming.table-name-pattern" | "naming.mixed-environments" => &["TableName"],
        "capacity.on-demand" => &[
            "BillingMode",
            "ProvisionedThroughput",
            "WriteProvisionedThroughputSettings",
        ],
        "availability.pitr" => &[
            "PointInTimeRecoveryEnabled",
            "PointInTimeRecoverySpecification",
        ],
        "availability.pitr-recovery-period" => {
            &["RecoveryPeriodInDays", "PointInTimeRecoverySpecification"]
        }
        "availability.deletion-protection" => &["DeletionProtectionEnabled"],
        "security.sse-kms" => &["SSESpecification"],
        "security.resource-policy-public" => &["ResourcePolicy"],
        "streams.kinesis-destination" => &["KinesisStreamSpecification"],
        "naming.key-attribute-descriptive" => &["KeySchema"],
        "naming.attribute-snake-case" | "naming.attribute-reserved-word" => {
            &["AttributeDefinitions"]
        }
        rule if rule.starts_with("streams.") => &["StreamViewType", "StreamSpecification"],
        rule if rule.starts_with("ttl.") => &["TimeToLiveSpecification"],
        rule if rule.starts_with("keys.") => &["KeySchema"],
        _ => &[],
    }
}

/// The line a finding points at: its index's name or the property its rule rests on,
/// inside the table's resource; else the resource's own line.
fn finding_line(finding: &Value, declared: &Declared, lines: &MemberLines) -> Option<usize> {
    let from = declared.line?;
    let to = declared.end_line.unwrap_or(usize::MAX);
    let rule = finding["rule"].as_str().unwrap_or_default();
    let named = finding["property"]
        .as_str()
        .and_then(|property| lines.member_between(property, from, to));
    named
        .or_else(|| {
            finding["index"]
                .as_str()
                .and_then(|index| lines.value_between(index, from, to))
        })
        .or_else(|| {
            properties_of(rule)
                .iter()
                .find_map(|property| lines.member_between(property, from, to))
        })
        .or(Some(from))
}

/// The line of a global table's replica behind a finding: the property the rule rests on
/// inside that replica, else the replica's `Region`.
fn replica_line(
    rule: &str,
    region: &str,
    declared: &Declared,
    lines: &MemberLines,
) -> Option<usize> {
    let end = declared.end_line.unwrap_or(usize::MAX);
    let start = lines.value_between(region, declared.line?, end)?;
    let next = lines
        .member_between("Region", start + 1, end)
        .unwrap_or(end);
    properties_of(rule)
        .iter()
        .find_map(|property| lines.member_between(property, start, next))
        .or(Some(start))
}

/// A finding of template mode's own, or of a rule template mode checks itself.
fn finding(
    rule: &str,
    severity: &str,
    section: &str,
    table: &str,
    evidence: String,
    fix: &str,
) -> Value {
    json!({"rule": rule, "severity": severity, "section": section, "table": table,
           "evidence": evidence, "fix": fix, "basis": "definition"})
}

/// The note on a table whose parts are not literal: what they depend on, and which rules
/// were not judged because of them.
fn not_literal_note(table: &str, parts: &[NotLiteral], unjudged: &[&str], whole: bool) -> Value {
    let mut listed: Vec<String> = parts
        .iter()
        .take(10)
        .map(|p| format!("{} ({})", p.path, p.reason))
        .collect();
    if parts.len() > 10 {
        listed.push(format!("and {} more", parts.len() - 10));
    }
    let consequence = if whole {
        "the table's keys or indexes depend on them, so it was not checked".to_owned()
    } else if unjudged.is_empty() {
        "no rule rests on them".to_owned()
    } else {
        let rules: Vec<String> = unjudged
            .iter()
            .map(|r| {
                if r.ends_with('.') {
                    format!("{r}*")
                } else {
                    (*r).to_owned()
                }
            })
            .collect();
        format!("not judged: {}", rules.join(", "))
    };
    let mut note = finding(
        "template.not-literal",
        "info",
        "Template",
        table,
        format!(
            "Known only when deployed: {}; {consequence}.",
            listed.join("; ")
        ),
        "Give the parameters a Default, or pass their values with --parameter NAME=VALUE, to have these checked.",
    );
    // Its line is the first such property's.
    if let Some(property) = parts.first().and_then(|p| top_property(&p.path)) {
        note["property"] = json!(property);
    }
    note
}

/// An in-memory engine to create a template's tables in. A template may declare more
/// tables than an account's quota: each is checked.
fn scratch_engine() -> Result<std::sync::Arc<kura_engine::Engine>, String> {
    let unbounded = kura_engine::EngineOptions {
        limits: kura_engine::writer::WriteLimits {
            max_tables: usize::MAX,
            ..Default::default()
        },
        ..Default::default()
    };
    kura_engine::Engine::with_options(
        std::sync::Arc::new(kura_engine::storage::MemoryStore::new()),
        unbounded,
    )
    .map_err(|e| format!("cannot start the scratch engine: {e}"))
}

/// A finding placed in the template: its resource, and its line (a replica's, for a rule
/// a replica falls behind on), or why it has none.
fn place(mut finding: Value, declared: &Declared, lines: &MemberLines) -> Value {
    finding["resource"] = json!(declared.resource);
    let rule = finding["rule"].as_str().unwrap_or_default().to_owned();
    if let Some((_, region)) = declared.replica_behind.iter().find(|(r, _)| *r == rule) {
        let evidence = finding["evidence"].as_str().unwrap_or_default();
        finding["evidence"] = json!(format!("{evidence} (the replica in {region})"));
        if let Some(line) = replica_line(&rule, region, declared, lines) {
            finding["line"] = json!(line);
            return finding;
        }
    }
    match finding_line(&finding, declared, lines) {
        Some(line) => finding["line"] = json!(line),
        None => finding["noLine"] = json!(declared.no_line),
    }
    finding
}

/// The advisor's answer on the tables `text` declares, each finding with its `resource`
/// and `line`; a table CreateTable (or UpdateTimeToLive, UpdateContinuousBackups) refuses
/// is an error finding of its own (`template.create-table`), a table with parts only the
/// deployment knows an info finding (`template.not-literal`).
pub async fn advise(
    text: &str,
    parameters: &HashMap<String, String>,
    options: &crate::Options,
) -> Result<Value, String> {
    let tables = declared(text, parameters)?;
    let lines = MemberLines::of(text);
    let engine = scratch_engine()?;
    let mut own = Vec::new();
    // The declaration each created table's findings belong to (a second table of the
    // same name is refused, and its refusal is its own).
    let mut by_name: HashMap<String, (&Declared, Vec<&str>)> = HashMap::new();
    for table in &tables {
        let name = table.create["TableName"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let mut whole = false;
        let mut unjudged: Vec<&str> = Vec::new();
        for part in &table.not_literal {
            match unjudged_by(&part.path) {
                Unjudged::Table => whole = true,
                Unjudged::Rules(rules) => unjudged.extend(rules.iter().copied()),
            }
        }
        unjudged.sort_unstable();
        unjudged.dedup();
        if !table.not_literal.is_empty() {
            own.push((
                table,
                not_literal_note(&name, &table.not_literal, &unjudged, whole),
            ));
        }
        if whole {
            continue;
        }
        match prepare(&engine, table, &name).await {
            Ok(()) => {}
            // The table exists, a later call (TTL, PITR) refused: its findings stand.
            Err((true, refusal)) => own.push((table, refusal)),
            Err((false, refusal)) => {
                own.push((table, refusal));
                continue;
            }
        }
        let kinesis_judged = !unjudged
            .iter()
            .any(|r| "streams.kinesis-destination".starts_with(r));
        if kinesis_judged && let Some(rule) = rules::rule("streams.kinesis-destination") {
            for stream in &table.kinesis {
                own.push((
                    table,
                    finding(
                        rule.id,
                        rule.severity.name(),
                        rule.section,
                        &name,
                        format!("Changes are streamed to Kinesis Data Streams ({stream})."),
                        rule.fix,
                    ),
                ));
            }
        }
        by_name.entry(name).or_insert((table, unjudged));
    }
    let engine_for_advice = engine.clone();
    let options = options.clone();
    let advice =
        tokio::task::spawn_blocking(move || crate::advise_with(&engine_for_advice, &options))
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
    let mut located: Vec<Value> = own
        .into_iter()
        .map(|(declared, finding)| place(finding, declared, &lines))
        .collect();
    for finding in findings {
        let rule = finding["rule"].as_str().unwrap_or_default();
        match finding["table"].as_str().and_then(|t| by_name.get(t)) {
            Some((_, unjudged)) if unjudged.iter().any(|prefix| rule.starts_with(prefix)) => {}
            Some((declared, _)) => located.push(place(finding, declared, &lines)),
            None => located.push(finding),
        }
    }
    advice["findings"] = json!(located);
    Ok(advice)
}

/// Creates one declared table in the scratch engine, with its TTL and PITR; a call
/// DynamoDB would refuse is the table's `template.create-table` finding, with whether the
/// table was created before it.
async fn prepare(
    engine: &kura_engine::Engine,
    table: &Declared,
    name: &str,
) -> Result<(), (bool, Value)> {
    let refused = |call: &str, e: String| {
        finding(
            "template.create-table",
            "error",
            call,
            name,
            format!("DynamoDB would refuse this definition: {e}"),
            "Correct the table's definition (key schema, attribute definitions, indexes, capacity, TTL, PITR).",
        )
    };
    call(engine, "CreateTable", &table.create)
        .await
        .map_err(|e| (false, refused("CreateTable", e)))?;
    if let Some(ttl) = &table.ttl {
        let input = json!({"TableName": name, "TimeToLiveSpecification": ttl});
        call(engine, "UpdateTimeToLive", &input)
            .await
            .map_err(|e| (true, refused("UpdateTimeToLive", e)))?;
    }
    if table.pitr {
        let mut specification = json!({"PointInTimeRecoveryEnabled": true});
        if let Some(days) = table.recovery_period_days {
            specification["RecoveryPeriodInDays"] = json!(days);
        }
        let input = json!({"TableName": name, "PointInTimeRecoverySpecification": specification});
        call(engine, "UpdateContinuousBackups", &input)
            .await
            .map_err(|e| (true, refused("UpdateContinuousBackups", e)))?;
    }
    Ok(())
}

async fn call(engine: &kura_engine::Engine, operation: &str, body: &Value) -> Result<(), String> {
    kura_api::invoke(engine, operation, bytes::Bytes::from(body.to_string()))
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
        let tables = declared(CFN, &HashMap::new()).expect("tables");
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
        let tables = declared(text, &HashMap::new()).expect("tables");
        assert_eq!(tables[0].line, Some(3));
        assert_eq!(
            tables[0].create["StreamSpecification"],
            json!({"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"})
        );
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
        let tables = declared(&plan.to_string(), &HashMap::new()).expect("tables");
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

    /// Found by the long fuzz run: `Properties` that are not a map (here a string) are
    /// read as an empty definition, which CreateTable refuses; they used to panic on the
    /// first member write.
    #[tokio::test]
    async fn properties_that_are_not_a_map_are_refused_not_a_panic() {
        for properties in [r#""TableName""#, "[1, 2]", "7", "null"] {
            for kind in ["AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable"] {
                let text = format!(
                    r#"{{"Resources": {{"Orders": {{"Type": "{kind}", "Properties": {properties}}}}}}}"#
                );
                let tables = declared(&text, &HashMap::new()).expect("read");
                assert_eq!(tables[0].create["TableName"], "Orders", "{text}");
                let advice = advise(&text, &HashMap::new(), &Default::default())
                    .await
                    .expect("advice");
                assert_eq!(
                    advice["findings"][0]["rule"], "template.create-table",
                    "{text}"
                );
            }
        }
        let gsis = r#"{"Resources": {"G": {"Type": "AWS::DynamoDB::GlobalTable", "Properties": {
            "GlobalSecondaryIndexes": ["by-x", 3], "Replicas": "us-east-1"}}}}"#;
        assert!(declared(gsis, &HashMap::new()).is_ok());
    }

    #[test]
    fn a_file_without_tables_says_so() {
        assert!(declared(r#"{"Resources": {}}"#, &HashMap::new()).is_err());
        assert!(
            declared(
                "Resources:\n  T:\n    Type: AWS::SQS::Queue\n",
                &HashMap::new()
            )
            .is_err()
        );
        let broken = declared("{\"Resources\": ", &HashMap::new())
            .err()
            .unwrap_or_default();
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
        let tables = declared(text, &HashMap::new()).expect("tables");
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
        let advice = advise(bad, &HashMap::new(), &Default::default())
            .await
            .expect("advice");
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
        // The line of the property the rule rests on.
        assert_eq!(naming["line"], 2);
    }
}
