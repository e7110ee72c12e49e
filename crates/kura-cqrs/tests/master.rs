//! Master data, settings and TTL policies against Kura (in process), written through the
//! framework's own sync publishing into a master module.

use kura_cqrs::keys::{TENANT_COMMON, master_pk, ttl_sk};
use kura_cqrs::master::setting_sk;
use kura_cqrs::{
    CommandInput, CommandService, Invoker, MasterService, SettingScope, TableKind, TableNames,
    ensure_tables,
};
use serde_json::{Value, json};

fn row(tenant: &str, sk: &str, attributes: Value) -> CommandInput {
    CommandInput {
        pk: master_pk(Some(tenant)),
        sk: sk.into(),
        code: sk.into(),
        name: sk.into(),
        version: 0,
        tenant_code: tenant.into(),
        kind: "MASTER".into(),
        is_deleted: false,
        seq: None,
        ttl: None,
        attributes: attributes.as_object().cloned().unwrap_or_default(),
    }
}

#[tokio::test]
async fn settings_resolve_user_group_tenant_common() {
    let client = kura_testkit::in_process_client(kura_engine::Engine::in_memory());
    let tables = TableNames::new("test", "app", "master");
    ensure_tables(&client, &tables).await.expect("tables");
    let commands = CommandService::new(client.clone(), tables.clone());
    let master = MasterService::new(client, tables.data.clone());
    let invoker = Invoker::default();
    for (tenant, sk, value) in [
        (TENANT_COMMON, setting_sk("theme", None), "common"),
        ("t1", setting_sk("theme", None), "tenant"),
        ("t1", setting_sk("theme", Some(("GROUP", "sales"))), "group"),
        ("t1", setting_sk("theme", Some(("USER", "u1"))), "user"),
    ] {
        commands
            .publish_sync(&row(tenant, &sk, json!({"value": value})), &invoker)
            .await
            .expect("setting");
    }
    let resolve = |tenant: &str, group: Option<&str>, user: Option<&str>| {
        let master = master.clone();
        let scope = SettingScope {
            tenant_code: tenant.into(),
            group_id: group.map(str::to_owned),
            user_id: user.map(str::to_owned),
        };
        async move {
            master
                .setting("theme", &scope)
                .await
                .expect("setting")
                .map(|a| a["value"].clone())
        }
    };
    assert_eq!(
        resolve("t1", Some("sales"), Some("u1")).await,
        Some(json!("user"))
    );
    assert_eq!(
        resolve("t1", Some("sales"), Some("u2")).await,
        Some(json!("group"))
    );
    assert_eq!(
        resolve("t1", Some("ops"), None).await,
        Some(json!("tenant"))
    );
    assert_eq!(resolve("t2", None, None).await, Some(json!("common")));
    assert_eq!(
        master
            .setting("absent", &SettingScope::default())
            .await
            .expect("none"),
        None
    );

    // Master data and TTL policies: the tenant's own, else the common tenant's.
    commands
        .publish_sync(
            &row(
                "t1",
                "DATA#product_category#electronics",
                json!({"label": "E"}),
            ),
            &invoker,
        )
        .await
        .expect("master data");
    commands
        .publish_sync(
            &row(TENANT_COMMON, &ttl_sk("history"), json!({"days": 30})),
            &invoker,
        )
        .await
        .expect("ttl policy");
    commands
        .publish_sync(&row("t1", &ttl_sk("history"), json!({"days": 7})), &invoker)
        .await
        .expect("ttl policy");
    let category = master
        .master_data("t1", "DATA", "product_category", "electronics")
        .await
        .expect("read")
        .expect("row");
    assert_eq!(category.attributes["label"], json!("E"));
    assert!(
        master
            .master_data("t2", "DATA", "product_category", "electronics")
            .await
            .expect("read")
            .is_none()
    );
    assert_eq!(
        master.ttl_days("t1", TableKind::History).await.expect("t1"),
        Some(7)
    );
    assert_eq!(
        master.ttl_days("t2", TableKind::History).await.expect("t2"),
        Some(30)
    );
    assert_eq!(
        master.ttl_days("t1", TableKind::Data).await.expect("none"),
        None
    );
    assert_eq!(
        master
            .ttl_for("t2", TableKind::History, 1_000)
            .await
            .expect("ttl"),
        Some(1_000 + 30 * 86_400)
    );
}
