//! Control-plane operations: CreateTable, DescribeTable, ListTables, UpdateTable,
//! DeleteTable, tags, DescribeLimits, DescribeEndpoints.

use std::collections::BTreeMap;
use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::keycode::ScalarType;
use kura_model::{KeyAttribute, KeySchema, limits, messages};

use crate::api::*;
use crate::catalog::{BillingMode, TABLE_RECORD_VERSION, TableRecord, Throughput};
use crate::clock::now_ms;
use crate::error::{EngineError, Result};
use crate::indexes::backfill::{BackfillJob, Backfiller};
use crate::indexes::definition::{self, GsiPlan, OnlineChange, throughput_constraints};
use crate::keys::{self, TableStats};
use crate::purge::{PurgeTarget, Purger};
use crate::storage::Space;
use crate::streams::control as stream_control;
use crate::writer::WriteContext;
use crate::{Engine, RequestContext};

const KEY_TYPES: [&str; 2] = ["HASH", "RANGE"];
const ATTRIBUTE_TYPES: [&str; 3] = ["B", "N", "S"];
const BILLING_MODES: [&str; 2] = ["PROVISIONED", "PAY_PER_REQUEST"];
const TABLE_CLASSES: [&str; 2] = ["STANDARD", "STANDARD_INFREQUENT_ACCESS"];

