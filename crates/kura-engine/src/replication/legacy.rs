//! Global tables version 2017.11.29 (the legacy operations): a group of empty tables of the
//! same name and keys, one per region, each with a NEW_AND_OLD_IMAGES stream, joined by
//! CreateGlobalTable and UpdateGlobalTable. They replicate as current global tables do;
//! DescribeTable does not list their replicas, and the current operations' tables are not
//! legacy global tables (GlobalTableNotFoundException), as in DynamoDB.

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::messages::replicas as texts;

use super::regions::Regions;
use super::status::{self, ACTIVE};
use crate::api::*;
use crate::catalog::{BillingMode, ReplicaRecord, ReplicationRecord, TableRecord};
use crate::error::{EngineError, Result};
use crate::streams::meta::ViewType;
use crate::{Engine, RequestContext};

/// ListGlobalTables' most global tables per page (its Limit's default and maximum).
const LIST_LIMIT: i64 = 100;

impl Regions {
    pub async fn create_global_table(
        self: &Arc<Self>,
        ctx: &RequestContext,
        input: CreateGlobalTableInput,
    ) -> Result<GlobalTableDescriptionOutput> {
        let mut c = Constraints::new();
        c.name("globalTableName", input.global_table_name.as_deref());
        c.not_null("replicationGroup", input.replication_group.as_ref());
        c.finish()?;
        let name = input.global_table_name.unwrap_or_default();
        let mut regions: Vec<String> = input
            .replication_group
            .unwrap_or_default()
            .into_iter()
            .filter_map(|r| r.region_name)
            .collect();
        regions.sort();
        regions.dedup();
        let home = self.engine(&ctx.region)?;
        let first = joinable(self, &name, regions.first().map_or(&ctx.region, |r| r))?;
        if status::legacy(&first).is_some()
            || home
                .catalog
                .get(&name)
                .is_some_and(|t| status::legacy(&t).is_some())
        {
            return Err(EngineError::GlobalTableAlreadyExists(
                texts::global_table_exists(&name),
            ));
        }
        for region in &regions {
            let table = joinable(self, &name, region)?;
            if table.key_schema != first.key_schema {
                return Err(EngineError::validation(texts::replica_schema_differs(
                    &name, region,
                )));
            }
        }
        self.join(&name, &regions, Some(home.now_ms())).await?;
        tracing::info!(
            table = name,
            ?regions,
            "created a version 2017.11.29 global table"
        );
        self.describe_global_table(
            ctx,
            GlobalTableNameInput {
                global_table_name: Some(name),
            },
        )
    }

    pub fn describe_global_table(
        self: &Arc<Self>,
        ctx: &RequestContext,
        input: GlobalTableNameInput,
    ) -> Result<GlobalTableDescriptionOutput> {
        let (name, group) = self.legacy_group(ctx, input.global_table_name)?;
        Ok(GlobalTableDescriptionOutput {
            global_table_description: description(&name, &group),
        })
    }

    pub fn list_global_tables(
        self: &Arc<Self>,
        ctx: &RequestContext,
        input: ListGlobalTablesInput,
    ) -> Result<ListGlobalTablesOutput> {
        let mut c = Constraints::new();
        c.at_least("limit", input.limit, 1);
        c.at_most("limit", input.limit, LIST_LIMIT);
        c.finish()?;
        let limit = input.limit.unwrap_or(LIST_LIMIT) as usize;
        let engine = self.engine(&ctx.region)?;
        let mut global_tables = Vec::new();
        let mut last = None;
        for table in engine.catalog.all().values() {
            if input
                .exclusive_start_global_table_name
                .as_ref()
                .is_some_and(|start| table.name.as_str() <= start.as_str())
            {
                continue;
            }
            let Some(group) = status::legacy(table) else {
                continue;
            };
            let members = members(group);
            if let Some(region) = &input.region_name
                && !members.iter().any(|r| &r.region_name == region)
            {
                continue;
            }
            if global_tables.len() == limit {
                last = global_tables
                    .last()
                    .map(|t: &GlobalTableSummary| t.global_table_name.clone());
                break;
            }
            global_tables.push(GlobalTableSummary {
                global_table_name: table.name.clone(),
                replication_group: members,
            });
        }
        Ok(ListGlobalTablesOutput {
            global_tables,
            last_evaluated_global_table_name: last,
        })
    }

