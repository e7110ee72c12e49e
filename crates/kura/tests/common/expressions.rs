//! The seed documents' expression patterns, through aws-sdk-dynamodb: create-only puts,
//! optimistic locking under concurrent writers, atomic counters under contention,
//! guarded inventory decrements, guarded status transitions, and the return options.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as V, ReturnValue, ReturnValuesOnConditionCheckFailure,
};

use super::{code, create_table, message};

fn s(v: &str) -> V {
    V::S(v.to_owned())
}

fn n(v: i64) -> V {
    V::N(v.to_string())
}

fn number(item: &HashMap<String, V>, name: &str) -> i64 {
    match item.get(name) {
        Some(V::N(text)) => text.parse().expect("integer"),
        other => panic!("{name} is not a number: {other:?}"),
    }
}

async fn get(client: &Client, table: &str, pk: &str) -> HashMap<String, V> {
    client
        .get_item()
        .table_name(table)
        .key("pk", s(pk))
        .consistent_read(true)
        .send()
        .await
        .expect("get")
        .item
        .expect("item exists")
}

/// Runs every pattern on a fresh table named `table`.
pub async fn seed_patterns(client: &Client, table: &str) {
    create_table(client, table, "pk", None).await;
    create_only(client, table).await;
    optimistic_locking(client, table).await;
    atomic_counter(client, table).await;
    inventory(client, table).await;
    status_transition(client, table).await;
    guarded_delete(client, table).await;
    return_values(client, table).await;
    errors(client, table).await;
}

async fn create_only(client: &Client, table: &str) {
    let put = |value: &'static str| {
        client
            .put_item()
            .table_name(table)
            .item("pk", s("USER#1"))
            .item("name", s(value))
            .condition_expression("attribute_not_exists(pk)")
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
    };
    put("first").await.expect("the first create succeeds");
    let err = put("second").await.expect_err("the second create fails");
    assert_eq!(code(&err), "ConditionalCheckFailedException");
    assert_eq!(message(&err), "The conditional request failed");
    let aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(
        failed,
    ) = err.into_service_error()
    else {
        panic!("not a typed ConditionalCheckFailedException");
    };
    let old = failed.item().expect("ALL_OLD returns the item");
    assert_eq!(old.get("name"), Some(&s("first")));
    assert_eq!(
        get(client, table, "USER#1").await.get("name"),
        Some(&s("first"))
    );
}

