//! UpdateTable: billing mode and throughput, deletion protection, table class, GSI
//! changes and the stream.

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::messages;

use super::describe::decreases_on_day;
use super::{
    BILLING_MODES, TABLE_CLASSES, check_billing, definitions_constraints, describe,
    refuse_unsupported, sse,
};
use crate::api::*;
use crate::catalog::{BillingMode, TableRecord, Throughput};
use crate::clock::now_ms;
use crate::error::{EngineError, Result};
use crate::indexes::backfill::{BackfillJob, Backfiller};
use crate::indexes::definition::{self, GsiPlan, OnlineChange, throughput_constraints};
use crate::keys::{self};
use crate::purge::{PurgeTarget, Purger};
use crate::streams::meta::ViewType;
use crate::streams::specification as stream_spec;
use crate::vectors::definition::{self as vector_definition, VectorChange};
use crate::writer::WriteContext;
use crate::{Engine, RequestContext};
use kura_store::Space;

impl Engine {
    /// UpdateTable. `ReplicaUpdates` need the other regions' engines: with regions kept
    /// apart the server calls [`crate::replication::Regions::update_table`] instead, so
    /// here they are refused.
    pub async fn update_table(
        &self,
        ctx: &RequestContext,
        input: UpdateTableInput,
    ) -> Result<UpdateTableOutput> {
        if input
            .replica_updates
            .as_ref()
            .is_some_and(|u| !u.is_empty())
        {
            check_table_name(input.table_name.as_deref())?;
            return Err(EngineError::validation(messages::replicas::SHARED_REGIONS));
        }
        self.update_table_settings(ctx, input).await
    }

