//! The engine's own counters, read when scraped: consumed capacity (tables and indexes),
//! TTL deletions, streams, item counts and sizes, group commit and the store.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use kura_engine::counters::histogram::HistogramSnapshot;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet};
use prometheus_client::metrics::MetricType;

use super::encode::{Table, counter, family, gauge, histogram};
use crate::slot::EngineSlot;

pub(super) struct EngineCollector {
    pub(super) engine: Arc<EngineSlot>,
}

impl std::fmt::Debug for EngineCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineCollector").finish_non_exhaustive()
    }
}

/// One family of values, each with its label set.

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct IndexLabels {
    table_name: String,
    global_secondary_index_name: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VectorIndexLabels {
    table_name: String,
    vector_index_name: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LocalIndexLabels {
    table_name: String,
    local_secondary_index_name: String,
}

impl Collector for EngineCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let engine = &self.engine.current();
        engine.prune_counters();
        let tables = engine.telemetry().tables();
        encode_capacity(&mut encoder, &tables)?;
        encode_table_activity(&mut encoder, engine, &tables)?;
        encode_vector_indexes(&mut encoder, engine)?;
        encode_kinesis(&mut encoder, engine)?;
        encode_writer_and_store(&mut encoder, engine)
    }
}

type TableCounterMap = BTreeMap<String, Arc<kura_engine::counters::TableCounters>>;

/// One row per table of `f` of its counters.
fn by_table(
    tables: &TableCounterMap,
    f: &dyn Fn(&kura_engine::counters::TableCounters) -> f64,
) -> Vec<(Table, f64)> {
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
        .collect()
}

