//! Issue 58, "Fidelity III", continued: expressions and the legacy API, start keys,
//! resource ARNs and transactions.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeAction, AttributeValue as Av, AttributeValueUpdate, BillingMode, ComparisonOperator,
    ExpectedAttributeValue, KeyType, Put, ScalarAttributeType as St, TransactWriteItem,
};

use super::fidelity_iii::{INVALID, gsi, item, keys_only, refused, s};
use super::{code, create_table, def, key};

// ---- expressions and the legacy API ----

pub async fn expressions_and_legacy(client: &Client, table: &str) {
    create_table(client, table, "pk", None).await;
    // attribute_type() of a value.
    client
        .put_item()
        .table_name(table)
        .item("pk", s("typed"))
        .condition_expression("attribute_type(:v, :t)")
        .expression_attribute_values(":v", s("x"))
        .expression_attribute_values(":t", s("S"))
        .send()
        .await
        .expect("attribute_type of a value");
    let err = client
        .put_item()
        .table_name(table)
        .item("pk", s("typed"))
        .condition_expression("attribute_type(:v, :t)")
        .expression_attribute_values(":v", s("x"))
        .expression_attribute_values(":t", s("N"))
        .send()
        .await
        .expect_err("a value of another type");
    assert_eq!(code(&err), "ConditionalCheckFailedException");

    // list_append inside list_append.
    refused(
        client
            .update_item()
            .table_name(table)
            .key("pk", s("lists"))
            .update_expression("SET l = list_append(list_append(l, :a), :a)")
            .expression_attribute_values(":a", Av::L(vec![s("x")]))
            .send()
            .await,
        "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append",
        "nested list_append",
    );
    client
        .update_item()
        .table_name(table)
        .key("pk", s("lists"))
        .update_expression("SET l = list_append(if_not_exists(l, :e), :a)")
        .expression_attribute_values(":a", Av::L(vec![s("x")]))
        .expression_attribute_values(":e", Av::L(vec![]))
        .send()
        .await
        .expect("if_not_exists inside list_append");

    // Expected NOT_CONTAINS on a missing attribute fails.
    client
        .put_item()
        .table_name(table)
        .item("pk", s("nc"))
        .item("tags", Av::Ss(vec!["x".into()]))
        .send()
        .await
        .expect("put");
    let not_contains = |attr: &str, value: &str| {
        client
            .put_item()
            .table_name(table)
            .item("pk", s("nc"))
            .item("tags", Av::Ss(vec!["x".into()]))
            .expected(
                attr,
                ExpectedAttributeValue::builder()
                    .comparison_operator(ComparisonOperator::NotContains)
                    .attribute_value_list(s(value))
                    .build(),
            )
            .send()
    };
    let err = not_contains("missing", "x")
        .await
        .expect_err("NOT_CONTAINS on a missing attribute");
    assert_eq!(code(&err), "ConditionalCheckFailedException");
    let err = not_contains("tags", "x")
        .await
        .expect_err("NOT_CONTAINS of a present element");
    assert_eq!(code(&err), "ConditionalCheckFailedException");
    not_contains("tags", "z")
        .await
        .expect("NOT_CONTAINS of an absent element");

    // DELETE of set elements on a missing item creates nothing (legacy and expression).
    client
        .update_item()
        .table_name(table)
        .key("pk", s("ghost"))
        .attribute_updates(
            "tags",
            AttributeValueUpdate::builder()
                .action(AttributeAction::Delete)
                .value(Av::Ss(vec!["a".into()]))
                .build(),
        )
        .send()
        .await
        .expect("legacy DELETE on a missing item");
    client
        .update_item()
        .table_name(table)
        .key("pk", s("ghost2"))
        .update_expression("DELETE tags :t")
        .expression_attribute_values(":t", Av::Ss(vec!["a".into()]))
        .send()
        .await
        .expect("DELETE on a missing item");
    for pk in ["ghost", "ghost2"] {
        let got = client
            .get_item()
            .table_name(table)
            .key("pk", s(pk))
            .send()
            .await
            .expect("get");
        assert!(got.item().is_none(), "{pk}: no item created");
    }
}

// ---- Query and Scan ----

