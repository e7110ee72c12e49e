//! `GET /metrics`: the Prometheus text format, named after DynamoDB's CloudWatch metrics
//! (docs/metrics.md has the mapping).
//!
//! Per-request figures (latency, errors, returned items) are recorded here, after each
//! request; the engine's own counters (capacity, TTL deletions, streams, group commit, the
//! store) are read from [`kura_engine::Engine::counters`] when scraped, by a collector, so
//! the request path does not touch them twice.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use kura_engine::Engine;
use kura_engine::counters::histogram::{HistogramSnapshot, LATENCY_BUCKETS};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::error::ApiError;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationTable {
    table_name: String,
    operation: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Operation {
    operation: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Table {
    table_name: String,
}

type LatencyFamily = Family<OperationTable, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS.iter().copied())
}

/// What a handler learnt about its request that the metrics are labelled with.
#[derive(Default)]
pub struct Observation {
    inner: parking_lot::Mutex<Observed>,
}

#[derive(Default)]
struct Observed {
    tables: Vec<String>,
    returned_items: Option<u64>,
}

impl Observation {
    /// The request addressed `table` (called once per table of a batch).
    pub fn table(&self, table: &str) {
        self.inner.lock().tables.push(table.to_owned());
    }

    /// The request answered `count` items (Query, Scan, PartiQL SELECT).
    pub fn returned_items(&self, count: usize) {
        self.inner.lock().returned_items = Some(count as u64);
    }
}

/// The per-request metrics and the registry they are scraped from.
pub struct Metrics {
    registry: Registry,
    enabled: AtomicBool,
    latency: LatencyFamily,
    returned_items: Family<OperationTable, Counter>,
    throttled: Family<OperationTable, Counter>,
    system_errors: Family<OperationTable, Counter>,
    user_errors: Family<Operation, Counter>,
    conditional_check_failed: Family<Table, Counter>,
    transaction_conflict: Family<Table, Counter>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// The metrics of one server over `engine`; `enabled` false records nothing (the
    /// overhead measurement's baseline) and `/metrics` then answers 404.
    pub fn new(engine: Arc<Engine>, enabled: bool) -> Metrics {
        let mut registry = Registry::with_prefix("kura");
        let latency = LatencyFamily::new_with_constructor(latency_histogram);
        registry.register(
            "successful_request_latency_seconds",
            "SuccessfulRequestLatency: time to answer successful requests, by table and operation",
            latency.clone(),
        );
        let returned_items = Family::default();
        registry.register(
            "returned_item_count",
            "ReturnedItemCount: items returned by Query, Scan and ExecuteStatement",
            returned_items.clone(),
        );
        let throttled = Family::default();
        registry.register(
            "throttled_requests",
            "ThrottledRequests: requests refused for capacity",
            throttled.clone(),
        );
        let system_errors = Family::default();
        registry.register(
            "system_errors",
            "SystemErrors: requests answered with HTTP 500",
            system_errors.clone(),
        );
        let user_errors = Family::default();
        registry.register(
            "user_errors",
            "UserErrors: requests answered with HTTP 400, except failed conditions and throttling",
            user_errors.clone(),
        );
        let conditional_check_failed = Family::default();
        registry.register(
            "conditional_check_failed_requests",
            "ConditionalCheckFailedRequests: PutItem, UpdateItem and DeleteItem whose condition failed",
            conditional_check_failed.clone(),
        );
        let transaction_conflict = Family::default();
        registry.register(
            "transaction_conflict",
            "TransactionConflict: item-level requests refused for a conflicting transaction",
            transaction_conflict.clone(),
        );
        registry.register_collector(Box::new(EngineCollector { engine }));
        Metrics {
            registry,
            enabled: AtomicBool::new(enabled),
            latency,
            returned_items,
            throttled,
            system_errors,
            user_errors,
            conditional_check_failed,
            transaction_conflict,
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Records one request's outcome.
    pub fn record(
        &self,
        operation: &str,
        observation: &Observation,
        elapsed: std::time::Duration,
        error: Option<&ApiError>,
    ) {
        let observed = observation.inner.lock();
        let tables: &[String] = if observed.tables.is_empty() {
            &[String::new()]
        } else {
            &observed.tables
        };
        let label = |table: &str| OperationTable {
            table_name: table.to_owned(),
            operation: operation.to_owned(),
        };
        let Some(error) = error else {
            for table in tables {
                let label = label(table);
                self.latency
                    .get_or_create(&label)
                    .observe(elapsed.as_secs_f64());
                if let Some(count) = observed.returned_items {
                    self.returned_items.get_or_create(&label).inc_by(count);
                }
            }
            return;
        };
        let table = || Table {
            table_name: tables[0].clone(),
        };
        match error.name() {
            "ConditionalCheckFailedException" => {
                self.conditional_check_failed.get_or_create(&table()).inc();
            }
            "ProvisionedThroughputExceededException"
            | "ThrottlingException"
            | "RequestLimitExceeded" => {
                self.throttled.get_or_create(&label(&tables[0])).inc();
            }
            "TransactionConflictException" => {
                self.transaction_conflict.get_or_create(&table()).inc();
            }
            _ if error.status.is_server_error() => {
                self.system_errors.get_or_create(&label(&tables[0])).inc();
            }
            _ => {
                self.user_errors
                    .get_or_create(&Operation {
                        operation: operation.to_owned(),
                    })
                    .inc();
            }
        }
    }

    /// The text exposition of every metric.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)?;
        Ok(out)
    }
}

/// Reads the engine's counters at scrape time.
struct EngineCollector {
    engine: Arc<Engine>,
}

impl std::fmt::Debug for EngineCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineCollector").finish_non_exhaustive()
    }
}

