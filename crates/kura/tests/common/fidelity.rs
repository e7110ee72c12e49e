//! Smaller fidelity points through the SDK: a table ARN wherever a table name is
//! accepted, tag character rules, DescribeContinuousBackups, and server-side encryption
//! settings.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as Av, KeysAndAttributes, PutRequest, SseSpecification, SseType, Tag,
    TransactWriteItem, Update, WriteRequest,
};

use super::{code, create_table, message};

fn arn(table: &str) -> String {
    format!("arn:aws:dynamodb:us-east-1:000000000000:table/{table}")
}

fn key(pk: &str) -> HashMap<String, Av> {
    HashMap::from([("pk".to_owned(), Av::S(pk.to_owned()))])
}

/// Every data-plane and control-plane call on an existing table takes its ARN.
pub async fn table_arns(client: &Client, table: &str) {
    create_table(client, table, "pk", None).await;
    let by_arn = arn(table);
    let described = client
        .describe_table()
        .table_name(&by_arn)
        .send()
        .await
        .expect("describe by ARN");
    assert_eq!(described.table().and_then(|t| t.table_name()), Some(table));
    client
        .put_item()
        .table_name(&by_arn)
        .item("pk", Av::S("a".into()))
        .item("n", Av::N("1".into()))
        .send()
        .await
        .expect("put by ARN");
    client
        .update_item()
        .table_name(&by_arn)
        .set_key(Some(key("a")))
        .update_expression("ADD n :one")
        .expression_attribute_values(":one", Av::N("1".into()))
        .send()
        .await
        .expect("update by ARN");
    let got = client
        .get_item()
        .table_name(&by_arn)
        .set_key(Some(key("a")))
        .send()
        .await
        .expect("get by ARN");
    assert_eq!(
        got.item().and_then(|i| i.get("n")),
        Some(&Av::N("2".into()))
    );
    let queried = client
        .query()
        .table_name(&by_arn)
        .key_condition_expression("pk = :a")
        .expression_attribute_values(":a", Av::S("a".into()))
        .send()
        .await
        .expect("query by ARN");
    assert_eq!(queried.count(), 1);
    let scanned = client
        .scan()
        .table_name(&by_arn)
        .send()
        .await
        .expect("scan by ARN");
    assert_eq!(scanned.count(), 1);

    // Batches take ARNs as RequestItems keys and answer by table name.
    let put_b = WriteRequest::builder()
        .put_request(
            PutRequest::builder()
                .item("pk", Av::S("b".into()))
                .build()
                .expect("put request"),
        )
        .build();
    let written = client
        .batch_write_item()
        .request_items(&by_arn, vec![put_b])
        .send()
        .await
        .expect("batch write by ARN");
    assert!(written.unprocessed_items().is_none_or(|u| u.is_empty()));
    let read = client
        .batch_get_item()
        .request_items(
            &by_arn,
            KeysAndAttributes::builder()
                .keys(key("a"))
                .keys(key("b"))
                .build()
                .expect("keys"),
        )
        .send()
        .await
        .expect("batch get by ARN");
    let responses = read.responses().expect("responses");
    assert_eq!(responses.get(table).map(Vec::len), Some(2), "{responses:?}");

    // Transactions, TTL, UpdateTable and DeleteTable.
    client
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name(&by_arn)
                        .set_key(Some(key("b")))
                        .update_expression("SET done = :t")
                        .expression_attribute_values(":t", Av::Bool(true))
                        .build()
                        .expect("update"),
                )
                .build(),
        )
        .send()
        .await
        .expect("transaction by ARN");
    client
        .describe_time_to_live()
        .table_name(&by_arn)
        .send()
        .await
        .expect("describe TTL by ARN");
    client
        .update_table()
        .table_name(&by_arn)
        .deletion_protection_enabled(false)
        .send()
        .await
        .expect("update table by ARN");

    // An index or stream ARN is not a table name.
    let err = client
        .get_item()
        .table_name(format!("{by_arn}/index/byX"))
        .set_key(Some(key("a")))
        .send()
        .await
        .expect_err("an index ARN");
    assert_eq!(code(&err), "ValidationException");
    // An ARN of a table that does not exist is ResourceNotFound, as its name would be.
    let err = client
        .get_item()
        .table_name(arn("Missing"))
        .set_key(Some(key("a")))
        .send()
        .await
        .expect_err("a missing table");
    assert_eq!(code(&err), "ResourceNotFoundException");
    assert_eq!(message(&err), "Requested resource not found");

    // DeleteTable answers with the table's state, not its definition.
    let deleted = client
        .delete_table()
        .table_name(&by_arn)
        .send()
        .await
        .expect("delete by ARN");
    let d = deleted.table_description().expect("TableDescription");
    assert_eq!(d.table_name(), Some(table));
    assert_eq!(d.table_status().map(|s| s.as_str()), Some("DELETING"));
    assert_eq!(d.table_arn(), Some(by_arn.as_str()));
    assert!(d.table_id().is_some() && d.provisioned_throughput().is_some());
    assert_eq!(d.item_count(), Some(2));
    assert!(d.key_schema().is_empty() && d.attribute_definitions().is_empty());
    assert!(d.creation_date_time().is_none());
}

