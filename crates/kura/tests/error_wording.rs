//! Request errors in the wording AWS sent in 2026 (us-east-1 and eu-west-2 captures, see
//! the sources in crates/kura-model/src/messages.rs): item writes' errors in the
//! "1 validation error detected: " envelope, and PartiQL grammar errors. Raw HTTP, as in
//! bad_input.rs.

mod common;

use common::KuraProcess;
use common::raw_http::{error_message, error_type, post};

/// PutItem, UpdateItem and DeleteItem send these request errors inside the
/// "1 validation error detected: " envelope, and ExpressionAttributeValues without an
/// expression without the ": ConditionExpression is null" suffix (AWS us-east-1 and
/// eu-west-2 2026-10-09, paritysuite/dynamodb-conformance `putItem.test.ts`,
/// `deleteItem.test.ts`, `updateItem.test.ts` and `validation-ordering/updateItem.test.ts`).
/// A transaction action keeps the bare texts.
#[tokio::test]
async fn item_writes_report_request_errors_in_the_envelope() {
    let server = KuraProcess::start(None);
    let e = server.endpoint.as_str();
    let create = r#"{"TableName":"Tab1","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
        "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    assert_eq!(post(e, Some("CreateTable"), create).await.status, 200);
    let one = |m: &str| format!("1 validation error detected: {m}");
    let invalid = |m: &str| one(&format!("One or more parameter values were invalid: {m}"));
    let shared: Vec<(&str, String)> = vec![
        (
            r#""ExpressionAttributeValues":{":v":{"S":"x"}}"#,
            one("ExpressionAttributeValues can only be specified when using expressions"),
        ),
        (
            r##""ExpressionAttributeNames":{"#a":"a"}"##,
            one("ExpressionAttributeNames can only be specified when using expressions"),
        ),
        (
            r##""Expected":{"a":{"Exists":false}},"ExpressionAttributeNames":{"#a":"a"}"##,
            one("ExpressionAttributeNames can only be specified when using expressions"),
        ),
        (
            r#""ConditionExpression":"attribute_exists(a)","ExpressionAttributeValues":{}"#,
            one("ExpressionAttributeValues must not be empty"),
        ),
        (
            r#""ConditionExpression":"attribute_exists(a)","ExpressionAttributeNames":{}"#,
            one("ExpressionAttributeNames must not be empty"),
        ),
        (
            r#""ConditionExpression":"""#,
            one("Invalid ConditionExpression: The expression can not be empty;"),
        ),
        (
            r#""Expected":{"a":{"Exists":true}}"#,
            invalid("Value must be provided when Exists is true for Attribute: a"),
        ),
        (
            r#""Expected":{"a":{"Exists":false,"Value":{"S":"x"}}}"#,
            invalid("Value cannot be used when Exists is false for Attribute: a"),
        ),
        (
            r#""Expected":{"a":{"Value":{"S":"x"},"ComparisonOperator":"EQ","AttributeValueList":[{"S":"x"}]}}"#,
            invalid("Value and AttributeValueList cannot be used together for Attribute: a"),
        ),
        (
            r#""Expected":{"a":{"ComparisonOperator":"EQ"}}"#,
            invalid(
                "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a",
            ),
        ),
        (
            r#""Expected":{"a":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"S":"x"}]}}"#,
            invalid("Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
        ),
    ];
    let mut cases: Vec<(&str, String, String)> = Vec::new();
    for (operation, target) in [
        ("PutItem", r#""Item":{"pk":{"S":"env"}}"#),
        ("DeleteItem", r#""Key":{"pk":{"S":"env"}}"#),
        ("UpdateItem", r#""Key":{"pk":{"S":"env"}}"#),
    ] {
        for (members, expected) in &shared {
            cases.push((
                operation,
                format!(r#"{{"TableName":"Tab1",{target},{members}}}"#),
                expected.clone(),
            ));
        }
    }
    for operation in ["PutItem", "DeleteItem"] {
        let target = if operation == "PutItem" {
            "Item"
        } else {
            "Key"
        };
        for rv in ["ALL_NEW", "UPDATED_NEW"] {
            cases.push((
                operation,
                format!(
                    r#"{{"TableName":"Tab1","{target}":{{"pk":{{"S":"env"}}}},"ReturnValues":"{rv}"}}"#
                ),
                one("ReturnValues can only be ALL_OLD or NONE"),
            ));
        }
    }
    let update = r#""UpdateExpression":"SET a = :a","ExpressionAttributeValues":{":a":{"S":"x"}}"#;
    let empty_name = "Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1";
    let no_key = "Value null at 'key' failed to satisfy constraint: Member must not be null";
    cases.extend([
        (
            "UpdateItem",
            r#"{"TableName":"Tab1","Key":{"pk":{"S":"env"}},"UpdateExpression":"SET b = :w","ConditionExpression":"a = :v","ExpressionAttributeValues":{":w":{"S":"x"}}}"#.to_owned(),
            one("Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v"),
        ),
        (
            "UpdateItem",
            format!(r#"{{"TableName":"",{update}}}"#),
            format!("2 validation errors detected: {empty_name}; {no_key}"),
        ),
        (
            "UpdateItem",
            format!(r#"{{"TableName":"",{update},"ReturnConsumedCapacity":"INVALID","ReturnValues":"INVALID"}}"#),
            format!(
                "4 validation errors detected: Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; {empty_name}; Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; {no_key}"
            ),
        ),
        (
            "UpdateItem",
            r#"{"TableName":"vo_upd_nokey","AttributeUpdates":{"x":{"Action":"PUT","Value":{"S":"1"}}},"Expected":{"a":{"Exists":false},"b":{"Exists":false}},"ConditionalOperator":"XOR"}"#.to_owned(),
            format!("2 validation errors detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]; {no_key}"),
        ),
        (
            "PutItem",
            r#"{"TableName":"","Item":{"pk":{"S":"env"}}}"#.to_owned(),
            one(empty_name),
        ),
        // Query: a ConditionalOperator outside its enum, bare and alone, before Select.
        (
            "Query",
            r#"{"TableName":"vo_query_xor","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"}]}},"QueryFilter":{"b":{"ComparisonOperator":"NULL"},"c":{"ComparisonOperator":"NULL"}},"ConditionalOperator":"XOR","Select":"BOGUS"}"#.to_owned(),
            "Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]".to_owned(),
        ),
        // Not wrapped: the mix of legacy and expression parameters, and transaction actions.
        (
            "PutItem",
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"env"}},"Expected":{"pk":{"Exists":false}},"ConditionExpression":"attribute_not_exists(pk)"}"#.to_owned(),
            "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}".to_owned(),
        ),
        (
            "TransactWriteItems",
            r#"{"TransactItems":[{"Put":{"TableName":"Tab1","Item":{"pk":{"S":"env"}},"ExpressionAttributeValues":{":v":{"S":"x"}}}}]}"#.to_owned(),
            "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null".to_owned(),
        ),
    ]);
    for (target, body, expected) in cases {
        let reply = post(e, Some(target), body.clone()).await;
        assert_eq!(reply.status, 400, "{target} {body}");
        assert_eq!(error_type(&reply), "ValidationException", "{target} {body}");
        assert_eq!(error_message(&reply), expected, "{target} {body}");
    }
}

/// PartiQL statements the parser refuses, in the wording AWS sent (eu-west-2, October 2026;
/// us-east-1 not captured): paritysuite/dynamodb-conformance
/// `tests/tier3/error-messages/partiqlGrammar.test.ts`.
#[tokio::test]
async fn partiql_grammar_errors_follow_dynamodb() {
    let server = KuraProcess::start(None);
    let e = server.endpoint.as_str();
    for create in [
        r#"{"TableName":"Tab1","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#,
        r#"{"TableName":"Num1","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#,
    ] {
        assert_eq!(post(e, Some("CreateTable"), create).await.status, 200);
    }
    let not_well_formed = "Statement wasn't well formed, can't be processed: ";
    let leftover = format!("{not_well_formed}Unexpected token after expression");
    let overflow =
        "Number overflow. Attempting to store a number with magnitude larger than supported range";
    let underflow = "Number underflow. Attempting to store a number with magnitude smaller than supported range";
    let digits = "Attempting to store more than 38 significant digits in a Number";
    let cases: Vec<(&str, String)> = vec![
        (r#"SELECT * FROM "Num1" WHERE pk = 1 foo"#, leftover.clone()),
        (r#"SELECT * FROM "Num1" WHERE pk = 1 e5"#, leftover.clone()),
        (
            r#"INSERT INTO "Num1" VALUE {'pk': 970001} foo"#,
            leftover.clone(),
        ),
        (
            r#"UPDATE "Num1" SET a = 9 WHERE pk = 970002 foo"#,
            leftover.clone(),
        ),
        (
            r#"DELETE FROM "Num1" WHERE pk = 970003 foo"#,
            leftover.clone(),
        ),
        (r#"SELECT * FROM "Num1" WHERE pk = 1)"#, leftover.clone()),
        (
            r#"DELETE FROM "Num1" WHERE pk = 970004 ORDER BY pk"#,
            leftover.clone(),
        ),
        (
            r#"SELECT * FROM "Num1" ORDER BY pk WHERE pk = 1"#,
            leftover.clone(),
        ),
        (
            r#"SELECT * FROM "Num1" WHERE pk = 1e2147483648"#,
            not_well_formed.into(),
        ),
        (
            r#"SELECT * FROM "Num1" WHERE pk = 1e99999999999"#,
            not_well_formed.into(),
        ),
        (
            r#"SELECT * FROM "Num1" WHERE pk = 1.5e-2147483647"#,
            not_well_formed.into(),
        ),
        (
            r#"SELECT * FROM "Num1" WHERE pk = 1 # note"#,
            not_well_formed.into(),
        ),
        (
            r#"SELECT * FROM "Num1" WHERE pk = 1 /* note"#,
            not_well_formed.into(),
        ),
        (
            r#"SELECT * FROM "Tab1" t WHERE pk = 'x'"#,
            "Aliasing is not supported".into(),
        ),
        (
            r#"SELECT * FROM "Tab1" AS t WHERE pk = 'x'"#,
            "Aliasing is not supported".into(),
        ),
        (
            r#"UPDATE "Tab1" t SET a = 3 WHERE pk = 'x'"#,
            "Aliasing is not supported".into(),
        ),
        (
            r#"DELETE FROM "Tab1" t WHERE pk = 'x'"#,
            "Aliasing is not supported".into(),
        ),
        (
            r#"INSERT INTO "Tab1" t VALUE {'pk': 'x'}"#,
            leftover.clone(),
        ),
        (
            r#"SELECT * FROM "Num1" WHERE pk = 1e126"#,
            format!("{overflow} under root"),
        ),
        (
            r#"SELECT * FROM "Num1" WHERE pk = 1e-131"#,
            format!("{underflow} under root"),
        ),
        (
            r#"SELECT * FROM "Num1" WHERE pk = 123456789012345678901234567890123456789"#,
            format!("{digits} under root"),
        ),
        (
            r#"INSERT INTO "Num1" VALUE {'pk': 1e126}"#,
            format!("{overflow} under root"),
        ),
        (
            r#"UPDATE "Num1" SET a = 1e-131 WHERE pk = 970005"#,
            format!("{underflow} under root"),
        ),
        (
            r#"INSERT INTO "Num1" VALUE {'pk': 970006, 'm': {'x': 1e126}}"#,
            format!("{overflow} under root.x"),
        ),
        (
            r#"INSERT INTO "Num1" VALUE {'pk': 970007, 'l': [1, 1e126]}"#,
            format!("{overflow} under root[1]"),
        ),
    ];
    for (statement, expected) in cases {
        let body = serde_json::json!({ "Statement": statement }).to_string();
        let reply = post(e, Some("ExecuteStatement"), body).await;
        assert_eq!(reply.status, 400, "{statement}");
        assert_eq!(error_type(&reply), "ValidationException", "{statement}");
        assert_eq!(error_message(&reply), expected, "{statement}");
    }
    // Nothing was written by the refused statements.
    let reply = post(e, Some("Scan"), r#"{"TableName":"Num1"}"#).await;
    assert_eq!(reply.body["Count"], 0, "{}", reply.body);
}