    pub async fn update_global_table(
        self: &Arc<Self>,
        ctx: &RequestContext,
        input: UpdateGlobalTableInput,
    ) -> Result<GlobalTableDescriptionOutput> {
        let mut c = Constraints::new();
        c.name("globalTableName", input.global_table_name.as_deref());
        c.not_null("replicaUpdates", input.replica_updates.as_ref());
        c.finish()?;
        let (name, group) = self.legacy_group(ctx, input.global_table_name)?;
        let mut members: Vec<String> = members(&group).into_iter().map(|r| r.region_name).collect();
        for update in input.replica_updates.unwrap_or_default() {
            match (
                update.create.and_then(|c| c.region_name),
                update.delete.and_then(|d| d.region_name),
            ) {
                (Some(region), None) => {
                    if members.contains(&region) {
                        return Err(EngineError::ReplicaAlreadyExists(
                            texts::replica_already_exists(&name, &region),
                        ));
                    }
                    let table = joinable(self, &name, &region)?;
                    let first = self.engine(&group.region)?.catalog.get(&name);
                    if first.is_some_and(|f| f.key_schema != table.key_schema) {
                        return Err(EngineError::validation(texts::replica_schema_differs(
                            &name, &region,
                        )));
                    }
                    members.push(region);
                }
                (None, Some(region)) => {
                    let Some(at) = members.iter().position(|r| *r == region) else {
                        return Err(EngineError::ReplicaNotFound(texts::replica_not_found(
                            &name, &region,
                        )));
                    };
                    members.remove(at);
                    self.engine(&region)?
                        .change_replication(&name, |g| *g = None)
                        .await?;
                }
                _ => return Err(EngineError::validation(texts::ONE_ACTION)),
            }
        }
        let since = group.legacy_since_ms;
        self.join(&name, &members, since).await?;
        let group = ReplicationRecord {
            region: ctx.region.clone(),
            replicas: members
                .iter()
                .filter(|r| **r != ctx.region)
                .map(|region| ReplicaRecord {
                    region: region.clone(),
                    status: ACTIVE.into(),
                    overrides: Default::default(),
                })
                .collect(),
            filling_from: None,
            legacy_since_ms: since,
            strong: false,
            witness: None,
            overrides: Default::default(),
        };
        Ok(GlobalTableDescriptionOutput {
            global_table_description: description(&name, &group),
        })
    }

    pub fn describe_global_table_settings(
        self: &Arc<Self>,
        ctx: &RequestContext,
        input: GlobalTableNameInput,
    ) -> Result<GlobalTableSettingsOutput> {
        let (name, group) = self.legacy_group(ctx, input.global_table_name)?;
        let mut replica_settings = Vec::new();
        for member in members(&group) {
            let Some(table) = self.engine(&member.region_name)?.catalog.get(&name) else {
                continue;
            };
            let provisioned = table.billing_mode == BillingMode::Provisioned;
            replica_settings.push(ReplicaSettings {
                region_name: member.region_name,
                replica_status: ACTIVE,
                replica_billing_mode_summary: BillingModeOut {
                    billing_mode: table.billing_mode.wire(),
                },
                replica_provisioned_read_capacity_units: provisioned
                    .then_some(table.throughput.read),
                replica_provisioned_write_capacity_units: provisioned
                    .then_some(table.throughput.write),
            });
        }
        Ok(GlobalTableSettingsOutput {
            global_table_name: name,
            replica_settings,
        })
    }

