//! Data reads, partial updates and duplicates (against Kura in process, or the endpoint
//! in `KURA_ENDPOINT`): the seed's Order → OrderItems hierarchy listed by sort-key prefix
//! in pages with a cursor, in both orders, without soft-deleted rows; history by version
//! range.

mod common;

use kura_cqrs::keys::{self, VERSION_FIRST, VERSION_LATEST};
use kura_cqrs::{
    CommandInput, CommandService, DataService, Invoker, ListOptions, PartialUpdate, SkCondition,
    ensure_tables,
};
use serde_json::json;

async fn services() -> (CommandService, DataService) {
    let client = common::client().await;
    let tables = common::unique_names("order");
    ensure_tables(&client, &tables).await.expect("tables");
    (
        CommandService::new(client.clone(), tables.clone()),
        DataService::new(client, tables),
    )
}

fn input(key: &keys::Key, kind: &str, attributes: serde_json::Value) -> CommandInput {
    CommandInput::for_key(key, VERSION_FIRST)
        .with_name(kind.to_lowercase())
        .with_kind(kind)
        .with_entity(&attributes)
        .expect("an object")
}

#[tokio::test]
async fn order_items_by_prefix_in_pages() {
    let (commands, data) = services().await;
    let invoker = Invoker::default();
    let order = keys::parent("ORDER", "Tenant001", "o1").expect("key");
    commands
        .publish_sync(&input(&order, "ORDER", json!({"total": 0})), &invoker)
        .await
        .expect("order");
    for item in 1..=12 {
        let key = order
            .child("ORDER_ITEM", &format!("{item:03}"))
            .expect("key");
        let command = input(&key, "ORDER_ITEM", json!({"qty": item})).with_deleted(item == 7);
        commands
            .publish_sync(&command, &invoker)
            .await
            .expect("item");
    }
    let children = SkCondition::BeginsWith(order.children_prefix("ORDER_ITEM").expect("parent"));
    let mut options = ListOptions {
        sk: Some(children.clone()),
        limit: Some(5),
        ..ListOptions::default()
    };
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page = data
            .list_items_by_pk("ORDER#tenant001", &options)
            .await
            .expect("page");
        pages += 1;
        seen.extend(page.items.iter().map(|i| i.sk.clone()));
        match page.cursor {
            Some(cursor) => options.start_from_sk = Some(cursor),
            None => break,
        }
    }
    let expected: Vec<String> = (1..=12).map(|i| format!("ORDER_ITEM#o1#{i:03}")).collect();
    assert_eq!(seen, expected);
    assert!(pages >= 3);
    let newest_first = data
        .list_all_by_pk(
            "ORDER#tenant001",
            &ListOptions {
                sk: Some(children.clone()),
                descending: true,
                exclude_deleted: true,
                limit: Some(4),
                ..ListOptions::default()
            },
        )
        .await
        .expect("all");
    let mut expected_live: Vec<String> = expected
        .iter()
        .filter(|sk| !sk.ends_with("#007"))
        .cloned()
        .collect();
    expected_live.reverse();
    assert_eq!(
        newest_first
            .iter()
            .map(|i| i.sk.clone())
            .collect::<Vec<_>>(),
        expected_live
    );
    let between = data
        .list_all_by_pk(
            "ORDER#tenant001",
            &ListOptions {
                sk: Some(SkCondition::Between(
                    "ORDER_ITEM#o1#003".into(),
                    "ORDER_ITEM#o1#005".into(),
                )),
                ..ListOptions::default()
            },
        )
        .await
        .expect("between");
    assert_eq!(between.len(), 3);
    let the_order = data
        .get_item("ORDER#tenant001", "ORDER#o1")
        .await
        .expect("get")
        .expect("order");
    assert_eq!(the_order.tenant_code, "tenant001");
}