/// Consumed capacity: tables, global and local secondary indexes.
fn encode_capacity(
    encoder: &mut DescriptorEncoder,
    tables: &TableCounterMap,
) -> Result<(), std::fmt::Error> {
    use kura_engine::counters::IndexScope;
    let read = by_table(tables, &|t| t.consumed.read.get());
    let write = by_table(tables, &|t| t.consumed.write.get());
    family(
        encoder,
        "consumed_read_capacity_units",
        "ConsumedReadCapacityUnits: read units consumed on the table",
        MetricType::Counter,
        &read,
        counter,
    )?;
    family(
        encoder,
        "consumed_write_capacity_units",
        "ConsumedWriteCapacityUnits: write units consumed on the table",
        MetricType::Counter,
        &write,
        counter,
    )?;
    let mut global_read = Vec::new();
    let mut global_write = Vec::new();
    let mut local = Vec::new();
    for (name, t) in tables {
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
                IndexScope::Local => local.push((
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
        encoder,
        "consumed_read_capacity_units_index",
        "ConsumedReadCapacityUnits of a global secondary index",
        MetricType::Counter,
        &global_read,
        counter,
    )?;
    family(
        encoder,
        "consumed_write_capacity_units_index",
        "ConsumedWriteCapacityUnits of a global secondary index",
        MetricType::Counter,
        &global_write,
        counter,
    )?;
    family(
        encoder,
        "consumed_capacity_units_local_index",
        "Capacity units consumed on a local secondary index (reads and writes; charged to the table on AWS)",
        MetricType::Counter,
        &local,
        counter,
    )?;
    Ok(())
}

/// TTL deletions, stream reads and writes, item counts and sizes.
fn encode_table_activity(
    encoder: &mut DescriptorEncoder,
    engine: &kura_engine::Engine,
    tables: &TableCounterMap,
) -> Result<(), std::fmt::Error> {
    let ttl = by_table(tables, &|t| t.ttl_deleted.load(Ordering::Relaxed) as f64);
    family(
        encoder,
        "time_to_live_deleted_item_count",
        "TimeToLiveDeletedItemCount: items deleted by TTL",
        MetricType::Counter,
        &ttl,
        counter,
    )?;
    let stream_read = by_table(tables, &|t| {
        t.stream_records_read.load(Ordering::Relaxed) as f64
    });
    family(
        encoder,
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
            encoder,
            "item_count",
            "ItemCount: items in the table",
            MetricType::Gauge,
            &rows(|s| s.item_count as f64),
            gauge,
        )?;
        family(
            encoder,
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
            encoder,
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
            encoder,
            "stream_oldest_unread_record_age_seconds",
            "Age of the oldest record after the furthest position GetRecords served",
            MetricType::Gauge,
            &age,
            gauge,
        )?;
    }
    Ok(())
}

/// Each vector index's items, memory and search mode.
fn encode_vector_indexes(
    encoder: &mut DescriptorEncoder,
    engine: &kura_engine::Engine,
) -> Result<(), std::fmt::Error> {
    let sizes = engine.vector_index_sizes();
    let rows = |f: fn(&kura_engine::VectorIndexSize) -> f64| {
        sizes
            .iter()
            .map(|s| {
                (
                    VectorIndexLabels {
                        table_name: s.table.clone(),
                        vector_index_name: s.index.clone(),
                    },
                    f(s),
                )
            })
            .collect::<Vec<_>>()
    };
    family(
        encoder,
        "vector_index_item_count",
        "Items in the vector index",
        MetricType::Gauge,
        &rows(|s| s.item_count as f64),
        gauge,
    )?;
    family(
        encoder,
        "vector_index_size_bytes",
        "IndexSizeBytes: the f32 bytes of the index's vectors",
        MetricType::Gauge,
        &rows(|s| s.size_bytes as f64),
        gauge,
    )?;
    family(
        encoder,
        "vector_index_memory_bytes",
        "Memory the vector index takes: vectors, graph, keys (about)",
        MetricType::Gauge,
        &rows(|s| s.memory_bytes as f64),
        gauge,
    )?;
    family(
        encoder,
        "vector_index_approximate",
        "1 when searches above the exact threshold walk the index's HNSW graph",
        MetricType::Gauge,
        &rows(|s| f64::from(u8::from(s.approximate))),
        gauge,
    )
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StreamLabels {
    stream_name: String,
}

/// Kinesis streams: records written (every source: PutRecord(s) and DynamoDB's streaming
/// destination), open shards, and what GetRecords read.
fn encode_kinesis(
    encoder: &mut DescriptorEncoder,
    engine: &kura_engine::Engine,
) -> Result<(), std::fmt::Error> {
    let Ok(figures) = engine.kinesis_figures() else {
        return Ok(());
    };
    let labels = |name: &str| StreamLabels {
        stream_name: name.to_owned(),
    };
    let rows = |f: &dyn Fn(u64, usize) -> f64| -> Vec<(StreamLabels, f64)> {
        figures
            .iter()
            .map(|(name, records, open)| (labels(name), f(*records, *open)))
            .collect()
    };
    family(
        encoder,
        "kinesis_incoming_records",
        "IncomingRecords: records written to the stream",
        MetricType::Counter,
        &rows(&|records, _| records as f64),
        counter,
    )?;
    family(
        encoder,
        "kinesis_open_shards",
        "OpenShardCount: the stream's open shards",
        MetricType::Gauge,
        &rows(&|_, open| open as f64),
        gauge,
    )?;
    let reads = engine.telemetry().kinesis.streams();
    let read_rows = |f: &dyn Fn(&kura_engine::counters::kinesis::StreamReads) -> f64| {
        reads
            .iter()
            .map(|(name, r)| (labels(name), f(r)))
            .collect::<Vec<_>>()
    };
    family(
        encoder,
        "kinesis_get_records_records",
        "GetRecords.Records: records returned by GetRecords",
        MetricType::Counter,
        &read_rows(&|r| r.records.load(Ordering::Relaxed) as f64),
        counter,
    )?;
    family(
        encoder,
        "kinesis_get_records_bytes",
        "GetRecords.Bytes: data and partition key bytes returned by GetRecords",
        MetricType::Counter,
        &read_rows(&|r| r.bytes.load(Ordering::Relaxed) as f64),
        counter,
    )?;
    family(
        encoder,
        "kinesis_get_records_iterator_age_milliseconds",
        "GetRecords.IteratorAgeMilliseconds: age of the last record the last GetRecords returned (0 when it returned none)",
        MetricType::Gauge,
        &read_rows(&|r| r.iterator_age_ms.load(Ordering::Relaxed) as f64),
        gauge,
    )
}

/// Group commit and the store's footprint.
fn encode_writer_and_store(
    encoder: &mut DescriptorEncoder,
    engine: &kura_engine::Engine,
) -> Result<(), std::fmt::Error> {
    let writer = &engine.telemetry().writer;
    let none: [(Vec<(String, String)>, HistogramSnapshot); 1] =
        [(Vec::new(), writer.group_size.snapshot())];
    family(
        encoder,
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
        encoder,
        "commit_sync_seconds",
        "Time to commit and sync one batch",
        MetricType::Histogram,
        &sync,
        histogram,
    )?;
    let store = engine.footprint();
    let plain = |v: u64| [(Vec::<(String, String)>::new(), v as f64)];
    family(
        encoder,
        "store_disk_bytes",
        "Bytes the store holds on disk (tables and journal)",
        MetricType::Gauge,
        &plain(store.disk_bytes),
        gauge,
    )?;
    family(
        encoder,
        "cache_bytes",
        "Bytes held by the block cache",
        MetricType::Gauge,
        &plain(store.cache_bytes),
        gauge,
    )?;
    family(
        encoder,
        "cache_capacity_bytes",
        "The block cache's bound",
        MetricType::Gauge,
        &plain(store.cache_capacity_bytes),
        gauge,
    )?;
    family(
        encoder,
        "write_buffer_bytes",
        "Bytes in write buffers not yet flushed",
        MetricType::Gauge,
        &plain(store.write_buffer_bytes),
        gauge,
    )?;
    family(
        encoder,
        "journal_bytes",
        "Length of the write-ahead journal files, which the next start replays",
        MetricType::Gauge,
        &plain(store.journal_bytes),
        gauge,
    )?;
    Ok(())
}
