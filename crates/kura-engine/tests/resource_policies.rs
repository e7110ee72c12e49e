//! Resource-based policies in the engine: stored on the table record and on its stream,
//! revision ids that change on every put (and not on an identical one), ExpectedRevisionId
//! checks, PolicyNotFound and ResourceNotFound, CreateTable's ResourcePolicy, and the
//! policies going with the table when it is deleted and recreated.

use std::sync::Arc;

use kura_engine::storage::MemoryStore;
use kura_engine::{Engine, EngineError, EngineOptions, RequestContext};
use serde_json::{Value, json};

const ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/Tbl";
const DOC: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}]}"#;
const DOC2: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}]}"#;

fn input<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("request shape")
}

async fn create(engine: &Engine, extra: Value) {
    let mut req = json!({
        "TableName": "Tbl",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    });
    for (k, v) in extra.as_object().expect("object") {
        req[k] = v.clone();
    }
    engine
        .create_table(&RequestContext::default(), input(req))
        .await
        .expect("create");
}

async fn put(
    engine: &Engine,
    arn: &str,
    doc: &str,
    expected: Option<&str>,
) -> Result<String, EngineError> {
    let mut req = json!({"ResourceArn": arn, "Policy": doc});
    if let Some(e) = expected {
        req["ExpectedRevisionId"] = json!(e);
    }
    engine
        .put_resource_policy(input(req))
        .await
        .map(|o| o.revision_id)
}

fn get(engine: &Engine, arn: &str) -> Result<(String, String), EngineError> {
    engine
        .get_resource_policy(input(json!({"ResourceArn": arn})))
        .map(|o| (o.policy, o.revision_id))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_policy_revisions_and_errors() {
    let engine =
        Engine::with_options(Arc::new(MemoryStore::new()), EngineOptions::default()).expect("open");
    // Unknown table: ResourceNotFound; malformed ARN: validation.
    assert!(matches!(
        get(&engine, ARN),
        Err(EngineError::ResourceNotFound(_))
    ));
    assert!(matches!(
        put(&engine, ARN, DOC, None).await,
        Err(EngineError::ResourceNotFound(_))
    ));
    assert!(matches!(
        get(&engine, "Tbl"),
        Err(EngineError::Validation(_))
    ));
    create(&engine, json!({})).await;
    assert!(matches!(
        get(&engine, ARN),
        Err(EngineError::PolicyNotFound(_))
    ));
    // A revision that is not there refuses; NO_POLICY puts the first one.
    assert!(matches!(
        put(&engine, ARN, DOC, Some("123")).await,
        Err(EngineError::PolicyNotFound(_))
    ));
    let r1 = put(&engine, ARN, DOC, Some("NO_POLICY"))
        .await
        .expect("put");
    assert_eq!(
        get(&engine, ARN).expect("get"),
        (DOC.to_owned(), r1.clone())
    );
    // The same document keeps its revision; another one gets a new one.
    assert_eq!(put(&engine, ARN, DOC, None).await.expect("again"), r1);
    match put(&engine, ARN, DOC2, Some("NO_POLICY")).await {
        Err(EngineError::PolicyNotFound(m)) => assert_eq!(
            m,
            format!(
                "Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table Tbl, but a policy exists with revision id {r1}."
            )
        ),
        other => panic!("{other:?}"),
    }
    let r2 = put(&engine, ARN, DOC2, Some(&r1)).await.expect("replace");
    assert_ne!(r1, r2);
    assert_eq!(get(&engine, ARN).expect("get").1, r2);
    // Too large: LimitExceeded.
    let big = format!("{DOC}{}", " ".repeat(20 * 1024));
    assert!(matches!(
        put(&engine, ARN, &big, None).await,
        Err(EngineError::LimitExceeded(_))
    ));
    // Delete with a stale revision refuses; with the current one it answers it.
    let del = |expected: &str| {
        engine.delete_resource_policy(input(
            json!({"ResourceArn": ARN, "ExpectedRevisionId": expected}),
        ))
    };
    assert!(matches!(
        del(&r1).await,
        Err(EngineError::PolicyNotFound(_))
    ));
    assert_eq!(
        del(&r2).await.expect("delete").revision_id,
        Some(r2.clone())
    );
    assert!(matches!(
        get(&engine, ARN),
        Err(EngineError::PolicyNotFound(_))
    ));
    assert!(matches!(
        del(&r2).await,
        Err(EngineError::PolicyNotFound(_))
    ));
    // Without ExpectedRevisionId, deleting no policy succeeds with no RevisionId.
    let none = engine
        .delete_resource_policy(input(json!({"ResourceArn": ARN})))
        .await
        .expect("no policy, no expectation");
    assert_eq!(none.revision_id, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_table_policy_stream_policy_and_delete_table() {
    let engine =
        Engine::with_options(Arc::new(MemoryStore::new()), EngineOptions::default()).expect("open");
    create(
        &engine,
        json!({"ResourcePolicy": DOC,
               "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}),
    )
    .await;
    assert_eq!(get(&engine, ARN).expect("created with a policy").0, DOC);
    // An index ARN answers with its table's policy.
    let index = engine
        .resource_policy(&format!("{ARN}/index/I"))
        .expect("index");
    assert_eq!(index.map(|p| p.policy).as_deref(), Some(DOC));
    let described = serde_json::to_value(
        engine
            .describe_table(
                &RequestContext::default(),
                input(json!({"TableName": "Tbl"})),
            )
            .await
            .expect("describe"),
    )
    .expect("json");
    let stream = described["Table"]["LatestStreamArn"]
        .as_str()
        .expect("stream")
        .to_owned();
    assert!(matches!(
        get(&engine, &stream),
        Err(EngineError::PolicyNotFound(_))
    ));
    let rs = put(&engine, &stream, DOC2, None).await.expect("stream put");
    assert_eq!(
        get(&engine, &stream).expect("stream get"),
        (DOC2.to_owned(), rs)
    );
    // The table's policy is its own.
    assert_eq!(get(&engine, ARN).expect("table").0, DOC);
    // Another label of the table: not found.
    assert!(matches!(
        get(&engine, &format!("{ARN}/stream/2000-01-01T00:00:00.000")),
        Err(EngineError::ResourceNotFound(_))
    ));
    // Deleting the table deletes both; a new table of the name starts without.
    engine
        .delete_table(
            &RequestContext::default(),
            input(json!({"TableName": "Tbl"})),
        )
        .await
        .expect("delete");
    assert!(matches!(
        get(&engine, ARN),
        Err(EngineError::ResourceNotFound(_))
    ));
    create(&engine, json!({})).await;
    assert!(matches!(
        get(&engine, ARN),
        Err(EngineError::PolicyNotFound(_))
    ));
}