impl Engine {
    pub async fn create_table(
        &self,
        ctx: &RequestContext,
        input: CreateTableInput,
    ) -> Result<CreateTableOutput> {
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
        definition::create_table_constraints(&mut c, &input);
        stream_control::constraints(&mut c, input.stream_specification.as_ref());
        c.finish()?;

        refuse_unsupported(&[
            (input.sse_specification.is_some(), "SSESpecification"),
            (input.resource_policy.is_some(), "ResourcePolicy"),
            (input.on_demand_throughput.is_some(), "OnDemandThroughput"),
            (input.warm_throughput.is_some(), "WarmThroughput"),
        ])?;

        let billing_mode =
            BillingMode::requested(input.billing_mode.as_deref(), BillingMode::Provisioned);
        let throughput = check_billing(billing_mode, input.provisioned_throughput.as_ref())?;
        let has_indexes =
            input.global_secondary_indexes.is_some() || input.local_secondary_indexes.is_some();
        let (key_schema, definitions) = check_key_schema(
            input.key_schema.as_deref().unwrap_or_default(),
            input.attribute_definitions.as_deref().unwrap_or_default(),
            has_indexes.then(|| definition::index_key_names(&input)),
        )?;
        let indexes =
            definition::create_table_indexes(&input, &key_schema, &definitions, billing_mode)?;
        let stream_change = stream_control::requested(input.stream_specification.as_ref(), true)?;
        let tags = input.tags.unwrap_or_default();
        check_tags(&tags)?;

        let name = input.table_name.unwrap_or_default();
        let now = now_ms();
        let mut record = TableRecord {
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
        };
        let catalog = self.catalog.clone();
        let record = self
            .writer
            .submit(true, move |w| {
                if catalog.get(&record.name).is_some() {
                    return Err(EngineError::ResourceInUse(messages::table_already_exists(
                        &record.name,
                    )));
                }
                let next_id = match w.get(Space::Meta, keys::META_NEXT_TABLE_ID)? {
                    Some(bytes) => decode_u64(&bytes)?,
                    None => 1,
                };
                record.id = next_id;
                w.put(
                    Space::Meta,
                    keys::META_NEXT_TABLE_ID.to_vec(),
                    (next_id + 1).to_be_bytes().to_vec(),
                );
                if let Some(change) = stream_change {
                    stream_control::apply(w, &mut record, change)?;
                }
                w.put(
                    Space::Meta,
                    keys::stats_key(next_id),
                    TableStats::default().encode(),
                );
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

    pub async fn describe_table(
        &self,
        ctx: &RequestContext,
        input: DescribeTableInput,
    ) -> Result<DescribeTableOutput> {
        let record = self.table_for_control(input.table_name.as_deref())?;
        let stats = self.stats(&record)?;
        Ok(DescribeTableOutput {
            table: describe(ctx, &record, &stats, "ACTIVE"),
        })
    }

    pub fn list_tables(&self, input: ListTablesInput) -> Result<ListTablesOutput> {
        let mut c = Constraints::new();
        c.at_least("limit", input.limit, 1);
        c.at_most("limit", input.limit, limits::LIST_TABLES_MAX_LIMIT);
        if let Some(start) = input.exclusive_start_table_name.as_deref() {
            c.name("exclusiveStartTableName", Some(start));
        }
        c.finish()?;
        let limit =
            usize::try_from(input.limit.unwrap_or(limits::LIST_TABLES_MAX_LIMIT)).unwrap_or(100);
        let all = self.catalog.all();
        let mut names = all
            .keys()
            .filter(|name| match &input.exclusive_start_table_name {
                Some(start) => name.as_str() > start.as_str(),
                None => true,
            });
        let table_names: Vec<String> = names.by_ref().take(limit).cloned().collect();
        let last_evaluated_table_name = match names.next() {
            Some(_) => table_names.last().cloned(),
            None => None,
        };
        Ok(ListTablesOutput {
            table_names,
            last_evaluated_table_name,
        })
    }

    pub async fn update_table(
        &self,
        ctx: &RequestContext,
        input: UpdateTableInput,
    ) -> Result<UpdateTableOutput> {
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
        stream_control::constraints(&mut c, input.stream_specification.as_ref());
        if let Some(updates) = &input.global_secondary_index_updates {
            definition::update_constraints(&mut c, updates);
        }
        c.finish()?;
        refuse_unsupported(&[
            (input.sse_specification.is_some(), "SSESpecification"),
            (input.replica_updates.is_some(), "ReplicaUpdates"),
            (input.on_demand_throughput.is_some(), "OnDemandThroughput"),
            (input.warm_throughput.is_some(), "WarmThroughput"),
        ])?;
        let nothing = input.billing_mode.is_none()
            && input.provisioned_throughput.is_none()
            && input.deletion_protection_enabled.is_none()
            && input.table_class.is_none()
            && input.stream_specification.is_none()
            && input
                .global_secondary_index_updates
                .as_ref()
                .is_none_or(Vec::is_empty);
        if nothing {
            return Err(EngineError::validation(messages::UPDATE_TABLE_NOTHING));
        }
        let stream_change = stream_control::requested(input.stream_specification.as_ref(), false)?;
        if stream_change.is_some()
            && (input.provisioned_throughput.is_some()
                || input.billing_mode.as_deref() == Some("PROVISIONED"))
        {
            return Err(EngineError::validation(messages::STREAM_WITH_THROUGHPUT));
        }
        let name = input.table_name.clone().unwrap_or_default();
        let catalog = self.catalog.clone();
        let backfiller = self.backfiller.clone();
        let purger = self.purger.clone();
        let (record, changing_index) = self
            .writer
            .submit(true, move |w| {
                let current = catalog.get(&name).ok_or_else(|| {
                    EngineError::ResourceNotFound(messages::table_not_found(&name))
                })?;
                let mut next = current.as_ref().clone();
                let mut changing_index = false;
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
                if let Some(change) = stream_change {
                    stream_control::apply(w, &mut next, change)?;
                    changing_index = true;
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
                Ok((next, changing_index))
            })
            .await?;
        let stats = self.stats(&record)?;
        let status = if changing_index { "UPDATING" } else { "ACTIVE" };
        Ok(CreateTableOutput {
            table_description: describe(ctx, &record, &stats, status),
        })
    }

    pub async fn delete_table(
        &self,
        ctx: &RequestContext,
        input: DeleteTableInput,
    ) -> Result<DeleteTableOutput> {
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        c.finish()?;
        let name = input.table_name.unwrap_or_default();
        let catalog = self.catalog.clone();
        let purger = self.purger.clone();
        let (record, stats) = self
            .writer
            .submit(true, move |w| {
                let record = catalog.get(&name).ok_or_else(|| {
                    EngineError::ResourceNotFound(messages::table_not_found(&name))
                })?;
                if record.deletion_protection {
                    return Err(EngineError::validation(messages::DELETION_PROTECTED));
                }
                let stats = Stats {
                    table: TableStats::read(w.get(Space::Meta, &keys::stats_key(record.id))?)?,
                    indexes: BTreeMap::new(),
                };
                // The stream outlives its table: readable, as DISABLED, for 24 hours.
                stream_control::disable(w, &mut record.as_ref().clone())?;
                catalog.stage_removal(w, &name);
                w.delete(Space::Meta, keys::stats_key(record.id));
                for index in &record.indexes {
                    w.delete(Space::Meta, keys::index_stats_key(record.id, index.number));
                }
                // Items go in the background: the table id is never reused, so leftovers
                // are invisible until the purge finishes.
                w.put(Space::Meta, keys::purge_key(record.id), Vec::new());
                let id = record.id;
                w.after_commit(move || purger.wake(PurgeTarget::Table(id)));
                Ok((record, stats))
            })
            .await?;
        tracing::info!(table = %record.name, id = record.id, "deleted table");
        Ok(CreateTableOutput {
            table_description: describe(ctx, &record, &stats, "DELETING"),
        })
    }

    pub async fn tag_resource(&self, input: TagResourceInput) -> Result<()> {
        let mut c = Constraints::new();
        c.not_null("resourceArn", input.resource_arn.as_ref());
        c.not_null("tags", input.tags.as_ref());
        c.finish()?;
        let tags = input.tags.unwrap_or_default();
        check_tags(&tags)?;
        self.update_tags(input.resource_arn.unwrap_or_default(), move |current| {
            for tag in tags {
                current.retain(|t| t.key != tag.key);
                current.push(tag);
            }
            if current.len() > limits::MAX_TAGS_PER_RESOURCE {
                return Err(EngineError::validation(messages::TOO_MANY_TAGS));
            }
            Ok(())
        })
        .await
    }

    pub async fn untag_resource(&self, input: UntagResourceInput) -> Result<()> {
        let mut c = Constraints::new();
        c.not_null("resourceArn", input.resource_arn.as_ref());
        c.not_null("tagKeys", input.tag_keys.as_ref());
        c.finish()?;
        let remove = input.tag_keys.unwrap_or_default();
        self.update_tags(input.resource_arn.unwrap_or_default(), move |current| {
            current.retain(|t| !t.key.as_ref().is_some_and(|k| remove.contains(k)));
            Ok(())
        })
        .await
    }

    pub fn list_tags_of_resource(
        &self,
        input: ListTagsOfResourceInput,
    ) -> Result<ListTagsOfResourceOutput> {
        let mut c = Constraints::new();
        c.not_null("resourceArn", input.resource_arn.as_ref());
        c.finish()?;
        let arn = input.resource_arn.unwrap_or_default();
        let record = self.table_of_arn(&arn)?;
        Ok(ListTagsOfResourceOutput {
            tags: record.tags.clone(),
            next_token: None,
        })
    }

    pub fn describe_limits(&self) -> DescribeLimitsOutput {
        DescribeLimitsOutput {
            account_max_read_capacity_units: limits::ACCOUNT_MAX_READ_UNITS,
            account_max_write_capacity_units: limits::ACCOUNT_MAX_WRITE_UNITS,
            table_max_read_capacity_units: limits::TABLE_MAX_READ_UNITS,
            table_max_write_capacity_units: limits::TABLE_MAX_WRITE_UNITS,
        }
    }

    /// `address` is the host the client reached Kura at: Kura is its own endpoint.
    pub fn describe_endpoints(&self, address: &str) -> DescribeEndpointsOutput {
        DescribeEndpointsOutput {
            endpoints: vec![Endpoint {
                address: address.to_owned(),
                cache_period_in_minutes: 1440,
            }],
        }
    }

    async fn update_tags(
        &self,
        arn: String,
        change: impl FnOnce(&mut Vec<Tag>) -> Result<()> + Send + 'static,
    ) -> Result<()> {
        let name = table_name_of_arn(&arn)?;
        let catalog = self.catalog.clone();
        self.writer
            .submit(true, move |w| {
                let current = catalog
                    .get(&name)
                    .ok_or_else(|| resource_arn_not_found(&arn))?;
                let mut next = (*current).clone();
                change(&mut next.tags)?;
                catalog.stage(w, Arc::new(next))
            })
            .await
    }

    fn table_of_arn(&self, arn: &str) -> Result<Arc<TableRecord>> {
        let name = table_name_of_arn(arn)?;
        self.catalog
            .get(&name)
            .ok_or_else(|| resource_arn_not_found(arn))
    }

    /// The table named by a control-plane request, with DescribeTable's not-found message.
    fn table_for_control(&self, name: Option<&str>) -> Result<Arc<TableRecord>> {
        let mut c = Constraints::new();
        c.name("tableName", name);
        c.finish()?;
        let name = name.unwrap_or_default();
        self.catalog
            .get(name)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::table_not_found(name)))
    }

    /// The table's and its indexes' statistics, as of now.
    pub(crate) fn stats(&self, table: &TableRecord) -> Result<Stats> {
        let snapshot = self.store.snapshot()?;
        let mut indexes = BTreeMap::new();
        for index in &table.indexes {
            let key = keys::index_stats_key(table.id, index.number);
            indexes.insert(
                index.number,
                TableStats::read(snapshot.get(Space::Meta, &key)?)?,
            );
        }
        Ok(Stats {
            table: TableStats::read(snapshot.get(Space::Meta, &keys::stats_key(table.id))?)?,
            indexes,
        })
    }
}

/// Statistics of a table and of each of its indexes (by index number).
#[derive(Debug, Default)]
pub(crate) struct Stats {
    table: TableStats,
    indexes: BTreeMap<u32, TableStats>,
}

/// Applies a planned GSI change to the table record being written, with its storage side
/// effects: a new index starts filling after the commit; a deleted one is purged.
fn apply_gsi_plan(
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
            w.after_commit(move || backfiller.start_job(job));
        }
        Some(OnlineChange::Delete(name)) => {
            tracing::info!(table = %next.name, index = %name, "deleting index");
            let Some(position) = next.indexes.iter().position(|i| i.name == name) else {
                return;
            };
            let index = next.indexes.remove(position);
            w.delete(Space::Meta, keys::index_stats_key(next.id, index.number));
            w.put(
                Space::Meta,
                keys::index_purge_key(next.id, index.number),
                Vec::new(),
            );
            let used: Vec<String> = next
                .key_schema
                .attributes()
                .chain(next.indexes.iter().flat_map(|i| i.key_schema.attributes()))
                .map(|a| a.name.clone())
                .collect();
            next.attribute_definitions.retain(|(n, _)| used.contains(n));
            let purger = purger.clone();
            let target = PurgeTarget::Index(next.id, index.number);
            w.after_commit(move || purger.wake(target));
        }
    }
}

