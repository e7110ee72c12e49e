//! The definition of a table restored from a backup or a point in time: the source's key
//! schema, attributes, indexes, billing mode, throughput, class and encryption, with the
//! request's overrides. Like DynamoDB, a restore brings back no stream, TTL, tags,
//! point-in-time recovery, resource policy or deletion protection.

use kura_model::constraint::Constraints;

use super::{BILLING_MODES, check_billing, sse};
use crate::RequestContext;
use crate::api::*;
use crate::catalog::{BillingMode, IndexKind, RestoreRecord, TABLE_RECORD_VERSION, TableRecord};
use crate::error::Result;
use crate::indexes::definition::{self, throughput_constraints};
use crate::vectors::definition as vector_definition;

/// The request checks of the overrides, in DynamoDB's framework-constraint form.
pub(crate) fn override_constraints(c: &mut Constraints, overrides: &RestoreOverrides) {
    c.one_of(
        "billingModeOverride",
        overrides.billing_mode_override.as_deref(),
        &BILLING_MODES,
    );
    throughput_constraints(
        c,
        "provisionedThroughputOverride",
        overrides.provisioned_throughput_override.as_ref(),
    );
    let vectors = CreateTableInput {
        vector_indexes: overrides.vector_index_override.clone(),
        ..CreateTableInput::default()
    };
    vector_definition::create_table_constraints(c, &vectors);
}

/// The record of table `target` restored from `source` (its definition when the data was
/// taken), CREATING until the restore job fills it. The id is the writer's to assign.
pub(crate) fn restored_record(
    ctx: &RequestContext,
    source: &TableRecord,
    target: &str,
    overrides: &RestoreOverrides,
    restore: RestoreRecord,
    now_ms: i64,
) -> Result<TableRecord> {
    let billing_mode = BillingMode::requested(
        overrides.billing_mode_override.as_deref(),
        source.billing_mode,
    );
    let throughput = match (&overrides.provisioned_throughput_override, billing_mode) {
        (Some(pt), mode) => check_billing(mode, Some(pt))?,
        (None, BillingMode::Provisioned) if source.billing_mode == BillingMode::Provisioned => {
            source.throughput.clone()
        }
        (None, mode) => check_billing(mode, None)?,
    };
    let mut indexes = if overrides.global_secondary_index_override.is_some()
        || overrides.local_secondary_index_override.is_some()
    {
        let as_created = CreateTableInput {
            global_secondary_indexes: overrides.global_secondary_index_override.clone(),
            local_secondary_indexes: overrides.local_secondary_index_override.clone(),
            ..CreateTableInput::default()
        };
        let mut c = Constraints::new();
        definition::create_table_constraints(&mut c, &as_created);
        c.finish()?;
        definition::create_table_indexes(
            &as_created,
            &source.key_schema,
            &source.attribute_definitions,
            billing_mode,
        )?
    } else {
        source.indexes.clone()
    };
    for index in &mut indexes {
        index.backfilling = false;
        index.throughput = match (index.kind, billing_mode) {
            (IndexKind::Local, _) | (_, BillingMode::PayPerRequest) => None,
            (IndexKind::Global, BillingMode::Provisioned) => index
                .throughput
                .clone()
                .or_else(|| Some(throughput.clone())),
        };
    }
    let vector_indexes = restored_vector_indexes(source, overrides, &indexes, billing_mode)?;
    let sse = match &overrides.sse_specification_override {
        Some(spec) => sse::requested(spec, &ctx.region),
        None => source.sse.clone(),
    };
    Ok(TableRecord {
        v: TABLE_RECORD_VERSION,
        name: target.to_owned(),
        id: 0,
        uuid: uuid::Uuid::new_v4().to_string(),
        key_schema: source.key_schema.clone(),
        attribute_definitions: source.attribute_definitions.clone(),
        created_ms: now_ms,
        billing_mode,
        billing_mode_explicit: source.billing_mode_explicit
            || overrides.billing_mode_override.is_some(),
        pay_per_request_since_ms: (billing_mode == BillingMode::PayPerRequest).then_some(now_ms),
        throughput: crate::catalog::Throughput {
            last_increase_ms: None,
            last_decrease_ms: None,
            decreases_today: 0,
            ..throughput
        },
        deletion_protection: false,
        table_class: source.table_class.clone(),
        tags: Vec::new(),
        next_index_number: indexes.iter().map(|i| i.number + 1).max().unwrap_or(0),
        indexes,
        stream: None,
        ttl: None,
        sse,
        resource_policy: None,
        pitr: None,
        history_from: None,
        restore: Some(restore),
        importing: None,
        insights: Vec::new(),
        vector_indexes,
        kinesis_destinations: Vec::new(),
        replication: None,
        publication: Default::default(),
    })
}

/// The source's vector indexes, or the override's (checked as CreateTable checks them);
/// either way the restored table must be on demand, as vector indexes require.
fn restored_vector_indexes(
    source: &TableRecord,
    overrides: &RestoreOverrides,
    indexes: &[crate::catalog::IndexRecord],
    billing_mode: BillingMode,
) -> Result<Vec<crate::catalog::VectorIndexRecord>> {
    Ok(match &overrides.vector_index_override {
        Some(wanted) => {
            let as_created = CreateTableInput {
                vector_indexes: Some(wanted.clone()),
                ..CreateTableInput::default()
            };
            vector_definition::create_table_vector_indexes(
                &as_created,
                &source.key_schema,
                &source.attribute_definitions,
                indexes,
                billing_mode,
            )?
        }
        None => {
            let kept: Vec<_> = source
                .vector_indexes
                .iter()
                .map(|v| crate::catalog::VectorIndexRecord {
                    backfilling: false,
                    ..v.clone()
                })
                .collect();
            if !kept.is_empty() && billing_mode != BillingMode::PayPerRequest {
                return Err(crate::error::EngineError::validation(
                    kura_model::messages::vectors::PAY_PER_REQUEST_ONLY,
                ));
            }
            kept
        }
    })
}