/// One family of values, each with its label set.
fn family<S: EncodeLabelSet, V>(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    metric_type: MetricType,
    rows: &[(S, V)],
    encode: impl Fn(&mut prometheus_client::encoding::MetricEncoder, &V) -> std::fmt::Result,
) -> std::fmt::Result {
    if rows.is_empty() {
        return Ok(());
    }
    let mut metric = encoder.encode_descriptor(name, help, None, metric_type)?;
    for (labels, value) in rows {
        let mut member = metric.encode_family(labels)?;
        encode(&mut member, value)?;
    }
    Ok(())
}

fn counter(m: &mut prometheus_client::encoding::MetricEncoder, v: &f64) -> std::fmt::Result {
    m.encode_counter::<prometheus_client::encoding::NoLabelSet, f64, f64>(v, None)
}

fn gauge(m: &mut prometheus_client::encoding::MetricEncoder, v: &f64) -> std::fmt::Result {
    m.encode_gauge(v)
}

fn histogram(
    m: &mut prometheus_client::encoding::MetricEncoder,
    h: &HistogramSnapshot,
) -> std::fmt::Result {
    // The encoder takes counts per bucket and sums them itself.
    let mut previous = 0;
    let buckets: Vec<(f64, u64)> = h
        .buckets
        .iter()
        .map(|(bound, cumulative)| {
            let own = cumulative - previous;
            previous = *cumulative;
            (if bound.is_finite() { *bound } else { f64::MAX }, own)
        })
        .collect();
    m.encode_histogram::<prometheus_client::encoding::NoLabelSet>(h.sum, h.count, &buckets, None)
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct IndexLabels {
    table_name: String,
    global_secondary_index_name: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LocalIndexLabels {
    table_name: String,
    local_secondary_index_name: String,
}

impl Collector for EngineCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        use kura_engine::counters::IndexScope;
        let engine = &self.engine;
        let tables = engine.counters().tables();
        let by_table = |f: &dyn Fn(&kura_engine::counters::TableCounters) -> f64| {
            tables
                .iter()
                .map(|(name, t)| {
                    (
                        Table {
                            table_name: name.clone(),
                        },
                        f(t),
                    )
                })
                .collect::<Vec<_>>()
        };
        let read = by_table(&|t| t.consumed.read.get());
        let write = by_table(&|t| t.consumed.write.get());
        family(
            &mut encoder,
            "consumed_read_capacity_units",
            "ConsumedReadCapacityUnits: read units consumed on the table",
            MetricType::Counter,
            &read,
            counter,
        )?;
        family(
            &mut encoder,
            "consumed_write_capacity_units",
            "ConsumedWriteCapacityUnits: write units consumed on the table",
            MetricType::Counter,
            &write,
            counter,
        )?;
        let mut global_read = Vec::new();
        let mut global_write = Vec::new();
        let mut local_read = Vec::new();
        for (name, t) in &tables {
            for (scope, index, c) in t.index_consumption() {
                match scope {
                    IndexScope::Global => {
                        let labels = IndexLabels {
                            table_name: name.clone(),
                            global_secondary_index_name: index,
                        };
                        global_read.push((labels.clone(), c.read.get()));
                        global_write.push((labels, c.write.get()));
                    }
                    IndexScope::Local => local_read.push((
                        LocalIndexLabels {
                            table_name: name.clone(),
                            local_secondary_index_name: index,
                        },
                        c.read.get() + c.write.get(),
                    )),
                }
            }
        }
        family(
            &mut encoder,
            "consumed_read_capacity_units_index",
            "ConsumedReadCapacityUnits of a global secondary index",
            MetricType::Counter,
            &global_read,
            counter,
        )?;
        family(
            &mut encoder,
            "consumed_write_capacity_units_index",
            "ConsumedWriteCapacityUnits of a global secondary index",
            MetricType::Counter,
            &global_write,
            counter,
        )?;
        family(
            &mut encoder,
            "consumed_capacity_units_local_index",
            "Capacity units consumed on a local secondary index (reads and writes; charged to the table on AWS)",
            MetricType::Counter,
            &local_read,
            counter,
        )?;
        let ttl = by_table(&|t| t.ttl_deleted.load(Ordering::Relaxed) as f64);
        family(
            &mut encoder,
            "time_to_live_deleted_item_count",
            "TimeToLiveDeletedItemCount: items deleted by TTL",
            MetricType::Counter,
            &ttl,
            counter,
        )?;
        let stream_read = by_table(&|t| t.stream_records_read.load(Ordering::Relaxed) as f64);
        family(
            &mut encoder,
            "stream_records_read",
            "Stream records returned by GetRecords",
            MetricType::Counter,
            &stream_read,
            counter,
        )?;
        if let Ok(sizes) = engine.table_sizes() {
            let rows = |f: fn(&kura_engine::TableSize) -> f64| {
                sizes
                    .iter()
                    .map(|s| {
                        (
                            Table {
                                table_name: s.table.clone(),
                            },
                            f(s),
                        )
                    })
                    .collect::<Vec<_>>()
            };
            family(
                &mut encoder,
                "item_count",
                "ItemCount: items in the table",
                MetricType::Gauge,
                &rows(|s| s.item_count as f64),
                gauge,
            )?;
            family(
                &mut encoder,
                "table_size_bytes",
                "TableSizeBytes: the table's size",
                MetricType::Gauge,
                &rows(|s| s.size_bytes as f64),
                gauge,
            )?;
        }
        if let Ok(lag) = engine.stream_lag() {
            let written: Vec<_> = lag
                .iter()
                .map(|l| {
                    (
                        Table {
                            table_name: l.table.clone(),
                        },
                        l.written as f64,
                    )
                })
                .collect();
            family(
                &mut encoder,
                "stream_records_written",
                "Records written to the table's current stream",
                MetricType::Counter,
                &written,
                counter,
            )?;
            let age: Vec<_> = lag
                .iter()
                .filter_map(|l| {
                    let ms = l.unread_age_ms?;
                    Some((
                        Table {
                            table_name: l.table.clone(),
                        },
                        ms as f64 / 1000.0,
                    ))
                })
                .collect();
            family(
                &mut encoder,
                "stream_oldest_unread_record_age_seconds",
                "Age of the oldest record after the furthest position GetRecords served",
                MetricType::Gauge,
                &age,
                gauge,
            )?;
        }
        let writer = &engine.counters().writer;
        let none: [(Vec<(String, String)>, HistogramSnapshot); 1] =
            [(Vec::new(), writer.group_size.snapshot())];
        family(
            &mut encoder,
            "group_commit_writes",
            "Writes per synced batch (group commit)",
            MetricType::Histogram,
            &none,
            histogram,
        )?;
        let sync = [(
            Vec::<(String, String)>::new(),
            writer.commit_seconds.snapshot(),
        )];
        family(
            &mut encoder,
            "commit_sync_seconds",
            "Time to commit and sync one batch",
            MetricType::Histogram,
            &sync,
            histogram,
        )?;
        let store = engine.footprint();
        let plain = |v: u64| [(Vec::<(String, String)>::new(), v as f64)];
        family(
            &mut encoder,
            "store_disk_bytes",
            "Bytes the store holds on disk (tables and journal)",
            MetricType::Gauge,
            &plain(store.disk_bytes),
            gauge,
        )?;
        family(
            &mut encoder,
            "cache_bytes",
            "Bytes held by the block cache",
            MetricType::Gauge,
            &plain(store.cache_bytes),
            gauge,
        )?;
        family(
            &mut encoder,
            "cache_capacity_bytes",
            "The block cache's bound",
            MetricType::Gauge,
            &plain(store.cache_capacity_bytes),
            gauge,
        )?;
        family(
            &mut encoder,
            "write_buffer_bytes",
            "Bytes in write buffers not yet flushed",
            MetricType::Gauge,
            &plain(store.write_buffer_bytes),
            gauge,
        )?;
        Ok(())
    }
}
