//! Bad input over raw HTTP: each gets DynamoDB's `__type`, status and message, carries the
//! protocol headers, and the server keeps serving.

mod common;

use common::KuraProcess;
use common::raw_http::{Reply, error_message, error_type, post};

#[tokio::test]
async fn bad_requests_get_dynamodb_errors_and_the_server_keeps_serving() {
    let server = KuraProcess::start(None);
    let e = server.endpoint.as_str();
    let create = r#"{"TableName":"Tab1","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
        "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    assert_eq!(post(e, Some("CreateTable"), create).await.status, 200);

    let cases: Vec<(Option<&str>, String, &str, Option<&str>)> = vec![
        (Some("PutItem"), "{not json".into(), "SerializationException", None),
        (Some("PutItem"), r#"{"TableName": 5}"#.into(), "SerializationException", None),
        (Some("PutItem"), r#"{"TableName":"Tab1","Item":{"pk":{"S":1}}}"#.into(), "SerializationException", None),
        (Some("NoSuchOperation"), "{}".into(), "UnknownOperationException", None),
        (None, "{}".into(), "UnknownOperationException", None),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"},"x":{}}}"#.into(),
            "ValidationException",
            Some("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"},"x":{"S":"a","N":"1"}}}"#.into(),
            "ValidationException",
            Some("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"},"x":{"N":"12abc"}}}"#.into(),
            "ValidationException",
            Some("The parameter cannot be converted to a numeric value: 12abc"),
        ),
        (
            Some("PutItem"),
            format!(r#"{{"TableName":"Tab1","Item":{{"pk":{{"S":"a"}},"x":{{"N":"1{}"}}}}}}"#, "1".repeat(38)),
            "ValidationException",
            Some("Attempting to store more than 38 significant digits in a Number"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"},"x":{"N":"1e-131"}}}"#.into(),
            "ValidationException",
            Some("Number underflow. Attempting to store a number with magnitude smaller than supported range"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"},"x":{"SS":[]}}}"#.into(),
            "ValidationException",
            Some("One or more parameter values were invalid: An string set  may not be empty"),
        ),
        (
            Some("PutItem"),
            format!(r#"{{"TableName":"Tab1","Item":{{"pk":{{"S":"{}"}}}}}}"#, "k".repeat(2049)),
            "ValidationException",
            Some("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"),
        ),
        (
            Some("GetItem"),
            r#"{"TableName":"ab","Key":{"pk":{"S":"a"}}}"#.into(),
            "ValidationException",
            Some("1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"),
        ),
        (
            Some("PutItem"),
            r#"{"Item":{"pk":{"S":"a"}}}"#.into(),
            "ValidationException",
            Some("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"}},"ReturnValues":"ALL_NEW"}"#.into(),
            "ValidationException",
            Some("1 validation error detected: ReturnValues can only be ALL_OLD or NONE"),
        ),
        (
            Some("CreateTable"),
            r#"{"TableName":"Tab2","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[]}"#.into(),
            "ValidationException",
            Some("One or more parameter values were invalid: List of GlobalSecondaryIndexes is empty"),
        ),
        (
            Some("ExecuteStatement"),
            r#"{"Statement":"SELEC * FROM Tab1"}"#.into(),
            "ValidationException",
            Some("Statement wasn't well formed, can't be processed: Expected data manipulation"),
        ),
        (
            Some("Query"),
            r#"{"TableName":"Tab1","KeyConditionExpression":"pk = :p OR pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}"#.into(),
            "ValidationException",
            Some("Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: OR"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"}},"ConditionExpression":"((((((((((a = :v))))))))))","ExpressionAttributeValues":{":v":{"S":"a"}}}"#.into(),
            "ValidationException",
            Some("Invalid ConditionExpression: The expression has redundant parentheses;"),
        ),
        (
            Some("PutItem"),
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"}},"ConditionExpression":"a = :v","ExpressionAttributeValues":{":v":{"Q":"a"}}}"#.into(),
            "ValidationException",
            Some("ExpressionAttributeValues contains invalid value: Supplied AttributeValue is empty, must contain exactly one of the supported datatypes for key :v"),
        ),
        (
            Some("DeleteTable"),
            r#"{"TableName":"Missing"}"#.into(),
            "ResourceNotFoundException",
            Some("Requested resource not found: Table: Missing not found"),
        ),
    ];
    for (target, body, expected_type, expected_message) in cases {
        let reply = post(e, target, body.clone()).await;
        assert_eq!(reply.status, 400, "{target:?} {body:.80}");
        assert_eq!(
            error_type(&reply),
            expected_type,
            "{target:?} {body:.80}: {}",
            reply.body
        );
        if let Some(m) = expected_message {
            assert_eq!(error_message(&reply), m, "{target:?} {body:.80}");
        }
    }

    // A leaf below level 32 (AWS 2026: 31 wraps accepted, 32 refused).
    let mut deep = r#"{"S":"leaf"}"#.to_owned();
    for _ in 0..32 {
        deep = format!(r#"{{"L":[{deep}]}}"#);
    }
    let reply = post(
        e,
        Some("PutItem"),
        format!(r#"{{"TableName":"Tab1","Item":{{"pk":{{"S":"a"}},"d":{deep}}}}}"#),
    )
    .await;
    assert_eq!(
        error_message(&reply),
        "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
    );

    // Bodies over the 16 MB limit: see http_edges.rs.

    // Still serving, and nothing was written by the refused requests.
    let reply = post(e, Some("DescribeTable"), r#"{"TableName":"Tab1"}"#).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["Table"]["ItemCount"], 0);
}

const TABLE_NAME_KEYS: &str = "Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]";
const WRITES_PER_TABLE: &str = "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]";
const RCC_ENUM: &str = "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]";
const RICM_ENUM: &str = "Member must satisfy enum value set: [SIZE, NONE]";
const RV_ENUM: &str =
    "Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]";
const NOT_NULL: &str = "Member must not be null";

/// Validation details recorded against DynamoDB (dynalite's tests, a public AWS
/// conformance suite): required members against length constraints, Limit and Select,
/// the order of several framework failures in one message, empty sets, and errors inside
/// transactions. Issue 15.
#[tokio::test]
async fn validation_details_follow_dynamodb() {
    let server = KuraProcess::start(None);
    let e = server.endpoint.as_str();
    let create = r#"{"TableName":"Tab1","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
        "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"#;
    assert_eq!(post(e, Some("CreateTable"), create).await.status, 200);
    let put = |item: &str| format!(r#"{{"TableName":"Tab1","Item":{item}}}"#);

    let cases: Vec<(&str, String, String)> = vec![
        // Required members against length constraints.
        (
            "BatchWriteItem",
            r#"{"RequestItems":{}}"#.into(),
            // AWS 2026-09 (dynoxide PR #198): BatchWriteItem keeps its own sentence.
            "The requestItems parameter is required for BatchWriteItem".into(),
        ),
        (
            "BatchGetItem",
            r#"{"RequestItems":{}}"#.into(),
            // AWS 2026-09 (dynoxide PR #198): the framework's new wording.
            "1 validation error detected: Value at 'RequestItems' failed to satisfy constraint: Member must have length greater than or equal to 1".into(),
        ),
        (
            "BatchWriteItem",
            r#"{"RequestItems":{"a":[]}}"#.into(),
            format!("2 validation errors detected: Value '{{a=[]}}' at 'requestItems' failed to satisfy constraint: {TABLE_NAME_KEYS}; Value '{{a=[]}}' at 'requestItems' failed to satisfy constraint: {WRITES_PER_TABLE}"),
        ),
        (
            "BatchWriteItem",
            r#"{"RequestItems":{"Tab1":[]}}"#.into(),
            format!("1 validation error detected: Value '{{Tab1=[]}}' at 'requestItems' failed to satisfy constraint: {WRITES_PER_TABLE}"),
        ),
        (
            "BatchWriteItem",
            r#"{"ReturnConsumedCapacity":"hi","ReturnItemCollectionMetrics":"hi"}"#.into(),
            format!("3 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: {RCC_ENUM}; Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: {RICM_ENUM}; Value null at 'requestItems' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "BatchWriteItem",
            r#"{"RequestItems":{"aa;":[{"PutRequest":{},"DeleteRequest":{}}]},"ReturnConsumedCapacity":"hi","ReturnItemCollectionMetrics":"hi"}"#.into(),
            format!("5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: {RCC_ENUM}; Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: {RICM_ENUM}; Value '{{aa;=[WriteRequest(putRequest=PutRequest(item=null), deleteRequest=DeleteRequest(key=null))]}}' at 'requestItems' failed to satisfy constraint: {TABLE_NAME_KEYS}; Value null at 'requestItems.aa;.member.1.member.deleteRequest.key' failed to satisfy constraint: {NOT_NULL}; Value null at 'requestItems.aa;.member.1.member.putRequest.item' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "BatchWriteItem",
            r#"{"RequestItems":{"Tab1":[{}]}}"#.into(),
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes".into(),
        ),
        (
            "BatchGetItem",
            r#"{"RequestItems":{"a":{"Keys":[]}}}"#.into(),
            format!("2 validation errors detected: Value '{{\"a\":{{\"Keys\":[]}}}}' at 'requestItems' failed to satisfy constraint: {TABLE_NAME_KEYS}; Value at 'RequestItems.a.member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1"),
        ),
        (
            "BatchGetItem",
            r#"{"RequestItems":{"Tab1":{"Keys":[]}}}"#.into(),
            "1 validation error detected: Value at 'RequestItems.Tab1.member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1".into(),
        ),
        (
            "BatchGetItem",
            r#"{"RequestItems":{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}}"#.into(),
            format!("1 validation error detected: Value '{{\"bad!name\":{{\"Keys\":[{{\"pk\":{{\"S\":\"a\"}}}}]}}}}' at 'requestItems' failed to satisfy constraint: {TABLE_NAME_KEYS}"),
        ),
        // A PutRequest key missing or of another type: the generic schema message.
        (
            "BatchWriteItem",
            r#"{"RequestItems":{"Tab1":[{"PutRequest":{"Item":{"pk":{"N":"5"}}}}]}}"#.into(),
            "The provided key element does not match the schema".into(),
        ),
        (
            "BatchWriteItem",
            r#"{"RequestItems":{"Tab1":[{"PutRequest":{"Item":{"pk":{"L":[{"S":"x"}]}}}}]}}"#.into(),
            "The provided key element does not match the schema".into(),
        ),
        (
            "BatchWriteItem",
            r#"{"RequestItems":{"Tab1":[{"PutRequest":{"Item":{"other":{"S":"x"}}}}]}}"#.into(),
            "The provided key element does not match the schema".into(),
        ),
        (
            "BatchWriteItem",
            r#"{"RequestItems":{"Tab1":[{"PutRequest":{"Item":{"pk":{"S":""}}}}]}}"#.into(),
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk".into(),
        ),
        (
            "BatchGetItem",
            r#"{"RequestItems":{"aa;":{}},"ReturnConsumedCapacity":"hi"}"#.into(),
            format!("3 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: {RCC_ENUM}; Value '{{\"aa;\":{{}}}}' at 'requestItems' failed to satisfy constraint: {TABLE_NAME_KEYS}; Value null at 'requestItems.aa;.member.keys' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "TransactWriteItems",
            r#"{"TransactItems":[]}"#.into(),
            "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1".into(),
        ),
        (
            "TransactGetItems",
            r#"{"TransactItems":[]}"#.into(),
            "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1".into(),
        ),
        (
            "TransactWriteItems",
            r#"{"TransactItems":[],"ReturnConsumedCapacity":"hi","ReturnItemCollectionMetrics":"hi"}"#.into(),
            format!("3 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: {RCC_ENUM}; Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: {RICM_ENUM}; Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"),
        ),
        (
            "TransactWriteItems",
            r#"{"TransactItems":[{"Update":{}}]}"#.into(),
            format!("1 validation error detected: Value null at 'transactItems.1.member.update.key' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "TransactWriteItems",
            r#"{"TransactItems":[{"Put":{}}]}"#.into(),
            format!("1 validation error detected: Value null at 'transactItems.1.member.put.item' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "TransactWriteItems",
            r#"{"TransactItems":[{"Update":{"Key":{"pk":{"S":"a"}}}}]}"#.into(),
            format!("2 validation errors detected: Value null at 'transactItems.1.member.update.tableName' failed to satisfy constraint: {NOT_NULL}; Value null at 'transactItems.1.member.update.updateExpression' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "TransactGetItems",
            r#"{"TransactItems":[{}]}"#.into(),
            format!("1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "GetItem",
            r#"{"TableName":"Tab1"}"#.into(),
            format!("1 validation error detected: Value null at 'key' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "PutItem",
            r#"{"TableName":"Tab1"}"#.into(),
            format!("1 validation error detected: Value null at 'item' failed to satisfy constraint: {NOT_NULL}"),
        ),
        // The order of several framework failures.
        (
            "GetItem",
            r#"{"ReturnConsumedCapacity":"hi","AttributesToGet":[]}"#.into(),
            format!("4 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: {RCC_ENUM}; Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1; Value null at 'tableName' failed to satisfy constraint: {NOT_NULL}; Value null at 'key' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "PutItem",
            r#"{"ReturnConsumedCapacity":"hi","ReturnValues":"hi","ReturnItemCollectionMetrics":"hi"}"#.into(),
            format!("5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: {RCC_ENUM}; Value null at 'tableName' failed to satisfy constraint: {NOT_NULL}; Value null at 'item' failed to satisfy constraint: {NOT_NULL}; Value 'hi' at 'returnValues' failed to satisfy constraint: {RV_ENUM}; Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: {RICM_ENUM}"),
        ),
        (
            "UpdateItem",
            r#"{"ReturnConsumedCapacity":"hi","ReturnValues":"hi","ReturnItemCollectionMetrics":"hi"}"#.into(),
            format!("5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: {RCC_ENUM}; Value null at 'tableName' failed to satisfy constraint: {NOT_NULL}; Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: {RICM_ENUM}; Value 'hi' at 'returnValues' failed to satisfy constraint: {RV_ENUM}; Value null at 'key' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "DeleteItem",
            r#"{"ReturnConsumedCapacity":"hi","ReturnValues":"hi","ReturnItemCollectionMetrics":"hi"}"#.into(),
            format!("5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: {RCC_ENUM}; Value null at 'tableName' failed to satisfy constraint: {NOT_NULL}; Value 'hi' at 'returnValues' failed to satisfy constraint: {RV_ENUM}; Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: {RICM_ENUM}; Value null at 'key' failed to satisfy constraint: {NOT_NULL}"),
        ),
        (
            "Query",
            r#"{"TableName":"abc;","ReturnConsumedCapacity":"hi","AttributesToGet":[],"IndexName":"abc;","Select":"hi","Limit":-1}"#.into(),
            format!("6 validation errors detected: Value '-1' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1; Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: {RCC_ENUM}; Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1; Value 'hi' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]; Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'abc;' at 'indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"),
        ),
        (
            "Scan",
            r#"{"TableName":"Tab1","Segment":-1,"TotalSegments":0,"Limit":0,"Select":"hi"}"#.into(),
            "4 validation errors detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1; Value '-1' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0; Value 'hi' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]; Value '0' at 'totalSegments' failed to satisfy constraint: Member must have value greater than or equal to 1".into(),
        ),
        // Limit, Select and Segment values.
        (
            "Query",
            r#"{"TableName":"Tab1","Limit":0,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}"#.into(),
            "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1".into(),
        ),
        (
            "Scan",
            r#"{"TableName":"Tab1","Select":"COUNT","ProjectionExpression":"a"}"#.into(),
            "Cannot specify the ProjectionExpression when choosing to get only the Count".into(),
        ),
        (
            "Scan",
            r#"{"TableName":"Tab1","Select":"COUNT","AttributesToGet":["a"]}"#.into(),
            "Cannot specify the AttributesToGet when choosing to get only the Count".into(),
        ),
        (
            "Query",
            r#"{"TableName":"Tab1","Select":"ALL_ATTRIBUTES","AttributesToGet":["a"],"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"}]}}}"#.into(),
            "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES".into(),
        ),
        (
            "Scan",
            r#"{"TableName":"Tab1","Select":"SPECIFIC_ATTRIBUTES"}"#.into(),
            "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES".into(),
        ),
        (
            "Scan",
            r#"{"TableName":"Tab1","Segment":1,"TotalSegments":1}"#.into(),
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 1 is not less than TotalSegments: 1".into(),
        ),
        (
            "Scan",
            r#"{"TableName":"Tab1","Segment":1000000,"TotalSegments":1000001}"#.into(),
            "2 validation errors detected: Value '1000000' at 'segment' failed to satisfy constraint: Member must have value less than or equal to 999999; Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000".into(),
        ),
        // Empty sets and values.
        (
            "PutItem",
            put(r#"{"pk":{"S":"a"},"b":{"BS":[]}}"#),
            "One or more parameter values were invalid: Binary sets should not be empty".into(),
        ),
        (
            "PutItem",
            put(r#"{"pk":{"S":"a"},"b":{"NS":[]}}"#),
            "One or more parameter values were invalid: An number set  may not be empty".into(),
        ),
        (
            "PutItem",
            put(r#"{"pk":{"S":"a"},"b":{"BS":["Yg==","Yg=="]}}"#),
            "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS contains duplicates.".into(),
        ),
        (
            "GetItem",
            r#"{"TableName":"Tab1","Key":{"pk":{"BS":[]}}}"#.into(),
            "One or more parameter values were invalid: Binary sets should not be empty".into(),
        ),
        (
            "PutItem",
            put(r#"{"pk":{"S":""}}"#),
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk".into(),
        ),
        (
            "PutItem",
            r#"{"TableName":"Tab1","Item":{"pk":{"S":"a"}},"ConditionExpression":"b = :v","ExpressionAttributeValues":{":v":{"BS":[]}}}"#.into(),
            "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: Binary sets should not be empty for key :v".into(),
        ),
        (
            "BatchWriteItem",
            r#"{"RequestItems":{"Tab1":[{"PutRequest":{"Item":{"pk":{"S":"a"},"b":{"BS":[]}}}}]}}"#.into(),
            "One or more parameter values were invalid: Binary sets should not be empty".into(),
        ),
    ];
    for (target, body, expected) in &cases {
        let reply = post(e, Some(target), body.clone()).await;
        assert_eq!(reply.status, 400, "{target} {body}: {}", reply.body);
        assert_eq!(error_type(&reply), "ValidationException", "{target} {body}");
        assert_eq!(error_message(&reply), expected, "{target} {body}");
    }

    // More than 25 requests for one table: the map value constraint, quoting the map.
    let requests: Vec<String> = (0..26)
        .map(|i| format!(r#"{{"PutRequest":{{"Item":{{"pk":{{"S":"k{i}"}}}}}}}}"#))
        .collect();
    let reply = post(
        e,
        Some("BatchWriteItem"),
        format!(r#"{{"RequestItems":{{"Tab1":[{}]}}}}"#, requests.join(",")),
    )
    .await;
    let m = error_message(&reply);
    assert!(
        m.starts_with("1 validation error detected: Value '{Tab1=[WriteRequest(putRequest=PutRequest(item={pk=AttributeValue}), deleteRequest=null), ")
            && m.ends_with(&format!("]}}' at 'requestItems' failed to satisfy constraint: {WRITES_PER_TABLE}")),
        "{m}"
    );

    // More than 100 keys for one table: the framework's 2026 wording (AWS, dynoxide issue
    // #18 and PR #198).
    let keys: Vec<String> = (0..101)
        .map(|i| format!(r#"{{"pk":{{"S":"k{i}"}}}}"#))
        .collect();
    let reply = post(
        e,
        Some("BatchGetItem"),
        format!(
            r#"{{"RequestItems":{{"Tab1":{{"Keys":[{}]}}}}}}"#,
            keys.join(",")
        ),
    )
    .await;
    assert_eq!(
        error_message(&reply),
        "1 validation error detected: Value at 'RequestItems.Tab1.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100"
    );

    // An action whose key does not match the schema cancels the transaction with a
    // ValidationError reason at its place (AWS 2026-06-23, four regions); an empty key
    // value, a missing table, an item over 400 KB and the same item twice stay request
    // errors.
    let cancelled = |reply: &Reply| -> Vec<(String, Option<String>)> {
        assert_eq!(
            error_type(reply),
            "TransactionCanceledException",
            "{}",
            reply.body
        );
        reply.body["CancellationReasons"]
            .as_array()
            .expect("reasons")
            .iter()
            .map(|r| {
                (
                    r["Code"].as_str().unwrap_or_default().to_owned(),
                    r["Message"].as_str().map(str::to_owned),
                )
            })
            .collect()
    };
    let mismatch = Some("The provided key element does not match the schema".to_owned());
    let reply = post(
        e,
        Some("TransactWriteItems"),
        r#"{"TransactItems":[{"Put":{"TableName":"Tab1","Item":{"pk":{"N":"5"}}}}]}"#,
    )
    .await;
    assert_eq!(
        error_message(&reply),
        "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]"
    );
    assert_eq!(
        cancelled(&reply),
        vec![(
            "ValidationError".to_owned(),
            Some("One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N".to_owned())
        )]
    );
    for action in [
        r#"{"Update":{"TableName":"Tab1","Key":{"pk":{"N":"5"}},"UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":{"S":"x"}}}}"#,
        r#"{"Delete":{"TableName":"Tab1","Key":{"pk":{"L":[{"S":"x"}]}}}}"#,
        r#"{"ConditionCheck":{"TableName":"Tab1","Key":{"pk":{"N":"5"}},"ConditionExpression":"attribute_not_exists(pk)"}}"#,
    ] {
        let body = format!(
            r#"{{"TransactItems":[{{"Put":{{"TableName":"Tab1","Item":{{"pk":{{"S":"tx-ok"}}}}}}}},{action}]}}"#
        );
        let reply = post(e, Some("TransactWriteItems"), body).await;
        assert_eq!(
            cancelled(&reply),
            vec![
                ("None".to_owned(), None),
                ("ValidationError".to_owned(), mismatch.clone())
            ],
            "{action}"
        );
    }
    let reply = post(
        e,
        Some("TransactGetItems"),
        r#"{"TransactItems":[{"Get":{"TableName":"Tab1","Key":{}}}]}"#,
    )
    .await;
    assert_eq!(
        cancelled(&reply),
        vec![("ValidationError".to_owned(), mismatch.clone())]
    );
    let reply = post(
        e,
        Some("TransactWriteItems"),
        r#"{"TransactItems":[{"Delete":{"TableName":"Tab1","Key":{"pk":{"S":""}}}}]}"#,
    )
    .await;
    assert_eq!(error_type(&reply), "ValidationException");
    assert_eq!(
        error_message(&reply),
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"
    );
    let reply = post(
        e,
        Some("TransactWriteItems"),
        r#"{"TransactItems":[{"Put":{"TableName":"Nope","Item":{"pk":{"S":"a"}}}}]}"#,
    )
    .await;
    assert_eq!(error_type(&reply), "ResourceNotFoundException");
    assert_eq!(error_message(&reply), "Requested resource not found");
    let reply = post(
        e,
        Some("TransactWriteItems"),
        format!(
            r#"{{"TransactItems":[{{"Put":{{"TableName":"Tab1","Item":{{"pk":{{"S":"big"}},"d":{{"S":"{}"}}}}}}}}]}}"#,
            "x".repeat(409_600)
        ),
    )
    .await;
    assert_eq!(error_type(&reply), "ValidationException");
    assert_eq!(
        error_message(&reply),
        "Item size has exceeded the maximum allowed size"
    );
    // An Update over 400 KB can only fail while the transaction runs: a cancellation.
    let reply = post(
        e,
        Some("TransactWriteItems"),
        format!(
            r#"{{"TransactItems":[{{"Update":{{"TableName":"Tab1","Key":{{"pk":{{"S":"big"}}}},"UpdateExpression":"SET d = :v","ExpressionAttributeValues":{{":v":{{"S":"{}"}}}}}}}}]}}"#,
            "x".repeat(409_600)
        ),
    )
    .await;
    assert_eq!(
        cancelled(&reply),
        vec![(
            "ValidationError".to_owned(),
            Some("Item size to update has exceeded the maximum allowed size".to_owned())
        )]
    );
    // Nothing was written by the refused transactions.
    let reply = post(
        e,
        Some("GetItem"),
        r#"{"TableName":"Tab1","Key":{"pk":{"S":"tx-ok"}}}"#,
    )
    .await;
    assert!(reply.body.get("Item").is_none(), "{}", reply.body);

    // Empty members of a binary or string set, and an empty non-key binary, are values.
    let reply = post(
        e,
        Some("PutItem"),
        put(r#"{"pk":{"S":"a"},"b":{"BS":["","Yg=="]},"s":{"SS":["","a"]},"e":{"B":""}}"#),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
}
