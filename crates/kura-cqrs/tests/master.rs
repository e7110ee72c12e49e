//! Master data, settings and TTL policies (against Kura in process, or the endpoint in
//! `KURA_ENDPOINT`), written through the framework's own sync publishing into a master
//! module.

mod common;

use kura_cqrs::keys::{TENANT_COMMON, master_pk, ttl_sk};
use kura_cqrs::master::setting_sk;
use kura_cqrs::{
    CommandInput, CommandService, Invoker, MasterService, SettingScope, TableKind, TableNames,
    ensure_tables,
};
use serde_json::{Value, json};

fn row(tenant: &str, sk: &str, attributes: Value) -> CommandInput {
    CommandInput::new(master_pk(Some(tenant)), sk, 0)
        .with_name(sk)
        .with_entity(&attributes)
        .expect("an object")
}

#[tokio::test]
async fn settings_resolve_user_group_tenant_common() {
    let client = common::client().await;
    let tables = common::unique_names("master");
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
    // Per module: the common tenant keeps the audit module's history for a year, the
    // other modules take the table type's policy.
    commands
        .publish_sync(
            &row(
                TENANT_COMMON,
                &ttl_sk("audit-history"),
                json!({"days": 365}),
            ),
            &invoker,
        )
        .await
        .expect("module policy");
    let days = |tenant: &'static str, module: Option<&'static str>| {
        let master = master.clone();
        async move {
            master
                .module_ttl_days(tenant, module, TableKind::History)
                .await
                .expect("days")
        }
    };
    assert_eq!(days("t2", Some("audit")).await, Some(365));
    assert_eq!(days("t2", Some("order")).await, Some(30));
    assert_eq!(days("t2", None).await, Some(30));
    // The tenant's own policy for the table type comes before the common tenant's for
    // the module.
    assert_eq!(days("t1", Some("audit")).await, Some(7));
}