fn decode_u64(bytes: &[u8]) -> Result<u64> {
    let arr: [u8; 8] = bytes
        .try_into()
        .map_err(|_| EngineError::Internal("corrupt table id counter".into()))?;
    Ok(u64::from_be_bytes(arr))
}

fn resource_arn_not_found(arn: &str) -> EngineError {
    EngineError::ResourceNotFound(messages::resource_arn_not_found(arn))
}

/// `arn:aws:dynamodb:<region>:<account>:table/<name>`. Region and account are not checked:
/// every region and account share one namespace in Kura.
fn table_name_of_arn(arn: &str) -> Result<String> {
    let invalid = || EngineError::validation(messages::invalid_arn(arn));
    let mut parts = arn.splitn(6, ':');
    let (
        Some("arn"),
        Some(_partition),
        Some("dynamodb"),
        Some(_region),
        Some(_account),
        Some(resource),
    ) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    )
    else {
        return Err(invalid());
    };
    let name = resource.strip_prefix("table/").ok_or_else(invalid)?;
    if name.is_empty() || name.contains('/') {
        return Err(invalid());
    }
    Ok(name.to_owned())
}

fn refuse_unsupported(members: &[(bool, &str)]) -> Result<()> {
    match members.iter().find(|(present, _)| *present) {
        Some((_, name)) => Err(EngineError::validation(messages::not_supported_yet(name))),
        None => Ok(()),
    }
}

