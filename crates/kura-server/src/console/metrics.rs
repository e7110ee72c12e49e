//! Metrics and insights: charts of a table's requests, latency, capacity (table and each
//! index), throttles and errors over the last ten minutes; its Contributor Insights hot
//! keys; and the design advisor's findings.
//!
//! The figures are the server's own counters (the ones `/metrics` exports), sampled every
//! five seconds into a ring of 120 samples once the console has been opened; the charts
//! are SVG drawn on the server, refreshed in place by the page's script.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::{Markup, html};
use parking_lot::Mutex;
use serde_json::json;

use super::layout::{self, Section, Tab, csrf, table_path};
use super::tables::field;
use super::{Console, Ctx, Fields};
use crate::controls::EngineSlot;
use crate::metrics::Metrics;

const EVERY: Duration = Duration::from_secs(5);
const KEEP: usize = 120;
/// A page takes a sample of its own when the last one is older than this.
const FRESH: Duration = Duration::from_millis(250);

/// One table's counters at one moment.
#[derive(Clone, Default)]
struct TableSample {
    requests: u64,
    latency_seconds: f64,
    throttled: u64,
    errors: u64,
    /// Read and write units on the table, then on each index by name.
    capacity: Vec<(String, f64, f64)>,
}

struct Sample {
    at: Instant,
    tables: HashMap<String, TableSample>,
}

/// The ring of samples, and whether its task runs.
#[derive(Default)]
pub(crate) struct Sampler {
    samples: Mutex<VecDeque<Sample>>,
    started: std::sync::OnceLock<()>,
}

fn take(metrics: &Metrics, slot: &EngineSlot) -> Sample {
    let engine = slot.current();
    let counters = engine.counters();
    let mut tables: HashMap<String, TableSample> = HashMap::new();
    for (table, totals) in metrics.table_totals() {
        let t = tables.entry(table).or_default();
        t.requests = totals.requests;
        t.latency_seconds = totals.latency_seconds;
        t.throttled = totals.throttled;
        t.errors = totals.errors;
    }
    for (table, c) in counters.tables() {
        let t = tables.entry(table).or_default();
        t.capacity.push((
            "table".to_owned(),
            c.consumed.read.get(),
            c.consumed.write.get(),
        ));
        for (_, index, consumed) in c.index_consumption() {
            t.capacity
                .push((index, consumed.read.get(), consumed.write.get()));
        }
    }
    Sample {
        at: Instant::now(),
        tables,
    }
}

impl Sampler {
    fn push(&self, sample: Sample) {
        let mut samples = self.samples.lock();
        samples.push_back(sample);
        while samples.len() > KEEP {
            samples.pop_front();
        }
    }

