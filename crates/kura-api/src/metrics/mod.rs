//! `GET /metrics`: the Prometheus text format, named after DynamoDB's CloudWatch metrics
//! (docs/metrics.md has the mapping).
//!
//! Per-request figures (latency, errors, returned items) are recorded here, after each
//! request; the engine's own counters (capacity, TTL deletions, streams, group commit, the
//! store) are read from [`kura_engine::Engine::counters`] when scraped, by a collector, so
//! the request path does not touch them twice.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::operation::{Op, Plane};
use crate::slot::EngineSlot;
use kura_engine::counters::histogram::{HistogramSnapshot, LATENCY_BUCKETS};
use std::collections::{BTreeMap, HashMap};

use parking_lot::RwLock;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use crate::error::ApiError;

mod encode;
mod engine;
mod replication;
mod triggers;

use encode::{Table, counter, family, histogram};
use engine::EngineCollector;
use triggers::TriggerCollector;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationTable {
    table_name: String,
    operation: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Operation {
    operation: String,
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

/// One table's request figures so far, over every operation.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableTotals {
    /// Successful requests.
    pub requests: u64,
    /// Their latencies, summed.
    pub latency_seconds: f64,
    pub throttled: u64,
    /// Server errors, failed conditions and transaction conflicts.
    pub errors: u64,
}

/// The figures of one operation on one table.
struct Figures {
    latency: kura_engine::counters::Histogram,
    returned_items: AtomicU64,
    throttled: AtomicU64,
    system_errors: AtomicU64,
    conditional_check_failed: AtomicU64,
    transaction_conflict: AtomicU64,
}

impl Default for Figures {
    fn default() -> Self {
        Figures {
            latency: kura_engine::counters::Histogram::new(LATENCY_BUCKETS),
            returned_items: AtomicU64::new(0),
            throttled: AtomicU64::new(0),
            system_errors: AtomicU64::new(0),
            conditional_check_failed: AtomicU64::new(0),
            transaction_conflict: AtomicU64::new(0),
        }
    }
}

/// One operation's figures by table (`""` for requests that name none), and its user errors.
#[derive(Default)]
struct PerOperation {
    tables: RwLock<HashMap<Box<str>, Arc<Figures>>>,
    user_errors: AtomicU64,
}

impl PerOperation {
    /// The figures of `table`, found without allocating once they exist.
    fn figures(&self, table: &str) -> Arc<Figures> {
        if let Some(found) = self.tables.read().get(table) {
            return found.clone();
        }
        self.tables.write().entry(table.into()).or_default().clone()
    }
}

/// The per-request metrics, recorded after each request with no allocation once a table's
/// figures exist (an operation is an index, a table a map lookup), and encoded at scrape.
pub struct Metrics {
    registry: Registry,
    requests: Arc<Requests>,
}

/// Every operation's figures, indexed as [`Op::ALL`].
struct Requests {
    enabled: AtomicBool,
    operations: Vec<PerOperation>,
    /// What tables exist: a scrape drops the figures of deleted ones.
    engine: Arc<EngineSlot>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Requests {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Requests").finish_non_exhaustive()
    }
}

impl Metrics {
    /// The metrics of one server over `engine`; `enabled` false records nothing (the
    /// overhead measurement's baseline) and `/metrics` then answers 404.
    pub fn new(
        engine: Arc<EngineSlot>,
        enabled: bool,
        triggers: Option<Arc<kura_triggers::Triggers>>,
    ) -> Metrics {
        let requests = Arc::new(Requests {
            enabled: AtomicBool::new(enabled),
            operations: Op::ALL.iter().map(|_| PerOperation::default()).collect(),
            engine: engine.clone(),
        });
        let mut registry = Registry::with_prefix("kura");
        registry.register_collector(Box::new(requests.clone()));
        registry.register_collector(Box::new(EngineCollector { engine }));
        if let Some(triggers) = triggers {
            registry.register_collector(Box::new(TriggerCollector { triggers }));
        }
        Metrics { registry, requests }
    }

    /// Adds global tables' replication latency to what a scrape reports.
    pub fn with_replication(mut self, regions: Arc<kura_engine::replication::Regions>) -> Metrics {
        self.registry
            .register_collector(Box::new(replication::ReplicationCollector { regions }));
        self
    }

    pub fn enabled(&self) -> bool {
        self.requests.enabled.load(Ordering::Relaxed)
    }

    /// Records one request's outcome. Only operations Kura serves have figures (a client
    /// cannot grow the label set without bound).
    pub fn record(
        &self,
        op: Op,
        observation: &Observation,
        elapsed: std::time::Duration,
        error: Option<&ApiError>,
    ) {
        let per_operation = &self.requests.operations[op.index()];
        let observed = observation.inner.lock();
        let first = observed.tables.first().map_or("", String::as_str);
        let add = |counter: &AtomicU64, n: u64| {
            counter.fetch_add(n, Ordering::Relaxed);
        };
        let Some(error) = error else {
            let seconds = elapsed.as_secs_f64();
            let record = |table: &str| {
                let figures = per_operation.figures(table);
                figures.latency.observe(seconds);
                if let Some(count) = observed.returned_items {
                    add(&figures.returned_items, count);
                }
            };
            if observed.tables.is_empty() {
                record("");
            }
            for table in &observed.tables {
                record(table);
            }
            return;
        };
        // Only errors a table that exists can cause are counted by table (a failed
        // condition, throttling, a conflict, a server error); a missing table is a user error.
        let figures = || per_operation.figures(first);
        match error.name() {
            "ConditionalCheckFailedException" => add(&figures().conditional_check_failed, 1),
            "ProvisionedThroughputExceededException"
            | "ThrottlingException"
            | "RequestLimitExceeded" => add(&figures().throttled, 1),
            "TransactionConflictException" => add(&figures().transaction_conflict, 1),
            _ if error.status.is_server_error() => add(&figures().system_errors, 1),
            _ => add(&per_operation.user_errors, 1),
        }
    }

    /// Each table's figures summed over its data-plane operations (the console's charts
    /// sample these; the console's own DescribeTable calls would otherwise draw traffic).
    pub fn table_totals(&self) -> HashMap<String, TableTotals> {
        let mut totals: HashMap<String, TableTotals> = HashMap::new();
        for (op, per) in Op::ALL.iter().zip(&self.requests.operations) {
            if op.plane() != Plane::Data {
                continue;
            }
            for (table, f) in per.tables.read().iter() {
                if table.is_empty() {
                    continue;
                }
                let t = totals.entry(table.to_string()).or_default();
                let latency = f.latency.snapshot();
                t.requests += latency.count;
                t.latency_seconds += latency.sum;
                t.throttled += f.throttled.load(Ordering::Relaxed);
                t.errors += f.system_errors.load(Ordering::Relaxed)
                    + f.conditional_check_failed.load(Ordering::Relaxed)
                    + f.transaction_conflict.load(Ordering::Relaxed);
            }
        }
        totals
    }

    /// The text exposition of every metric.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)?;
        Ok(out)
    }
}

