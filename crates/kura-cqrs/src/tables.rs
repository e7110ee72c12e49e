//! A module's three tables, `{env}-{app}-{module}-command|data|history`: string keys `pk`
//! and `sk`, TTL on the attribute `ttl`, and a stream on the command table (the
//! projector's input); plus the projector's own two, `-projector` (checkpoints) and
//! `-dead-letter` (parked records).

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CreateGlobalSecondaryIndexAction, GlobalSecondaryIndex,
    GlobalSecondaryIndexUpdate, IndexStatus, KeySchemaElement, KeyType,
    PointInTimeRecoverySpecification, PointInTimeRecoveryStatus, Projection, ProjectionType,
    ScalarAttributeType, StreamSpecification, StreamViewType, TableDescription, TableStatus,
    TimeToLiveSpecification, TimeToLiveStatus,
};

use crate::error::{CqrsError, Result};
use crate::indexes::{Index, Indexes};
use crate::names::{PK, SK};

/// The TTL attribute of every table.
pub const TTL_ATTRIBUTE: &str = crate::names::TTL;

/// The table names of one module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableNames {
    pub command: String,
    pub data: String,
    pub history: String,
    pub projector: String,
    pub dead_letter: String,
    /// Read-your-writes sessions ([`crate::sessions`]).
    pub session: String,
}

/// Which of a module's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    Command,
    Data,
    History,
}

impl TableKind {
    pub const ALL: [TableKind; 3] = [TableKind::Command, TableKind::Data, TableKind::History];

    /// The name the seed gives the table type (`command`, `data`, `history`).
    pub fn name(self) -> &'static str {
        match self {
            TableKind::Command => "command",
            TableKind::Data => "data",
            TableKind::History => "history",
        }
    }
}

impl TableNames {
    pub fn new(env: &str, app: &str, module: &str) -> TableNames {
        let name = |kind: &str| format!("{env}-{app}-{module}-{kind}");
        TableNames {
            command: name("command"),
            data: name("data"),
            history: name("history"),
            projector: name("projector"),
            dead_letter: name("dead-letter"),
            session: name("session"),
        }
    }

    pub fn of(&self, kind: TableKind) -> &str {
        match kind {
            TableKind::Command => &self.command,
            TableKind::Data => &self.data,
            TableKind::History => &self.history,
        }
    }
}

fn key(name: &str, kind: KeyType) -> Result<KeySchemaElement> {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()
        .map_err(|e| CqrsError::InvalidKey(e.to_string()))
}

fn definition(name: &str, kind: ScalarAttributeType) -> Result<AttributeDefinition> {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(kind)
        .build()
        .map_err(|e| CqrsError::InvalidKey(e.to_string()))
}

/// Creates the module's tables that are missing and checks the ones that exist; enables
/// TTL on each. Safe to call at every start.
pub async fn ensure_tables(client: &Client, names: &TableNames) -> Result<()> {
    ensure_tables_with(client, names, &Indexes::default())
        .await
        .map(drop)
}

/// [`ensure_tables`], and the module's secondary indexes on the data table: created with
/// a new table, checked when they exist (a different key schema is a
/// [`CqrsError::TableMismatch`] at once), and added to an existing table in the
/// background: one at a time, as DynamoDB allows, each waited for until ACTIVE, while the
/// caller goes on (on AWS a large table's backfill takes minutes or hours; writes go on
/// meanwhile, and a query of the index is refused until it is ACTIVE). The returned
/// [`IndexBuild`] says when they are ready. Rows written before an index existed are not
/// in it until their entity is published again.
pub async fn ensure_tables_with(
    client: &Client,
    names: &TableNames,
    indexes: &Indexes,
) -> Result<IndexBuild> {
    let none = Indexes::default();
    let mut missing = Vec::new();
    for kind in TableKind::ALL {
        let name = names.of(kind);
        let own = if kind == TableKind::Data {
            indexes
        } else {
            &none
        };
        missing.extend(ensure_table(client, name, kind == TableKind::Command, own).await?);
        ensure_ttl(client, name).await?;
    }
    ensure_table(client, &names.projector, false, &none).await?;
    ensure_table(client, &names.dead_letter, false, &none).await?;
    ensure_table(client, &names.session, false, &none).await?;
    ensure_ttl(client, &names.session).await?;
    if missing.is_empty() {
        return Ok(IndexBuild(None));
    }
    let (client, table) = (client.clone(), names.data.clone());
    Ok(IndexBuild(Some(tokio::spawn(async move {
        for index in &missing {
            add_index(&client, &table, index).await?;
        }
        Ok(())
    }))))
}

/// The indexes [`ensure_tables_with`] is adding to an existing data table. Dropping it
/// leaves the work going on.
#[derive(Debug)]
pub struct IndexBuild(Option<tokio::task::JoinHandle<Result<()>>>);

impl IndexBuild {
    /// Whether every index is ACTIVE (or the build failed: [`IndexBuild::wait`] says).
    pub fn is_done(&self) -> bool {
        self.0.as_ref().is_none_or(|task| task.is_finished())
    }