/// Framework constraints of AttributeDefinitions (CreateTable and UpdateTable).
fn definitions_constraints(c: &mut Constraints, definitions: Option<&[AttributeDefinitionInput]>) {
    for (i, def) in definitions.into_iter().flatten().enumerate() {
        let path = format!("attributeDefinitions.{}.member", i + 1);
        c.not_null(
            &format!("{path}.attributeName"),
            def.attribute_name.as_ref(),
        );
        c.not_null(
            &format!("{path}.attributeType"),
            def.attribute_type.as_ref(),
        );
        c.one_of(
            &format!("{path}.attributeType"),
            def.attribute_type.as_deref(),
            &ATTRIBUTE_TYPES,
        );
    }
}

fn check_billing(mode: BillingMode, pt: Option<&ProvisionedThroughputInput>) -> Result<Throughput> {
    match (mode, pt) {
        (BillingMode::PayPerRequest, Some(_)) => {
            Err(EngineError::validation(messages::PPR_WITH_THROUGHPUT))
        }
        (BillingMode::PayPerRequest, None) => Ok(Throughput::default()),
        (BillingMode::Provisioned, None) => Err(EngineError::validation(
            messages::PROVISIONED_WITHOUT_THROUGHPUT,
        )),
        (BillingMode::Provisioned, Some(pt)) => {
            let (Some(read), Some(write)) = (pt.read_capacity_units, pt.write_capacity_units)
            else {
                return Err(EngineError::validation(
                    messages::PROVISIONED_WITHOUT_THROUGHPUT,
                ));
            };
            if read > limits::MAX_PROVISIONED_UNITS {
                return Err(EngineError::validation(messages::throughput_out_of_bounds(
                    read,
                    "ReadCapacityUnits",
                )));
            }
            if write > limits::MAX_PROVISIONED_UNITS {
                return Err(EngineError::validation(messages::throughput_out_of_bounds(
                    write,
                    "WriteCapacityUnits",
                )));
            }
            Ok(Throughput {
                read,
                write,
                ..Throughput::default()
            })
        }
    }
}