    /// UpdateTable without `ReplicaUpdates`.
    async fn update_table_settings(
        &self,
        ctx: &RequestContext,
        input: UpdateTableInput,
    ) -> Result<UpdateTableOutput> {
        // Long: UpdateTable's checks in DynamoDB's order, then one catalog change.
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        c.one_of("billingMode", input.billing_mode.as_deref(), &BILLING_MODES);
        c.one_of("tableClass", input.table_class.as_deref(), &TABLE_CLASSES);
        throughput_constraints(
            &mut c,
            "provisionedThroughput",
            input.provisioned_throughput.as_ref(),
        );
        definitions_constraints(&mut c, input.attribute_definitions.as_deref());
        stream_spec::constraints(&mut c, input.stream_specification.as_ref());
        sse::constraints(&mut c, input.sse_specification.as_ref());
        if let Some(updates) = &input.global_secondary_index_updates {
            definition::update_constraints(&mut c, updates);
        }
        if let Some(updates) = &input.vector_index_updates {
            vector_definition::update_constraints(&mut c, updates);
        }
        c.finish()?;
        refuse_unsupported(&[
            (input.on_demand_throughput.is_some(), "OnDemandThroughput"),
            (input.warm_throughput.is_some(), "WarmThroughput"),
        ])?;
        let nothing = input.billing_mode.is_none()
            && input.provisioned_throughput.is_none()
            && input.deletion_protection_enabled.is_none()
            && input.table_class.is_none()
            && input.stream_specification.is_none()
            && input.sse_specification.is_none()
            && input
                .global_secondary_index_updates
                .as_ref()
                .is_none_or(Vec::is_empty)
            && input
                .vector_index_updates
                .as_ref()
                .is_none_or(Vec::is_empty);
        if nothing {
            return Err(EngineError::validation(messages::UPDATE_TABLE_NOTHING));
        }
        let stream_change = stream_spec::requested(input.stream_specification.as_ref(), false)?;
        if stream_change.is_some()
            && (input.provisioned_throughput.is_some()
                || input.billing_mode.as_deref() == Some("PROVISIONED"))
        {
            return Err(EngineError::validation(messages::STREAM_WITH_THROUGHPUT));
        }
        let sse_change = input
            .sse_specification
            .as_ref()
            .map(|s| sse::requested(s, &ctx.region));
        let name = input.table_name.clone().unwrap_or_default();
        let catalog = self.catalog.clone();
        let backfiller = self.backfiller.clone();
        let purger = self.purger.clone();
        let counters = self.counters.clone();
        let deleting: Vec<String> = input
            .vector_index_updates
            .iter()
            .flatten()
            .filter_map(|u| u.delete.as_ref()?.index_name.clone())
            .collect();
        let vector_parts = (
            self.vectors.clone(),
            self.store.clone(),
            self.writer.clone(),
            self.catalog.clone(),
        );
        let (record, changing_index, had_stream) = self
            .writer
            .submit(true, move |w| {
                let current = catalog.get(&name).ok_or_else(|| {
                    EngineError::ResourceNotFound(messages::table_not_found(&name))
                })?;
                if current.creating() {
                    return Err(EngineError::ResourceInUse(
                        messages::backups::table_restoring(&name),
                    ));
                }
                if current.replication.is_some()
                    && stream_change.is_some_and(|c| {
                        c != stream_spec::StreamChange::Enable(ViewType::NewAndOldImages)
                    })
                {
                    return Err(EngineError::validation(messages::replicas::stream_needed(
                        &name,
                    )));
                }
                let mut next = current.as_ref().clone();
                let mut changing_index = false;
                let had_stream = current.stream.as_ref().is_some_and(|s| s.enabled);
                vector_definition::check_gsi_updates(
                    &current,
                    input.global_secondary_index_updates.as_deref(),
                    input.vector_index_updates.as_deref(),
                )?;
                if let Some(updates) = &input.global_secondary_index_updates {
                    let billing =
                        BillingMode::requested(input.billing_mode.as_deref(), current.billing_mode);
                    let plan = definition::plan_gsi_updates(
                        &current,
                        billing,
                        updates,
                        input.attribute_definitions.as_deref(),
                        input.provisioned_throughput.is_some(),
                    )?;
                    changing_index = plan.online.is_some();
                    if changing_index && stream_change.is_some() {
                        return Err(EngineError::validation(messages::INDEX_CHANGE_WITH_STREAM));
                    }
                    apply_gsi_plan(w, &mut next, plan, &backfiller, &purger);
                }
                if let Some(updates) = &input.vector_index_updates {
                    let billing =
                        BillingMode::requested(input.billing_mode.as_deref(), current.billing_mode);
                    let change = vector_definition::plan_update(
                        &current,
                        updates,
                        billing,
                        input.attribute_definitions.as_deref(),
                    )?;
                    if let Some(change) = change {
                        if stream_change.is_some() {
                            return Err(EngineError::validation(
                                messages::INDEX_CHANGE_WITH_STREAM,
                            ));
                        }
                        changing_index = true;
                        apply_vector_change(w, &mut next, change, vector_parts);
                    }
                } else if !current.vector_indexes.is_empty()
                    && BillingMode::requested(input.billing_mode.as_deref(), current.billing_mode)
                        != BillingMode::PayPerRequest
                {
                    return Err(EngineError::validation(
                        kura_model::messages::vectors::PAY_PER_REQUEST_ONLY,
                    ));
                }
                if let Some(change) = stream_change {
                    stream_spec::apply(w, &mut next, change)?;
                    changing_index = true;
                }
                if let Some(sse) = sse_change {
                    next.sse = sse;
                }
                let next = Arc::new(apply_update(&next, &input, now_ms())?);
                // A provisioned table's GSIs each need their own throughput (a switch from
                // on-demand gives it in GlobalSecondaryIndexUpdates).
                if next.billing_mode == BillingMode::Provisioned
                    && let Some(index) = next.indexes.iter().find(|i| {
                        i.kind == crate::catalog::IndexKind::Global && i.throughput.is_none()
                    })
                {
                    return Err(EngineError::validation(messages::index_throughput_missing(
                        &index.name,
                    )));
                }
                catalog.stage(w, next.clone())?;
                let (counters, table) = (counters.clone(), next.clone());
                w.after_commit(move || crate::tables::insights::follow_record(&counters, &table));
                Ok((next, changing_index, had_stream))
            })
            .await?;
        // The advisor's `streams.switch-gap-writes`: writes while the stream is off.
        let has_stream = record.stream.as_ref().is_some_and(|s| s.enabled);
        if had_stream != has_stream {
            // The application's counters even when the console switched it: the writes
            // the switch loses are the application's.
            self.counters
                .application(&record.name)
                .traffic
                .stream_switched(has_stream);
        }
        // A deleted vector index leaves memory only now: writes committed in the same group
        // (which saw the old catalog) have had their after-commit steps.
        for name in &deleting {
            if record.vector_index(name).is_none() {
                self.vectors.remove(record.id, Some(name));
            }
        }
        let stats = self.stats(&record)?;
        let status = if changing_index { "UPDATING" } else { "ACTIVE" };
        Ok(CreateTableOutput {
            table_description: describe(ctx, &record, &stats, status),
        })
    }
}

