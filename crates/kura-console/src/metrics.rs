//! Metrics and insights: charts of a table's requests, latency, capacity (table and each
//! index), throttles and errors over the last ten minutes; its Contributor Insights hot
//! keys.
//!
//! The figures are the server's own counters (the ones `/metrics` exports), sampled every
//! five seconds (and when a page asks) over the last ten minutes from the server's start;
//! the charts are SVG drawn on the server, with their axes, refreshed in place by the
//! page's script.
//! Hot keys hold key values: they are shown only to a principal its policies let scan the
//! table.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use axum::extract::{Path, Query};
use axum::response::Response;
use maud::{Markup, html};
use parking_lot::Mutex;
use serde_json::json;

use super::layout::{self, Section, Tab, csrf, table_path};
use super::{Console, Ctx, Fields};
use kura_api::EngineSlot;
use kura_api::metrics::Metrics;
use kura_api::operation::Op;
use kura_server::ServerHandle;

/// How often the background task samples.
const EVERY: Duration = Duration::from_secs(5);
/// How far back the charts go: older samples are dropped.
const SPAN: Duration = Duration::from_secs(600);
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
    let counters = engine.telemetry();
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
    /// Adds a sample unless the last is younger than `fresh`, under one lock (two pages
    /// at once do not add two samples a moment apart), and drops those past [`SPAN`].
    fn sample(&self, metrics: &Metrics, slot: &EngineSlot, fresh: Duration) {
        let mut samples = self.samples.lock();
        if samples.back().is_some_and(|s| s.at.elapsed() < fresh) {
            return;
        }
        samples.push_back(take(metrics, slot));
        while samples.front().is_some_and(|s| s.at.elapsed() > SPAN) {
            samples.pop_front();
        }
    }

    /// Starts sampling, once per server: when the console is mounted (so the charts hold
    /// the traffic from before the page was first opened, issue 36), else at the first
    /// page. Needs a Tokio runtime; without one it waits for that first page.
    pub(crate) fn start(&self, server: &ServerHandle, console: &Arc<Console>) {
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        self.started.get_or_init(|| {
            let console: Weak<Console> = Arc::downgrade(console);
            let (metrics, slot) = (server.metrics().clone(), server.slot().clone());
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(EVERY);
                loop {
                    tick.tick().await;
                    let Some(console) = console.upgrade() else {
                        return;
                    };
                    console.samples.sample(&metrics, &slot, FRESH);
                }
            });
        });
    }

    /// Takes a sample now when the last one is older than [`FRESH`], so a chart always
    /// ends at the present.
    fn refresh(&self, ctx: &Ctx) {
        self.start(&ctx.server, &ctx.console);
        self.sample(ctx.server.metrics(), ctx.server.slot(), FRESH);
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
        // The window the samples cover, from one minute up to ten: a console opened a
        // moment ago draws its few points across the chart, not in its last pixels.
        let oldest = self
            .series
            .iter()
            .flat_map(|(_, p)| p.first().map(|(t, _)| -t))
            .fold(0.0_f64, f64::max);
        let span = oldest.clamp(60.0, SPAN.as_secs_f64());
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
                div.plot {
                    // The value axis: the top, the middle and zero.
                    div.yaxis aria-hidden="true" {
                        span { (axis_number(top)) } span { (axis_number(top / 2.0)) } span { "0" }
                    }
                    svg viewBox=(format!("0 0 {W} {H}")) preserveAspectRatio="none" role="img" aria-label=(self.title) {
                        line.axis x1="0" y1="0" x2="0" y2=(H) {}
                        line.axis x1="0" y1=(H) x2=(W) y2=(H) {}
                        line.grid x1="0" y1=(H / 2.0) x2=(W) y2=(H / 2.0) {}
                        @for (i, (_, points)) in self.series.iter().enumerate() {
                            polyline class=(format!("s{}", i % 6)) fill="none" points=(
                                points.iter().map(|(t, v)| format!("{:.1},{:.1}", x(*t), y(*v))).collect::<Vec<_>>().join(" ")
                            ) {}
                        }
                    }
                }
                // The time axis: how long ago, to now.
                div.xaxis aria-hidden="true" {
                    span { "−" (window_text(span)) } span { "−" (window_text(span / 2.0)) } span { "now" }
                }
                div.legend {
                    span.max { "max " (format!("{max:.2}")) }
                    @for (i, (name, points)) in self.series.iter().enumerate() {
                        span class=(format!("key s{}", i % 6)) { (name) ": " (format!("{:.2}", last(points))) }
                    }
                    span.span { "last " (window_text(span)) }
                }
            }
        }
    }
}

