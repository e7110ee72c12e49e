//! The single-table seed's date and status access patterns through the framework: a typed
//! `Order` entity, two indexes declared with the module (orders of a tenant newest first;
//! orders of a tenant in one status, by date), pages with a cursor token, a status change
//! moving an order between index partitions, and optimistic locking by version.
//!
//! Run against a server (`kura serve` in another terminal; `KURA_ENDPOINT` picks another
//! one, DynamoDB Local works too):
//!
//! ```sh
//! cargo run -p kura-cqrs --example orders_by_status
//! ```
#![allow(clippy::print_stdout)] // an example's output is the point

use futures_util::TryStreamExt;
use kura_cqrs::keys::{self, VERSION_FIRST};
use kura_cqrs::names::{CODE, TENANT_CODE};
use kura_cqrs::{
    CommandInput, CommandService, CqrsError, Cursor, DataService, Entity, Index, IndexKey,
    IndexQuery, Indexes, Invoker, PartialUpdate, SkCondition, TableNames, ensure_tables_with,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Pending,
    Shipped,
    Delivered,
    Cancelled,
}

impl Status {
    /// The text the index key holds (as serde writes it).
    fn key(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Shipped => "shipped",
            Status::Delivered => "delivered",
            Status::Cancelled => "cancelled",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Order {
    user_id: String,
    status: Status,
    total: u64,
    ordered_at: String,
}

/// Status changes carry only what changes.
#[derive(Serialize)]
struct StatusChange {
    status: Status,
}

/// The seed's GSI1 (`GSI1PK = 'ORDER'`, `GSI1SK = '<createdAt>#<orderId>'`), per tenant.
fn by_date() -> Index {
    Index::new("GSI1")
        .partition(
            IndexKey::string("GSI1PK")
                .with_field(TENANT_CODE)
                .with_literal("ORDER"),
        )
        .sort(
            IndexKey::string("GSI1SK")
                .with_attribute("orderedAt")
                .with_field(CODE),
        )
}

/// The seed filters GSI1 by status, reading every order of the range; a partition per
/// status reads only the matching ones.
fn by_status() -> Index {
    Index::new("GSI2")
        .partition(
            IndexKey::string("GSI2PK")
                .with_field(TENANT_CODE)
                .with_literal("ORDER")
                .with_attribute("status"),
        )
        .sort(
            IndexKey::string("GSI2SK")
                .with_attribute("orderedAt")
                .with_field(CODE),
        )
}

fn codes(orders: &[Entity<Order>]) -> Vec<&str> {
    orders.iter().map(|o| o.row.code.as_str()).collect()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let endpoint =
        std::env::var("KURA_ENDPOINT").unwrap_or_else(|_| "http://127.0.0.1:8000".into());
    let client = kura_cqrs::endpoint::dynamodb_client(&endpoint);
    // Tables of this run's own, so the example can run again on the same server.
    let run = keys::new_ulid().to_lowercase();
    let tables = TableNames::new("example", &format!("shop{}", &run[20..]), "order");
    let indexes = Indexes::new([by_date(), by_status()])?;
    ensure_tables_with(&client, &tables, &indexes).await?;
    let commands = CommandService::new(client.clone(), tables.clone()).with_indexes(indexes);
    let data = DataService::new(client, tables);
    let invoker = Invoker {
        user_id: "aiko".into(),
        ..Invoker::default()
    };

    // Five orders of tenant001 and one of tenant002, published in sync.
    let statuses = [
        Status::Pending,
        Status::Shipped,
        Status::Delivered,
        Status::Shipped,
        Status::Pending,
    ];
    let mut keys = Vec::new();
    for (i, status) in statuses.into_iter().enumerate() {
        let code = format!("ord{i}");
        let key = keys::parent("ORDER", "tenant001", &code)?;
        let order = Order {
            user_id: "USER#123".into(),
            status,
            total: 1000 * (i as u64 + 1),
            ordered_at: format!("2026-03-{:02}T09:00:00Z", 10 + i),
        };
        let input = CommandInput::for_key(&key, VERSION_FIRST)
            .with_code(code)
            .with_entity(&order)?;
        commands.publish_sync(&input, &invoker).await?;
        keys.push(key);
    }
    let other = Order {
        user_id: "USER#9".into(),
        status: Status::Shipped,
        total: 1,
        ordered_at: "2026-03-12T09:00:00Z".into(),
    };
    let other_key = keys::parent("ORDER", "tenant002", "ord9")?;
    commands
        .publish_sync(
            &CommandInput::for_key(&other_key, VERSION_FIRST)
                .with_code("ord9")
                .with_entity(&other)?,
            &invoker,
        )
        .await?;

    // listOrdersByDate: newest first, two per page, the cursor as a client would hold it.
    let newest = IndexQuery::new(&by_date(), ["tenant001"])
        .descending()
        .limit(2);
    let first = data.query_index(&newest).await?.typed::<Order>()?;
    assert_eq!(codes(&first.items), ["ord4", "ord3"]);
    let token = first.cursor.ok_or("a second page")?.to_token();
    let mut next = newest.clone();
    next.cursor = Some(Cursor::from_token(&token)?);
    let second = data.query_index(&next).await?.typed::<Order>()?;
    assert_eq!(codes(&second.items), ["ord2", "ord1"]);
    println!(
        "newest first: {:?} then {:?}",
        codes(&first.items),
        codes(&second.items)
    );

    // listOrdersByStatus: shipped between 10 and 31 March, from the status partition
    // (tenant002's shipped order is in its own tenant's partition).
    let shipped_in_march =
        IndexQuery::new(&by_status(), ["tenant001", Status::Shipped.key()]).sort(
            SkCondition::Between("2026-03-10#".into(), "2026-03-31#~".into()),
        );
    let shipped: Vec<Entity<Order>> = data
        .stream_index(&shipped_in_march)
        .and_then(|row| async move { Entity::from_row(row) })
        .try_collect()
        .await?;
    assert_eq!(codes(&shipped), ["ord1", "ord3"]);
    assert!(shipped.iter().all(|o| o.status == Status::Shipped));
    println!("shipped in March: {:?}", codes(&shipped));

    // Shipping ord0 moves it to the shipped partition.
    let ship = PartialUpdate::new(&keys[0], keys::VERSION_LATEST).with_patch(&StatusChange {
        status: Status::Shipped,
    })?;
    commands
        .publish_partial_update_sync(&ship, &invoker)
        .await?;
    let shipped: Vec<_> = data.stream_index(&shipped_in_march).try_collect().await?;
    let shipped: Vec<&str> = shipped.iter().map(|o| o.code.as_str()).collect();
    assert_eq!(shipped, ["ord0", "ord1", "ord3"]);
    println!("after shipping ord0: {shipped:?}");

    // Optimistic locking: two edits based on the same version; the second conflicts.
    let read: Entity<Order> = data.get(&keys[4]).await?.ok_or("ord4")?;
    let cancel = |version: kura_cqrs::Version| -> Result<CommandInput, CqrsError> {
        let order = Order {
            status: Status::Cancelled,
            ..read.value.clone()
        };
        CommandInput::for_key(&read.key(), version)
            .with_code("ord4")
            .with_entity(&order)
    };
    commands
        .publish_sync(&cancel(read.version())?, &invoker)
        .await?;
    let again = commands
        .publish_sync(&cancel(read.version())?, &invoker)
        .await;
    assert!(
        matches!(
            again,
            Err(CqrsError::VersionConflict { expected, actual }) if (expected.get(), actual.get()) == (1, 2)
        ),
        "{again:?}"
    );
    let cancelled: Entity<Order> = data.get(&keys[4]).await?.ok_or("ord4")?;
    assert_eq!(
        (cancelled.status, cancelled.version().get()),
        (Status::Cancelled, 2)
    );
    println!("ord4 cancelled at version 2; a second edit based on version 1 conflicts");

    let theirs: Entity<Order> = data.get(&other_key).await?.ok_or("ord9")?;
    assert_eq!(theirs.value, other);
    Ok(())
}