    /// Starts sampling (once per server), and takes a sample now when the last one is
    /// older than [`FRESH`], so a chart always ends at the present.
    fn refresh(&self, console: &Arc<Console>, ctx: &Ctx) {
        let metrics = ctx.shared.metrics.clone();
        let slot = ctx.shared.slot.clone();
        self.started.get_or_init(|| {
            let console: Weak<Console> = Arc::downgrade(console);
            let (metrics, slot) = (metrics.clone(), slot.clone());
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(EVERY);
                loop {
                    tick.tick().await;
                    let Some(console) = console.upgrade() else {
                        return;
                    };
                    console.samples.push(take(&metrics, &slot));
                }
            });
        });
        let stale = self
            .samples
            .lock()
            .back()
            .is_none_or(|s| s.at.elapsed() > FRESH);
        if stale {
            self.push(take(&metrics, &slot));
        }
    }

    /// Per-second rates between consecutive samples of `table`: (seconds ago, value) per
    /// series, for each chart.
    fn series(&self, table: &str) -> Vec<Chart> {
        let samples = self.samples.lock();
        let now = Instant::now();
        let empty = TableSample::default();
        let points: Vec<(f64, &TableSample)> = samples
            .iter()
            .map(|s| {
                (
                    -(now - s.at).as_secs_f64(),
                    s.tables.get(table).unwrap_or(&empty),
                )
            })
            .collect();
        let mut requests = Vec::new();
        let mut latency = Vec::new();
        let mut throttled = Vec::new();
        let mut errors = Vec::new();
        let mut reads: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        let mut writes: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for pair in points.windows(2) {
            let ((t0, a), (t1, b)) = (pair[0], pair[1]);
            let dt = (t1 - t0).max(0.001);
            let rate = |x: u64, y: u64| y.saturating_sub(x) as f64 / dt;
            let n = b.requests.saturating_sub(a.requests);
            requests.push((t1, rate(a.requests, b.requests)));
            let ms = if n == 0 {
                0.0
            } else {
                (b.latency_seconds - a.latency_seconds).max(0.0) * 1000.0 / n as f64
            };
            latency.push((t1, ms));
            throttled.push((t1, rate(a.throttled, b.throttled)));
            errors.push((t1, rate(a.errors, b.errors)));
            for (name, read, write) in &b.capacity {
                let before = a.capacity.iter().find(|(n, ..)| n == name);
                let (r0, w0) = before.map_or((*read, *write), |(_, r, w)| (*r, *w));
                for (list, value) in [
                    (&mut reads, (read - r0) / dt),
                    (&mut writes, (write - w0) / dt),
                ] {
                    match list.iter_mut().find(|(n, _)| n == name) {
                        Some((_, points)) => points.push((t1, value.max(0.0))),
                        None => list.push((name.clone(), vec![(t1, value.max(0.0))])),
                    }
                }
            }
        }
        vec![
            Chart::new("Requests per second", vec![("requests".into(), requests)]),
            Chart::new("Average latency (ms)", vec![("latency".into(), latency)]),
            Chart::new("Read capacity units per second", reads),
            Chart::new("Write capacity units per second", writes),
            Chart::new(
                "Throttled requests per second",
                vec![("throttled".into(), throttled)],
            ),
            Chart::new(
                "Errors per second (server, failed conditions, conflicts)",
                vec![("errors".into(), errors)],
            ),
        ]
    }
}

/// One chart: its title and named series of (seconds ago, value).
struct Chart {
    title: &'static str,
    series: Vec<(String, Vec<(f64, f64)>)>,
}

impl Chart {
    fn new(title: &'static str, series: Vec<(String, Vec<(f64, f64)>)>) -> Chart {
        Chart { title, series }
    }

    fn svg(&self) -> Markup {
        const W: f64 = 360.0;
        const H: f64 = 120.0;
        let span = KEEP as f64 * EVERY.as_secs_f64();
        let max = self
            .series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|(_, v)| *v))
            .fold(0.0_f64, f64::max);
        let top = if max <= 0.0 { 1.0 } else { max * 1.1 };
        let x = |t: f64| W + t / span * W;
        let y = |v: f64| H - v / top * H;
        let last = |p: &[(f64, f64)]| p.last().map_or(0.0, |(_, v)| *v);
        html! {
            figure.chart {
                figcaption { (self.title) }
                svg viewBox=(format!("0 0 {W} {H}")) preserveAspectRatio="none" role="img" aria-label=(self.title) {
                    line.axis x1="0" y1=(H) x2=(W) y2=(H) {}
                    @for (i, (_, points)) in self.series.iter().enumerate() {
                        polyline class=(format!("s{}", i % 6)) fill="none" points=(
                            points.iter().map(|(t, v)| format!("{:.1},{:.1}", x(*t), y(*v))).collect::<Vec<_>>().join(" ")
                        ) {}
                    }
                }
                div.legend {
                    span.max { "max " (format!("{max:.2}")) }
                    @for (i, (name, points)) in self.series.iter().enumerate() {
                        span class=(format!("key s{}", i % 6)) { (name) ": " (format!("{:.2}", last(points))) }
                    }
                    span.span { "last 10 min" }
                }
            }
        }
    }
}