/// TTL policies applied on write: command, data and history rows of a tenant get now +
/// the policy's days for their table type, unless they carry a ttl of their own.
#[tokio::test]
async fn ttl_policies_apply_to_the_rows_written() {
    use kura_cqrs::{Projector, ProjectorOptions, TtlPolicies};
    let (client, streams) = common::clients().await;
    let app = common::unique_app();
    let master_tables = TableNames::new(&common::test_env(), &app, "master");
    ensure_tables(&client, &master_tables)
        .await
        .expect("tables");
    let invoker = Invoker::default();
    let master_commands = CommandService::new(client.clone(), master_tables.clone());
    for (kind, days) in [("command", 90), ("data", 365), ("history", 30)] {
        master_commands
            .publish_sync(
                &row(TENANT_COMMON, &ttl_sk(kind), json!({"days": days})),
                &invoker,
            )
            .await
            .expect("policy");
    }
    let policies = TtlPolicies::new(MasterService::new(
        client.clone(),
        master_tables.data.clone(),
    ));
    let orders = TableNames::new(&common::test_env(), &app, "order");
    ensure_tables(&client, &orders).await.expect("tables");
    let commands =
        CommandService::new(client.clone(), orders.clone()).with_ttl_policies(policies.clone());
    let order = |version: i64, total: i64, ttl: Option<i64>| {
        CommandInput::new("ORDER#t1", "ORDER#1", version)
            .with_code("1")
            .with_name("order")
            .with_ttl(ttl)
            .with_attribute("total", json!(total))
    };
    commands
        .publish_sync(&order(0, 1, None), &invoker)
        .await
        .expect("v1");
    commands
        .publish_sync(&order(1, 2, None), &invoker)
        .await
        .expect("v2");
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let near = |ttl: Option<i64>, days: i64| {
        let ttl = ttl.expect("a ttl");
        let want = now + days * 86_400;
        assert!(
            (ttl - want).abs() < 120,
            "ttl {ttl} is not now + {days} days"
        );
    };
    // The latest command lives as long as the data row (so its version number is never
    // lost while the entity lives); the version it superseded gets the command table's
    // retention.
    let command_expiry = |version: i64| {
        let commands = commands.clone();
        async move {
            commands
                .command("ORDER#t1", "ORDER#1", version)
                .await
                .expect("cmd")
                .expect("row")
                .expires()
        }
    };
    near(command_expiry(2).await, 365);
    near(command_expiry(1).await, 90);
    near(
        commands
            .data_row("ORDER#t1", "ORDER#1")
            .await
            .expect("data")
            .expect("row")
            .expires(),
        365,
    );
    near(
        commands
            .history_row("ORDER#t1", "ORDER#1", 1)
            .await
            .expect("hist")
            .expect("row")
            .expires(),
        30,
    );
    // A row with its own ttl keeps it.
    commands
        .publish_sync(&order(2, 3, Some(42)), &invoker)
        .await
        .expect("v3");
    assert_eq!(
        commands
            .data_row("ORDER#t1", "ORDER#1")
            .await
            .expect("data")
            .expect("row")
            .ttl,
        Some(42)
    );
    // A policy's expiry is the row's, not the entity's (issue 34): publishing the same
    // input again writes nothing, and a partial update gets a fresh expiry from the
    // policy instead of keeping the old one as its own.
    let third = |version: i64| {
        CommandInput::new("ORDER#t1", "ORDER#3", version)
            .with_code("3")
            .with_attribute("total", json!(3))
    };
    commands
        .publish_sync(&third(0), &invoker)
        .await
        .expect("v1 of ORDER#3");
    let stored = commands
        .data_row("ORDER#t1", "ORDER#3")
        .await
        .expect("data")
        .expect("row");
    assert_eq!(stored.ttl, None, "the policy's expiry is not the entity's");
    near(stored.policy_ttl, 365);
    assert!(
        commands
            .publish_sync(&third(1), &invoker)
            .await
            .expect("again")
            .is_none(),
        "the same input once more is not dirty"
    );
    let patch = kura_cqrs::PartialUpdate {
        pk: "ORDER#t1".into(),
        sk: "ORDER#3".into(),
        version: 1.into(),
        attributes: json!({"note": "gift"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        ..kura_cqrs::PartialUpdate::default()
    };
    let patched = commands
        .publish_partial_update_sync(&patch, &invoker)
        .await
        .expect("partial")
        .expect("a new version");
    assert_eq!((patched.version.get(), patched.ttl), (2, None));
    let command = commands
        .command("ORDER#t1", "ORDER#3", 2)
        .await
        .expect("cmd")
        .expect("row");
    assert_eq!(command.ttl, None);
    near(command.policy_ttl, 365);
    let superseded = commands
        .command("ORDER#t1", "ORDER#3", 1)
        .await
        .expect("cmd")
        .expect("row");
    near(superseded.policy_ttl, 90);
    let history = commands
        .history_row("ORDER#t1", "ORDER#3", 1)
        .await
        .expect("hist")
        .expect("row");
    near(history.policy_ttl, 30);
    // The projector applies the same policies to what it writes.
    let async_commands = CommandService::new(client.clone(), orders.clone());
    let other = CommandInput::new("ORDER#t1", "ORDER#2", 0).with_attribute("total", json!(9));
    async_commands
        .publish_async(&other, &invoker)
        .await
        .expect("async");
    let projector = Projector::new(
        client.clone(),
        streams,
        orders.clone(),
        ProjectorOptions::default(),
    )
    .with_ttl_policies(policies);
    while projector.run_once().await.expect("round") > 0 {}
    near(
        commands
            .data_row("ORDER#t1", "ORDER#2")
            .await
            .expect("data")
            .expect("row")
            .expires(),
        365,
    );
}

#[tokio::test]
async fn tenant_records() {
    use kura_cqrs::{CqrsError, DataService, TenantService};
    let client = common::client().await;
    let tables = common::unique_names("tenant");
    ensure_tables(&client, &tables).await.expect("tables");
    let tenants = TenantService::new(
        CommandService::new(client.clone(), tables.clone()),
        DataService::new(client, tables),
    );
    let invoker = Invoker::default();
    tenants.ensure_common(&invoker).await.expect("common");
    tenants.ensure_common(&invoker).await.expect("common again");
    tenants
        .create("Tenant001", "First", serde_json::Map::new(), &invoker)
        .await
        .expect("create");
    let err = tenants
        .create("TENANT001", "Again", serde_json::Map::new(), &invoker)
        .await
        .expect_err("the code is taken, whatever its case");
    assert!(matches!(err, CqrsError::VersionConflict { .. }), "{err}");
    tenants
        .create("t2", "Second", serde_json::Map::new(), &invoker)
        .await
        .expect("t2");
    let codes =
        |list: Vec<kura_cqrs::CommandModel>| list.into_iter().map(|t| t.code).collect::<Vec<_>>();
    assert_eq!(
        codes(tenants.list().await.expect("list")),
        ["common", "t2", "tenant001"]
    );
    tenants
        .deactivate("T2", &invoker)
        .await
        .expect("deactivate");
    assert_eq!(
        codes(tenants.list().await.expect("list")),
        ["common", "tenant001"]
    );
    assert!(
        tenants
            .get("t2")
            .await
            .expect("get")
            .expect("kept")
            .is_deleted
    );
}