#[tokio::test]
async fn partial_updates_duplicates_and_history() {
    let (commands, data) = services().await;
    let invoker = Invoker::default();
    let key = keys::parent("ORDER", "tenant001", "o2").expect("key");
    commands
        .publish_sync(
            &input(
                &key,
                "ORDER",
                json!({"address": {"city": "Tokyo", "zip": "100"}, "lines": [1, 2], "note": "x"}),
            ),
            &invoker,
        )
        .await
        .expect("create");
    let patch = PartialUpdate {
        pk: key.pk.clone(),
        sk: key.sk.clone(),
        version: 1.into(),
        name: Some("renamed".into()),
        attributes: json!({"address": {"zip": "150"}, "lines": [3], "note": null})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        ..PartialUpdate::default()
    };
    let v2 = commands
        .publish_partial_update_sync(&patch, &invoker)
        .await
        .expect("patch")
        .expect("written");
    assert_eq!(v2.version.get(), 2);
    let row = data
        .get_item(&key.pk, &key.sk)
        .await
        .expect("get")
        .expect("row");
    assert_eq!(row.name, "renamed");
    assert_eq!(
        serde_json::Value::Object(row.attributes.clone()),
        json!({"address": {"city": "Tokyo", "zip": "150"}, "lines": [3]})
    );
    // The same patch again changes nothing (not dirty), whatever version it names.
    let again = PartialUpdate {
        version: VERSION_LATEST,
        ..patch.clone()
    };
    assert!(
        commands
            .publish_partial_update_sync(&again, &invoker)
            .await
            .expect("same")
            .is_none()
    );
    // History by version range, in version order.
    for total in 0..10 {
        let patch = PartialUpdate {
            pk: key.pk.clone(),
            sk: key.sk.clone(),
            version: VERSION_LATEST,
            attributes: json!({"total": total})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            ..PartialUpdate::default()
        };
        commands
            .publish_partial_update_sync(&patch, &invoker)
            .await
            .expect("patch");
    }
    // Data went 1, 2, then 3..=12 by the ten patches.
    let row = data
        .get_item(&key.pk, &key.sk)
        .await
        .expect("get")
        .expect("row");
    assert_eq!(row.version.get(), 12);
    let history = data
        .history(&key.pk, &key.sk, 2, 11)
        .await
        .expect("history");
    let versions: Vec<i64> = history.iter().map(|h| h.version.get()).collect();
    assert_eq!(versions, (2..=11).collect::<Vec<_>>());
    // Read by key (a narrow range) and by Query (a wide one), the rows are the same.
    let wide = data
        .history(&key.pk, &key.sk, 1, i64::MAX)
        .await
        .expect("wide");
    let narrow = data
        .history(&key.pk, &key.sk, 1, 100)
        .await
        .expect("narrow");
    assert_eq!(wide, narrow);
    assert_eq!(wide.len(), 11, "versions 1..=11; 12 is the data row");
    assert_eq!(
        data.history(&key.pk, &key.sk, 9, 10)
            .await
            .expect("two")
            .iter()
            .map(|h| h.version)
            .collect::<Vec<_>>(),
        [9, 10]
    );
    assert!(
        data.history(&key.pk, &key.sk, 12, 20)
            .await
            .expect("past the end")
            .is_empty()
    );
    assert!(
        data.history(&key.pk, &key.sk, 5, 4)
            .await
            .expect("empty range")
            .is_empty()
    );
    assert_eq!(
        data.history_version(&key.pk, &key.sk, 10)
            .await
            .expect("one")
            .map(|h| h.attributes["total"].clone()),
        Some(json!(7))
    );
    // A duplicate republishes the latest command as a new version, unchanged.
    let latest = commands
        .latest_command(&key.pk, &key.sk)
        .await
        .expect("latest")
        .expect("exists");
    let copy = commands
        .duplicate(&key.pk, &key.sk, &invoker)
        .await
        .expect("duplicate");
    assert_eq!(copy.version.get(), 13);
    assert_eq!(copy.attributes, latest.attributes);
    assert_ne!(copy.attributes, v2.attributes);
}