/// `GET /console/tables/{table}/metrics`.
pub(crate) async fn table_page(
    ctx: Ctx,
    Path(table): Path<String>,
    Query(q): Query<Fields>,
) -> Response {
    let described = super::tables::describe(&ctx, &table).await;
    if let Err(e) = described {
        return ctx.page(&table, Tab::Tables, layout::error(&e));
    }
    let insights = ctx
        .call("DescribeContributorInsights", json!({ "TableName": table }))
        .await;
    let report = match &insights {
        Ok(d) if d["ContributorInsightsStatus"] == "ENABLED" => {
            let engine = ctx.engine();
            let now = engine.now_ms();
            engine
                .counters()
                .existing(&table)
                .and_then(|c| c.insights.report(None, now, 60, 10))
        }
        _ => None,
    };
    let body = html! {
        (layout::notice(q.get("notice").map(String::as_str)))
        h2 { "Traffic" }
        div #charts.charts data-refresh=(format!("{}/charts", table_path(&table, Section::Metrics))) {
            (chart_grid(&ctx, &table))
        }
        h2 { "Contributor Insights" }
        @match (&insights, &report) {
            (Err(e), _) => (layout::error(e)),
            (Ok(_), Some(report)) => {
                div.insights {
                    (top_keys("Most accessed partition keys", &report.most_accessed_partition_keys))
                    (top_keys("Most accessed items", &report.most_accessed_items))
                    (top_keys("Most throttled partition keys", &report.most_throttled_partition_keys))
                    (top_keys("Most throttled items", &report.most_throttled_items))
                }
            }
            (Ok(_), None) => {
                form method="post" action=(table_path(&table, Section::Protection)) {
                    (csrf(&ctx))
                    input type="hidden" name="action" value="insights";
                    p { "Contributor Insights is off on this table: turn it on to see its hottest keys." }
                    button type="submit" { "Turn Contributor Insights on" }
                }
            }
        }
        p { a href="/console/advisor" { "Design advisor findings for every table →" } }
    };
    ctx.page(&table, Tab::Table(&table, Section::Metrics), body)
}

fn top_keys(title: &str, top: &kura_engine::counters::TopKeys) -> Markup {
    html! {
        section.top {
            h3 { (title) }
            @if top.keys.is_empty() { p.empty { "none in the last hour" } } @else {
                table.grid {
                    thead { tr { th { "Key" } th { "Requests" } } }
                    tbody { @for k in &top.keys { tr { td { code { (k.key) } } td.num { (k.count) } } } }
                }
            }
        }
    }
}

fn chart_grid(ctx: &Ctx, table: &str) -> Markup {
    ctx.console.samples.refresh(&ctx.console, ctx);
    html! {
        @for chart in ctx.console.samples.series(table) { (chart.svg()) }
    }
}

/// `GET /console/tables/{table}/metrics/charts`: the charts alone (the page refreshes
/// them in place every five seconds).
pub(crate) async fn charts(ctx: Ctx, Path(table): Path<String>) -> Response {
    if let Err(e) = super::tables::describe(&ctx, &table).await {
        return ctx.fragment(layout::error(&e));
    }
    let grid = chart_grid(&ctx, &table);
    ctx.fragment(grid)
}

/// `GET /console/advisor`: the design advisor's findings on the tables the principal may
/// describe.
pub(crate) async fn advisor(ctx: Ctx, Query(q): Query<Fields>) -> Response {
    let names = match super::tables::table_names(&ctx).await {
        Ok(names) => names,
        Err(e) => return ctx.page("Advisor", Tab::Advisor, layout::error(&e)),
    };
    let mut visible = Vec::new();
    for name in names {
        if super::tables::describe(&ctx, &name).await.is_ok() {
            visible.push(name);
        }
    }
    let engine = ctx.engine();
    // It samples every table: off the async workers.
    let advice = tokio::task::spawn_blocking(move || crate::advisor::advise(&engine)).await;
    let only = field(&q, "table");
    let body = match advice {
        Err(e) => html! { div.error { (e.to_string()) } },
        Ok(advice) => {
            let findings: Vec<_> = advice
                .findings
                .iter()
                .filter(|f| visible.contains(&f.table) && (only.is_empty() || f.table == only))
                .collect();
            html! {
                h1 { "Design advisor" }
                p { (advice.rules_checked) " of " (advice.rules_checkable) " checkable rules of the design guideline checked on " (advice.tables) " tables (docs/advisor.md)." }
                @if findings.is_empty() { p.empty { "No findings: every checked rule holds." } }
                @for f in findings {
                    article.finding {
                        h3 {
                            span class=(format!("severity {}", f.severity.name())) { (f.severity.name()) }
                            " " (f.rule) " · " a href=(table_path(&f.table, Section::Overview)) { (f.table) }
                            @if let Some(i) = &f.index { " · index " (i) }
                        }
                        p.evidence { (f.evidence) }
                        p.fix { strong { "Fix: " } (f.fix) }
                        p.section { "Guideline: " (f.section) }
                    }
                }
            }
        }
    };
    ctx.page("Advisor", Tab::Advisor, body)
}