/// Whether UpdateTable asks for anything besides `ReplicaUpdates`.
pub(crate) fn has_settings(input: &UpdateTableInput) -> bool {
    input.billing_mode.is_some()
        || input.provisioned_throughput.is_some()
        || input.deletion_protection_enabled.is_some()
        || input.table_class.is_some()
        || input.stream_specification.is_some()
        || input.sse_specification.is_some()
        || input.global_secondary_index_updates.is_some()
        || input.vector_index_updates.is_some()
}

/// The table name's constraint alone (a request with only `ReplicaUpdates`).
pub(crate) fn check_table_name(name: Option<&str>) -> Result<()> {
    let mut c = Constraints::new();
    c.name("tableName", name);
    Ok(c.finish()?)
}

/// Applies a planned GSI change to the table record being written, with its storage side
/// effects: a new index starts filling after the commit; a deleted one is purged.
pub(super) fn apply_gsi_plan(
    w: &mut WriteContext<'_>,
    next: &mut TableRecord,
    plan: GsiPlan,
    backfiller: &Arc<Backfiller>,
    purger: &Arc<Purger>,
) {
    let now = now_ms();
    for (name, wanted) in plan.throughput {
        if let Some(index) = next.indexes.iter_mut().find(|i| i.name == name) {
            let old = index.throughput.clone().unwrap_or_default();
            index.throughput = Some(changed_throughput(&old, &wanted, false, now));
        }
    }
    match plan.online {
        None => {}
        Some(OnlineChange::Create { index, definitions }) => {
            tracing::info!(table = %next.name, index = %index.name, "creating index");
            next.attribute_definitions = definitions;
            next.next_index_number = index.number + 1;
            let job = BackfillJob {
                table: next.name.clone(),
                table_id: next.id,
                index_number: index.number,
            };
            next.indexes.push(index);
            let backfiller = backfiller.clone();
            w.after_commit(move || backfiller.submit(job));
        }
        Some(OnlineChange::Delete(name)) => {
            tracing::info!(table = %next.name, index = %name, "deleting index");
            let Some(position) = next.indexes.iter().position(|i| i.name == name) else {
                return;
            };
            let index = next.indexes.remove(position);
            // Its Contributor Insights go with it (the engine drops what it recorded).
            next.insights
                .retain(|r| r.index.as_deref() != Some(index.name.as_str()));
            w.delete(Space::Meta, keys::index_stats_key(next.id, index.number));
            w.put(
                Space::Meta,
                keys::index_purge_key(next.id, index.number),
                Vec::new(),
            );
            let used: Vec<String> = vector_definition::used_attributes(next)
                .into_iter()
                .map(str::to_owned)
                .collect();
            next.attribute_definitions.retain(|(n, _)| used.contains(n));
            let purger = purger.clone();
            let target = PurgeTarget::Index(next.id, index.number);
            w.after_commit(move || purger.submit(target));
        }
    }
}

