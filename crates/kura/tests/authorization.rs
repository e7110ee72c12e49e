//! Over 800 lines on purpose: one spawned server per scenario, and the per-operation
//! tenant-isolation matrix reads best in one place.
//!
//! `kura serve --auth FILE` with identity policies: the per-tenant policy of
//! docs/security.md (partition keys `PREFIX#tenant`, `dynamodb:LeadingKeys` against
//! `*#${aws:PrincipalTag/tenant}`) refuses tenant A every item of tenant B, in every
//! operation; a read-only policy; an explicit deny; a principal without `Policies` keeps
//! full access; resource-based policies on the table and its stream, combined with the
//! identity policies. Through aws-sdk-dynamodb against a spawned server.

mod common;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::Credentials;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::types::{
    AttributeValue, BillingMode, DeleteRequest, GlobalSecondaryIndex, KeyType, KeysAndAttributes,
    Projection, ProjectionType, PutRequest, ScalarAttributeType, TransactGetItem,
    TransactWriteItem, Update, WriteRequest,
};
use common::{KuraProcess, code, def, key, message};

/// The tested per-tenant policy (docs/security.md quotes it).
const TENANT_POLICY: &str = r#"{
  "Version": "2012-10-17",
  "Statement": [{
    "Sid": "OwnTenantItemsOnly",
    "Effect": "Allow",
    "Action": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
               "dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:Scan",
               "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem",
               "dynamodb:ConditionCheckItem", "dynamodb:PartiQL*"],
    "Resource": ["arn:aws:dynamodb:*:*:table/app", "arn:aws:dynamodb:*:*:table/app/index/*"],
    "Condition": {
      "ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["*#${aws:PrincipalTag/tenant}"]},
      "Null": {"dynamodb:LeadingKeys": "false"}
    }
  }]
}"#;

fn file() -> String {
    format!(
        r#"{{"Credentials": [
  {{"AccessKeyId": "AKIDADMIN", "SecretAccessKey": "admin-secret", "User": "admin", "Account": "123456789012"}},
  {{"AccessKeyId": "AKIDALICE", "SecretAccessKey": "alice-secret", "User": "alice", "Account": "123456789012"}},
  {{"AccessKeyId": "AKIDBOB", "SecretAccessKey": "bob-secret", "User": "bob", "Account": "123456789012"}},
  {{"AccessKeyId": "AKIDREADER", "SecretAccessKey": "reader-secret", "User": "reader", "Account": "123456789012",
    "Policies": [{{"Version": "2012-10-17", "Statement": {{"Effect": "Allow",
      "Action": ["dynamodb:Get*", "dynamodb:Query", "dynamodb:Scan", "dynamodb:BatchGetItem", "dynamodb:Describe*", "dynamodb:List*"],
      "Resource": "*"}}}}]}},
  {{"AccessKeyId": "AKIDNODELETE", "SecretAccessKey": "nodelete-secret", "User": "nodelete", "Account": "123456789012",
    "Policies": [{{"Statement": [{{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}},
      {{"Effect": "Deny", "Action": "dynamodb:DeleteItem", "Resource": "arn:aws:dynamodb:*:*:table/app"}}]}}]}},
  {{"AccessKeyId": "AKIDLOCAL", "SecretAccessKey": "local-secret", "User": "local", "Account": "123456789012",
    "Policies": [{{"Statement": {{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*",
      "Condition": {{"IpAddress": {{"aws:SourceIp": ["127.0.0.0/8", "::1/128"]}}}}}}}}]}},
  {{"AccessKeyId": "AKIDREMOTE", "SecretAccessKey": "remote-secret", "User": "remote", "Account": "123456789012",
    "Policies": [{{"Statement": {{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*",
      "Condition": {{"IpAddress": {{"aws:SourceIp": "10.0.0.0/8"}}}}}}}}]}},
  {{"AccessKeyId": "AKIDCAROL", "SecretAccessKey": "carol-secret", "User": "carol", "Account": "123456789012",
    "Policies": [{{"Statement": {{"Effect": "Allow", "Action": "dynamodb:ListTables", "Resource": "*"}}}}]}},
  {{"AccessKeyId": "AKIDNARROW", "SecretAccessKey": "narrow-secret", "User": "narrow", "Account": "123456789012",
    "Policies": [{{"Version": "2012-10-17", "Statement": {{"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:UpdateItem"], "Resource": "*",
      "Condition": {{"ForAllValues:StringEquals": {{"dynamodb:Attributes": ["pk", "sk", "gpk"]}},
                     "StringEqualsIfExists": {{"dynamodb:ReturnConsumedCapacity": "NONE"}}}}}}}}]}}],
 "Principals": [
  {{"User": "alice", "Account": "123456789012", "Tags": {{"tenant": "acme"}}, "Policies": [{TENANT_POLICY}]}},
  {{"User": "bob", "Account": "123456789012", "Tags": {{"tenant": "globex"}}, "Policies": [{TENANT_POLICY}]}}]}}"#
    )
}

