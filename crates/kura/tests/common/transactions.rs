//! TransactWriteItems and TransactGetItems through aws-sdk-dynamodb: a bank-transfer
//! workload under concurrency checked by consistent snapshots, cancellation reasons in
//! action order, idempotency tokens, and the one-action-per-item rule.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as V, ConditionCheck, Get, Put, ReturnValuesOnConditionCheckFailure,
    TransactGetItem, TransactWriteItem, Update,
};

use super::{code, create_table, message};

const ACCOUNTS: i64 = 6;
const START: i64 = 100;

fn s(v: &str) -> V {
    V::S(v.to_owned())
}

fn n(v: i64) -> V {
    V::N(v.to_string())
}

fn account(i: i64) -> HashMap<String, V> {
    HashMap::from([("pk".to_owned(), s(&format!("ACC#{i}")))])
}

fn balance(item: &HashMap<String, V>) -> i64 {
    match item.get("balance") {
        Some(V::N(text)) => text.parse().expect("integer"),
        other => panic!("no balance: {other:?}"),
    }
}

fn transfer_item(table: &str, from: i64, amount: i64, debit: bool) -> TransactWriteItem {
    let update = Update::builder()
        .table_name(table)
        .set_key(Some(account(from)))
        .update_expression(if debit {
            "SET balance = balance - :amt"
        } else {
            "SET balance = balance + :amt"
        })
        .expression_attribute_values(":amt", n(amount));
    let update = if debit {
        update.condition_expression("balance >= :amt")
    } else {
        update
    };
    TransactWriteItem::builder()
        .update(update.build().expect("update"))
        .build()
}

pub async fn transactions(client: &Client, table: &str) {
    create_table(client, table, "pk", None).await;
    for i in 0..ACCOUNTS {
        client
            .put_item()
            .table_name(table)
            .item("pk", s(&format!("ACC#{i}")))
            .item("balance", n(START))
            .send()
            .await
            .expect("seed account");
    }
    bank_transfers(client, table).await;
    cancellation_reasons(client, table).await;
    idempotency(client, table).await;
    rules(client, table).await;
}

async fn snapshot_total(client: &Client, table: &str) -> i64 {
    let gets: Vec<TransactGetItem> = (0..ACCOUNTS)
        .map(|i| {
            TransactGetItem::builder()
                .get(
                    Get::builder()
                        .table_name(table)
                        .set_key(Some(account(i)))
                        .projection_expression("balance")
                        .build()
                        .expect("get"),
                )
                .build()
        })
        .collect();
    let out = client
        .transact_get_items()
        .set_transact_items(Some(gets))
        .send()
        .await
        .expect("transact get");
    out.responses()
        .iter()
        .map(|r| {
            let item = r.item().expect("account exists");
            let b = balance(item);
            assert!(b >= 0, "no account goes negative");
            b
        })
        .sum()
}

