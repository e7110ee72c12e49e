//! The seed's six key patterns through the framework, each written with its key builder
//! and read back by the access pattern it exists for, with assertions:
//!
//! 1. simple entity — every product of a tenant;
//! 2. hierarchy — an order's items in the order's partition;
//! 3. composite variant — the SSO users among all users;
//! 4. common association — the users of one tenant, kept in the common tenant;
//! 5. master data — one category of a tenant's master data;
//! 6. time series — one month's events of a tenant, by time range.
//!
//! Run against a server (`kura serve` in another terminal; `KURA_ENDPOINT` picks another
//! one, DynamoDB Local works too):
//!
//! ```sh
//! cargo run -p kura-cqrs --example key_patterns
//! ```
#![allow(clippy::print_stdout)] // an example's output is the point

use kura_cqrs::keys::{self, Key, VERSION_FIRST};
use kura_cqrs::{
    CommandInput, CommandService, DataService, Entity, Invoker, ListOptions, SkCondition,
    TableNames, ensure_tables,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Named {
    label: String,
}

type Error = Box<dyn std::error::Error>;

struct Module {
    commands: CommandService,
    data: DataService,
    invoker: Invoker,
}

impl Module {
    async fn put(&self, key: &Key, label: &str) -> Result<(), Error> {
        let input = CommandInput::for_key(key, VERSION_FIRST).with_entity(&Named {
            label: label.to_owned(),
        })?;
        self.commands.publish_sync(&input, &self.invoker).await?;
        Ok(())
    }

    /// The labels of a partition's rows, in sort-key order, under `sk`.
    async fn labels(&self, pk: &str, sk: Option<SkCondition>) -> Result<Vec<String>, Error> {
        let options = ListOptions {
            sk,
            ..ListOptions::default()
        };
        let rows = self.data.list_all_by_pk(pk, &options).await?;
        let named: Vec<Entity<Named>> = kura_cqrs::entity::entities(rows)?;
        Ok(named.into_iter().map(|n| n.value.label).collect())
    }
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let endpoint =
        std::env::var("KURA_ENDPOINT").unwrap_or_else(|_| "http://127.0.0.1:8000".into());
    let client = kura_cqrs::endpoint::dynamodb_client(&endpoint);
    let run = keys::new_ulid().to_lowercase();
    let tables = TableNames::new("example", &format!("keys{}", &run[20..]), "master");
    ensure_tables(&client, &tables).await?;
    let module = Module {
        commands: CommandService::new(client.clone(), tables.clone()),
        data: DataService::new(client, tables),
        invoker: Invoker::default(),
    };

    // 1. Simple entity: PRODUCT#tenant / a new ULID; the partition is the tenant's
    //    products (ULIDs sort by creation time, to the millisecond).
    for name in ["tea", "cup", "pot"] {
        module
            .put(&keys::simple_entity("PRODUCT", "Tenant001")?, name)
            .await?;
    }
    module
        .put(&keys::simple_entity("PRODUCT", "tenant002")?, "theirs")
        .await?;
    let mut products = module.labels("PRODUCT#tenant001", None).await?;
    products.sort();
    assert_eq!(products, ["cup", "pot", "tea"], "tenant001's only");
    println!("1 simple entity: {products:?}");

    // 2. Hierarchy: ORDER#tenant / ORDER#id, its items ORDER_ITEM#id#n beside it.
    let order = keys::parent("ORDER", "tenant001", "o1")?;
    module.put(&order, "order o1").await?;
    for n in ["001", "002"] {
        module
            .put(&order.child("ORDER_ITEM", n)?, &format!("item {n}"))
            .await?;
    }
    let other = keys::parent("ORDER", "tenant001", "o2")?;
    module
        .put(&other.child("ORDER_ITEM", "001")?, "o2's item")
        .await?;
    let items = module
        .labels(
            &order.pk,
            Some(SkCondition::BeginsWith(
                order.children_prefix("ORDER_ITEM")?,
            )),
        )
        .await?;
    assert_eq!(items, ["item 001", "item 002"], "o1's items only");
    println!("2 hierarchy: {items:?}");

    // 3. Composite variant: USER#common / variant#identifier.
    module
        .put(
            &keys::variant("USER", "common", "sso", "abc123")?,
            "sso abc",
        )
        .await?;
    module
        .put(
            &keys::variant("USER", "common", "sso", "def456")?,
            "sso def",
        )
        .await?;
    module
        .put(
            &keys::variant("USER", "common", "local", "aiko")?,
            "local aiko",
        )
        .await?;
    let sso = module
        .labels("USER#common", Some(SkCondition::BeginsWith("sso#".into())))
        .await?;
    assert_eq!(sso, ["sso abc", "sso def"]);
    println!("3 variant: {sso:?}");

    // 4. Common association: USER_TENANT#common / tenant#user.
    for (tenant, user) in [
        ("tenant002", "user1"),
        ("Tenant002", "user2"),
        ("tenant003", "user1"),
    ] {
        module
            .put(
                &keys::common_association("USER_TENANT", tenant, user)?,
                &format!("{user} in {}", tenant.to_lowercase()),
            )
            .await?;
    }
    let members = module
        .labels(
            "USER_TENANT#common",
            Some(SkCondition::BeginsWith("tenant002#".into())),
        )
        .await?;
    assert_eq!(members, ["user1 in tenant002", "user2 in tenant002"]);
    println!("4 common association: {members:?}");

    // 5. Master data: MASTER#tenant / TYPE#category#code.
    for (category, code) in [
        ("product_category", "electronics"),
        ("product_category", "food"),
        ("prefecture", "tokyo"),
    ] {
        module
            .put(
                &keys::master_data("tenant001", "DATA", category, code)?,
                code,
            )
            .await?;
    }
    let categories = module
        .labels(
            &keys::master_pk(Some("tenant001")),
            Some(SkCondition::BeginsWith("DATA#product_category#".into())),
        )
        .await?;
    assert_eq!(categories, ["electronics", "food"]);
    println!("5 master data: {categories:?}");

    // 6. Time series: LOG#tenant#YYYY-MM / timestamp#event; one partition per month.
    for (at, event) in [
        ("2024-01-15T10:30:00Z", "login"),
        ("2024-01-20T08:00:00Z", "order"),
        ("2024-01-31T23:59:59Z", "logout"),
        ("2024-02-01T00:00:00Z", "february"),
    ] {
        module
            .put(&keys::time_series("LOG", "tenant001", at, event)?, event)
            .await?;
    }
    let january = keys::time_series("LOG", "tenant001", "2024-01-01T00:00:00Z", "x")?;
    let second_half = module
        .labels(
            &january.pk,
            Some(SkCondition::Between(
                "2024-01-16T00:00:00Z".into(),
                "2024-01-31T23:59:59Z~".into(),
            )),
        )
        .await?;
    assert_eq!(
        second_half,
        ["order", "logout"],
        "February is another partition"
    );
    assert_eq!(january.pk, "LOG#tenant001#2024-01");
    println!("6 time series: {second_half:?}");
    Ok(())
}