pub async fn start_keys(client: &Client) {
    client
        .create_table()
        .table_name("HashOnly")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("pk", St::S))
        .attribute_definitions(def("g", St::S))
        .key_schema(key("pk", KeyType::Hash))
        .global_secondary_indexes(gsi("byG", &[("g", KeyType::Hash)], keys_only()))
        .send()
        .await
        .expect("create");
    for i in 0..40 {
        client
            .put_item()
            .table_name("HashOnly")
            .item("pk", s(&format!("p{i}")))
            .item("g", s("G"))
            .send()
            .await
            .expect("put");
    }
    let bad = item(&[("pk", s("p1")), ("sk", s("x"))]);
    let schema =
        "The provided starting key is invalid: The provided key element does not match the schema";
    refused(
        client
            .query()
            .table_name("HashOnly")
            .key_condition_expression("pk = :p")
            .expression_attribute_values(":p", s("p1"))
            .set_exclusive_start_key(Some(bad.clone()))
            .send()
            .await,
        schema,
        "Query with a sort key part on a hash-only table",
    );
    refused(
        client
            .scan()
            .table_name("HashOnly")
            .set_exclusive_start_key(Some(bad))
            .send()
            .await,
        schema,
        "Scan with a sort key part on a hash-only table",
    );
    let index_bad = item(&[("pk", s("p1")), ("g", s("G")), ("sk", s("x"))]);
    refused(
        client
            .scan()
            .table_name("HashOnly")
            .index_name("byG")
            .set_exclusive_start_key(Some(index_bad))
            .send()
            .await,
        "The provided starting key is invalid",
        "an index start key with an extra attribute",
    );

    // A parallel Scan's start key must lie in its own segment.
    let second = client
        .scan()
        .table_name("HashOnly")
        .segment(1)
        .total_segments(2)
        .send()
        .await
        .expect("segment 1");
    let in_second = second.items().first().expect("an item in segment 1");
    let start = item(&[("pk", in_second.get("pk").cloned().expect("pk"))]);
    client
        .scan()
        .table_name("HashOnly")
        .segment(1)
        .total_segments(2)
        .set_exclusive_start_key(Some(start.clone()))
        .send()
        .await
        .expect("a start key in its segment");
    refused(
        client
            .scan()
            .table_name("HashOnly")
            .segment(0)
            .total_segments(2)
            .set_exclusive_start_key(Some(start))
            .send()
            .await,
        "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 0",
        "a start key of another segment",
    );
}

// ---- messages ----

pub async fn resource_arns(client: &Client, table: &str) {
    create_table(client, table, "pk", None).await;
    let tag = aws_sdk_dynamodb::types::Tag::builder()
        .key("k")
        .value("v")
        .build()
        .expect("tag");
    let cases = [
        (
            "not-an-arn".to_owned(),
            format!("{INVALID}ARNs must start with 'arn:': not-an-arn"),
        ),
        (
            "arn:aws:s3:::bucket".to_owned(),
            format!("{INVALID}Provided Arn is not a DynamoDB resource arn: arn:aws:s3:::bucket"),
        ),
        (
            format!("arn:aws:dynamodb:us-east-1:000000000000:table/{table}/index/i"),
            format!(
                "{INVALID}Invalid resource arn provided, only table or stream is accepted. Provided resource arn: arn:aws:dynamodb:us-east-1:000000000000:table/{table}/index/i"
            ),
        ),
    ];
    for (arn, expected) in &cases {
        refused(
            client
                .tag_resource()
                .resource_arn(arn)
                .tags(tag.clone())
                .send()
                .await,
            expected,
            "TagResource",
        );
        refused(
            client
                .untag_resource()
                .resource_arn(arn)
                .tag_keys("k")
                .send()
                .await,
            expected,
            "UntagResource",
        );
        refused(
            client
                .list_tags_of_resource()
                .resource_arn(arn)
                .send()
                .await,
            expected,
            "ListTagsOfResource",
        );
    }
}

pub async fn transactions(client: &Client, table: &str) {
    create_table(client, table, "pk", None).await;
    // Eleven puts of about 390 KB: over 4 MB.
    let big = "x".repeat(390_000);
    let puts: Vec<TransactWriteItem> = (0..11)
        .map(|i| {
            TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(table)
                        .item("pk", s(&format!("big{i}")))
                        .item("data", s(&big))
                        .build()
                        .expect("put"),
                )
                .build()
        })
        .collect();
    refused(
        client
            .transact_write_items()
            .set_transact_items(Some(puts))
            .send()
            .await,
        "Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit",
        "a transaction over 4 MB",
    );

    // Validation stops at the first invalid action: the others get None.
    let put = |pk: Av| {
        TransactWriteItem::builder()
            .put(
                Put::builder()
                    .table_name(table)
                    .item("pk", pk)
                    .build()
                    .expect("put"),
            )
            .build()
    };
    let err = client
        .transact_write_items()
        .transact_items(put(s("fine")))
        .transact_items(put(Av::N("1".into())))
        .transact_items(put(Av::N("2".into())))
        .send()
        .await
        .expect_err("two invalid actions");
    let aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(cancelled) =
        err.into_service_error()
    else {
        panic!("not a TransactionCanceledException");
    };
    let codes: Vec<&str> = cancelled
        .cancellation_reasons()
        .iter()
        .map(|r| r.code().unwrap_or_default())
        .collect();
    assert_eq!(codes, ["None", "ValidationError", "None"]);
    assert!(cancelled.cancellation_reasons()[2].message().is_none());
}
