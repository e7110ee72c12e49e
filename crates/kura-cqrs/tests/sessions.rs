//! Read-your-writes: a user's own async publishes appear in their gets and lists before
//! the projector applies them; other users see the data table; once applied, everyone
//! sees the same; a recorded version never hides a newer one.
mod common;

use kura_cqrs::keys::{self, VERSION_FIRST, VERSION_LATEST};
use kura_cqrs::{
    CommandInput, CommandService, DataService, Invoker, ListOptions, Projector, ProjectorOptions,
    Sessions, SkCondition, ensure_tables,
};
use serde_json::json;

fn invoker(user: &str) -> Invoker {
    Invoker {
        user_id: user.into(),
        ..Invoker::default()
    }
}

fn item(
    parent: &keys::Key,
    n: u32,
    version: impl Into<kura_cqrs::Version>,
    qty: u32,
) -> CommandInput {
    let key = parent.child("ITEM", &format!("{n:03}")).expect("key");
    CommandInput::for_key(&key, version)
        .with_entity(&json!({"qty": qty}))
        .expect("a map")
}

fn qty(rows: &[kura_cqrs::CommandModel]) -> Vec<(String, i64, String)> {
    rows.iter()
        .map(|r| {
            (
                r.code.clone(),
                r.version.get(),
                r.attributes["qty"].to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_reads_their_own_async_writes() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("cart");
    ensure_tables(&client, &tables).await.expect("tables");
    let sessions = Sessions::new(client.clone(), &tables);
    let commands =
        CommandService::new(client.clone(), tables.clone()).with_sessions(sessions.clone());
    let data = DataService::new(client.clone(), tables.clone()).with_sessions(sessions.clone());
    let cart = keys::parent("CART", "tenant001", "c1").expect("key");
    let prefix = cart.children_prefix("ITEM").expect("parent");
    let options = ListOptions {
        sk: Some(SkCondition::BeginsWith(prefix)),
        exclude_deleted: true,
        ..ListOptions::default()
    };
    // Item 1 applied for everyone (sync); items 2 and 3 published async by aiko.
    commands
        .publish_sync(&item(&cart, 1, VERSION_FIRST, 1), &invoker("aiko"))
        .await
        .expect("sync");
    for n in [2, 3] {
        commands
            .publish_async(&item(&cart, n, VERSION_FIRST, n), &invoker("aiko"))
            .await
            .expect("async");
    }
    // And aiko changes item 1 asynchronously.
    commands
        .publish_async(&item(&cart, 1, VERSION_LATEST, 10), &invoker("aiko"))
        .await
        .expect("async update");

    let hers = data
        .list_items_by_pk_for("aiko", &cart.pk, &options)
        .await
        .expect("list");
    let sk = |n: u32| format!("ITEM#c1#{n:03}");
    assert_eq!(
        qty(&hers.items),
        [
            (sk(1), 2, "10".into()),
            (sk(2), 1, "2".into()),
            (sk(3), 1, "3".into())
        ]
    );
    let his = data
        .list_items_by_pk_for("ben", &cart.pk, &options)
        .await
        .expect("list");
    assert_eq!(
        qty(&his.items),
        [(sk(1), 1, "1".into())],
        "ben sees the table"
    );
    let one = data
        .get_item_for("aiko", &cart.pk, &sk(2))
        .await
        .expect("get")
        .expect("her own item 2");
    assert_eq!(one.version.get(), 1);
    assert!(
        data.get_item_for("ben", &cart.pk, &sk(2))
            .await
            .expect("get")
            .is_none()
    );

    // Aiko deletes item 3 (async): gone from her list at once.
    let delete = CommandInput::for_key(&cart.child("ITEM", "003").expect("key"), VERSION_LATEST)
        .with_entity(&json!({"qty": 3}))
        .expect("a map")
        .with_deleted(true);
    commands
        .publish_async(&delete, &invoker("aiko"))
        .await
        .expect("delete");
    let hers = data
        .list_items_by_pk_for("aiko", &cart.pk, &options)
        .await
        .expect("list");
    assert_eq!(hers.items.len(), 2, "{:?}", qty(&hers.items));

    // Ben moves item 1 on in sync: aiko's recorded version 2 never hides his version 3.
    let projector = Projector::new(client, streams, tables, ProjectorOptions::default());
    let mut applied = 0;
    while applied < 5 {
        let done = projector.run_once().await.expect("round");
        if done == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        applied += done;
    }
    commands
        .publish_sync(&item(&cart, 1, VERSION_LATEST, 99), &invoker("ben"))
        .await
        .expect("ben's update");
    let hers = data
        .list_items_by_pk_for("aiko", &cart.pk, &options)
        .await
        .expect("list");
    let his = data
        .list_items_by_pk_for("ben", &cart.pk, &options)
        .await
        .expect("list");
    assert_eq!(
        qty(&hers.items),
        qty(&his.items),
        "applied: the same for both"
    );
    assert_eq!(
        qty(&his.items),
        [(sk(1), 3, "99".into()), (sk(2), 1, "2".into())]
    );
    // Her read saw every recorded version applied: the session keeps none of them, so
    // her next reads cost nothing more.
    assert_eq!(
        sessions.recent("aiko").await.expect("session"),
        [],
        "applied versions are pruned"
    );
}

/// Orders by tenant and status, by placing date.
fn by_status() -> kura_cqrs::Index {
    use kura_cqrs::names::TENANT_CODE;
    kura_cqrs::Index::new("by-status")
        .partition(
            kura_cqrs::IndexKey::string("gsiStatus")
                .with_field(TENANT_CODE)
                .with_attribute("status"),
        )
        .sort(kura_cqrs::IndexKey::string("gsiDate").with_attribute("placedAt"))
}

fn order(n: u32, version: impl Into<kura_cqrs::Version>, status: &str) -> CommandInput {
    let key = keys::parent("ORDER", "t1", &format!("{n:03}")).expect("key");
    CommandInput::for_key(&key, version)
        .with_code(format!("{n:03}"))
        .with_entity(&json!({"status": status, "placedAt": format!("2026-03-{n:02}")}))
        .expect("a map")
}

fn codes(page: &kura_cqrs::IndexPage) -> Vec<(String, i64)> {
    page.items
        .iter()
        .map(|r| (r.code.clone(), r.version.get()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_reads_their_own_async_writes_through_an_index() {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("order");
    let indexes = kura_cqrs::Indexes::new([by_status()]).expect("indexes");
    kura_cqrs::ensure_tables_with(&client, &tables, &indexes)
        .await
        .expect("tables");
    let sessions = Sessions::new(client.clone(), &tables);
    let commands = CommandService::new(client.clone(), tables.clone())
        .with_indexes(indexes)
        .with_sessions(sessions.clone());
    let data = DataService::new(client.clone(), tables.clone()).with_sessions(sessions);
    let status = |s: &str| kura_cqrs::IndexQuery::new(&by_status(), ["t1", s]);
    for n in [1, 2] {
        commands
            .publish_sync(&order(n, VERSION_FIRST, "pending"), &invoker("ben"))
            .await
            .expect("sync");
    }
    // Aiko places order 3 and ships order 1, asynchronously.
    commands
        .publish_async(&order(3, VERSION_FIRST, "pending"), &invoker("aiko"))
        .await
        .expect("async");
    commands
        .publish_async(&order(1, VERSION_LATEST, "shipped"), &invoker("aiko"))
        .await
        .expect("async update");

    let pending = data
        .query_index_for("aiko", &status("pending"))
        .await
        .expect("query");
    assert_eq!(codes(&pending), [("002".into(), 1), ("003".into(), 1)]);
    let shipped = data
        .query_index_for("aiko", &status("shipped"))
        .await
        .expect("query");
    assert_eq!(codes(&shipped), [("001".into(), 2)]);
    let newest_first = data
        .query_index_for("aiko", &status("pending").descending())
        .await
        .expect("query");
    assert_eq!(codes(&newest_first), [("003".into(), 1), ("002".into(), 1)]);
    let his = data
        .query_index_for("ben", &status("pending"))
        .await
        .expect("query");
    assert_eq!(
        codes(&his),
        [("001".into(), 1), ("002".into(), 1)],
        "ben sees the table"
    );

    // A page at a time: every order once, on the page its date puts it.
    let mut query = status("pending").limit(1);
    let mut pages = Vec::new();
    loop {
        let page = data.query_index_for("aiko", &query).await.expect("page");
        pages.push(codes(&page));
        match page.cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => break,
        }
    }
    let seen: Vec<_> = pages.concat();
    assert_eq!(
        seen,
        [("002".into(), 1), ("003".into(), 1)],
        "pages {pages:?}"
    );

    // Applied, then ben ships order 3 in sync: aiko's recorded version 1 (pending) never
    // brings it back.
    let projector = Projector::new(client, streams, tables, ProjectorOptions::default());
    let mut applied = 0;
    while applied < 2 {
        let done = projector.run_once().await.expect("round");
        if done == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        applied += done;
    }
    commands
        .publish_sync(&order(3, VERSION_LATEST, "shipped"), &invoker("ben"))
        .await
        .expect("ben ships 3");
    for user in ["aiko", "ben"] {
        let pending = data
            .query_index_for(user, &status("pending"))
            .await
            .expect("query");
        assert_eq!(codes(&pending), [("002".into(), 1)], "{user}");
    }
}
