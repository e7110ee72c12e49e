//! Scenarios run through a real SDK client against any Kura endpoint (in-process or over
//! HTTP), so both transports prove the same behaviour.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{
    AttributeValue as Av, BillingMode, ProvisionedThroughput, ReturnConsumedCapacity, ReturnValue,
    ScalarAttributeType, TableStatus, Tag,
};

use super::{code, create_table, message};

fn s(v: &str) -> Av {
    Av::S(v.to_owned())
}
fn n(v: &str) -> Av {
    Av::N(v.to_owned())
}

/// A table's whole life: create, describe, list, write, read, update settings, tag, delete.
pub async fn table_lifecycle(client: &Client) {
    create_table(client, "Orders", "pk", Some(("sk", ScalarAttributeType::N))).await;
    let described = client
        .describe_table()
        .table_name("Orders")
        .send()
        .await
        .expect("describe");
    let table = described.table().expect("table");
    assert_eq!(table.table_status(), Some(&TableStatus::Active));
    assert_eq!(table.item_count(), Some(0));
    assert_eq!(
        table.table_arn(),
        Some("arn:aws:dynamodb:us-east-1:000000000000:table/Orders")
    );
    assert_eq!(
        table.billing_mode_summary().and_then(|b| b.billing_mode()),
        Some(&BillingMode::PayPerRequest)
    );
    assert!(table.table_id().is_some_and(|id| id.len() == 36));

    // Every attribute type survives a round trip; numbers come back normalised.
    let item = HashMap::from([
        ("pk".to_owned(), s("customer#1")),
        ("sk".to_owned(), n("0010.500")),
        ("str".to_owned(), s("")),
        ("bin".to_owned(), Av::B(Blob::new(vec![0, 1, 255]))),
        ("bool".to_owned(), Av::Bool(true)),
        ("null".to_owned(), Av::Null(true)),
        ("list".to_owned(), Av::L(vec![n("1"), s("two")])),
        (
            "map".to_owned(),
            Av::M(HashMap::from([(
                "deep".to_owned(),
                Av::Ss(vec!["a".into(), "b".into()]),
            )])),
        ),
        ("ns".to_owned(), Av::Ns(vec!["1".into(), "2.50".into()])),
        (
            "bs".to_owned(),
            Av::Bs(vec![Blob::new(vec![1]), Blob::new(vec![2])]),
        ),
        (
            "big".to_owned(),
            n("-9.9999999999999999999999999999999999999E+125"),
        ),
    ]);
    let put = client
        .put_item()
        .table_name("Orders")
        .set_item(Some(item.clone()))
        .return_values(ReturnValue::AllOld)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("put");
    assert!(put.attributes().is_none(), "no old item on first put");
    assert_eq!(
        put.consumed_capacity().and_then(|c| c.capacity_units()),
        Some(1.0)
    );

    let key = HashMap::from([
        ("pk".to_owned(), s("customer#1")),
        ("sk".to_owned(), n("10.5")),
    ]);
    let got = client
        .get_item()
        .table_name("Orders")
        .set_key(Some(key.clone()))
        .consistent_read(true)
        .send()
        .await
        .expect("get");
    let got = got.item().expect("item");
    assert_eq!(got.get("sk"), Some(&n("10.5")));
    assert_eq!(got.get("ns"), Some(&Av::Ns(vec!["1".into(), "2.5".into()])));
    assert_eq!(
        got.get("big"),
        Some(&n(&format!("-{}", "9".repeat(38) + &"0".repeat(88))))
    );
    for name in ["str", "bin", "bool", "null", "list", "map", "bs"] {
        assert_eq!(got.get(name), item.get(name), "attribute {name}");
    }

    // A second put replaces the item and returns the old one.
    let replaced = client
        .put_item()
        .table_name("Orders")
        .item("pk", s("customer#1"))
        .item("sk", n("10.5"))
        .item("v", n("2"))
        .return_values(ReturnValue::AllOld)
        .send()
        .await
        .expect("replace");
    assert_eq!(
        replaced.attributes().and_then(|a| a.get("bool")),
        Some(&Av::Bool(true))
    );

    let table = client
        .describe_table()
        .table_name("Orders")
        .send()
        .await
        .expect("describe");
    assert_eq!(table.table().and_then(|t| t.item_count()), Some(1));

    // UpdateItem without actions creates a key-only item.
    let updated = client
        .update_item()
        .table_name("Orders")
        .key("pk", s("customer#2"))
        .key("sk", n("1"))
        .return_values(ReturnValue::AllNew)
        .send()
        .await
        .expect("update");
    assert_eq!(updated.attributes().map(HashMap::len), Some(2));

    // Settings: switch to provisioned, then deletion protection refuses DeleteTable.
    client
        .update_table()
        .table_name("Orders")
        .billing_mode(BillingMode::Provisioned)
        .provisioned_throughput(
            ProvisionedThroughput::builder()
                .read_capacity_units(5)
                .write_capacity_units(7)
                .build()
                .expect("pt"),
        )
        .deletion_protection_enabled(true)
        .send()
        .await
        .expect("update table");
    let t = client
        .describe_table()
        .table_name("Orders")
        .send()
        .await
        .expect("describe");
    let t = t.table().expect("table");
    assert_eq!(
        t.provisioned_throughput()
            .and_then(|p| p.write_capacity_units()),
        Some(7)
    );
    assert_eq!(t.deletion_protection_enabled(), Some(true));
    let refused = client
        .delete_table()
        .table_name("Orders")
        .send()
        .await
        .expect_err("protected");
    assert_eq!(code(&refused), "ValidationException");

    // Tags.
    let arn = t.table_arn().expect("arn").to_owned();
    client
        .tag_resource()
        .resource_arn(&arn)
        .tags(
            Tag::builder()
                .key("team")
                .value("payments")
                .build()
                .expect("tag"),
        )
        .tags(Tag::builder().key("env").value("dev").build().expect("tag"))
        .send()
        .await
        .expect("tag");
    client
        .untag_resource()
        .resource_arn(&arn)
        .tag_keys("env")
        .send()
        .await
        .expect("untag");
    let tags = client
        .list_tags_of_resource()
        .resource_arn(&arn)
        .send()
        .await
        .expect("list tags");
    assert_eq!(tags.tags().len(), 1);
    assert_eq!(tags.tags().first().map(|t| t.value()), Some("payments"));

    // Delete: item gone, table gone.
    let deleted = client
        .delete_item()
        .table_name("Orders")
        .set_key(Some(key.clone()))
        .return_values(ReturnValue::AllOld)
        .send()
        .await
        .expect("delete item");
    assert_eq!(deleted.attributes().and_then(|a| a.get("v")), Some(&n("2")));
    let gone = client
        .get_item()
        .table_name("Orders")
        .set_key(Some(key))
        .send()
        .await
        .expect("get");
    assert!(gone.item().is_none());

    client
        .update_table()
        .table_name("Orders")
        .deletion_protection_enabled(false)
        .send()
        .await
        .expect("unprotect");
    let del = client
        .delete_table()
        .table_name("Orders")
        .send()
        .await
        .expect("delete table");
    assert_eq!(
        del.table_description().and_then(|d| d.table_status()),
        Some(&TableStatus::Deleting)
    );
    let missing = client
        .describe_table()
        .table_name("Orders")
        .send()
        .await
        .expect_err("gone");
    assert_eq!(code(&missing), "ResourceNotFoundException");
    assert_eq!(
        message(&missing),
        "Requested resource not found: Table: Orders not found"
    );
}

