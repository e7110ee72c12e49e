//! CreateTable.

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::messages;

use super::stats::Stats;
use super::{
    BILLING_MODES, KEY_TYPES, TABLE_CLASSES, check_billing, check_key_schema, check_tags,
    definitions_constraints, describe, refuse_unsupported, sse,
};
use crate::api::*;
use crate::catalog::{
    BillingMode, Catalog, ResourcePolicyRecord, TABLE_RECORD_VERSION, TableRecord,
};
use crate::clock::now_ms;
use crate::error::{EngineError, Result};
use crate::indexes::definition::{self, throughput_constraints};
use crate::keys::{self, TableStats};
use crate::streams::specification as stream_spec;
use crate::vectors::definition as vectors;
use crate::writer::WriteContext;
use crate::{Engine, RequestContext};
use kura_store::Space;

impl Engine {
    pub async fn create_table(
        &self,
        ctx: &RequestContext,
        input: CreateTableInput,
    ) -> Result<CreateTableOutput> {
        let (record, stream_change) = new_table_record(ctx, input)?;
        let catalog = self.catalog.clone();
        let record = self
            .writer
            .submit(true, move |w| {
                let mut record = record;
                if catalog.get(&record.name).is_some() {
                    return Err(EngineError::ResourceInUse(messages::table_already_exists(
                        &record.name,
                    )));
                }
                record.id = allocate_table_id(w, &catalog)?;
                if let Some(change) = stream_change {
                    stream_spec::apply(w, &mut record, change)?;
                }
                let record = Arc::new(record);
                catalog.stage(w, record.clone())?;
                Ok(record)
            })
            .await?;
        tracing::info!(table = %record.name, id = record.id, "created table");
        Ok(CreateTableOutput {
            table_description: describe(ctx, &record, &Stats::default(), "ACTIVE"),
        })
    }
}

/// CreateTable's member checks, in DynamoDB's order, which decides the error a bad
/// request gets.
fn check_create_table_members(input: &CreateTableInput) -> Result<()> {
    let mut c = Constraints::new();
    c.name("tableName", input.table_name.as_deref());
    c.not_null("attributeDefinitions", input.attribute_definitions.as_ref());
    match &input.key_schema {
        None => c.not_null::<()>("keySchema", None),
        Some(ks) => c.length("keySchema", "[...]", ks.len(), 1, 2),
    }
    definitions_constraints(&mut c, input.attribute_definitions.as_deref());
    for (i, el) in input.key_schema.iter().flatten().enumerate() {
        let path = format!("keySchema.{}.member", i + 1);
        c.not_null(&format!("{path}.attributeName"), el.attribute_name.as_ref());
        definition::key_name_length(
            &mut c,
            &format!("{path}.attributeName"),
            el.attribute_name.as_deref(),
        );
        c.not_null(&format!("{path}.keyType"), el.key_type.as_ref());
        c.one_of(
            &format!("{path}.keyType"),
            el.key_type.as_deref(),
            &KEY_TYPES,
        );
    }
    c.one_of("billingMode", input.billing_mode.as_deref(), &BILLING_MODES);
    c.one_of("tableClass", input.table_class.as_deref(), &TABLE_CLASSES);
    throughput_constraints(
        &mut c,
        "provisionedThroughput",
        input.provisioned_throughput.as_ref(),
    );
    definition::create_table_constraints(&mut c, input);
    crate::vectors::definition::create_table_constraints(&mut c, input);
    stream_spec::constraints(&mut c, input.stream_specification.as_ref());
    sse::constraints(&mut c, input.sse_specification.as_ref());
    c.finish()?;
    Ok(())
}