/// Every operation's figures, gathered in one pass for a scrape: the rows of each family.
#[derive(Default)]
struct Gathered {
    latency: Vec<(OperationTable, HistogramSnapshot)>,
    returned: Vec<(OperationTable, f64)>,
    throttled: Vec<(OperationTable, f64)>,
    system: Vec<(OperationTable, f64)>,
    user: Vec<(Operation, f64)>,
    failed_conditions: BTreeMap<String, f64>,
    conflicts: BTreeMap<String, f64>,
}

impl Requests {
    /// One pass over every operation's figures; deleted tables' figures go on the way (a
    /// table created again under the name starts anew).
    fn gather(&self) -> Gathered {
        let mut g = Gathered::default();
        let engine = self.engine.current();
        for (operation, per) in Op::ALL.iter().map(|op| op.label()).zip(&self.operations) {
            per.tables
                .write()
                .retain(|table, _| table.is_empty() || engine.has_table(table));
            let errors = per.user_errors.load(Ordering::Relaxed);
            if errors > 0 {
                g.user.push((
                    Operation {
                        operation: operation.to_owned(),
                    },
                    errors as f64,
                ));
            }
            let tables: Vec<(String, Arc<Figures>)> = per
                .tables
                .read()
                .iter()
                .map(|(t, f)| (t.to_string(), f.clone()))
                .collect();
            for (table, f) in tables {
                let labels = OperationTable {
                    table_name: table.clone(),
                    operation: operation.to_owned(),
                };
                let get = |c: &AtomicU64| c.load(Ordering::Relaxed) as f64;
                let snapshot = f.latency.snapshot();
                if snapshot.count > 0 {
                    g.latency.push((labels.clone(), snapshot));
                }
                for (list, value) in [
                    (&mut g.returned, get(&f.returned_items)),
                    (&mut g.throttled, get(&f.throttled)),
                    (&mut g.system, get(&f.system_errors)),
                ] {
                    if value > 0.0 {
                        list.push((labels.clone(), value));
                    }
                }
                for (map, value) in [
                    (&mut g.failed_conditions, get(&f.conditional_check_failed)),
                    (&mut g.conflicts, get(&f.transaction_conflict)),
                ] {
                    if value > 0.0 {
                        *map.entry(table.clone()).or_default() += value;
                    }
                }
            }
        }
        g
    }
}

impl Collector for Requests {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let g = self.gather();
        let by_table = |map: BTreeMap<String, f64>| {
            map.into_iter()
                .map(|(table_name, v)| (Table { table_name }, v))
                .collect::<Vec<_>>()
        };
        family(
            &mut encoder,
            "successful_request_latency_seconds",
            "SuccessfulRequestLatency: time to answer successful requests, by table and operation",
            MetricType::Histogram,
            &g.latency,
            histogram,
        )?;
        family(
            &mut encoder,
            "returned_item_count",
            "ReturnedItemCount: items returned by Query, Scan and ExecuteStatement",
            MetricType::Counter,
            &g.returned,
            counter,
        )?;
        family(
            &mut encoder,
            "throttled_requests",
            "ThrottledRequests: requests refused for capacity",
            MetricType::Counter,
            &g.throttled,
            counter,
        )?;
        family(
            &mut encoder,
            "system_errors",
            "SystemErrors: requests answered with HTTP 500",
            MetricType::Counter,
            &g.system,
            counter,
        )?;
        family(
            &mut encoder,
            "user_errors",
            "UserErrors: requests answered with HTTP 400, except failed conditions, throttling and transaction conflicts",
            MetricType::Counter,
            &g.user,
            counter,
        )?;
        family(
            &mut encoder,
            "conditional_check_failed_requests",
            "ConditionalCheckFailedRequests: PutItem, UpdateItem and DeleteItem whose condition failed",
            MetricType::Counter,
            &by_table(g.failed_conditions),
            counter,
        )?;
        family(
            &mut encoder,
            "transaction_conflict",
            "TransactionConflict: item-level requests refused for a conflicting transaction",
            MetricType::Counter,
            &by_table(g.conflicts),
            counter,
        )?;
        Ok(())
    }
}