/// The table's key schema and the attribute definitions. `index_keys` are the key names
/// of the request's indexes, when it has index lists: every definition must then be used
/// by some key.
fn check_key_schema(
    schema: &[KeySchemaElementInput],
    definitions: &[AttributeDefinitionInput],
    index_keys: Option<Vec<&str>>,
) -> Result<(KeySchema, Vec<(String, ScalarType)>)> {
    let defs: Vec<(String, ScalarType)> = definitions
        .iter()
        .map(AttributeDefinitionInput::definition)
        .collect();
    let def_names: Vec<&str> = defs.iter().map(|(n, _)| n.as_str()).collect();
    let key_names: Vec<&str> = schema
        .iter()
        .map(|k| k.attribute_name.as_deref().unwrap_or(""))
        .collect();

    if key_names.len() > def_names.len() {
        return Err(EngineError::validation(messages::KEY_WITHOUT_DEFINITION));
    }
    if key_names.iter().any(|k| !def_names.contains(k)) {
        return Err(EngineError::validation(messages::keys_not_defined(
            &key_names, &def_names,
        )));
    }
    if key_names.len() == 2 && key_names.first() == key_names.get(1) {
        return Err(EngineError::validation(messages::SAME_HASH_AND_RANGE));
    }
    if schema.first().and_then(|k| k.key_type.as_deref()) != Some("HASH") {
        return Err(EngineError::validation(messages::FIRST_KEY_NOT_HASH));
    }
    if let Some(second) = schema.get(1)
        && second.key_type.as_deref() != Some("RANGE")
    {
        return Err(EngineError::validation(messages::SECOND_KEY_NOT_RANGE));
    }
    let mut seen = std::collections::HashSet::new();
    if !def_names.iter().all(|n| seen.insert(*n)) {
        return Err(EngineError::validation(
            messages::DUPLICATE_ATTRIBUTE_DEFINITION,
        ));
    }
    match index_keys {
        None if key_names.len() != def_names.len() => {
            return Err(EngineError::validation(messages::DEFINITIONS_MISMATCH));
        }
        None => {}
        Some(index_keys) => {
            let mut used: Vec<&str> = Vec::new();
            for name in key_names.iter().chain(&index_keys) {
                if !used.contains(name) {
                    used.push(name);
                }
            }
            if def_names.iter().any(|d| !used.contains(d)) {
                return Err(EngineError::validation(
                    messages::unused_attribute_definitions(&def_names, &used),
                ));
            }
        }
    }
    for name in &key_names {
        if name.is_empty() || name.len() > limits::MAX_KEY_ATTRIBUTE_NAME_BYTES {
            return Err(EngineError::validation(messages::constraint_summary(&[
                messages::constraint(
                    Some(name),
                    "keySchema.member.attributeName",
                    &messages::max_length(limits::MAX_KEY_ATTRIBUTE_NAME_BYTES),
                ),
            ])));
        }
    }
    let attr = |name: &str| {
        let ty = defs
            .iter()
            .find(|(n, _)| n == name)
            .map_or(ScalarType::S, |(_, t)| *t);
        KeyAttribute {
            name: name.to_owned(),
            ty,
        }
    };
    let hash = attr(key_names.first().copied().unwrap_or_default());
    let range = key_names.get(1).map(|n| attr(n));
    Ok((KeySchema { hash, range }, defs))
}

