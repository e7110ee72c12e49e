//! DescribeTable, ListTables, DescribeLimits, DescribeEndpoints, and the
//! `TableDescription` every control-plane answer carries.

use kura_model::constraint::Constraints;
use kura_model::limits;

use super::sse;
use super::stats::Stats;
use crate::api::*;
use crate::catalog::{BillingMode, TableRecord, Throughput};
use crate::clock::now_ms;
use crate::error::Result;
use crate::indexes::definition::{self};
use crate::streams::specification as stream_spec;
use crate::{Engine, RequestContext};

impl Engine {
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
        // From the start name on, not a filter over every name: paging through n tables
        // costs n, not n²/limit.
        let mut names = match &input.exclusive_start_table_name {
            Some(start) => all.range::<_, str>((
                std::ops::Bound::Excluded(start.as_str()),
                std::ops::Bound::Unbounded,
            )),
            None => all.range::<_, str>(..),
        }
        .map(|(name, _)| name);
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
}

/// The throughput as DescribeTable reports it.
pub(super) fn throughput_description(t: &Throughput) -> ProvisionedThroughputDescription {
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
pub(crate) fn describe(
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
        stream_spec::describe(ctx, record);
    TableDescription {
        attribute_definitions: Some(
            record
                .attribute_definitions
                .iter()
                .map(|(name, ty)| AttributeDefinitionOut {
                    attribute_name: name.clone(),
                    attribute_type: ty.descriptor(),
                })
                .collect(),
        ),
        table_name: record.name.clone(),
        key_schema: Some(definition::key_schema_out(&record.key_schema)),
        // A restore in progress shows as CREATING wherever the table is described.
        table_status: if status == "ACTIVE" && record.creating() {
            "CREATING"
        } else if status == "ACTIVE" && crate::replication::status::adding_replica(record) {
            "UPDATING"
        } else {
            status
        },
        creation_date_time: Some(seconds(record.created_ms)),
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
        vector_indexes: crate::vectors::definition::describe(ctx, record, &|name| {
            stats.vectors.get(name).copied().unwrap_or_default()
        }),
        stream_specification,
        latest_stream_label,
        latest_stream_arn,
        sse_description: sse::describe(record.sse.as_ref()),
        restore_summary: record.restore.as_ref().map(|r| RestoreSummary {
            source_backup_arn: r.source_backup_arn.clone(),
            source_table_arn: r.source_table_arn.clone(),
            restore_date_time: seconds(r.restore_ms),
            restore_in_progress: r.in_progress,
        }),
        global_table_version: crate::replication::status::current(record)
            .map(|_| crate::replication::status::GLOBAL_TABLE_VERSION),
        replicas: crate::replication::status::describe(record),
        multi_region_consistency: crate::replication::status::consistency(record),
        global_table_witnesses: crate::replication::status::witnesses(record),
    }
}

/// DeleteTable's `TableDescription`: DynamoDB answers with the table's name, status,
/// throughput, size, item count, ARN, id, billing mode summary and deletion protection,
/// and leaves out its definition (attributes, key schema, creation time, indexes, stream,
/// class and encryption).
pub(super) fn describe_deleting(
    ctx: &RequestContext,
    record: &TableRecord,
    stats: &Stats,
) -> TableDescription {
    TableDescription {
        attribute_definitions: None,
        key_schema: None,
        creation_date_time: None,
        table_class_summary: None,
        global_secondary_indexes: None,
        local_secondary_indexes: None,
        vector_indexes: None,
        stream_specification: None,
        latest_stream_label: None,
        latest_stream_arn: None,
        sse_description: None,
        restore_summary: None,
        ..describe(ctx, record, stats, "DELETING")
    }
}

/// Decreases counted on the UTC day of `now_ms` (the count restarts each day).
pub(super) fn decreases_on_day(t: &Throughput, now_ms: i64) -> u32 {
    const DAY_MS: i64 = 86_400_000;
    match t.last_decrease_ms {
        Some(last) if last.div_euclid(DAY_MS) == now_ms.div_euclid(DAY_MS) => t.decreases_today,
        _ => 0,
    }
}