    /// UpdateGlobalTableSettings: the global table must exist; the settings are accepted
    /// and not applied (docs/compat.md), and the settings are described as they are.
    pub fn update_global_table_settings(
        self: &Arc<Self>,
        ctx: &RequestContext,
        input: UpdateGlobalTableSettingsInput,
    ) -> Result<GlobalTableSettingsOutput> {
        self.describe_global_table_settings(
            ctx,
            GlobalTableNameInput {
                global_table_name: input.global_table_name,
            },
        )
    }

    /// Makes the tables `name` of `regions` one legacy global table, each listing the others.
    async fn join(
        self: &Arc<Self>,
        name: &str,
        regions: &[String],
        since: Option<i64>,
    ) -> Result<()> {
        for region in regions {
            let others: Vec<String> = regions.iter().filter(|r| *r != region).cloned().collect();
            let region_name = region.clone();
            self.engine(region)?
                .change_replication(name, move |g| {
                    *g = Some(ReplicationRecord {
                        region: region_name,
                        replicas: others
                            .into_iter()
                            .map(|region| ReplicaRecord {
                                region,
                                status: ACTIVE.into(),
                                overrides: Default::default(),
                            })
                            .collect(),
                        filling_from: None,
                        legacy_since_ms: since,
                        strong: false,
                        witness: None,
                        overrides: Default::default(),
                    });
                })
                .await?;
        }
        Ok(())
    }

    /// The legacy global table `name` as the request's region knows it.
    fn legacy_group(
        self: &Arc<Self>,
        ctx: &RequestContext,
        name: Option<String>,
    ) -> Result<(String, ReplicationRecord)> {
        let mut c = Constraints::new();
        c.name("globalTableName", name.as_deref());
        c.finish()?;
        let name = name.unwrap_or_default();
        let engine = self.engine(&ctx.region)?;
        let group = engine
            .catalog
            .get(&name)
            .and_then(|t| status::legacy(&t).cloned())
            .ok_or_else(|| {
                EngineError::GlobalTableNotFound(texts::global_table_not_found(&name))
            })?;
        Ok((name, group))
    }
}

/// The table `name` in `region`, if it may join a global table: it exists, is empty, has a
/// NEW_AND_OLD_IMAGES stream and is in no global table.
fn joinable(regions: &Arc<Regions>, name: &str, region: &str) -> Result<Arc<TableRecord>> {
    let engine: Arc<Engine> = regions.engine(region)?;
    let table = engine
        .catalog
        .ready(name)
        .ok_or_else(|| EngineError::TableNotFound(texts::table_not_in_region(name, region)))?;
    if status::legacy(&table).is_some() {
        return Err(EngineError::GlobalTableAlreadyExists(
            texts::global_table_exists(name),
        ));
    }
    if status::current(&table).is_some() {
        return Err(EngineError::validation(texts::replica_exists(name, region)));
    }
    if !table
        .stream
        .as_ref()
        .is_some_and(|s| s.enabled && s.view_type == ViewType::NewAndOldImages)
    {
        return Err(EngineError::validation(texts::stream_view_type(name)));
    }
    if engine.stats(&table)?.table.item_count > 0 {
        return Err(EngineError::validation(texts::replica_not_empty(
            name, region,
        )));
    }
    Ok(table)
}

/// Every region of the group, this one included, in name order.
fn members(group: &ReplicationRecord) -> Vec<ReplicaOut> {
    let mut regions: Vec<String> = group
        .replicas
        .iter()
        .map(|r| r.region.clone())
        .chain([group.region.clone()])
        .collect();
    regions.sort();
    regions
        .into_iter()
        .map(|region_name| ReplicaOut { region_name })
        .collect()
}

fn description(name: &str, group: &ReplicationRecord) -> GlobalTableDescription {
    GlobalTableDescription {
        replication_group: members(group),
        global_table_arn: format!(
            "arn:aws:dynamodb::{}:global-table/{name}",
            crate::ACCOUNT_ID
        ),
        creation_date_time: group.legacy_since_ms.unwrap_or_default() as f64 / 1000.0,
        global_table_status: ACTIVE,
        global_table_name: name.to_owned(),
    }
}
