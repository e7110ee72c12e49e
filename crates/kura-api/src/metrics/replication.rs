//! Global tables' replication latency, read when scraped (CloudWatch's
//! `ReplicationLatency`, by table and receiving region).

use std::sync::Arc;

use kura_engine::replication::Regions;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet};
use prometheus_client::metrics::MetricType;

use super::encode::{family, gauge};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Direction {
    table: String,
    region: String,
    receiving_region: String,
}

pub(super) struct ReplicationCollector {
    pub(super) regions: Arc<Regions>,
}

impl std::fmt::Debug for ReplicationCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplicationCollector")
            .finish_non_exhaustive()
    }
}

impl Collector for ReplicationCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let rows: Vec<(Direction, f64)> = self
            .regions
            .lag()
            .into_iter()
            .map(|lag| {
                (
                    Direction {
                        table: lag.table,
                        region: lag.from,
                        receiving_region: lag.to,
                    },
                    lag.latency_ms as f64,
                )
            })
            .collect();
        family(
            &mut encoder,
            "replication_latency_milliseconds",
            "Age of the oldest change in the last batch a replica received (ReplicationLatency)",
            MetricType::Gauge,
            &rows,
            gauge,
        )
    }
}