    /// Waits until every index is ACTIVE.
    pub async fn wait(self) -> Result<()> {
        match self.0 {
            None => Ok(()),
            Some(task) => task.await.map_err(|e| CqrsError::Dynamo {
                code: "IndexBuild".into(),
                message: format!("the index build stopped: {e}"),
                source: None,
            })?,
        }
    }
}

fn gsi_key_schema(index: &Index) -> Result<Vec<KeySchemaElement>> {
    let hash = index
        .partition
        .iter()
        .map(|k| key(&k.attribute, KeyType::Hash));
    let range = index.sort.iter().map(|k| key(&k.attribute, KeyType::Range));
    hash.chain(range).collect()
}

fn gsi_definitions(index: &Index) -> Result<Vec<AttributeDefinition>> {
    index
        .keys()
        .map(|k| definition(&k.attribute, k.kind.clone()))
        .collect()
}

fn all_projected() -> Projection {
    Projection::builder()
        .projection_type(ProjectionType::All)
        .build()
}

/// Creates or checks one table; returns the indexes an existing table lacks.
async fn ensure_table(
    client: &Client,
    name: &str,
    streamed: bool,
    indexes: &Indexes,
) -> Result<Vec<Index>> {
    let mut missing = Vec::new();
    match client.describe_table().table_name(name).send().await {
        Ok(found) => {
            let table = found
                .table()
                .ok_or_else(|| mismatch(name, "no description"))?;
            check_table(name, table, streamed)?;
            for index in indexes.iter() {
                if !check_index(name, table, index)? {
                    missing.push(index.clone());
                }
            }
        }
        Err(e)
            if e.as_service_error()
                .is_some_and(|s| s.is_resource_not_found_exception()) =>
        {
            let mut create = client
                .create_table()
                .table_name(name)
                .billing_mode(BillingMode::PayPerRequest)
                .attribute_definitions(definition(PK, ScalarAttributeType::S)?)
                .attribute_definitions(definition(SK, ScalarAttributeType::S)?)
                .key_schema(key(PK, KeyType::Hash)?)
                .key_schema(key(SK, KeyType::Range)?);
            let mut defined = vec![PK.to_owned(), SK.to_owned()];
            for index in indexes.iter() {
                for d in gsi_definitions(index)? {
                    if !defined.contains(&d.attribute_name().to_owned()) {
                        defined.push(d.attribute_name().to_owned());
                        create = create.attribute_definitions(d);
                    }
                }
                let gsi = GlobalSecondaryIndex::builder()
                    .index_name(&index.name)
                    .set_key_schema(Some(gsi_key_schema(index)?))
                    .projection(all_projected())
                    .build()
                    .map_err(|e| mismatch(name, &e.to_string()))?;
                create = create.global_secondary_indexes(gsi);
            }
            if streamed {
                create = create.stream_specification(
                    StreamSpecification::builder()
                        .stream_enabled(true)
                        .stream_view_type(StreamViewType::NewImage)
                        .build()
                        .map_err(|e| mismatch(name, &e.to_string()))?,
                );
            }
            match create.send().await {
                Ok(_) => tracing::info!(table = name, "created table"),
                // Another process created it meanwhile: check it like any existing one.
                Err(e)
                    if e.as_service_error()
                        .is_some_and(|s| s.is_resource_in_use_exception()) => {}
                Err(e) => return Err(CqrsError::dynamo(e)),
            }
            wait_active(client, name).await?;
        }
        Err(e) => return Err(CqrsError::dynamo(e)),
    }
    Ok(missing)
}

/// Whether an existing table has `index` (being created counts): an index of that name
/// with another key schema is a mismatch.
fn check_index(name: &str, table: &TableDescription, index: &Index) -> Result<bool> {
    let wanted = gsi_key_schema(index)?;
    if let Some(existing) = table
        .global_secondary_indexes()
        .iter()
        .find(|g| g.index_name() == Some(index.name.as_str()))
    {
        if existing.key_schema() != wanted.as_slice() {
            return Err(mismatch(
                name,
                &format!(
                    "the index {} exists with another key schema ({:?})",
                    index.name,
                    existing.key_schema()
                ),
            ));
        }
        return Ok(true);
    }
    Ok(false)
}

/// Adds `index` to the existing table `name` and waits until it is ACTIVE.
async fn add_index(client: &Client, name: &str, index: &Index) -> Result<()> {
    let wanted = gsi_key_schema(index)?;
    let create = CreateGlobalSecondaryIndexAction::builder()
        .index_name(&index.name)
        .set_key_schema(Some(wanted))
        .projection(all_projected())
        .build()
        .map_err(|e| mismatch(name, &e.to_string()))?;
    client
        .update_table()
        .table_name(name)
        .set_attribute_definitions(Some(gsi_definitions(index)?))
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder().create(create).build(),
        )
        .send()
        .await
        .map_err(CqrsError::dynamo)?;
    tracing::info!(table = name, index = index.name, "adding index");
    wait_index_active(client, name, &index.name).await
}

