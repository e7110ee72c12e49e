//! Writing metric families in the Prometheus text format, shared by the collectors.

use kura_engine::counters::histogram::HistogramSnapshot;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet};
use prometheus_client::metrics::MetricType;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(super) struct Table {
    pub(super) table_name: String,
}

pub(super) fn family<S: EncodeLabelSet, V>(
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

pub(super) fn counter(
    m: &mut prometheus_client::encoding::MetricEncoder,
    v: &f64,
) -> std::fmt::Result {
    m.encode_counter::<prometheus_client::encoding::NoLabelSet, f64, f64>(v, None)
}

pub(super) fn gauge(
    m: &mut prometheus_client::encoding::MetricEncoder,
    v: &f64,
) -> std::fmt::Result {
    m.encode_gauge(v)
}

pub(super) fn histogram(
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
