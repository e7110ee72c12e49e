//! The stream triggers' figures, read when scraped.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet};
use prometheus_client::metrics::MetricType;

use super::encode::{counter, family, gauge};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TriggerLabel {
    trigger: String,
}

type TriggerSeries = Vec<(TriggerLabel, f64)>;

/// Each stream trigger's figures (docs/metrics.md: Lambda's event source mapping metrics).
pub(super) struct TriggerCollector {
    pub(super) triggers: Arc<kura_triggers::Triggers>,
}

impl std::fmt::Debug for TriggerCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TriggerCollector").finish_non_exhaustive()
    }
}

impl Collector for TriggerCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let figures = self.triggers.figures();
        let series = |f: &dyn Fn(&kura_triggers::runner::TriggerStats) -> f64| {
            figures
                .iter()
                .map(|t| {
                    (
                        TriggerLabel {
                            trigger: t.name.clone(),
                        },
                        f(&t.stats),
                    )
                })
                .collect::<Vec<_>>()
        };
        let load = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed) as f64;
        let counters: [(&str, &str, TriggerSeries); 6] = [
            (
                "trigger_invocations",
                "Invocations: batches sent to the trigger's function",
                series(&|s| load(&s.invocations)),
            ),
            (
                "trigger_records_delivered",
                "Stream records the function took",
                series(&|s| load(&s.records_delivered)),
            ),
            (
                "trigger_records_filtered",
                "Stream records the trigger's FilterCriteria dropped",
                series(&|s| load(&s.records_filtered)),
            ),
            (
                "trigger_function_errors",
                "Errors: invocations that failed or got no answer",
                series(&|s| load(&s.function_errors)),
            ),
            (
                "trigger_retries",
                "Batches retried after an error or partial failure",
                series(&|s| load(&s.retries)),
            ),
            (
                "trigger_records_failed",
                "DestinationDeliveryFailures: records given up (retries or age) and sent to the failure destination",
                series(&|s| load(&s.records_failed)),
            ),
        ];
        for (name, help, values) in &counters {
            family(
                &mut encoder,
                name,
                help,
                MetricType::Counter,
                values,
                counter,
            )?;
        }
        let age = series(&|s| s.iterator_age_ms.load(Ordering::Relaxed) as f64 / 1000.0);
        family(
            &mut encoder,
            "trigger_iterator_age_seconds",
            "IteratorAge: age of the last record of the last batch the function took (0 once caught up)",
            MetricType::Gauge,
            &age,
            gauge,
        )
    }
}