async fn wait_index_active(client: &Client, name: &str, index: &str) -> Result<()> {
    let active = |t: &TableDescription| {
        t.global_secondary_indexes()
            .iter()
            .find(|g| g.index_name() == Some(index))
            .and_then(|g| g.index_status())
            == Some(&IndexStatus::Active)
    };
    wait_until(client, name, &format!("the index {index}"), active).await
}

/// Describes `name` until `done` holds of it, for at most 5 minutes.
async fn wait_until(
    client: &Client,
    name: &str,
    what: &str,
    done: impl Fn(&TableDescription) -> bool,
) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut pause = Duration::from_millis(20);
    loop {
        let table = client
            .describe_table()
            .table_name(name)
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        if table.table().is_some_and(&done) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(mismatch(
                name,
                &format!("{what} did not become ACTIVE within 5 minutes"),
            ));
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(500));
    }
}

/// Turns on point-in-time recovery and deletion protection for the module's command,
/// data and history tables (the others are derived from them): what a module in
/// production needs, and what a developer's throwaway tables do not. Safe to call at
/// every start.
pub async fn protect_tables(client: &Client, names: &TableNames) -> Result<()> {
    for kind in TableKind::ALL {
        let name = names.of(kind);
        let backups = client
            .describe_continuous_backups()
            .table_name(name)
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        let pitr = backups
            .continuous_backups_description()
            .and_then(|d| d.point_in_time_recovery_description())
            .and_then(|p| p.point_in_time_recovery_status());
        if pitr != Some(&PointInTimeRecoveryStatus::Enabled) {
            let on = PointInTimeRecoverySpecification::builder()
                .point_in_time_recovery_enabled(true)
                .build()
                .map_err(|e| mismatch(name, &e.to_string()))?;
            client
                .update_continuous_backups()
                .table_name(name)
                .point_in_time_recovery_specification(on)
                .send()
                .await
                .map_err(CqrsError::dynamo)?;
            tracing::info!(table = name, "point-in-time recovery on");
        }
        let table = client
            .describe_table()
            .table_name(name)
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        let protected = table
            .table()
            .and_then(|t| t.deletion_protection_enabled())
            .unwrap_or(false);
        if !protected {
            client
                .update_table()
                .table_name(name)
                .deletion_protection_enabled(true)
                .send()
                .await
                .map_err(CqrsError::dynamo)?;
            wait_active(client, name).await?;
            tracing::info!(table = name, "deletion protection on");
        }
    }
    Ok(())
}

fn mismatch(table: &str, problem: &str) -> CqrsError {
    CqrsError::TableMismatch {
        table: table.to_owned(),
        problem: problem.to_owned(),
    }
}

fn check_table(name: &str, table: &TableDescription, streamed: bool) -> Result<()> {
    let keys: Vec<(&str, &KeyType)> = table
        .key_schema()
        .iter()
        .map(|k| (k.attribute_name(), k.key_type()))
        .collect();
    if keys != [(PK, &KeyType::Hash), (SK, &KeyType::Range)] {
        return Err(mismatch(
            name,
            "the key schema must be pk (HASH) and sk (RANGE)",
        ));
    }
    let strings = [PK, SK].iter().all(|k| {
        table
            .attribute_definitions()
            .iter()
            .any(|d| d.attribute_name() == *k && d.attribute_type() == &ScalarAttributeType::S)
    });
    if !strings {
        return Err(mismatch(name, "pk and sk must be strings"));
    }
    if streamed {
        let view = table
            .stream_specification()
            .filter(|s| s.stream_enabled())
            .and_then(|s| s.stream_view_type());
        if !matches!(
            view,
            Some(StreamViewType::NewImage | StreamViewType::NewAndOldImages)
        ) {
            return Err(mismatch(
                name,
                "the command table needs a stream with NEW_IMAGE or NEW_AND_OLD_IMAGES",
            ));
        }
    }
    Ok(())
}

async fn wait_active(client: &Client, name: &str) -> Result<()> {
    let active = |t: &TableDescription| t.table_status() == Some(&TableStatus::Active);
    wait_until(client, name, "the table", active).await
}

async fn ensure_ttl(client: &Client, name: &str) -> Result<()> {
    let current = client
        .describe_time_to_live()
        .table_name(name)
        .send()
        .await
        .map_err(CqrsError::dynamo)?;
    let description = current.time_to_live_description();
    let status = description.and_then(|d| d.time_to_live_status());
    let attribute = description.and_then(|d| d.attribute_name());
    match status {
        Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling) => {
            if attribute == Some(TTL_ATTRIBUTE) {
                Ok(())
            } else {
                Err(mismatch(
                    name,
                    "TTL is enabled on another attribute than `ttl`",
                ))
            }
        }
        _ => {
            let spec = TimeToLiveSpecification::builder()
                .enabled(true)
                .attribute_name(TTL_ATTRIBUTE)
                .build()
                .map_err(|e| mismatch(name, &e.to_string()))?;
            client
                .update_time_to_live()
                .table_name(name)
                .time_to_live_specification(spec)
                .send()
                .await
                .map_err(CqrsError::dynamo)?;
            Ok(())
        }
    }
}