/// Tag keys and values: AWS's alphabet, and the reserved `aws:` prefix.
pub async fn tag_rules(client: &Client, table: &str) {
    create_table(client, table, "pk", None).await;
    let resource = arn(table);
    let tag = |k: &str, v: &str| Tag::builder().key(k).value(v).build().expect("tag");
    client
        .tag_resource()
        .resource_arn(&resource)
        .tags(tag("team", "shop"))
        .tags(tag("名前 1", "値 + - = . _ : / @"))
        .send()
        .await
        .expect("valid tags");
    for (k, v, what) in [
        ("bad#key", "x", "key"),
        ("good", "bad;value", "value"),
        ("aws:owner", "me", "aws:"),
        ("AWS:Owner", "me", "aws:"),
    ] {
        let err = client
            .tag_resource()
            .resource_arn(&resource)
            .tags(tag(k, v))
            .send()
            .await
            .expect_err("an invalid tag");
        assert_eq!(code(&err), "ValidationException", "{k}={v}");
        assert!(message(&err).contains(what), "{k}={v}: {}", message(&err));
    }
    let tags = client
        .list_tags_of_resource()
        .resource_arn(&resource)
        .send()
        .await
        .expect("list tags");
    assert_eq!(tags.tags().len(), 2, "refused tags were not added");
}

/// DescribeContinuousBackups: on, with point-in-time recovery off; a missing table is
/// TableNotFoundException.
pub async fn continuous_backups(client: &Client, table: &str) {
    create_table(client, table, "pk", None).await;
    let out = client
        .describe_continuous_backups()
        .table_name(table)
        .send()
        .await
        .expect("describe continuous backups");
    let description = out.continuous_backups_description().expect("description");
    assert_eq!(description.continuous_backups_status().as_str(), "ENABLED");
    assert_eq!(
        description
            .point_in_time_recovery_description()
            .and_then(|p| p.point_in_time_recovery_status())
            .map(|s| s.as_str()),
        Some("DISABLED")
    );
    let err = client
        .describe_continuous_backups()
        .table_name("NoSuchTable")
        .send()
        .await
        .expect_err("missing table");
    assert_eq!(code(&err), "TableNotFoundException");
    assert_eq!(message(&err), "Table not found: NoSuchTable");
}

/// SSESpecification: the AWS owned key by default (no SSEDescription), KMS when enabled,
/// switched by UpdateTable.
pub async fn server_side_encryption(client: &Client, table: &str) {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    };
    let create = |name: String, sse: Option<SseSpecification>| {
        client
            .create_table()
            .table_name(name)
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name("pk")
                    .attribute_type(ScalarAttributeType::S)
                    .build()
                    .expect("definition"),
            )
            .key_schema(
                KeySchemaElement::builder()
                    .attribute_name("pk")
                    .key_type(KeyType::Hash)
                    .build()
                    .expect("key"),
            )
            .set_sse_specification(sse)
            .send()
    };
    let owned = create(format!("{table}Owned"), None).await.expect("create");
    assert!(
        owned
            .table_description()
            .expect("t")
            .sse_description()
            .is_none()
    );
    let disabled = create(
        format!("{table}Off"),
        Some(SseSpecification::builder().enabled(false).build()),
    )
    .await
    .expect("create");
    assert!(
        disabled
            .table_description()
            .expect("t")
            .sse_description()
            .is_none()
    );

    let managed = create(
        format!("{table}Kms"),
        Some(SseSpecification::builder().enabled(true).build()),
    )
    .await
    .expect("create with KMS");
    let sse = managed
        .table_description()
        .and_then(|t| t.sse_description())
        .expect("SSEDescription");
    assert_eq!(sse.status().map(|s| s.as_str()), Some("ENABLED"));
    assert_eq!(sse.sse_type(), Some(&SseType::Kms));
    assert!(
        sse.kms_master_key_arn()
            .is_some_and(|a| a.starts_with("arn:aws:kms:us-east-1:000000000000:key/")),
        "{sse:?}"
    );

    let own_key = create(
        format!("{table}Key"),
        Some(
            SseSpecification::builder()
                .enabled(true)
                .sse_type(SseType::Kms)
                .kms_master_key_id("1234abcd-12ab-34cd-56ef-1234567890ab")
                .build(),
        ),
    )
    .await
    .expect("create with a key id");
    assert_eq!(
        own_key
            .table_description()
            .and_then(|t| t.sse_description())
            .and_then(|s| s.kms_master_key_arn()),
        Some("arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab")
    );
    let described = client
        .describe_table()
        .table_name(format!("{table}Key"))
        .send()
        .await
        .expect("describe");
    assert!(
        described
            .table()
            .and_then(|t| t.sse_description())
            .is_some()
    );

    // UpdateTable turns KMS on and off.
    let on = client
        .update_table()
        .table_name(format!("{table}Owned"))
        .sse_specification(
            SseSpecification::builder()
                .enabled(true)
                .kms_master_key_id("alias/my-key")
                .build(),
        )
        .send()
        .await
        .expect("enable KMS");
    assert_eq!(
        on.table_description()
            .and_then(|t| t.sse_description())
            .and_then(|s| s.kms_master_key_arn()),
        Some("arn:aws:kms:us-east-1:000000000000:alias/my-key")
    );
    let off = client
        .update_table()
        .table_name(format!("{table}Owned"))
        .sse_specification(SseSpecification::builder().enabled(false).build())
        .send()
        .await
        .expect("back to the owned key");
    assert!(
        off.table_description()
            .expect("t")
            .sse_description()
            .is_none()
    );

    let err = create(
        format!("{table}Bad"),
        Some(
            SseSpecification::builder()
                .sse_type(SseType::from("DES"))
                .build(),
        ),
    )
    .await
    .expect_err("an unknown SSEType");
    assert_eq!(code(&err), "ValidationException");
    assert!(
        message(&err).contains("sSESpecification.sSEType"),
        "{}",
        message(&err)
    );
}