/// A value axis label: short, with the precision its size needs.
fn axis_number(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 1.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// `90 s`, `4 min`.
fn window_text(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else {
        format!("{:.0} min", seconds / 60.0)
    }
}

/// `GET /console/tables/{table}/metrics`.
pub(crate) async fn table_page(
    ctx: Ctx,
    Path(table): Path<String>,
    Query(q): Query<Fields>,
) -> Response {
    let described = super::tables::describe(&ctx, &table).await;
    if let Err(e) = &described {
        return ctx.page(&table, Tab::Tables, layout::error(e));
    }
    let mut targets = vec![None];
    if let Ok(t) = &described {
        for index in t["GlobalSecondaryIndexes"].as_array().into_iter().flatten() {
            targets.push(index["IndexName"].as_str().map(str::to_owned));
        }
    }
    let mut sections = Vec::new();
    for index in &targets {
        sections.push(insights(&ctx, &table, index.as_deref()).await);
    }
    // The console's own requests, counted apart from the application's (docs/console.md).
    let console = ctx.server.slot().current().telemetry().console(&table);
    let body = html! {
        (layout::notice(q.get("notice").map(String::as_str)))
        h2 { "Traffic" }
        div #charts.charts data-refresh=(format!("{}/charts", table_path(&table, Section::Metrics))) {
            (chart_grid(&ctx, &table))
        }
        p.hint.console-traffic {
            "The console's own requests on this table since the server started, apart from the application's (not in these charts, Contributor Insights or the advisor): "
            @match &console {
                Some(c) => {
                    (c.requests.load(std::sync::atomic::Ordering::Relaxed)) " requests, "
                    (format!("{:.1}", c.consumed.read.get())) " read and "
                    (format!("{:.1}", c.consumed.write.get())) " write capacity units."
                }
                None => "none.",
            }
        }
        h2 { "Contributor Insights" }
        @for section in sections { (section) }
        p { a href="/console/advisor" { "Design advisor findings for every table →" } }
    };
    ctx.page(&table, Tab::Table(&table, Section::Metrics), body)
}

/// The hot keys of the table (or one GSI) when Contributor Insights is on there, else the
/// button that turns it on. The report is read only after DescribeContributorInsights has
/// passed the principal's policies.
async fn insights(ctx: &Ctx, table: &str, index: Option<&str>) -> Markup {
    let mut request = json!({ "TableName": table });
    if let Some(index) = index {
        request["IndexName"] = json!(index);
    }
    let described = ctx.call(Op::DescribeContributorInsights, request).await;
    let may_read = ctx.allowed(Op::Scan, table);
    let report = match &described {
        Ok(d) if d["ContributorInsightsStatus"] == "ENABLED" && may_read => {
            let engine = ctx.engine();
            let now = engine.now_ms();
            engine
                .telemetry()
                .existing(table)
                .and_then(|c| c.insights.report(index, now, 60, 10))
        }
        _ => None,
    };
    let target = match index {
        Some(i) => format!("index {i}"),
        None => "the table".to_owned(),
    };
    html! {
        @match (&described, &report) {
            (Err(e), _) => (layout::error(e)),
            (Ok(_), Some(report)) => {
                h3 { "On " (target) }
                div.insights {
                    (top_keys("Most accessed partition keys", &report.most_accessed_partition_keys))
                    (top_keys("Most accessed items", &report.most_accessed_items))
                    (top_keys("Most throttled partition keys", &report.most_throttled_partition_keys))
                    (top_keys("Most throttled items", &report.most_throttled_items))
                }
            }
            (Ok(d), None) if d["ContributorInsightsStatus"] == "ENABLED" => {
                p.empty { "Hot keys on " (target) " are key values: they are shown to principals whose policies allow a Scan of the table." }
            }
            (Ok(_), None) => {
                form.insights-off method="post" action=(table_path(table, Section::Protection)) {
                    (csrf(ctx))
                    input type="hidden" name="action" value="insights";
                    @if let Some(index) = index { input type="hidden" name="index" value=(index); }
                    span { "Contributor Insights is off on " (target) ". " }
                    button type="submit" { "Turn it on" }
                }
            }
        }
    }
}

/// One list of hot keys. The counts come from a bounded heavy-hitters sketch: each may
/// exceed the true count by up to the list's error bound, so they are shown as estimates
/// (`≈ 120 ± 4`), as `kura insights` prints them.
fn top_keys(title: &str, top: &kura_engine::counters::TopKeys) -> Markup {
    html! {
        section.top {
            h3 { (title) }
            @if top.keys.is_empty() { p.empty { "none in the last hour" } } @else {
                table.grid {
                    thead { tr { th { "Key" } th { "Requests (estimate)" } } }
                    tbody {
                        @for k in &top.keys {
                            tr {
                                td { code { (k.key) } }
                                td.num {
                                    @if top.error_bound == 0 { (k.count) }
                                    @else { "≈ " (k.count) " ± " (top.error_bound) }
                                }
                            }
                        }
                    }
                }
                p.hint { (top.events) " events in the window; "
                    @if top.error_bound == 0 { "every count is exact." }
                    @else { "a count may exceed the true one by up to " (top.error_bound) "." } }
            }
        }
    }
}

fn chart_grid(ctx: &Ctx, table: &str) -> Markup {
    ctx.console.samples.refresh(ctx);
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