/// CreateTable's checks, in DynamoDB's order, and the record they give (its id still
/// 0), with the stream to enable once the id is known. ImportTable shares them.
pub(crate) fn new_table_record(
    ctx: &RequestContext,
    input: CreateTableInput,
) -> Result<(TableRecord, Option<stream_spec::StreamChange>)> {
    check_create_table_members(&input)?;
    refuse_unsupported(&[
        (input.on_demand_throughput.is_some(), "OnDemandThroughput"),
        (input.warm_throughput.is_some(), "WarmThroughput"),
    ])?;

    let resource_policy = match &input.resource_policy {
        None => None,
        Some(serde_json::Value::String(policy)) => {
            super::policy::check_policy_size(policy)?;
            Some(policy.clone())
        }
        Some(_) => {
            return Err(EngineError::Serialization(messages::body_wrong_shape(
                "ResourcePolicy must be a string",
            )));
        }
    };
    let billing_mode =
        BillingMode::requested(input.billing_mode.as_deref(), BillingMode::Provisioned);
    let throughput = check_billing(billing_mode, input.provisioned_throughput.as_ref())?;
    let has_indexes = input.global_secondary_indexes.is_some()
        || input.local_secondary_indexes.is_some()
        || input.vector_indexes.is_some();
    let (key_schema, definitions) = check_key_schema(
        input.key_schema.as_deref().unwrap_or_default(),
        input.attribute_definitions.as_deref().unwrap_or_default(),
        has_indexes.then(|| {
            let mut names = definition::index_key_names(&input);
            names.extend(vectors::schema_names(
                input.vector_indexes.as_deref().unwrap_or_default(),
            ));
            names
        }),
    )?;
    let indexes =
        definition::create_table_indexes(&input, &key_schema, &definitions, billing_mode)?;
    let vector_indexes = vectors::create_table_vector_indexes(
        &input,
        &key_schema,
        &definitions,
        &indexes,
        billing_mode,
    )?;
    let stream_change = stream_spec::requested(input.stream_specification.as_ref(), true)?;
    let tags = check_tags(&input.tags.unwrap_or_default())?;

    let name = input.table_name.unwrap_or_default();
    let now = now_ms();
    let record = TableRecord {
        v: TABLE_RECORD_VERSION,
        name: name.clone(),
        id: 0,
        uuid: uuid::Uuid::new_v4().to_string(),
        key_schema,
        attribute_definitions: definitions,
        created_ms: now,
        billing_mode,
        billing_mode_explicit: input.billing_mode.is_some(),
        pay_per_request_since_ms: (billing_mode == BillingMode::PayPerRequest).then_some(now),
        throughput,
        deletion_protection: input.deletion_protection_enabled.unwrap_or(false),
        table_class: input.table_class,
        tags,
        next_index_number: indexes.len() as u32,
        indexes,
        stream: None,
        ttl: None,
        sse: input
            .sse_specification
            .as_ref()
            .and_then(|s| sse::requested(s, &ctx.region)),
        resource_policy: resource_policy.map(|policy| ResourcePolicyRecord {
            policy,
            revision_id: super::policy::next_revision(now, None),
        }),
        pitr: None,
        history_from: None,
        restore: None,
        importing: None,
        insights: Vec::new(),
        vector_indexes,
        kinesis_destinations: Vec::new(),
        replication: None,
        publication: Default::default(),
    };
    Ok((record, stream_change))
}

/// Takes the next table id (never reused) and starts the table's statistics at zero;
/// refused with DynamoDB's LimitExceededException when the catalog already holds the most
/// tables the engine allows (table jobs run alone, so the count cannot race).
pub(crate) fn allocate_table_id(w: &mut WriteContext<'_>, catalog: &Catalog) -> Result<u64> {
    let max = w.limits().max_tables;
    if catalog.all().len() >= max {
        return Err(EngineError::LimitExceeded(messages::table_quota(max)));
    }
    let next_id = match w.get(Space::Meta, keys::META_NEXT_TABLE_ID)? {
        Some(bytes) => decode_u64(&bytes)?,
        None => 1,
    };
    w.put(
        Space::Meta,
        keys::META_NEXT_TABLE_ID.to_vec(),
        (next_id + 1).to_be_bytes().to_vec(),
    );
    w.put(
        Space::Meta,
        keys::stats_key(next_id),
        TableStats::default().encode(),
    );
    Ok(next_id)
}

pub(super) fn decode_u64(bytes: &[u8]) -> Result<u64> {
    let arr: [u8; 8] = bytes
        .try_into()
        .map_err(|_| EngineError::Internal("corrupt table id counter".into()))?;
    Ok(u64::from_be_bytes(arr))
}
