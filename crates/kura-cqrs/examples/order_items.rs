//! The seed's Order → OrderItems hierarchy with multi-tenant keys, through kura-cqrs:
//! commands published to the command table, the projector applying them to the data
//! table and a SQLite read model, then the items of an order listed by sort-key prefix.
//!
//! Run against a Kura server (`kura serve` in another terminal):
//!
//! ```sh
//! cargo run -p kura-cqrs --features sqlite --example order_items
//! ```
//!
//! `KURA_ENDPOINT` picks another endpoint (default `http://127.0.0.1:8000`; DynamoDB Local
//! works too). To run it on AWS DynamoDB, build the two clients with `aws-config` instead
//! of `kura_cqrs::endpoint` (the framework only needs an `aws_sdk_dynamodb::Client` and an
//! `aws_sdk_dynamodbstreams::Client`).
#![allow(clippy::print_stdout)] // an example's output is the point

use std::sync::Arc;

use kura_cqrs::keys::{self, VERSION_FIRST, VERSION_LATEST};
use kura_cqrs::sqlite::SqliteReadModel;
use kura_cqrs::{
    CommandInput, CommandService, DataService, Invoker, ListOptions, Projector, ProjectorOptions,
    SkCondition, TableNames, ensure_tables,
};
use serde_json::json;

fn command(
    key: &keys::Key,
    kind: &str,
    version: kura_cqrs::Version,
    attributes: serde_json::Value,
) -> CommandInput {
    CommandInput::for_key(key, version)
        .with_name(kind.to_lowercase())
        .with_kind(kind)
        .with_entity(&attributes)
        .expect("an object")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let endpoint =
        std::env::var("KURA_ENDPOINT").unwrap_or_else(|_| "http://127.0.0.1:8000".into());
    let client = kura_cqrs::endpoint::dynamodb_client(&endpoint);
    let streams = kura_cqrs::endpoint::streams_client(&endpoint);
    let tables = TableNames::new("example", "shop", "order");
    ensure_tables(&client, &tables).await?;
    let commands = CommandService::new(client.clone(), tables.clone());
    let invoker = Invoker {
        user_id: "example".into(),
        ..Invoker::default()
    };

    // One order with three items, in tenant "Tenant001" (normalised to lower case).
    let order_id = keys::new_ulid();
    let order = keys::parent("ORDER", "Tenant001", &order_id)?;
    let mut published = Vec::new();
    published.extend(
        commands
            .publish_async(
                &command(&order, "ORDER", VERSION_FIRST, json!({"status": "NEW"})),
                &invoker,
            )
            .await?,
    );
    for (n, product) in ["tea", "cup", "pot"].iter().enumerate() {
        let item = order.child("ORDER_ITEM", &format!("{:03}", n + 1))?;
        published.extend(
            commands
                .publish_async(
                    &command(
                        &item,
                        "ORDER_ITEM",
                        VERSION_FIRST,
                        json!({"product": product, "qty": n + 1}),
                    ),
                    &invoker,
                )
                .await?,
        );
    }
    // A second version of the order, on top of the latest.
    published.extend(
        commands
            .publish_async(
                &command(&order, "ORDER", VERSION_LATEST, json!({"status": "PAID"})),
                &invoker,
            )
            .await?,
    );

    // The projector: data table, history and a SQLite read model.
    let sqlite = std::env::temp_dir().join(format!("kura-example-{order_id}.db"));
    let read_model = Arc::new(SqliteReadModel::open(&sqlite)?);
    let mut projector = Projector::new(
        client.clone(),
        streams,
        tables.clone(),
        ProjectorOptions::default(),
    );
    projector.register(read_model.clone());
    while projector.run_once().await? > 0 {}
    // Another projector of the module (`kura dev` runs one) may hold the stream's shards
    // under its lease and apply the commands instead: wait until each is finished,
    // whoever applies it.
    for command in &published {
        commands
            .wait_finished(
                &command.pk,
                command.base_sk(),
                command.version,
                std::time::Duration::from_millis(20),
                std::time::Duration::from_secs(60),
            )
            .await?;
    }

    let data = DataService::new(client, tables);
    let the_order = data
        .get_item(&order.pk, &order.sk)
        .await?
        .ok_or("order missing")?;
    println!(
        "order {} version {}: {}",
        the_order.sk,
        the_order.version,
        serde_json::Value::Object(the_order.attributes)
    );
    let items = data
        .list_all_by_pk(
            &order.pk,
            &ListOptions {
                sk: Some(SkCondition::BeginsWith(
                    order.children_prefix("ORDER_ITEM")?,
                )),
                ..ListOptions::default()
            },
        )
        .await?;
    for item in items {
        println!(
            "  item {}: {}",
            item.sk,
            serde_json::Value::Object(item.attributes)
        );
    }
    println!("SQLite read model at {}:", sqlite.display());
    for (id, version, attributes) in read_model.entities()? {
        if id.contains(&order_id) {
            println!("  {id} v{version} {attributes}");
        }
    }
    Ok(())
}