/// Concurrent transfers between a few accounts, each a two-update transaction guarded by
/// the payer's balance, raced by guarded single writes and checked by TransactGetItems
/// snapshots: every snapshot sums to the start, no balance goes negative, and at the end
/// each balance is the start plus exactly the acknowledged transfers (so each applied
/// once, and no cancelled one at all). `KURA_BANK_TRANSACTIONS` (default 180) sets how
/// many transfers are tried; the long form in `docs/reliability.md` runs a million.
async fn bank_transfers(client: &Client, table: &str) {
    const WORKERS: i64 = 6;
    let total: i64 = std::env::var("KURA_BANK_TRANSACTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(180);
    let steps = ((total + WORKERS - 1) / WORKERS).max(1);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let started = std::time::Instant::now();
    let mut workers = Vec::new();
    for worker in 0..WORKERS {
        let client = client.clone();
        let table = table.to_owned();
        workers.push(tokio::spawn(async move {
            let mut rng = fastrand::Rng::with_seed(worker as u64);
            let mut net = [0i64; ACCOUNTS as usize];
            let mut applied = 0;
            for step in 0..steps {
                let from = rng.i64(0..ACCOUNTS);
                let to = (from + rng.i64(1..ACCOUNTS)) % ACCOUNTS;
                let amount = rng.i64(1..=60);
                let result = client
                    .transact_write_items()
                    .transact_items(transfer_item(&table, from, amount, true))
                    .transact_items(transfer_item(&table, to, amount, false))
                    .send()
                    .await;
                match result {
                    Ok(_) => {
                        applied += 1;
                        net[from as usize] -= amount;
                        net[to as usize] += amount;
                    }
                    Err(e) => assert_eq!(code(&e), "TransactionCanceledException"),
                }
                if step % 5 == 0 {
                    // A conditional single write racing the transactions: a no-op top-up of
                    // zero guarded by the balance staying non-negative.
                    client
                        .update_item()
                        .table_name(&table)
                        .key("pk", s(&format!("ACC#{to}")))
                        .update_expression("SET balance = balance + :zero")
                        .condition_expression("balance >= :zero")
                        .expression_attribute_values(":zero", n(0))
                        .send()
                        .await
                        .expect("guarded write");
                }
                if worker == 0 && step > 0 && step % 10_000 == 0 {
                    eprintln!(
                        "bank: {} transfers tried, {:.0} s",
                        step * WORKERS,
                        started.elapsed().as_secs_f64()
                    );
                }
            }
            (applied, net)
        }));
    }
    let checker = {
        let client = client.clone();
        let table = table.to_owned();
        let done = done.clone();
        tokio::spawn(async move {
            let mut snapshots = 0;
            while snapshots < 20 || !done.load(std::sync::atomic::Ordering::Relaxed) {
                assert_eq!(snapshot_total(&client, &table).await, ACCOUNTS * START);
                snapshots += 1;
            }
            snapshots
        })
    };
    let mut applied = 0;
    let mut net = [0i64; ACCOUNTS as usize];
    for w in workers {
        let (count, deltas) = w.await.expect("worker");
        applied += count;
        for (sum, delta) in net.iter_mut().zip(deltas) {
            *sum += delta;
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let snapshots = checker.await.expect("checker");
    assert!(applied > 0, "some transfers went through");
    assert_eq!(snapshot_total(client, table).await, ACCOUNTS * START);
    for (i, delta) in net.iter().enumerate() {
        let item = client
            .get_item()
            .table_name(table)
            .set_key(Some(account(i as i64)))
            .consistent_read(true)
            .send()
            .await
            .expect("get")
            .item()
            .cloned()
            .expect("account");
        assert_eq!(
            balance(&item),
            START + delta,
            "account {i} holds exactly its acknowledged transfers"
        );
    }
    eprintln!(
        "bank: {} transfers tried, {applied} applied, {snapshots} consistent snapshots, {:.0} s",
        steps * WORKERS,
        started.elapsed().as_secs_f64()
    );
}

async fn cancellation_reasons(client: &Client, table: &str) {
    let check = TransactWriteItem::builder()
        .condition_check(
            ConditionCheck::builder()
                .table_name(table)
                .set_key(Some(account(0)))
                .condition_expression("balance > :huge")
                .expression_attribute_values(":huge", n(1_000_000))
                .return_values_on_condition_check_failure(
                    ReturnValuesOnConditionCheckFailure::AllOld,
                )
                .build()
                .expect("check"),
        )
        .build();
    let put = TransactWriteItem::builder()
        .put(
            Put::builder()
                .table_name(table)
                .item("pk", s("NEW#1"))
                .build()
                .expect("put"),
        )
        .build();
    let err = client
        .transact_write_items()
        .transact_items(put)
        .transact_items(check)
        .send()
        .await
        .expect_err("the check fails");
    assert_eq!(code(&err), "TransactionCanceledException");
    assert_eq!(
        message(&err),
        "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]"
    );
    let aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(cancelled) =
        err.into_service_error()
    else {
        panic!("not a typed TransactionCanceledException");
    };
    let reasons = cancelled.cancellation_reasons();
    assert_eq!(reasons.len(), 2);
    assert_eq!(reasons[0].code(), Some("None"));
    assert_eq!(reasons[1].code(), Some("ConditionalCheckFailed"));
    assert!(reasons[1].item().is_some_and(|i| i.contains_key("balance")));
    let absent = client
        .get_item()
        .table_name(table)
        .key("pk", s("NEW#1"))
        .send()
        .await
        .expect("get");
    assert!(
        absent.item().is_none(),
        "a cancelled transaction writes nothing"
    );
}

async fn idempotency(client: &Client, table: &str) {
    let bump = |amount: i64| {
        client
            .transact_write_items()
            .client_request_token("token-1")
            .transact_items(transfer_item(table, 1, amount, false))
            .send()
    };
    let before = balance(
        client
            .get_item()
            .table_name(table)
            .set_key(Some(account(1)))
            .consistent_read(true)
            .send()
            .await
            .expect("get")
            .item()
            .expect("item"),
    );
    bump(5).await.expect("first");
    bump(5)
        .await
        .expect("same token, same request: not applied again");
    let after = balance(
        client
            .get_item()
            .table_name(table)
            .set_key(Some(account(1)))
            .consistent_read(true)
            .send()
            .await
            .expect("get")
            .item()
            .expect("item"),
    );
    assert_eq!(after, before + 5);
    let mismatch = bump(6).await.expect_err("same token, other request");
    assert_eq!(code(&mismatch), "IdempotentParameterMismatchException");
}

async fn rules(client: &Client, table: &str) {
    let twice = client
        .transact_write_items()
        .transact_items(transfer_item(table, 2, 1, false))
        .transact_items(transfer_item(table, 2, 1, false))
        .send()
        .await
        .expect_err("two actions on one item");
    assert_eq!(code(&twice), "ValidationException");
    assert_eq!(
        message(&twice),
        "Transaction request cannot include multiple operations on one item"
    );
    let bad_path = client
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name(table)
                        .set_key(Some(account(3)))
                        .update_expression("SET nested.x = :v")
                        .expression_attribute_values(":v", n(1))
                        .build()
                        .expect("update"),
                )
                .build(),
        )
        .send()
        .await
        .expect_err("invalid path at run time");
    assert_eq!(code(&bad_path), "TransactionCanceledException");
    assert!(message(&bad_path).contains("[ValidationError]"));
}
