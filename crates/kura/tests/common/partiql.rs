//! PartiQL through aws-sdk-dynamodb: every statement kind of ExecuteStatement, paging,
//! capacity equal to the equivalent item operations, BatchExecuteStatement's per-statement
//! errors, and ExecuteTransaction (cancellation reasons, EXISTS, ClientRequestToken).

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as V, BatchStatementRequest, ParameterizedStatement, ReturnConsumedCapacity,
    ReturnValuesOnConditionCheckFailure, ScalarAttributeType,
};

use super::{code, create_table, message};

type Item = HashMap<String, V>;

fn s(v: &str) -> V {
    V::S(v.to_owned())
}

fn n(v: i64) -> V {
    V::N(v.to_string())
}

async fn run(client: &Client, statement: &str) -> Vec<Item> {
    client
        .execute_statement()
        .statement(statement)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{statement}: {e:?}"))
        .items
        .unwrap_or_default()
}

async fn fails(client: &Client, statement: &str) -> (String, String) {
    let err = client
        .execute_statement()
        .statement(statement)
        .send()
        .await
        .expect_err(statement);
    (code(&err), message(&err))
}

pub async fn partiql(client: &Client, table: &str) {
    create_table(client, table, "pk", Some(("sk", ScalarAttributeType::N))).await;
    statements(client, table).await;
    errors(client, table).await;
    paging(client, table).await;
    capacity(client, table).await;
    batches(client, table).await;
    transactions(client, table).await;
}

