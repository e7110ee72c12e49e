//! Settings a global table keeps in step across its replicas, as DynamoDB does for version
//! 2019.11.21: a change in one replica — GSIs created or deleted, billing mode and
//! throughput, time to live — is made in every other one after it succeeds here. What is
//! each replica's own (deletion protection, the stream, encryption, table class) stays.
//! A replica that refuses the change keeps its settings; the refusal is logged.

use std::sync::Arc;

use super::regions::Regions;
use super::status;
use crate::api::{
    UpdateTableInput, UpdateTableOutput, UpdateTimeToLiveInput, UpdateTimeToLiveOutput,
};
use crate::error::{EngineError, Result};
use crate::{Engine, RequestContext};

impl Regions {
    /// UpdateTable's settings on `engine`, then on the table's other replicas.
    pub(super) async fn update_settings(
        self: &Arc<Self>,
        engine: &Engine,
        ctx: &RequestContext,
        input: UpdateTableInput,
    ) -> Result<UpdateTableOutput> {
        let shared = UpdateTableInput {
            table_name: input.table_name.clone(),
            billing_mode: input.billing_mode.clone(),
            provisioned_throughput: input.provisioned_throughput.clone(),
            attribute_definitions: input.attribute_definitions.clone(),
            global_secondary_index_updates: input.global_secondary_index_updates.clone(),
            ..UpdateTableInput::default()
        };
        let output = engine.update_table(ctx, input).await?;
        if crate::tables::has_settings(&shared) {
            for (region, other) in self.other_replicas(engine, shared.table_name.as_deref()) {
                let ctx = RequestContext {
                    region: region.clone(),
                };
                // A replica with its own read capacity keeps it.
                let mut theirs = shared.clone();
                let table = shared.table_name.as_deref().unwrap_or_default();
                super::overrides::keep_own_reads(&mut theirs, &self.own_overrides(table, &region));
                if let Err(e) = other.update_table(&ctx, theirs).await {
                    tracing::warn!(region, "a replica kept its settings: {e}");
                }
            }
        }
        Ok(output)
    }

    /// UpdateTimeToLive on `engine`, then on the table's other replicas.
    pub async fn update_time_to_live(
        self: &Arc<Self>,
        engine: &Engine,
        input: UpdateTimeToLiveInput,
    ) -> Result<UpdateTimeToLiveOutput> {
        if let Some(table) = input
            .table_name
            .as_deref()
            .and_then(|t| engine.catalog.get(t))
            && status::strong(&table).is_some()
        {
            return Err(EngineError::validation(
                kura_model::messages::replicas::strong_unsupported(&table.name, "Time to Live"),
            ));
        }
        let output = engine.update_time_to_live(input.clone()).await?;
        for (region, other) in self.other_replicas(engine, input.table_name.as_deref()) {
            if let Err(e) = other.update_time_to_live(input.clone()).await {
                tracing::warn!(region, "a replica kept its time to live: {e}");
            }
        }
        Ok(output)
    }

    /// The engines of `table`'s other replicas (a current global table's).
    fn other_replicas(
        self: &Arc<Self>,
        engine: &Engine,
        table: Option<&str>,
    ) -> Vec<(String, Arc<Engine>)> {
        let Some(record) = table.and_then(|t| engine.catalog.get(t)) else {
            return Vec::new();
        };
        let Some(group) = status::current(&record) else {
            return Vec::new();
        };
        group
            .replicas
            .iter()
            .filter_map(|r| Some((r.region.clone(), self.engine(&r.region).ok()?)))
            .collect()
    }
}