async fn optimistic_locking(client: &Client, table: &str) {
    client
        .put_item()
        .table_name(table)
        .item("pk", s("DOC#1"))
        .item("version", n(0))
        .send()
        .await
        .expect("seed");
    // Eight writers all read version 0 and try to write version 1: exactly one may win.
    let mut tasks = Vec::new();
    for writer in 0..8 {
        let client = client.clone();
        let table = table.to_owned();
        tasks.push(tokio::spawn(async move {
            client
                .update_item()
                .table_name(table)
                .key("pk", s("DOC#1"))
                .update_expression("SET #v = :next, writer = :w")
                .condition_expression("#v = :expected")
                .expression_attribute_names("#v", "version")
                .expression_attribute_values(":expected", n(0))
                .expression_attribute_values(":next", n(1))
                .expression_attribute_values(":w", n(writer))
                .send()
                .await
        }));
    }
    let mut winners = Vec::new();
    for (writer, task) in tasks.into_iter().enumerate() {
        match task.await.expect("task") {
            Ok(_) => winners.push(writer as i64),
            Err(e) => assert_eq!(code(&e), "ConditionalCheckFailedException"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one writer wins");
    let item = get(client, table, "DOC#1").await;
    assert_eq!(number(&item, "version"), 1);
    assert_eq!(number(&item, "writer"), winners[0]);
}

async fn atomic_counter(client: &Client, table: &str) {
    const WRITERS: i64 = 8;
    const EACH: i64 = 25;
    let mut tasks = Vec::new();
    for writer in 0..WRITERS {
        let client = client.clone();
        let table = table.to_owned();
        tasks.push(tokio::spawn(async move {
            for i in 0..EACH {
                // Half the writers use ADD, half SET with if_not_exists: both are atomic.
                let req = client
                    .update_item()
                    .table_name(&table)
                    .key("pk", s("COUNTER#1"))
                    .expression_attribute_names("#c", "count")
                    .expression_attribute_values(":one", n(1));
                let req = if (writer + i) % 2 == 0 {
                    req.update_expression("ADD #c :one")
                } else {
                    req.update_expression("SET #c = if_not_exists(#c, :zero) + :one")
                        .expression_attribute_values(":zero", n(0))
                };
                req.send().await.expect("increment");
            }
        }));
    }
    for task in tasks {
        task.await.expect("task");
    }
    let item = get(client, table, "COUNTER#1").await;
    assert_eq!(number(&item, "count"), WRITERS * EACH, "no lost increments");
}

async fn inventory(client: &Client, table: &str) {
    client
        .put_item()
        .table_name(table)
        .item("pk", s("SKU#1"))
        .item("stock", n(10))
        .send()
        .await
        .expect("seed");
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let client = client.clone();
        let table = table.to_owned();
        tasks.push(tokio::spawn(async move {
            client
                .update_item()
                .table_name(table)
                .key("pk", s("SKU#1"))
                .update_expression("SET stock = stock - :one")
                .condition_expression("stock > :zero")
                .expression_attribute_values(":one", n(1))
                .expression_attribute_values(":zero", n(0))
                .send()
                .await
        }));
    }
    let mut sold = 0;
    for task in tasks {
        match task.await.expect("task") {
            Ok(_) => sold += 1,
            Err(e) => assert_eq!(code(&e), "ConditionalCheckFailedException"),
        }
    }
    assert_eq!(sold, 10, "exactly the stock is sold");
    assert_eq!(number(&get(client, table, "SKU#1").await, "stock"), 0);
}

async fn status_transition(client: &Client, table: &str) {
    client
        .put_item()
        .table_name(table)
        .item("pk", s("ORDER#1"))
        .item("status", s("PENDING"))
        .send()
        .await
        .expect("seed");
    let transition = |from: &'static str, to: &'static str| {
        client
            .update_item()
            .table_name(table)
            .key("pk", s("ORDER#1"))
            .update_expression("SET #s = :to")
            .condition_expression("#s = :from")
            .expression_attribute_names("#s", "status")
            .expression_attribute_values(":from", s(from))
            .expression_attribute_values(":to", s(to))
            .return_values(ReturnValue::UpdatedOld)
            .send()
    };
    let (a, b) = tokio::join!(
        transition("PENDING", "SHIPPED"),
        transition("PENDING", "CANCELLED")
    );
    assert!(
        a.is_ok() != b.is_ok(),
        "exactly one transition from PENDING wins"
    );
    let won = a.or(b).expect("one winner");
    assert_eq!(
        won.attributes().and_then(|a| a.get("status")),
        Some(&s("PENDING"))
    );
    let back = transition("PENDING", "SHIPPED")
        .await
        .expect_err("no longer PENDING");
    assert_eq!(code(&back), "ConditionalCheckFailedException");
}

async fn guarded_delete(client: &Client, table: &str) {
    client
        .put_item()
        .table_name(table)
        .item("pk", s("SESSION#1"))
        .item("owner", s("ada"))
        .send()
        .await
        .expect("seed");
    let delete = |owner: &'static str| {
        client
            .delete_item()
            .table_name(table)
            .key("pk", s("SESSION#1"))
            .condition_expression("#o = :me")
            .expression_attribute_names("#o", "owner")
            .expression_attribute_values(":me", s(owner))
            .return_values(ReturnValue::AllOld)
            .send()
    };
    let refused = delete("bob").await.expect_err("not the owner");
    assert_eq!(code(&refused), "ConditionalCheckFailedException");
    let deleted = delete("ada").await.expect("the owner deletes");
    assert_eq!(
        deleted.attributes().and_then(|a| a.get("owner")),
        Some(&s("ada"))
    );
    let again = delete("ada")
        .await
        .expect_err("a missing item fails the condition");
    assert_eq!(code(&again), "ConditionalCheckFailedException");
}

async fn return_values(client: &Client, table: &str) {
    let update = |expression: &'static str, rv: ReturnValue| {
        client
            .update_item()
            .table_name(table)
            .key("pk", s("RV#1"))
            .update_expression(expression)
            .expression_attribute_values(":v", n(5))
            .return_values(rv)
            .send()
    };
    // UpdateItem on a missing item creates it.
    let created = update("SET a = :v", ReturnValue::AllNew)
        .await
        .expect("create");
    let all_new = created.attributes().expect("ALL_NEW");
    assert_eq!(all_new.get("pk"), Some(&s("RV#1")));
    assert_eq!(all_new.get("a"), Some(&n(5)));
    let updated_old = update("ADD a :v", ReturnValue::UpdatedOld)
        .await
        .expect("add");
    assert_eq!(
        updated_old.attributes().and_then(|a| a.get("a")),
        Some(&n(5))
    );
    let updated_new = update("ADD a :v", ReturnValue::UpdatedNew)
        .await
        .expect("add");
    let attributes = updated_new.attributes().expect("UPDATED_NEW");
    assert_eq!(attributes.len(), 1, "only the updated attribute");
    assert_eq!(attributes.get("a"), Some(&n(15)));
    let none = update("SET b = :v", ReturnValue::UpdatedOld)
        .await
        .expect("set");
    assert!(none.attributes().is_none(), "b did not exist before");

    client
        .put_item()
        .table_name(table)
        .item("pk", s("NEST#1"))
        .item(
            "doc",
            V::M(HashMap::from([
                ("x".to_owned(), n(1)),
                ("l".to_owned(), V::L(vec![s("a"), s("b"), s("c")])),
            ])),
        )
        .send()
        .await
        .expect("put nested");
    let got = client
        .get_item()
        .table_name(table)
        .key("pk", s("NEST#1"))
        .projection_expression("doc.l[2], doc.l[0], #p")
        .expression_attribute_names("#p", "pk")
        .send()
        .await
        .expect("projected get");
    let item = got.item().expect("item");
    let expected = V::M(HashMap::from([(
        "l".to_owned(),
        V::L(vec![s("a"), s("c")]),
    )]));
    assert_eq!(item.get("doc"), Some(&expected));
    assert_eq!(item.get("pk"), Some(&s("NEST#1")));
}

async fn errors(client: &Client, table: &str) {
    let key_update = client
        .update_item()
        .table_name(table)
        .key("pk", s("E#1"))
        .update_expression("SET pk = :v")
        .expression_attribute_values(":v", s("x"))
        .send()
        .await
        .expect_err("key attributes cannot be updated");
    assert_eq!(code(&key_update), "ValidationException");
    assert_eq!(
        message(&key_update),
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"
    );
    let unused = client
        .put_item()
        .table_name(table)
        .item("pk", s("E#1"))
        .condition_expression("attribute_not_exists(pk)")
        .expression_attribute_values(":unused", s("x"))
        .send()
        .await
        .expect_err("unused value");
    assert_eq!(
        message(&unused),
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}"
    );
    let bad_path = client
        .update_item()
        .table_name(table)
        .key("pk", s("E#1"))
        .update_expression("SET a.b = :v")
        .expression_attribute_values(":v", s("x"))
        .send()
        .await
        .expect_err("parent missing");
    assert_eq!(
        message(&bad_path),
        "The document path provided in the update expression is invalid for update"
    );
}