fn client(kura: &KuraProcess, key: &str, secret: &str) -> Client {
    let config = kura
        .client()
        .config()
        .to_builder()
        .credentials_provider(Credentials::new(key, secret, None, None, "test"))
        .retry_config(RetryConfig::disabled())
        .build();
    Client::from_conf(config)
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

const TABLE_ARN: &str = "arn:aws:dynamodb:us-east-1:123456789012:table/app";

/// The AccessDeniedException DynamoDB sends when no statement allows the action.
fn no_allow(user: &str, action: &str, resource: &str) -> String {
    format!(
        "User: arn:aws:iam::123456789012:user/{user} is not authorized to perform: dynamodb:{action} on resource: {resource} because no identity-based policy allows the dynamodb:{action} action"
    )
}

macro_rules! refused {
    ($call:expr, $action:expr) => {
        refused!($call, $action, TABLE_ARN)
    };
    ($call:expr, $action:expr, $resource:expr) => {{
        let err = $call.send().await.expect_err("refused");
        assert_eq!(code(&err), "AccessDeniedException", "{}", $action);
        assert_eq!(message(&err), no_allow("alice", $action, $resource));
    }};
}

async fn setup(admin: &Client) {
    admin
        .create_table()
        .table_name("app")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .attribute_definitions(def("sk", ScalarAttributeType::S))
        .attribute_definitions(def("gpk", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .stream_specification(
            aws_sdk_dynamodb::types::StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(aws_sdk_dynamodb::types::StreamViewType::KeysOnly)
                .build()
                .expect("stream"),
        )
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("byStatus")
                .key_schema(key("gpk", KeyType::Hash))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .expect("gsi"),
        )
        .send()
        .await
        .expect("a principal without Policies may do everything");
    for tenant in ["acme", "globex"] {
        for n in ["1", "2"] {
            admin
                .put_item()
                .table_name("app")
                .item("pk", s(&format!("ORDER#{tenant}")))
                .item("sk", s(n))
                .item("gpk", s(&format!("OPEN#{tenant}")))
                .send()
                .await
                .expect("seed");
        }
    }
}

fn order(tenant: &str, n: &str) -> std::collections::HashMap<String, AttributeValue> {
    [
        ("pk".to_owned(), s(&format!("ORDER#{tenant}"))),
        ("sk".to_owned(), s(n)),
    ]
    .into_iter()
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_tenant_policy_in_every_operation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("credentials.json");
    std::fs::write(&path, file()).expect("write");
    let kura = KuraProcess::start_with(None, &["--auth", path.to_str().expect("utf-8")]);
    let admin = client(&kura, "AKIDADMIN", "admin-secret");
    setup(&admin).await;
    let alice = client(&kura, "AKIDALICE", "alice-secret");
    let bob = client(&kura, "AKIDBOB", "bob-secret");

    // GetItem.
    let own = alice
        .get_item()
        .table_name("app")
        .set_key(Some(order("acme", "1")))
        .send()
        .await
        .expect("own item");
    assert!(own.item().is_some());
    refused!(
        alice
            .get_item()
            .table_name("app")
            .set_key(Some(order("globex", "1"))),
        "GetItem"
    );
    // The same policy serves bob for his tenant.
    bob.get_item()
        .table_name("app")
        .set_key(Some(order("globex", "1")))
        .send()
        .await
        .expect("bob's own item");

    // PutItem, UpdateItem, DeleteItem.
    alice
        .put_item()
        .table_name("app")
        .set_item(Some(order("acme", "3")))
        .send()
        .await
        .expect("own put");
    refused!(
        alice
            .put_item()
            .table_name("app")
            .set_item(Some(order("globex", "3"))),
        "PutItem"
    );
    alice
        .update_item()
        .table_name("app")
        .set_key(Some(order("acme", "1")))
        .update_expression("SET note = :n")
        .expression_attribute_values(":n", s("x"))
        .send()
        .await
        .expect("own update");
    refused!(
        alice
            .update_item()
            .table_name("app")
            .set_key(Some(order("globex", "1")))
            .update_expression("SET note = :n")
            .expression_attribute_values(":n", s("x")),
        "UpdateItem"
    );
    refused!(
        alice
            .delete_item()
            .table_name("app")
            .set_key(Some(order("globex", "1"))),
        "DeleteItem"
    );
    alice
        .delete_item()
        .table_name("app")
        .set_key(Some(order("acme", "3")))
        .send()
        .await
        .expect("own delete");

    // Query, on the table and through the index; Scan has no leading keys.
    let page = alice
        .query()
        .table_name("app")
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("ORDER#acme"))
        .send()
        .await
        .expect("own query");
    assert_eq!(page.count(), 2);
    refused!(
        alice
            .query()
            .table_name("app")
            .key_condition_expression("pk = :p")
            .expression_attribute_values(":p", s("ORDER#globex")),
        "Query"
    );
    let page = alice
        .query()
        .table_name("app")
        .index_name("byStatus")
        .key_condition_expression("gpk = :g")
        .expression_attribute_values(":g", s("OPEN#acme"))
        .send()
        .await
        .expect("own index query");
    assert_eq!(page.count(), 2);
    refused!(
        alice
            .query()
            .table_name("app")
            .index_name("byStatus")
            .key_condition_expression("gpk = :g")
            .expression_attribute_values(":g", s("OPEN#globex")),
        "Query",
        &format!("{TABLE_ARN}/index/byStatus")
    );
    refused!(alice.scan().table_name("app"), "Scan");
    // The legacy KeyConditions name the partition key too.
    let legacy = |tenant: &str| {
        aws_sdk_dynamodb::types::Condition::builder()
            .comparison_operator(aws_sdk_dynamodb::types::ComparisonOperator::Eq)
            .attribute_value_list(s(&format!("ORDER#{tenant}")))
            .build()
            .expect("condition")
    };
    alice
        .query()
        .table_name("app")
        .key_conditions("pk", legacy("acme"))
        .send()
        .await
        .expect("own legacy query");
    refused!(
        alice
            .query()
            .table_name("app")
            .key_conditions("pk", legacy("globex")),
        "Query"
    );

    // BatchGetItem and BatchWriteItem: one foreign key refuses the batch.
    let keys = |tenants: &[&str]| {
        let mut k = KeysAndAttributes::builder();
        for t in tenants {
            k = k.keys(order(t, "1"));
        }
        k.build().expect("keys")
    };
    alice
        .batch_get_item()
        .request_items("app", keys(&["acme"]))
        .send()
        .await
        .expect("own batch get");
    refused!(
        alice
            .batch_get_item()
            .request_items("app", keys(&["acme", "globex"])),
        "BatchGetItem"
    );
    let put = |t: &str| {
        WriteRequest::builder()
            .put_request(
                PutRequest::builder()
                    .set_item(Some(order(t, "9")))
                    .build()
                    .expect("put"),
            )
            .build()
    };
    let delete = |t: &str| {
        WriteRequest::builder()
            .delete_request(
                DeleteRequest::builder()
                    .set_key(Some(order(t, "2")))
                    .build()
                    .expect("delete"),
            )
            .build()
    };
    alice
        .batch_write_item()
        .request_items("app", vec![put("acme")])
        .send()
        .await
        .expect("own batch write");
    refused!(
        alice
            .batch_write_item()
            .request_items("app", vec![put("acme"), delete("globex")]),
        "BatchWriteItem"
    );

    // TransactWriteItems and TransactGetItems: each action is checked.
    let update = |t: &str| {
        TransactWriteItem::builder()
            .update(
                Update::builder()
                    .table_name("app")
                    .set_key(Some(order(t, "1")))
                    .update_expression("SET note = :n")
                    .expression_attribute_values(":n", s("tx"))
                    .build()
                    .expect("update"),
            )
            .build()
    };
    alice
        .transact_write_items()
        .transact_items(update("acme"))
        .send()
        .await
        .expect("own transaction");
    refused!(
        alice
            .transact_write_items()
            .transact_items(update("acme"))
            .transact_items(update("globex")),
        "UpdateItem"
    );
    let get = |t: &str| {
        TransactGetItem::builder()
            .get(
                aws_sdk_dynamodb::types::Get::builder()
                    .table_name("app")
                    .set_key(Some(order(t, "1")))
                    .build()
                    .expect("get"),
            )
            .build()
    };
    alice
        .transact_get_items()
        .transact_items(get("acme"))
        .send()
        .await
        .expect("own transact get");
    refused!(
        alice
            .transact_get_items()
            .transact_items(get("acme"))
            .transact_items(get("globex")),
        "GetItem"
    );

    // PartiQL: each statement as its PartiQL action.
    alice
        .execute_statement()
        .statement(r#"SELECT * FROM "app" WHERE pk = ?"#)
        .parameters(s("ORDER#acme"))
        .send()
        .await
        .expect("own select");
    refused!(
        alice
            .execute_statement()
            .statement(r#"SELECT * FROM "app" WHERE pk = 'ORDER#globex'"#),
        "PartiQLSelect"
    );
    refused!(
        alice
            .execute_statement()
            .statement(r#"SELECT * FROM "app""#),
        "PartiQLSelect"
    );
    refused!(
        alice
            .execute_statement()
            .statement(r#"INSERT INTO "app" VALUE {'pk': 'ORDER#globex', 'sk': '7'}"#),
        "PartiQLInsert"
    );
    refused!(
        alice
            .execute_statement()
            .statement(r#"DELETE FROM "app" WHERE pk = 'ORDER#globex' AND sk = '1'"#),
        "PartiQLDelete"
    );
    refused!(
        alice.execute_transaction().transact_statements(
            aws_sdk_dynamodb::types::ParameterizedStatement::builder()
                .statement(r#"UPDATE "app" SET note = 'p' WHERE pk = 'ORDER#globex' AND sk = '1'"#)
                .build()
                .expect("statement")
        ),
        "PartiQLUpdate"
    );
    // Tenant B's items are untouched.
    let theirs = admin
        .query()
        .table_name("app")
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("ORDER#globex"))
        .send()
        .await
        .expect("admin query");
    assert_eq!(theirs.count(), 2);
    assert!(theirs.items().iter().all(|i| !i.contains_key("note")));

    // Control plane: the tenant policy grants none.
    refused!(alice.list_tables(), "ListTables", "*");
    refused!(alice.describe_table().table_name("app"), "DescribeTable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_and_explicit_deny() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("credentials.json");
    std::fs::write(&path, file()).expect("write");
    let kura = KuraProcess::start_with(None, &["--auth", path.to_str().expect("utf-8")]);
    let admin = client(&kura, "AKIDADMIN", "admin-secret");
    setup(&admin).await;

    let reader = client(&kura, "AKIDREADER", "reader-secret");
    reader
        .get_item()
        .table_name("app")
        .set_key(Some(order("globex", "1")))
        .send()
        .await
        .expect("read");
    reader.scan().table_name("app").send().await.expect("scan");
    reader.list_tables().send().await.expect("list");
    let err = reader
        .put_item()
        .table_name("app")
        .set_item(Some(order("acme", "5")))
        .send()
        .await
        .expect_err("read-only");
    assert_eq!(code(&err), "AccessDeniedException");
    assert_eq!(message(&err), no_allow("reader", "PutItem", TABLE_ARN));

    let nodelete = client(&kura, "AKIDNODELETE", "nodelete-secret");
    nodelete
        .put_item()
        .table_name("app")
        .set_item(Some(order("acme", "5")))
        .send()
        .await
        .expect("allowed by dynamodb:*");
    let err = nodelete
        .delete_item()
        .table_name("app")
        .set_key(Some(order("acme", "5")))
        .send()
        .await
        .expect_err("explicit deny");
    assert_eq!(code(&err), "AccessDeniedException");
    assert_eq!(
        message(&err),
        format!(
            "User: arn:aws:iam::123456789012:user/nodelete is not authorized to perform: dynamodb:DeleteItem on resource: {TABLE_ARN} with an explicit deny in an identity-based policy"
        )
    );
}

fn streams_client(kura: &KuraProcess, key: &str, secret: &str) -> aws_sdk_dynamodbstreams::Client {
    let config = kura
        .streams_client()
        .config()
        .to_builder()
        .credentials_provider(aws_sdk_dynamodbstreams::config::Credentials::new(
            key, secret, None, None, "test",
        ))
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_source_ip_and_attributes() {
    use aws_sdk_dynamodbstreams::error::ProvideErrorMetadata;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("credentials.json");
    std::fs::write(&path, file()).expect("write");
    let kura = KuraProcess::start_with(None, &["--auth", path.to_str().expect("utf-8")]);
    let admin = client(&kura, "AKIDADMIN", "admin-secret");
    setup(&admin).await;
    let stream = admin
        .describe_table()
        .table_name("app")
        .send()
        .await
        .expect("describe")
        .table()
        .and_then(|t| t.latest_stream_arn())
        .expect("stream arn")
        .to_owned();
    let label = stream.rsplit('/').next().expect("label");
    let stream_in_account = format!("{TABLE_ARN}/stream/{label}");

    // The reader's Describe*, Get* and List* reach the stream; GetRecords is checked on
    // the stream its iterator reads.
    let reader = streams_client(&kura, "AKIDREADER", "reader-secret");
    reader.list_streams().send().await.expect("list streams");
    let shard = reader
        .describe_stream()
        .stream_arn(&stream)
        .send()
        .await
        .expect("describe stream")
        .stream_description()
        .and_then(|d| d.shards().first())
        .and_then(|s| s.shard_id())
        .expect("shard")
        .to_owned();
    let iterator = reader
        .get_shard_iterator()
        .stream_arn(&stream)
        .shard_id(&shard)
        .shard_iterator_type(aws_sdk_dynamodbstreams::types::ShardIteratorType::TrimHorizon)
        .send()
        .await
        .expect("iterator")
        .shard_iterator()
        .expect("iterator")
        .to_owned();
    reader
        .get_records()
        .shard_iterator(&iterator)
        .send()
        .await
        .expect("records");
    // The tenant policy grants no Streams action.
    let alice = streams_client(&kura, "AKIDALICE", "alice-secret");
    let err = alice
        .describe_stream()
        .stream_arn(&stream)
        .send()
        .await
        .expect_err("refused");
    assert_eq!(err.code(), Some("AccessDeniedException"));
    assert_eq!(
        err.message(),
        Some(no_allow("alice", "DescribeStream", &stream_in_account).as_str())
    );
    let err = alice
        .get_records()
        .shard_iterator(&iterator)
        .send()
        .await
        .expect_err("refused");
    assert_eq!(
        err.message(),
        Some(no_allow("alice", "GetRecords", &stream_in_account).as_str())
    );

    // aws:SourceIp is the peer's address.
    client(&kura, "AKIDLOCAL", "local-secret")
        .list_tables()
        .send()
        .await
        .expect("from loopback");
    let err = client(&kura, "AKIDREMOTE", "remote-secret")
        .list_tables()
        .send()
        .await
        .expect_err("not from 10/8");
    assert_eq!(message(&err), no_allow("remote", "ListTables", "*"));

    // dynamodb:Attributes and an IfExists key.
    let narrow = client(&kura, "AKIDNARROW", "narrow-secret");
    narrow
        .get_item()
        .table_name("app")
        .set_key(Some(order("acme", "1")))
        .projection_expression("pk, #s")
        .expression_attribute_names("#s", "sk")
        .send()
        .await
        .expect("key attributes only");
    for (projection, capacity) in [
        (Some("pk, note"), None),
        (
            None,
            Some(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total),
        ),
    ] {
        let err = narrow
            .get_item()
            .table_name("app")
            .set_key(Some(order("acme", "1")))
            .set_projection_expression(projection.map(str::to_owned))
            .set_return_consumed_capacity(capacity)
            .send()
            .await
            .expect_err("refused");
        assert_eq!(message(&err), no_allow("narrow", "GetItem", TABLE_ARN));
    }
    // An update's attributes are the targets kura-expr compiles: `#g` is gpk, allowed;
    // `#n.x` writes note, which the policy does not list.
    narrow
        .update_item()
        .table_name("app")
        .set_key(Some(order("acme", "1")))
        .update_expression("SET #g = :g")
        .expression_attribute_names("#g", "gpk")
        .expression_attribute_values(":g", s("OPEN#acme"))
        .send()
        .await
        .expect("a listed attribute");
    let err = narrow
        .update_item()
        .table_name("app")
        .set_key(Some(order("acme", "1")))
        .update_expression("SET gpk = :g REMOVE #n.x")
        .expression_attribute_names("#n", "note")
        .expression_attribute_values(":g", s("OPEN#acme"))
        .send()
        .await
        .expect_err("note is not listed");
    assert_eq!(message(&err), no_allow("narrow", "UpdateItem", TABLE_ARN));
}

/// A resource-based policy with one statement.
fn resource_policy(effect: &str, principal: &str, actions: &str, resource: &str) -> String {
    format!(
        r#"{{"Version": "2012-10-17", "Statement": [{{"Effect": "{effect}", "Principal": {{"AWS": "{principal}"}}, "Action": {actions}, "Resource": "{resource}"}}]}}"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_policies_on_tables_and_streams() {
    use aws_sdk_dynamodbstreams::error::ProvideErrorMetadata;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("credentials.json");
    std::fs::write(&path, file()).expect("write");
    let kura = KuraProcess::start_with(None, &["--auth", path.to_str().expect("utf-8")]);
    let admin = client(&kura, "AKIDADMIN", "admin-secret");
    setup(&admin).await;
    let carol_arn = "arn:aws:iam::123456789012:user/carol";

    // No policy yet; an unknown table; a malformed and an oversized policy.
    let err = admin
        .get_resource_policy()
        .resource_arn(TABLE_ARN)
        .send()
        .await
        .expect_err("none");
    assert_eq!(code(&err), "PolicyNotFoundException");
    assert_eq!(
        message(&err),
        format!("Resource-based policy not found for the provided ResourceArn: {TABLE_ARN}")
    );
    let missing = "arn:aws:dynamodb:us-east-1:123456789012:table/missing";
    let err = admin
        .get_resource_policy()
        .resource_arn(missing)
        .send()
        .await
        .expect_err("no table");
    assert_eq!(code(&err), "ResourceNotFoundException");
    let err = admin
        .put_resource_policy()
        .resource_arn(TABLE_ARN)
        .policy(r#"{"Statement": {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}}"#)
        .send()
        .await
        .expect_err("no principal");
    assert_eq!(code(&err), "ValidationException");
    assert_eq!(
        message(&err),
        "One or more parameter values were invalid: Invalid policy document: a resource-based policy Statement needs a Principal"
    );
    let err = admin
        .put_resource_policy()
        .resource_arn(TABLE_ARN)
        .policy(resource_policy("Allow", "carol", r#""dynamodb:*""#, "*"))
        .send()
        .await
        .expect_err("not a principal");
    assert_eq!(
        message(&err),
        "One or more parameter values were invalid: Invalid principal in policy document."
    );
    let allow_carol = resource_policy(
        "Allow",
        carol_arn,
        r#"["dynamodb:GetItem", "dynamodb:Scan"]"#,
        TABLE_ARN,
    );
    let err = admin
        .put_resource_policy()
        .resource_arn(TABLE_ARN)
        .policy(format!("{allow_carol}{}", " ".repeat(20 * 1024)))
        .send()
        .await
        .expect_err("too large");
    assert_eq!(code(&err), "LimitExceededException");

    // Carol's identity policy allows no read: refused until the table's policy allows her.
    let carol = client(&kura, "AKIDCAROL", "carol-secret");
    let err = carol
        .get_item()
        .table_name("app")
        .set_key(Some(order("acme", "1")))
        .send()
        .await
        .expect_err("no allow yet");
    assert_eq!(message(&err), no_allow("carol", "GetItem", TABLE_ARN));
    let r1 = admin
        .put_resource_policy()
        .resource_arn(TABLE_ARN)
        .policy(&allow_carol)
        .expected_revision_id("NO_POLICY")
        .send()
        .await
        .expect("put")
        .revision_id()
        .expect("revision")
        .to_owned();
    let got = admin
        .get_resource_policy()
        .resource_arn(TABLE_ARN)
        .send()
        .await
        .expect("get");
    assert_eq!(got.policy(), Some(allow_carol.as_str()));
    assert_eq!(got.revision_id(), Some(r1.as_str()));
    carol
        .get_item()
        .table_name("app")
        .set_key(Some(order("acme", "1")))
        .send()
        .await
        .expect("allowed by the table's policy");
    carol.scan().table_name("app").send().await.expect("scan");
    let err = carol
        .put_item()
        .table_name("app")
        .set_item(Some(order("acme", "9")))
        .send()
        .await
        .expect_err("not in either policy");
    assert_eq!(message(&err), no_allow("carol", "PutItem", TABLE_ARN));
    // The policy operations are actions too: the reader may Get, not Put.
    let reader = client(&kura, "AKIDREADER", "reader-secret");
    reader
        .get_resource_policy()
        .resource_arn(TABLE_ARN)
        .send()
        .await
        .expect("dynamodb:Get*");
    let err = reader
        .put_resource_policy()
        .resource_arn(TABLE_ARN)
        .policy(&allow_carol)
        .send()
        .await
        .expect_err("no PutResourcePolicy");
    assert_eq!(
        message(&err),
        no_allow("reader", "PutResourcePolicy", TABLE_ARN)
    );

    // A stale ExpectedRevisionId; then a Deny that overrides nodelete's identity allow.
    let deny_nodelete = resource_policy(
        "Deny",
        "arn:aws:iam::123456789012:user/nodelete",
        r#""dynamodb:PutItem""#,
        "*",
    );
    let err = admin
        .put_resource_policy()
        .resource_arn(TABLE_ARN)
        .policy(&deny_nodelete)
        .expected_revision_id("1")
        .send()
        .await
        .expect_err("stale revision");
    assert_eq!(code(&err), "PolicyNotFoundException");
    assert_eq!(
        message(&err),
        format!(
            "Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id 1, but the policy associated to target table app has revision id {r1}."
        )
    );
    let r2 = admin
        .put_resource_policy()
        .resource_arn(TABLE_ARN)
        .policy(&deny_nodelete)
        .expected_revision_id(&r1)
        .send()
        .await
        .expect("replace")
        .revision_id()
        .expect("revision")
        .to_owned();
    assert_ne!(r1, r2);
    let nodelete = client(&kura, "AKIDNODELETE", "nodelete-secret");
    let err = nodelete
        .put_item()
        .table_name("app")
        .set_item(Some(order("acme", "7")))
        .send()
        .await
        .expect_err("resource-policy deny");
    assert_eq!(code(&err), "AccessDeniedException");
    assert_eq!(
        message(&err),
        format!(
            "User: arn:aws:iam::123456789012:user/nodelete is not authorized to perform: dynamodb:PutItem on resource: {TABLE_ARN} with an explicit deny in a resource-based policy"
        )
    );
    // Carol lost her allow with the replaced policy.
    carol
        .get_item()
        .table_name("app")
        .set_key(Some(order("acme", "1")))
        .send()
        .await
        .expect_err("the new policy allows her nothing");
    // Delete: a stale revision refuses, the current one answers with it; then none.
    let err = admin
        .delete_resource_policy()
        .resource_arn(TABLE_ARN)
        .expected_revision_id(&r1)
        .send()
        .await
        .expect_err("stale");
    assert_eq!(code(&err), "PolicyNotFoundException");
    let deleted = admin
        .delete_resource_policy()
        .resource_arn(TABLE_ARN)
        .expected_revision_id(&r2)
        .send()
        .await
        .expect("delete");
    assert_eq!(deleted.revision_id(), Some(r2.as_str()));
    nodelete
        .put_item()
        .table_name("app")
        .set_item(Some(order("acme", "7")))
        .send()
        .await
        .expect("no deny any more");
    // Without ExpectedRevisionId, deleting no policy succeeds with no RevisionId (API
    // Reference); with one, it is PolicyNotFoundException.
    let none = admin
        .delete_resource_policy()
        .resource_arn(TABLE_ARN)
        .send()
        .await
        .expect("nothing to delete");
    assert_eq!(none.revision_id(), None);
    let err = admin
        .delete_resource_policy()
        .resource_arn(TABLE_ARN)
        .expected_revision_id(&r2)
        .send()
        .await
        .expect_err("gone");
    assert_eq!(code(&err), "PolicyNotFoundException");

    // A stream policy governs the Streams calls on the stream.
    let stream = admin
        .describe_table()
        .table_name("app")
        .send()
        .await
        .expect("describe")
        .table()
        .and_then(|t| t.latest_stream_arn())
        .expect("stream arn")
        .to_owned();
    let label = stream.rsplit('/').next().expect("label");
    let stream_in_account = format!("{TABLE_ARN}/stream/{label}");
    admin
        .put_resource_policy()
        .resource_arn(&stream)
        .policy(resource_policy(
            "Allow",
            carol_arn,
            r#""dynamodb:*""#,
            &stream_in_account,
        ))
        .send()
        .await
        .expect("stream policy");
    let err = admin
        .get_resource_policy()
        .resource_arn(TABLE_ARN)
        .send()
        .await
        .expect_err("the table has none of its own");
    assert_eq!(code(&err), "PolicyNotFoundException");
    let carol_streams = streams_client(&kura, "AKIDCAROL", "carol-secret");
    let shard = carol_streams
        .describe_stream()
        .stream_arn(&stream)
        .send()
        .await
        .expect("describe stream")
        .stream_description()
        .and_then(|d| d.shards().first())
        .and_then(|s| s.shard_id())
        .expect("shard")
        .to_owned();
    let iterator = carol_streams
        .get_shard_iterator()
        .stream_arn(&stream)
        .shard_id(&shard)
        .shard_iterator_type(aws_sdk_dynamodbstreams::types::ShardIteratorType::TrimHorizon)
        .send()
        .await
        .expect("iterator")
        .shard_iterator()
        .expect("iterator")
        .to_owned();
    carol_streams
        .get_records()
        .shard_iterator(&iterator)
        .send()
        .await
        .expect("records through the stream's policy");
    // A Deny for the reader on GetRecords overrides its identity allow.
    admin
        .put_resource_policy()
        .resource_arn(&stream)
        .policy(resource_policy(
            "Deny",
            "arn:aws:iam::123456789012:user/reader",
            r#""dynamodb:GetRecords""#,
            "*",
        ))
        .send()
        .await
        .expect("stream deny");
    let reader_streams = streams_client(&kura, "AKIDREADER", "reader-secret");
    let err = reader_streams
        .get_records()
        .shard_iterator(&iterator)
        .send()
        .await
        .expect_err("denied by the stream's policy");
    assert_eq!(err.code(), Some("AccessDeniedException"));
    assert_eq!(
        err.message(),
        Some(
            format!(
                "User: arn:aws:iam::123456789012:user/reader is not authorized to perform: dynamodb:GetRecords on resource: {stream_in_account} with an explicit deny in a resource-based policy"
            )
            .as_str()
        )
    );

    // CreateTable takes a ResourcePolicy; deleting the table deletes it.
    let other_arn = "arn:aws:dynamodb:us-east-1:123456789012:table/other";
    admin
        .create_table()
        .table_name("other")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
        .resource_policy(resource_policy(
            "Allow",
            carol_arn,
            r#""dynamodb:Scan""#,
            other_arn,
        ))
        .send()
        .await
        .expect("create with a policy");
    carol
        .scan()
        .table_name("other")
        .send()
        .await
        .expect("scan other");
    admin
        .delete_table()
        .table_name("other")
        .send()
        .await
        .expect("delete");
    admin
        .create_table()
        .table_name("other")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
        .send()
        .await
        .expect("recreate");
    let err = admin
        .get_resource_policy()
        .resource_arn(other_arn)
        .send()
        .await
        .expect_err("went with the table");
    assert_eq!(code(&err), "PolicyNotFoundException");

    // A policy that would deny its author further puts needs ConfirmRemoveSelfResourceAccess.
    let lockout = resource_policy(
        "Deny",
        "arn:aws:iam::123456789012:user/admin",
        r#""dynamodb:PutResourcePolicy""#,
        "*",
    );
    let err = admin
        .put_resource_policy()
        .resource_arn(other_arn)
        .policy(&lockout)
        .send()
        .await
        .expect_err("not confirmed");
    assert_eq!(code(&err), "ValidationException");
    assert_eq!(
        message(&err),
        "The policy would remove your permission to change the policy of this resource: set ConfirmRemoveSelfResourceAccess to true to confirm"
    );
    admin
        .put_resource_policy()
        .resource_arn(other_arn)
        .policy(&lockout)
        .confirm_remove_self_resource_access(true)
        .send()
        .await
        .expect("confirmed");
}