/// ListTables pages by name.
pub async fn list_tables_paging(client: &Client) {
    for name in ["page-c", "page-a", "page-b"] {
        create_table(client, name, "pk", None).await;
    }
    let first = client.list_tables().limit(2).send().await.expect("list");
    assert_eq!(first.table_names(), ["page-a", "page-b"]);
    assert_eq!(first.last_evaluated_table_name(), Some("page-b"));
    let second = client
        .list_tables()
        .exclusive_start_table_name("page-b")
        .send()
        .await
        .expect("list");
    assert_eq!(second.table_names(), ["page-c"]);
    assert_eq!(second.last_evaluated_table_name(), None);
}

/// Validation errors through a real client: right code, DynamoDB's message.
pub async fn validation_errors(client: &Client) {
    create_table(client, "Valid", "pk", None).await;
    let dup = client
        .create_table()
        .table_name("Valid")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(super::def("pk", ScalarAttributeType::S))
        .key_schema(super::key("pk", aws_sdk_dynamodb::types::KeyType::Hash))
        .send()
        .await
        .expect_err("exists");
    assert_eq!(code(&dup), "ResourceInUseException");

    let undefined = client
        .create_table()
        .table_name("Bad1")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(super::def("other", ScalarAttributeType::S))
        .key_schema(super::key("pk", aws_sdk_dynamodb::types::KeyType::Hash))
        .send()
        .await
        .expect_err("undefined key");
    assert_eq!(code(&undefined), "ValidationException");
    assert!(
        message(&undefined).contains("Some index key attributes are not defined"),
        "{}",
        message(&undefined)
    );

    let no_throughput = client
        .create_table()
        .table_name("Bad2")
        .attribute_definitions(super::def("pk", ScalarAttributeType::S))
        .key_schema(super::key("pk", aws_sdk_dynamodb::types::KeyType::Hash))
        .send()
        .await
        .expect_err("provisioned without throughput");
    assert!(
        message(&no_throughput)
            .contains("ReadCapacityUnits and WriteCapacityUnits must both be specified")
    );

    let bad_name = client
        .describe_table()
        .table_name("no spaces")
        .send()
        .await
        .expect_err("name");
    assert_eq!(code(&bad_name), "ValidationException");
    assert!(message(&bad_name).contains("regular expression pattern"));

    let missing_key = client
        .put_item()
        .table_name("Valid")
        .item("x", s("1"))
        .send()
        .await
        .expect_err("no key");
    assert_eq!(
        message(&missing_key),
        "One or more parameter values were invalid: Missing the key pk in the item"
    );

    let wrong_type = client
        .put_item()
        .table_name("Valid")
        .item("pk", n("1"))
        .send()
        .await
        .expect_err("type");
    assert_eq!(
        message(&wrong_type),
        "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"
    );

    let empty_key = client
        .put_item()
        .table_name("Valid")
        .item("pk", s(""))
        .send()
        .await
        .expect_err("empty");
    assert!(message(&empty_key).contains("cannot contain an empty string value. Key: pk"));

    let too_big = client
        .put_item()
        .table_name("Valid")
        .item("pk", s("big"))
        .item("blob", s(&"x".repeat(400 * 1024)))
        .send()
        .await
        .expect_err("too big");
    assert_eq!(
        message(&too_big),
        "Item size has exceeded the maximum allowed size"
    );

    let bad_number = client
        .put_item()
        .table_name("Valid")
        .item("pk", s("n"))
        .item("n", n("1E+126"))
        .send()
        .await
        .expect_err("overflow");
    assert!(message(&bad_number).starts_with("Number overflow"));

    let wrong_key = client
        .get_item()
        .table_name("Valid")
        .key("nope", s("1"))
        .send()
        .await
        .expect_err("schema");
    assert_eq!(
        message(&wrong_key),
        "The provided key element does not match the schema"
    );

    let no_table = client
        .get_item()
        .table_name("Absent")
        .key("pk", s("1"))
        .send()
        .await
        .expect_err("absent");
    assert_eq!(code(&no_table), "ResourceNotFoundException");
    assert_eq!(message(&no_table), "Requested resource not found");

    let expression = client
        .put_item()
        .table_name("Valid")
        .item("pk", s("c"))
        .condition_expression("attribute_not_exists(status)")
        .send()
        .await
        .expect_err("a reserved word used bare");
    assert_eq!(code(&expression), "ValidationException");
    assert_eq!(
        message(&expression),
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"
    );
}