pub(super) fn apply_update(
    current: &TableRecord,
    input: &UpdateTableInput,
    now: i64,
) -> Result<TableRecord> {
    let mut next = current.clone();
    let target_mode = BillingMode::requested(input.billing_mode.as_deref(), current.billing_mode);
    match (target_mode, input.provisioned_throughput.as_ref()) {
        (BillingMode::PayPerRequest, Some(_)) => {
            return Err(EngineError::validation(messages::PPR_WITH_THROUGHPUT));
        }
        (BillingMode::PayPerRequest, None) => {
            if current.billing_mode != BillingMode::PayPerRequest {
                next.pay_per_request_since_ms = Some(now);
                next.throughput = Throughput::default();
                // On-demand GSIs have no throughput of their own either.
                for index in &mut next.indexes {
                    index.throughput = None;
                }
            }
        }
        (BillingMode::Provisioned, pt) => {
            let switching = current.billing_mode != BillingMode::Provisioned;
            match pt {
                None if switching => {
                    return Err(EngineError::validation(
                        messages::PROVISIONED_WITHOUT_THROUGHPUT,
                    ));
                }
                None => {}
                Some(pt) => {
                    let wanted = check_billing(BillingMode::Provisioned, Some(pt))?;
                    let old = &current.throughput;
                    if !switching && wanted.read == old.read && wanted.write == old.write {
                        return Err(EngineError::validation(messages::throughput_unchanged(
                            old.read,
                            old.write,
                            wanted.read,
                            wanted.write,
                        )));
                    }
                    next.throughput = changed_throughput(old, &wanted, switching, now);
                }
            }
        }
    }
    if input.billing_mode.is_some() {
        next.billing_mode_explicit = true;
    }
    next.billing_mode = target_mode;
    if let Some(protect) = input.deletion_protection_enabled {
        next.deletion_protection = protect;
    }
    if let Some(class) = &input.table_class {
        next.table_class = Some(class.clone());
    }
    Ok(next)
}

/// `old` throughput changed to `wanted`'s units, with the increase/decrease history
/// DescribeTable reports (a billing-mode switch is not a decrease).
pub(super) fn changed_throughput(
    old: &Throughput,
    wanted: &Throughput,
    switching: bool,
    now: i64,
) -> Throughput {
    let mut t = old.clone();
    if wanted.read > old.read || wanted.write > old.write {
        t.last_increase_ms = Some(now);
    }
    if !switching && (wanted.read < old.read || wanted.write < old.write) {
        t.decreases_today = decreases_on_day(old, now) + 1;
        t.last_decrease_ms = Some(now);
    }
    t.read = wanted.read;
    t.write = wanted.write;
    t
}

/// Adds or removes a vector index: an added one is filled in the background once the
/// change is committed (CREATING until then), a removed one is forgotten.
fn apply_vector_change(
    w: &mut WriteContext<'_>,
    next: &mut TableRecord,
    change: VectorChange,
    parts: (
        Arc<crate::vectors::Vectors>,
        Arc<dyn kura_store::Store>,
        Arc<crate::writer::Writer>,
        Arc<crate::catalog::Catalog>,
    ),
) {
    let (vectors, store, writer, catalog) = parts;
    match change {
        VectorChange::Create(record, definitions) => {
            tracing::info!(table = %next.name, index = %record.name, "creating vector index");
            let name = record.name.clone();
            next.vector_indexes.push(record);
            next.attribute_definitions = definitions;
            let table = next.clone();
            w.after_commit(move || {
                crate::vectors::upkeep::start_fill(&vectors, store, writer, catalog, &table, &name)
            });
        }
        VectorChange::Delete(name) => {
            // Its memory is freed after the commit's group answered (`update_table`).
            tracing::info!(table = %next.name, index = %name, "deleting vector index");
            next.vector_indexes.retain(|v| v.name != name);
            let used: Vec<String> = vector_definition::used_attributes(next)
                .into_iter()
                .map(str::to_owned)
                .collect();
            next.attribute_definitions.retain(|(n, _)| used.contains(n));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn decreases_count_per_utc_day() {
        let day = 86_400_000;
        let t = Throughput {
            last_decrease_ms: Some(3 * day + 5),
            decreases_today: 4,
            ..Throughput::default()
        };
        assert_eq!(decreases_on_day(&t, 3 * day + 1000), 4);
        assert_eq!(
            decreases_on_day(&t, 4 * day),
            0,
            "a new UTC day starts at zero"
        );
        assert_eq!(decreases_on_day(&Throughput::default(), 0), 0);
    }
}
