//! The legacy global tables operations (version 2017.11.29). With regions kept apart they
//! run on the regions' directory; with one shared namespace there is no other region, so
//! there is no legacy global table: DynamoDB's answers for none.

use kura_model::messages::replicas as texts;

use super::input::{begin, control_inputs};
use super::{Call, json};
use crate::error::ApiError;
use kura_engine::EngineError;
use kura_engine::api::*;

// A legacy global table is no table of this region: authorized on `*`.
control_inputs! {
    CreateGlobalTableInput => -;
    GlobalTableNameInput => -;
    ListGlobalTablesInput => -;
    UpdateGlobalTableInput => -;
    UpdateGlobalTableSettingsInput => -;
    UpdateTableReplicaAutoScalingInput => table_name;
}

fn name_of(input: &GlobalTableNameInput) -> String {
    input.global_table_name.clone().unwrap_or_default()
}

pub async fn create_global_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: CreateGlobalTableInput = begin(&call).await?;
    match call.regions {
        Some(regions) => json(&regions.create_global_table(&call.ctx, input).await?),
        None => Err(EngineError::validation(texts::SHARED_REGIONS).into()),
    }
}

pub async fn describe_global_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: GlobalTableNameInput = begin(&call).await?;
    match call.regions {
        Some(regions) => json(&regions.describe_global_table(&call.ctx, input)?),
        None => Err(not_found(&name_of(&input))),
    }
}

pub async fn list_global_tables(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListGlobalTablesInput = begin(&call).await?;
    match call.regions {
        Some(regions) => json(&regions.list_global_tables(&call.ctx, input)?),
        None => json(&ListGlobalTablesOutput {
            global_tables: Vec::new(),
            last_evaluated_global_table_name: None,
        }),
    }
}

pub async fn update_global_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: UpdateGlobalTableInput = begin(&call).await?;
    match call.regions {
        Some(regions) => json(&regions.update_global_table(&call.ctx, input).await?),
        None => Err(not_found(input.global_table_name.as_deref().unwrap_or(""))),
    }
}

pub async fn describe_global_table_settings(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: GlobalTableNameInput = begin(&call).await?;
    match call.regions {
        Some(regions) => json(&regions.describe_global_table_settings(&call.ctx, input)?),
        None => Err(not_found(&name_of(&input))),
    }
}

pub async fn update_global_table_settings(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: UpdateGlobalTableSettingsInput = begin(&call).await?;
    match call.regions {
        Some(regions) => json(&regions.update_global_table_settings(&call.ctx, input)?),
        None => Err(not_found(input.global_table_name.as_deref().unwrap_or(""))),
    }
}

pub async fn describe_table_replica_auto_scaling(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(
        &call
            .engine
            .describe_table_replica_auto_scaling(&call.ctx, begin(&call).await?)?,
    )
}

pub async fn update_table_replica_auto_scaling(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(
        &call
            .engine
            .update_table_replica_auto_scaling(&call.ctx, begin(&call).await?)?,
    )
}

fn not_found(name: &str) -> ApiError {
    EngineError::GlobalTableNotFound(texts::global_table_not_found(name)).into()
}