fn check_tags(tags: &[Tag]) -> Result<()> {
    let mut c = Constraints::new();
    for (i, tag) in tags.iter().enumerate() {
        let path = format!("tags.{}.member", i + 1);
        match &tag.key {
            None => c.not_null::<()>(&format!("{path}.key"), None),
            Some(k) => c.length(
                &format!("{path}.key"),
                k,
                k.chars().count(),
                1,
                limits::MAX_TAG_KEY_LEN,
            ),
        }
        match &tag.value {
            None => c.not_null::<()>(&format!("{path}.value"), None),
            Some(v) => c.length(
                &format!("{path}.value"),
                v,
                v.chars().count(),
                0,
                limits::MAX_TAG_VALUE_LEN,
            ),
        }
    }
    c.finish()?;
    if tags.len() > limits::MAX_TAGS_PER_RESOURCE {
        return Err(EngineError::validation(messages::TOO_MANY_TAGS));
    }
    Ok(())
}

fn apply_update(current: &TableRecord, input: &UpdateTableInput, now: i64) -> Result<TableRecord> {
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
fn changed_throughput(
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

/// Decreases counted on the UTC day of `now_ms` (the count restarts each day).
fn decreases_on_day(t: &Throughput, now_ms: i64) -> u32 {
    const DAY_MS: i64 = 86_400_000;
    match t.last_decrease_ms {
        Some(last) if last.div_euclid(DAY_MS) == now_ms.div_euclid(DAY_MS) => t.decreases_today,
        _ => 0,
    }
}

/// The throughput as DescribeTable reports it.
fn throughput_description(t: &Throughput) -> ProvisionedThroughputDescription {
    let seconds = |ms: i64| ms as f64 / 1000.0;
    ProvisionedThroughputDescription {
        last_increase_date_time: t.last_increase_ms.map(seconds),
        last_decrease_date_time: t.last_decrease_ms.map(seconds),
        number_of_decreases_today: decreases_on_day(t, now_ms()),
        read_capacity_units: t.read,
        write_capacity_units: t.write,
    }
}

/// The `TableDescription` DynamoDB returns for `record`.
fn describe(
    ctx: &RequestContext,
    record: &TableRecord,
    stats: &Stats,
    status: &'static str,
) -> TableDescription {
    let seconds = |ms: i64| ms as f64 / 1000.0;
    let billing_mode_summary = (record.billing_mode == BillingMode::PayPerRequest
        || record.billing_mode_explicit)
        .then(|| BillingModeSummary {
            billing_mode: record.billing_mode.wire(),
            last_update_to_pay_per_request_date_time: record.pay_per_request_since_ms.map(seconds),
        });
    let (global_secondary_indexes, local_secondary_indexes) =
        definition::describe_indexes(ctx, record, &stats.indexes, throughput_description);
    let (stream_specification, latest_stream_label, latest_stream_arn) =
        stream_control::describe(ctx, record);
    TableDescription {
        attribute_definitions: record
            .attribute_definitions
            .iter()
            .map(|(name, ty)| AttributeDefinitionOut {
                attribute_name: name.clone(),
                attribute_type: ty.descriptor(),
            })
            .collect(),
        table_name: record.name.clone(),
        key_schema: definition::key_schema_out(&record.key_schema),
        table_status: status,
        creation_date_time: seconds(record.created_ms),
        provisioned_throughput: throughput_description(&record.throughput),
        table_size_bytes: stats.table.size_bytes,
        item_count: stats.table.item_count,
        table_arn: ctx.table_arn(&record.name),
        table_id: record.uuid.clone(),
        billing_mode_summary,
        table_class_summary: record
            .table_class
            .clone()
            .map(|table_class| TableClassSummary { table_class }),
        deletion_protection_enabled: record.deletion_protection,
        global_secondary_indexes,
        local_secondary_indexes,
        stream_specification,
        latest_stream_label,
        latest_stream_arn,
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

    #[test]
    fn arns() {
        assert_eq!(
            table_name_of_arn("arn:aws:dynamodb:us-east-1:000000000000:table/Users").ok(),
            Some("Users".into())
        );
        assert!(table_name_of_arn("arn:aws:s3:::bucket").is_err());
        assert!(table_name_of_arn("Users").is_err());
        assert!(table_name_of_arn("arn:aws:dynamodb:r:a:table/T/index/I").is_err());
    }
}