async fn statements(client: &Client, t: &str) {
    // INSERT with every literal type, then read it back through GetItem and SELECT.
    run(
        client,
        &format!(
            r#"INSERT INTO "{t}" VALUE {{'pk': 'a', 'sk': 1, 'name': 'it''s', 'n': -1.50e1,
               'flag': TRUE, 'nothing': NULL, 'tags': <<'x', 'y'>>, 'nums': <<1, 2>>,
               'list': [1, 'two', [3]], 'map': {{'inner': {{'deep': 'd'}}, 'k': 5}}}}"#
        ),
    )
    .await;
    let got = client
        .get_item()
        .table_name(t)
        .key("pk", s("a"))
        .key("sk", n(1))
        .send()
        .await
        .expect("get")
        .item
        .expect("inserted");
    assert_eq!(got["name"], s("it's"));
    assert_eq!(got["n"], V::N("-15".into()));
    assert_eq!(got["flag"], V::Bool(true));
    assert_eq!(got["nothing"], V::Null(true));
    assert!(matches!(&got["tags"], V::Ss(v) if v.len() == 2));
    assert!(matches!(&got["nums"], V::Ns(v) if v.len() == 2));
    let items = run(
        client,
        &format!(r#"select * from "{t}" where pk = 'a' and sk = 1"#),
    )
    .await;
    assert_eq!(items, vec![got.clone()]);

    // Parameters, including a binary value (PartiQL has no binary literal).
    client
        .execute_statement()
        .statement(format!(
            r#"INSERT INTO "{t}" VALUE {{'pk': ?, 'sk': ?, 'bin': ?}}"#
        ))
        .parameters(s("a"))
        .parameters(n(2))
        .parameters(V::B(vec![0, 1, 2].into()))
        .send()
        .await
        .expect("insert with parameters");
    let items = client
        .execute_statement()
        .statement(format!(
            r#"SELECT bin, sk FROM "{t}" WHERE pk = ? AND sk > ?"#
        ))
        .parameters(s("a"))
        .parameters(n(1))
        .send()
        .await
        .expect("select with parameters")
        .items
        .unwrap_or_default();
    assert_eq!(
        items,
        vec![HashMap::from([
            ("bin".to_owned(), V::B(vec![0, 1, 2].into())),
            ("sk".to_owned(), n(2)),
        ])]
    );

    // Nested paths, functions and operators in WHERE and in the projection.
    let q =
        |w: &str| format!(r#"SELECT map.inner.deep, list[2][0] FROM "{t}" WHERE pk = 'a' AND {w}"#);
    for (filter, hits) in [
        ("begins_with(name, 'it')", 1),
        ("contains(tags, 'y')", 1),
        ("size(list) = 3", 1),
        ("attribute_type(n, 'N')", 1),
        ("nothing IS NULL", 1),
        ("missing_attr IS MISSING", 2),
        ("name IS NOT MISSING", 1),
        ("exists(map.k)", 1),
        ("missing(map.k)", 1),
        ("sk BETWEEN 1 AND 1", 1),
        ("sk IN [1, 7]", 1),
        ("NOT (sk = 1) OR sk <> 2", 2),
        ("map.k >= 5 AND list[0] < 2", 1),
        ("\"flag\" = true", 1),
    ] {
        let items = run(client, &q(filter)).await;
        assert_eq!(items.len(), hits, "{filter}");
    }
    // A SELECT names each value by its path's last name, `_N` for a list element.
    let items = run(client, &q("sk = 1")).await;
    assert_eq!(
        items[0],
        HashMap::from([("deep".to_owned(), s("d")), ("_2".to_owned(), n(3))])
    );

    // UPDATE: SET, REMOVE, arithmetic, list_append, set_add, set_delete; RETURNING.
    let new = run(
        client,
        &format!(
            r#"UPDATE "{t}" SET n = n + 5 SET list = list_append(list, [4]) REMOVE nothing
               SET tags = set_add(tags, <<'z'>>) SET nums = set_delete(nums, <<1>>)
               SET map.inner.added = 'x' WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *"#
        ),
    )
    .await;
    assert_eq!(new.len(), 1);
    assert_eq!(new[0]["n"], n(-10));
    assert!(matches!(&new[0]["list"], V::L(v) if v.len() == 4));
    assert!(matches!(&new[0]["tags"], V::Ss(v) if v.len() == 3));
    assert_eq!(new[0]["nums"], V::Ns(vec!["2".into()]));
    assert!(!new[0].contains_key("nothing"));
    let old = run(
        client,
        &format!(
            r#"UPDATE "{t}" SET n = n - 1 WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED OLD *"#
        ),
    )
    .await;
    assert_eq!(old, vec![HashMap::from([("n".to_owned(), n(-10))])]);
    let none = run(
        client,
        &format!(
            r#"UPDATE "{t}" SET fresh = 1 WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED OLD *"#
        ),
    )
    .await;
    assert!(
        none.is_empty(),
        "MODIFIED OLD of a new attribute is no item"
    );
    // A plain write answers no items.
    let plain = run(
        client,
        &format!(r#"UPDATE "{t}" SET fresh = 2 WHERE pk = 'a' AND sk = 1"#),
    )
    .await;
    assert!(plain.is_empty());

    // DELETE: RETURNING ALL OLD *, and a missing item with extra conditions is a no-op.
    let gone = run(
        client,
        &format!(r#"DELETE FROM "{t}" WHERE pk = 'a' AND sk = 2 RETURNING ALL OLD *"#),
    )
    .await;
    assert_eq!(gone.len(), 1);
    assert_eq!(gone[0]["sk"], n(2));
    let nothing = run(
        client,
        &format!(
            r#"DELETE FROM "{t}" WHERE pk = 'a' AND sk = 2 AND bin = 'x' RETURNING ALL OLD *"#
        ),
    )
    .await;
    assert!(nothing.is_empty());
    // Streams and indexes follow from the item path: the item is gone for GetItem too.
    let after = client
        .get_item()
        .table_name(t)
        .key("pk", s("a"))
        .key("sk", n(2))
        .send()
        .await
        .expect("get");
    assert!(after.item.is_none());
}

async fn errors(client: &Client, t: &str) {
    let syntax = fails(client, &format!(r#"SELEC * FROM "{t}""#)).await;
    assert_eq!(syntax.0, "ValidationException");
    assert!(
        syntax
            .1
            .starts_with("Statement wasn't well formed, can't be processed"),
        "{syntax:?}"
    );
    let unknown = fails(client, r#"SELECT * FROM "NoSuchTable""#).await;
    assert_eq!(unknown.0, "ResourceNotFoundException");
    let duplicate = fails(
        client,
        &format!(r#"INSERT INTO "{t}" VALUE {{'pk': 'a', 'sk': 1}}"#),
    )
    .await;
    assert_eq!(
        duplicate,
        (
            "DuplicateItemException".to_owned(),
            "Duplicate primary key exists in table".to_owned()
        )
    );
    let non_key = fails(client, &format!(r#"UPDATE "{t}" SET x = 1 WHERE pk = 'a'"#)).await;
    assert_eq!(
        non_key,
        (
            "ValidationException".to_owned(),
            "Where clause does not contain a mandatory equality on all key attributes".to_owned()
        )
    );
    let non_key = fails(client, &format!(r#"DELETE FROM "{t}" WHERE name = 'x'"#)).await;
    assert_eq!(non_key.0, "ValidationException");
    let missing = fails(
        client,
        &format!(r#"UPDATE "{t}" SET x = 1 WHERE pk = 'zz' AND sk = 9"#),
    )
    .await;
    assert_eq!(missing.0, "ConditionalCheckFailedException");
    // A failed extra condition, with the old item asked for.
    let err = client
        .execute_statement()
        .statement(format!(
            r#"UPDATE "{t}" SET x = 1 WHERE pk = 'a' AND sk = 1 AND flag = FALSE"#
        ))
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .await
        .expect_err("condition fails");
    assert_eq!(code(&err), "ConditionalCheckFailedException");
    let item = err
        .as_service_error()
        .and_then(|e| match e {
            aws_sdk_dynamodb::operation::execute_statement::ExecuteStatementError::ConditionalCheckFailedException(c) => c.item.clone(),
            _ => None,
        })
        .expect("the old item");
    assert_eq!(item["flag"], V::Bool(true));
    let too_few = client
        .execute_statement()
        .statement(format!(r#"SELECT * FROM "{t}" WHERE pk = ? AND sk = ?"#))
        .parameters(s("a"))
        .send()
        .await
        .expect_err("too few parameters");
    assert_eq!(
        message(&too_few),
        "Number of parameters in request and statement don't match."
    );
    let exists = fails(
        client,
        &format!(r#"EXISTS(SELECT * FROM "{t}" WHERE pk = 'a' AND sk = 1 AND x = 1)"#),
    )
    .await;
    assert_eq!(
        exists.1,
        "EXISTS can only be used in ExecuteTransaction write requests."
    );
    let returning = fails(
        client,
        &format!(r#"DELETE FROM "{t}" WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *"#),
    )
    .await;
    assert_eq!(
        returning.1,
        "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in DELETE statements."
    );
    let order = fails(client, &format!(r#"SELECT * FROM "{t}" ORDER BY sk"#)).await;
    assert_eq!(
        order.1,
        "Must have WHERE clause in the statement when using ORDER BY clause."
    );
    let long = "x".repeat(8193);
    let err = client
        .execute_statement()
        .statement(long)
        .send()
        .await
        .expect_err("too long");
    assert!(
        message(&err).contains("Member must have length less than or equal to 8192"),
        "{}",
        message(&err)
    );
}

async fn paging(client: &Client, t: &str) {
    for i in 0..10 {
        run(
            client,
            &format!(r#"INSERT INTO "{t}" VALUE {{'pk': 'page', 'sk': {i}, 'v': {i}}}"#),
        )
        .await;
        run(
            client,
            &format!(r#"INSERT INTO "{t}" VALUE {{'pk': 'other{i}', 'sk': 0}}"#),
        )
        .await;
    }
    // A Query, in sort-key order, three items evaluated per page.
    let statement =
        format!(r#"SELECT sk FROM "{t}" WHERE pk = 'page' AND sk >= 2 ORDER BY sk DESC"#);
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    loop {
        let out = client
            .execute_statement()
            .statement(&statement)
            .limit(3)
            .set_next_token(token.clone())
            .send()
            .await
            .expect("page");
        pages += 1;
        assert!(out.items().len() <= 3);
        seen.extend(out.items().iter().map(|i| i["sk"].clone()));
        token = out.next_token;
        if token.is_none() {
            break;
        }
        assert!(pages < 10);
    }
    assert_eq!(seen, (2..10).rev().map(n).collect::<Vec<_>>());
    // A Scan (no partition key in WHERE) pages too, and the filter applies.
    let statement = format!(r#"SELECT pk FROM "{t}" WHERE sk = 0"#);
    let mut count = 0;
    let mut token: Option<String> = None;
    loop {
        let out = client
            .execute_statement()
            .statement(&statement)
            .limit(4)
            .set_next_token(token.clone())
            .send()
            .await
            .expect("scan page");
        count += out.items().len();
        token = out.next_token;
        if token.is_none() {
            break;
        }
    }
    assert_eq!(count, 11, "ten others and page/0");
    // IN reads several partitions, one after the other.
    let items = run(
        client,
        &format!(r#"SELECT pk FROM "{t}" WHERE pk IN ['other1', 'other2', 'nope']"#),
    )
    .await;
    assert_eq!(items.len(), 2);
    // A token is bound to its statement.
    let out = client
        .execute_statement()
        .statement(format!(r#"SELECT * FROM "{t}" WHERE pk = 'page'"#))
        .limit(1)
        .send()
        .await
        .expect("first page");
    let token = out.next_token.expect("more");
    let err = client
        .execute_statement()
        .statement(format!(r#"SELECT * FROM "{t}" WHERE pk = 'other1'"#))
        .next_token(token)
        .send()
        .await
        .expect_err("token of another statement");
    assert_eq!(message(&err), "NextToken does not match request");
    let err = client
        .execute_statement()
        .statement(format!(r#"SELECT * FROM "{t}""#))
        .next_token("not-a-token")
        .send()
        .await
        .expect_err("garbage token");
    assert_eq!(message(&err), "Invalid NextToken");
}

async fn capacity(client: &Client, t: &str) {
    let big = "x".repeat(5000);
    let partiql = client
        .execute_statement()
        .statement(format!(
            r#"INSERT INTO "{t}" VALUE {{'pk': 'cap', 'sk': 1, 'big': '{big}'}}"#
        ))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("insert")
        .consumed_capacity
        .expect("capacity");
    let put = client
        .put_item()
        .table_name(t)
        .item("pk", s("cap"))
        .item("sk", n(2))
        .item("big", s(&big))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("put")
        .consumed_capacity
        .expect("capacity");
    assert_eq!(partiql.capacity_units, put.capacity_units);
    assert_eq!(partiql.capacity_units, Some(5.0));
    let select = client
        .execute_statement()
        .statement(format!(r#"SELECT * FROM "{t}" WHERE pk = 'cap'"#))
        .consistent_read(true)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("select")
        .consumed_capacity
        .expect("capacity");
    let query = client
        .query()
        .table_name(t)
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("cap"))
        .consistent_read(true)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("query")
        .consumed_capacity
        .expect("capacity");
    assert_eq!(select.capacity_units, query.capacity_units);
    assert_eq!(select.table_name.as_deref(), Some(t));
    let update = client
        .execute_statement()
        .statement(format!(
            r#"UPDATE "{t}" SET v = 1 WHERE pk = 'cap' AND sk = 1"#
        ))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("update")
        .consumed_capacity
        .expect("capacity");
    let update_item = client
        .update_item()
        .table_name(t)
        .key("pk", s("cap"))
        .key("sk", n(2))
        .update_expression("SET v = :v")
        .expression_attribute_values(":v", n(1))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("update item")
        .consumed_capacity
        .expect("capacity");
    assert_eq!(update.capacity_units, update_item.capacity_units);
    let scan = client
        .execute_statement()
        .statement(format!(r#"SELECT * FROM "{t}""#))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("scan")
        .consumed_capacity
        .expect("capacity");
    let plain_scan = client
        .scan()
        .table_name(t)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("scan")
        .consumed_capacity
        .expect("capacity");
    assert_eq!(scan.capacity_units, plain_scan.capacity_units);
}

fn stmt(text: String) -> BatchStatementRequest {
    BatchStatementRequest::builder()
        .statement(text)
        .build()
        .expect("statement")
}

async fn batches(client: &Client, t: &str) {
    let out = client
        .batch_execute_statement()
        .statements(stmt(format!(
            r#"INSERT INTO "{t}" VALUE {{'pk': 'b', 'sk': 1, 'v': 1}}"#
        )))
        .statements(stmt(format!(
            r#"INSERT INTO "{t}" VALUE {{'pk': 'a', 'sk': 1}}"#
        )))
        .statements(
            BatchStatementRequest::builder()
                .statement(format!(
                    r#"UPDATE "{t}" SET v = 2 WHERE pk = 'a' AND sk = 1 AND flag = FALSE"#
                ))
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                )
                .build()
                .expect("statement"),
        )
        .statements(stmt(format!(r#"UPDATE "{t}" SET v = 2 WHERE pk = 'b'"#)))
        .statements(stmt(
            r#"INSERT INTO "NoSuchTable" VALUE {'pk': 'b'}"#.to_owned(),
        ))
        .statements(stmt("INSERT garbage".to_owned()))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .expect("batch of writes");
    let r = out.responses();
    assert_eq!(r.len(), 6);
    assert!(r[0].error.is_none());
    assert_eq!(r[0].table_name.as_deref(), Some(t));
    let e = |i: usize| r[i].error.as_ref().expect("error");
    assert_eq!(
        e(1).code.as_ref().map(|c| c.as_str()),
        Some("DuplicateItem")
    );
    assert_eq!(
        e(1).message.as_deref(),
        Some("Duplicate primary key exists in table")
    );
    assert_eq!(
        e(2).code.as_ref().map(|c| c.as_str()),
        Some("ConditionalCheckFailed")
    );
    assert!(
        e(2).item
            .as_ref()
            .is_some_and(|i| i["flag"] == V::Bool(true))
    );
    assert_eq!(
        e(3).code.as_ref().map(|c| c.as_str()),
        Some("ValidationError")
    );
    assert_eq!(
        e(4).code.as_ref().map(|c| c.as_str()),
        Some("ResourceNotFound")
    );
    assert_eq!(
        e(5).code.as_ref().map(|c| c.as_str()),
        Some("ValidationError")
    );
    assert_eq!(out.consumed_capacity().len(), 1);

    let out = client
        .batch_execute_statement()
        .statements(stmt(format!(
            r#"SELECT v FROM "{t}" WHERE pk = 'b' AND sk = 1"#
        )))
        .statements(stmt(format!(
            r#"SELECT * FROM "{t}" WHERE pk = 'none' AND sk = 1"#
        )))
        .statements(stmt(format!(r#"SELECT * FROM "{t}" WHERE pk = 'b'"#)))
        .send()
        .await
        .expect("batch of reads");
    let r = out.responses();
    assert_eq!(
        r[0].item.clone(),
        Some(HashMap::from([("v".to_owned(), n(1))]))
    );
    assert!(r[1].item.is_none() && r[1].error.is_none());
    assert!(r[2].error.is_some());

    let mixed = client
        .batch_execute_statement()
        .statements(stmt(format!(
            r#"SELECT * FROM "{t}" WHERE pk = 'b' AND sk = 1"#
        )))
        .statements(stmt(format!(
            r#"DELETE FROM "{t}" WHERE pk = 'b' AND sk = 1"#
        )))
        .send()
        .await
        .expect_err("mixed batch");
    assert_eq!(code(&mixed), "ValidationException");
    let mut many = client.batch_execute_statement();
    for i in 0..26 {
        many = many.statements(stmt(format!(
            r#"SELECT * FROM "{t}" WHERE pk = 'b' AND sk = {i}"#
        )));
    }
    let err = many.send().await.expect_err("26 statements");
    assert!(
        message(&err).contains("Member must have length less than or equal to 25"),
        "{}",
        message(&err)
    );
}

fn tx(text: String) -> ParameterizedStatement {
    ParameterizedStatement::builder()
        .statement(text)
        .build()
        .expect("statement")
}

async fn transactions(client: &Client, t: &str) {
    run(
        client,
        &format!(r#"INSERT INTO "{t}" VALUE {{'pk': 'tx', 'sk': 1, 'count': 0}}"#),
    )
    .await;
    let bump = |token: &str| {
        client
            .execute_transaction()
            .transact_statements(tx(format!(
                r#"UPDATE "{t}" SET count = count + 1 WHERE pk = 'tx' AND sk = 1"#
            )))
            .transact_statements(tx(format!(
                r#"INSERT INTO "{t}" VALUE {{'pk': 'tx', 'sk': 2}}"#
            )))
            .transact_statements(tx(format!(
                r#"EXISTS(SELECT * FROM "{t}" WHERE pk = 'a' AND sk = 1 AND flag = TRUE)"#
            )))
            .client_request_token(token)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
    };
    let first = bump("token-1").await.expect("transaction");
    assert_eq!(first.consumed_capacity().len(), 1, "one table");
    // The same token again answers the same and applies nothing twice.
    bump("token-1").await.expect("retried transaction");
    let count = run(
        client,
        &format!(r#"SELECT count FROM "{t}" WHERE pk = 'tx' AND sk = 1"#),
    )
    .await;
    assert_eq!(count[0]["count"], n(1));
    let mismatch = client
        .execute_transaction()
        .transact_statements(tx(format!(
            r#"DELETE FROM "{t}" WHERE pk = 'tx' AND sk = 2"#
        )))
        .client_request_token("token-1")
        .send()
        .await
        .expect_err("same token, other statements");
    assert_eq!(code(&mismatch), "IdempotentParameterMismatchException");
    // A new token runs again: the INSERT now finds its item, the EXISTS fails, and
    // nothing is applied.
    let err = bump("token-2").await.expect_err("cancelled");
    assert_eq!(code(&err), "TransactionCanceledException");
    let reasons = match err.as_service_error() {
        Some(aws_sdk_dynamodb::operation::execute_transaction::ExecuteTransactionError::TransactionCanceledException(e)) => {
            e.cancellation_reasons().iter().map(|r| r.code.clone().unwrap_or_default()).collect::<Vec<_>>()
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(reasons, vec!["None", "DuplicateItem", "None"]);
    let count = run(
        client,
        &format!(r#"SELECT count FROM "{t}" WHERE pk = 'tx' AND sk = 1"#),
    )
    .await;
    assert_eq!(count[0]["count"], n(1));
    // Reads behave as TransactGetItems: one response per statement.
    let out = client
        .execute_transaction()
        .transact_statements(tx(format!(
            r#"SELECT count FROM "{t}" WHERE pk = 'tx' AND sk = 1"#
        )))
        .transact_statements(tx(format!(
            r#"SELECT * FROM "{t}" WHERE pk = 'tx' AND sk = 99"#
        )))
        .send()
        .await
        .expect("read transaction");
    let responses = out.responses();
    assert_eq!(responses.len(), 2);
    assert_eq!(
        responses[0].item.clone(),
        Some(HashMap::from([("count".to_owned(), n(1))]))
    );
    assert!(responses[1].item.is_none());
    let mixed = client
        .execute_transaction()
        .transact_statements(tx(format!(
            r#"SELECT * FROM "{t}" WHERE pk = 'tx' AND sk = 1"#
        )))
        .transact_statements(tx(format!(
            r#"DELETE FROM "{t}" WHERE pk = 'tx' AND sk = 1"#
        )))
        .send()
        .await
        .expect_err("mixed");
    assert_eq!(
        message(&mixed),
        "ExecuteTransaction API does not support both read and write operations in the same request."
    );
    let mut many = client.execute_transaction();
    for i in 0..101 {
        many = many.transact_statements(tx(format!(
            r#"DELETE FROM "{t}" WHERE pk = 'tx' AND sk = {i}"#
        )));
    }
    let err = many.send().await.expect_err("101 statements");
    assert!(
        message(&err).contains("Member must have length less than or equal to 100"),
        "{}",
        message(&err)
    );
}
