//! Kura's load generator and same-run comparison.
//!
//! - `compare`: starts the loopback echo baseline, `kura serve`, the embedded engine and
//!   every installed peer (dynalite, moto, DynamoDB Local) one after another, runs the same
//!   workloads against each, and prints the figures with ratios to the echo baseline and
//!   to the best peer. Peers that are not installed are skipped with a message.
//! - `endpoint URL`: the workloads against any running DynamoDB-compatible endpoint
//!   (requests carry a fixed, unsigned Authorization header).
//! - `footprint`: Kura's own figures: start-to-ready time, memory, disk, bulk load rate,
//!   Query latency growth with the table's size.
//!
//! Every run against a process (the echo baseline, `kura serve`, the peers) also reports
//! the server's CPU time per request, from its own accounting (`/proc/PID/stat`).
//!
//! Run everything: `./benches/run.sh` (installs the peers, builds, runs both).

#![allow(clippy::print_stdout)] // a benchmark's job is to print

mod driver;
mod footprint;
mod peers;
mod runner;
mod start;
mod suite;
mod targets;
mod workload;

use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use serde::Serialize;

use runner::{RunResult, Timing};
use targets::Kind;
use workload::Workload;

#[derive(Parser)]
#[command(
    name = "kura-load",
    about = "Kura's load generator and same-run comparison"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the workloads against the echo baseline, Kura and each installed peer in turn.
    Compare {
        #[command(flatten)]
        load: LoadArgs,
        /// Targets, in order.
        #[arg(long, value_delimiter = ',', default_values_t = Kind::ALL.map(KindArg))]
        targets: Vec<KindArg>,
    },
    /// Run the workloads against a running endpoint.
    Endpoint {
        url: String,
        #[command(flatten)]
        load: LoadArgs,
    },
    /// Kura's start-to-ready time, memory, disk size, bulk load rate and Query growth.
    Footprint {
        /// Items to bulk load (1 KB each).
        #[arg(long, default_value_t = 100_000)]
        items: usize,
        /// Extra arguments for `kura serve`, e.g. `--kura-arg=--cache-mb=8`.
        #[arg(long = "kura-arg", allow_hyphen_values = true)]
        kura_args: Vec<String>,
        /// Also write the figures as JSON to this file.
        #[arg(long)]
        json: Option<std::path::PathBuf>,
    },
    /// A test suite's shape replayed (create a table with a GSI, puts, gets, queries,
    /// conditional updates, a transaction, clean up; 200 tests) against each target in
    /// memory, with one worker and with four at once; then what a reset through the test
    /// controls costs at 10,000 and 100,000 items.
    Suite {
        /// Targets, in order (run in each round).
        #[arg(long, value_delimiter = ',', default_values_t = [KindArg(Kind::KuraMemory), KindArg(Kind::DynoxideMemory)])]
        targets: Vec<KindArg>,
        #[arg(long, default_value_t = 200)]
        tests: usize,
        /// Workers at once; each level is a separate suite run.
        #[arg(long, value_delimiter = ',', default_values_t = [1, 4])]
        workers: Vec<usize>,
        /// Rounds: every target at every level, again, interleaved.
        #[arg(long, default_value_t = 2)]
        rounds: usize,
        /// Items loaded before each timed reset (none: no reset figures).
        #[arg(long, value_delimiter = ',', default_values_t = [10_000, 100_000])]
        reset_items: Vec<usize>,
        #[arg(long = "kura-arg", allow_hyphen_values = true)]
        kura_args: Vec<String>,
        #[arg(long)]
        json: Option<std::path::PathBuf>,
    },
    /// Start to first answer, idle memory and memory under a bulk load, for Kura and the
    /// peers the same way, interleaved round by round.
    Start {
        #[arg(long, value_delimiter = ',', default_values_t = [KindArg(Kind::Kura), KindArg(Kind::Dynoxide), KindArg(Kind::KuraMemory), KindArg(Kind::DynoxideMemory)])]
        targets: Vec<KindArg>,
        /// Starts of each target (interleaved).
        #[arg(long, default_value_t = 7)]
        rounds: usize,
        /// Items of the bulk load (0: none).
        #[arg(long, default_value_t = 100_000)]
        items: usize,
        #[arg(long = "kura-arg", allow_hyphen_values = true)]
        kura_args: Vec<String>,
        #[arg(long)]
        json: Option<std::path::PathBuf>,
    },
    /// The peer table of issue 54 in one run: Kura beside Dynoxide (reads and writes with
    /// 16 clients durable, every workload with one client in memory, start, idle memory,
    /// memory after a bulk load, the echo server's HTTP floor), each figure with its goal,
    /// printed as Markdown.
    Peers {
        /// Which Kura: `kura` (the README's build) or `kura-dist` (the shipped one).
        #[arg(long, default_value = "kura")]
        kura: KindArg,
        /// Seconds measured per workload.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Rounds of the throughput runs (targets interleaved; figures are means).
        #[arg(long, default_value_t = 2)]
        rounds: usize,
        /// Starts of each target (figures are medians).
        #[arg(long, default_value_t = 7)]
        starts: usize,
        /// Items of the bulk load.
        #[arg(long, default_value_t = 100_000)]
        items: usize,
        #[arg(long)]
        json: Option<std::path::PathBuf>,
    },
    /// (internal) The echo baseline server.
    Echo {
        #[arg(long)]
        port: u16,
    },
}

#[derive(Args)]
struct LoadArgs {
    /// Workloads, in order.
    #[arg(long, value_delimiter = ',', default_values_t = Workload::ALL.map(WorkloadArg))]
    workloads: Vec<WorkloadArg>,
    /// Concurrency levels (concurrent clients, each with one request in flight).
    #[arg(long, value_delimiter = ',', default_values_t = [16])]
    concurrency: Vec<usize>,
    /// Seconds measured per workload and level.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Seconds run before measuring (not counted).
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// Paced, as wrk2: this many requests per second in all, each client connection on
    /// its own schedule, one request in flight per connection; the table then adds the
    /// p99 counted from when each request was due and how many due were never sent.
    /// Without it, each client sends when its answer is in.
    #[arg(long, value_parser = positive_rate)]
    rate: Option<f64>,
    /// Extra arguments for `kura serve`.
    #[arg(long = "kura-arg", allow_hyphen_values = true)]
    kura_args: Vec<String>,
    /// Also write every figure as JSON to this file.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

/// clap's value parsing for the enums, with their kebab-case names.
#[derive(Clone, Copy)]
struct KindArg(Kind);
#[derive(Clone, Copy)]
struct WorkloadArg(Workload);

macro_rules! value_arg {
    ($wrapper:ident, $inner:ty) => {
        impl std::str::FromStr for $wrapper {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                <$inner as clap::ValueEnum>::from_str(s, true).map($wrapper)
            }
        }
        impl std::fmt::Display for $wrapper {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let value = clap::ValueEnum::to_possible_value(&self.0).ok_or(std::fmt::Error)?;
                f.write_str(value.get_name())
            }
        }
    };
}
value_arg!(KindArg, Kind);
value_arg!(WorkloadArg, Workload);

#[derive(Serialize)]
struct Report<'a> {
    machine: Machine,
    seconds: f64,
    skipped: &'a [String],
    results: &'a [RunResult],
}

#[derive(Serialize)]
struct Machine {
    cpus: usize,
    kernel: String,
}

fn machine() -> Machine {
    Machine {
        cpus: std::thread::available_parallelism().map_or(0, |n| n.get()),
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .unwrap_or_default()
            .trim()
            .to_owned(),
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // The echo server gets Kura's shape: two async workers.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build();
    let Ok(runtime) = runtime else {
        eprintln!("could not start the async runtime");
        return std::process::ExitCode::FAILURE;
    };
    let outcome = runtime.block_on(async move {
        match cli.command {
            Cmd::Echo { port } => {
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
                    .await
                    .map_err(|e| e.to_string())?;
                driver::serve_echo(listener)
                    .await
                    .map_err(|e| e.to_string())
            }
            Cmd::Compare { load, targets } => {
                compare(&load, &targets.iter().map(|k| k.0).collect::<Vec<_>>()).await
            }
            Cmd::Endpoint { url, load } => endpoint(&url, &load).await,
            Cmd::Start {
                targets,
                rounds,
                items,
                kura_args,
                json,
            } => {
                let kinds: Vec<Kind> = targets.iter().map(|k| k.0).collect();
                start_command(&kinds, rounds, items, &kura_args, json).await
            }
            Cmd::Suite {
                targets,
                tests,
                workers,
                rounds,
                reset_items,
                kura_args,
                json,
            } => {
                let kinds: Vec<Kind> = targets.iter().map(|k| k.0).collect();
                suite_command(
                    &kinds,
                    tests,
                    &workers,
                    rounds,
                    &reset_items,
                    &kura_args,
                    json,
                )
                .await
            }
            Cmd::Peers {
                kura,
                seconds,
                rounds,
                starts,
                items,
                json,
            } => {
                let args = peers::PeerArgs {
                    kura: kura.0,
                    seconds,
                    rounds,
                    starts,
                    items,
                };
                let rows = peers::measure(&args).await?;
                println!("\n{}", peers::markdown(&rows, kura.0));
                save_json(
                    json,
                    &serde_json::json!({"machine": machine(), "rows": rows}),
                )
            }
            Cmd::Footprint {
                items,
                kura_args,
                json,
            } => {
                let figures = footprint::measure(items, &kura_args).await?;
                print_footprint(&figures);
                if let Some(path) = json {
                    let text = serde_json::to_string_pretty(&figures).map_err(|e| e.to_string())?;
                    std::fs::write(&path, text).map_err(|e| e.to_string())?;
                }
                Ok(())
            }
        }
    });
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn timing(load: &LoadArgs) -> Timing {
    Timing {
        warmup: Duration::from_secs_f64(load.warmup),
        measure: Duration::from_secs_f64(load.seconds),
        rate: load.rate,
    }
}

/// Every workload at every level against one started target.
async fn run_all(target: &targets::Target, load: &LoadArgs, out: &mut Vec<RunResult>) {
    for (wi, w) in load.workloads.iter().enumerate() {
        for (ci, &c) in load.concurrency.iter().enumerate() {
            let run_id = wi * 100 + ci;
            if target.needs_setup {
                for request in w.0.setup(run_id, c) {
                    if let Err(e) = target.driver.must(&request).await {
                        eprintln!("{}: set-up of {} failed: {e}", target.name, w.0.label());
                    }
                }
            }
            let result = runner::run(
                &target.name,
                target.driver.clone(),
                w.0,
                run_id,
                c,
                timing(load),
                target.pid(),
            )
            .await;
            eprintln!(
                "{:<22}{:<22}C={:<4}{:>10.0} ops/s  p50 {:.2} ms  p99 {:.2} ms  errors {}  server CPU {}{}",
                result.target,
                w.0.label(),
                c,
                result.ops_per_sec,
                result.p50_ms,
                result.p99_ms,
                result.error_count(),
                cpu_label(result.server_cpu_us),
                open_loop_label(&result)
            );
            out.push(result);
        }
    }
}

async fn compare(load: &LoadArgs, kinds: &[Kind]) -> Result<(), String> {
    let mut results = Vec::new();
    let mut skipped = Vec::new();
    for &kind in kinds {
        let target = match targets::start(kind, &load.kura_args).await {
            Ok(t) => t,
            Err(why) => {
                let line = format!("{} skipped: {why}", kind.name());
                eprintln!("{line}");
                skipped.push(line);
                continue;
            }
        };
        if target.needs_setup
            && let Err(why) = targets::prepare(&target).await
        {
            let line = format!("{} skipped: set-up failed: {why}", kind.name());
            eprintln!("{line}");
            skipped.push(line);
            continue;
        }
        run_all(&target, load, &mut results).await;
        drop(target);
    }
    print_results(&results);
    print_ratios(&results, load);
    print_pairs(&results, load);
    for line in &skipped {
        println!("{line}");
    }
    write_json(load, &skipped, &results)
}

async fn endpoint(url: &str, load: &LoadArgs) -> Result<(), String> {
    let target = targets::Target::remote(url)?;
    targets::prepare(&target).await?;
    let mut results = Vec::new();
    run_all(&target, load, &mut results).await;
    print_results(&results);
    write_json(load, &[], &results)
}

fn write_json(load: &LoadArgs, skipped: &[String], results: &[RunResult]) -> Result<(), String> {
    let Some(path) = &load.json else {
        return Ok(());
    };
    let report = Report {
        machine: machine(),
        seconds: load.seconds,
        skipped,
        results,
    };
    let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| e.to_string())
}

/// A paced run's rate, p99 from when requests were due and the due requests never sent
/// ("" for a closed loop).
fn open_loop_label(r: &RunResult) -> String {
    match (r.offered_per_sec, r.p99_from_due_ms, r.due_not_sent) {
        (Some(rate), Some(p99), Some(not_sent)) => {
            format!("  paced {rate:.0}/s, p99 from due {p99:.1} ms, {not_sent} due not sent")
        }
        _ => String::new(),
    }
}

fn positive_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(rate),
        _ => Err(format!(
            "{s} is not a positive number of requests per second"
        )),
    }
}

/// Server CPU per request, for the tables.
fn cpu_label(us: Option<f64>) -> String {
    us.map_or_else(|| "-".into(), |us| format!("{us:.0} µs"))
}

fn print_results(results: &[RunResult]) {
    println!(
        "\n{:<22}{:<22}{:>5}{:>11}{:>9}{:>9}{:>9}{:>12}  errors",
        "target", "workload", "C", "ops/s", "p50 ms", "p99 ms", "max ms", "server CPU"
    );
    for r in results {
        let errors = if r.errors.is_empty() {
            "0".to_owned()
        } else {
            r.errors
                .iter()
                .map(|(k, v)| format!("{v} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "{:<22}{:<22}{:>5}{:>11.0}{:>9.2}{:>9.2}{:>9.2}{:>12}  {errors}{}",
            r.target,
            r.workload.label(),
            r.concurrency,
            r.ops_per_sec,
            r.p50_ms,
            r.p99_ms,
            r.max_ms,
            cpu_label(r.server_cpu_us),
            open_loop_label(r)
        );
    }
}

/// What recording metrics costs, from every run of `kura` and `kura-metrics-off` of this
/// workload in this process (list them alternately, e.g. `--targets
/// kura-metrics-off,kura,kura-metrics-off,kura`): the mean throughput with metrics on over
/// the mean with them off, and the same for CPU per request (issue 19's target: >= 0.97).
fn metrics_cost(results: &[RunResult], w: Workload, c: usize) -> String {
    let runs = |target: &str| -> Vec<&RunResult> {
        results
            .iter()
            .filter(|r| r.target == target && r.workload == w && r.concurrency == c)
            .collect()
    };
    let (on, off) = (runs("kura"), runs("kura-metrics-off"));
    if on.is_empty() || off.is_empty() {
        return "-".into();
    }
    let mean = |runs: &[&RunResult], f: &dyn Fn(&RunResult) -> Option<f64>| {
        let values: Vec<f64> = runs.iter().filter_map(|r| f(r)).collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let ops = |r: &RunResult| Some(r.ops_per_sec);
    let cpu = |r: &RunResult| r.server_cpu_us;
    let throughput = match (mean(&on, &ops), mean(&off, &ops)) {
        (Some(a), Some(b)) => a / b.max(1e-9),
        _ => return "-".into(),
    };
    match (mean(&on, &cpu), mean(&off, &cpu)) {
        (Some(a), Some(b)) if b > 0.0 => format!("{throughput:.3}, CPU {:.2}", a / b),
        _ => format!("{throughput:.3}"),
    }
}

/// Kura against the echo baseline and against the best peer, workload by workload.
fn print_ratios(results: &[RunResult], load: &LoadArgs) {
    let find = |target: &str, w: Workload, c: usize| {
        results
            .iter()
            .find(|r| r.target == target && r.workload == w && r.concurrency == c)
    };
    println!(
        "\n{:<22}{:>5}{:>11}{:>11}{:>9}{:>11}{:>22}{:>10}{:>13}{:>11}{:>11}{:>9}{:>14}{:>12}{:>22}",
        "workload",
        "C",
        "kura ops/s",
        "echo ops/s",
        "k/echo",
        "embedded",
        "best peer",
        "k/peer",
        "kura errors",
        "kura CPU",
        "echo CPU",
        "CPU k/e",
        "excl. disk",
        "k/e excl.",
        "metrics on/off"
    );
    for w in &load.workloads {
        for &c in &load.concurrency {
            let Some(kura) = find("kura", w.0, c) else {
                continue;
            };
            let ratio = |other: Option<&RunResult>| {
                other.map_or("-".to_owned(), |o| {
                    format!("{:.2}", kura.ops_per_sec / o.ops_per_sec.max(1e-9))
                })
            };
            let echo = find("echo", w.0, c);
            let embedded = find("kura-embedded", w.0, c);
            // A peer's figure counts only if its requests succeeded.
            let best_peer = results
                .iter()
                .filter(|r| {
                    r.workload == w.0
                        && r.concurrency == c
                        && Kind::from_name(&r.target).is_some_and(Kind::is_peer)
                        && r.error_count() * 10 < r.requests.max(1)
                })
                .max_by(|a, b| a.ops_per_sec.total_cmp(&b.ops_per_sec));
            // Server CPU per request as a ratio to the HTTP floor (issue 16's measure).
            let cpu_ratio = match (kura.server_cpu_us, echo.and_then(|e| e.server_cpu_us)) {
                (Some(k), Some(e)) if e > 0.0 => format!("{:.1}", k / e),
                _ => "-".into(),
            };
            // The same without the CPU Kura spends moving data to the disk.
            let off_disk = kura
                .server_cpu_us
                .zip(kura.storage_cpu_us)
                .map(|(all, disk)| (all - disk).max(0.0));
            let off_disk_ratio = match (off_disk, echo.and_then(|e| e.server_cpu_us)) {
                (Some(k), Some(e)) if e > 0.0 => format!("{:.1}", k / e),
                _ => "-".into(),
            };
            // What recording metrics costs: throughput and CPU per request against the same
            // server with `--metrics false`, in this run (issue 19's target: >= 0.97).
            let metrics = metrics_cost(results, w.0, c);
            println!(
                "{:<22}{:>5}{:>11.0}{:>11}{:>9}{:>11}{:>22}{:>10}{:>13}{:>11}{:>11}{:>9}{:>14}{:>12}{:>22}",
                w.0.label(),
                c,
                kura.ops_per_sec,
                echo.map_or("-".into(), |e| format!("{:.0}", e.ops_per_sec)),
                ratio(echo),
                embedded.map_or("-".into(), |e| format!("{:.0}", e.ops_per_sec)),
                best_peer.map_or("-".into(), |p| format!("{} {:.0}", p.target, p.ops_per_sec)),
                ratio(best_peer),
                kura.error_count(),
                cpu_label(kura.server_cpu_us),
                cpu_label(echo.and_then(|e| e.server_cpu_us)),
                cpu_ratio,
                cpu_label(off_disk),
                off_disk_ratio,
                metrics,
            );
        }
    }
}

/// Kura against Dynoxide, the strongest native peer, like for like (in memory against in
/// memory, on disk against on disk), for every round in this run: list the targets
/// interleaved and repeated (`--targets kura-memory,dynoxide-memory,kura-memory,...`) and
/// each round's ratio is printed beside the mean, so the spread shows.
fn print_pairs(results: &[RunResult], load: &LoadArgs) {
    let pairs = [
        ("kura-memory", "dynoxide-memory"),
        ("kura-dist-memory", "dynoxide-memory"),
        ("kura", "dynoxide"),
        ("kura-dist", "dynoxide"),
    ];
    let runs = |target: &str, w: Workload, c: usize| -> Vec<&RunResult> {
        results
            .iter()
            .filter(|r| r.target == target && r.workload == w && r.concurrency == c)
            .collect()
    };
    let mut header = false;
    for (ours, theirs) in pairs {
        for w in &load.workloads {
            for &c in &load.concurrency {
                let (a, b) = (runs(ours, w.0, c), runs(theirs, w.0, c));
                if a.is_empty() || b.is_empty() {
                    continue;
                }
                if !header {
                    println!(
                        "\n{:<38}{:<22}{:>5}{:>11}{:>11}{:>9}  {:<24}{:>15}",
                        "kura / dynoxide",
                        "workload",
                        "C",
                        "kura ops/s",
                        "dynox ops/s",
                        "ratio",
                        "each round",
                        "p50 ms k / d"
                    );
                    header = true;
                }
                let mean = |runs: &[&RunResult], f: fn(&RunResult) -> f64| {
                    runs.iter().map(|r| f(r)).sum::<f64>() / runs.len() as f64
                };
                let (ka, kb) = (mean(&a, |r| r.ops_per_sec), mean(&b, |r| r.ops_per_sec));
                let rounds: Vec<String> = a
                    .iter()
                    .zip(&b)
                    .map(|(x, y)| format!("{:.2}", x.ops_per_sec / y.ops_per_sec.max(1e-9)))
                    .collect();
                println!(
                    "{:<38}{:<22}{:>5}{:>11.0}{:>11.0}{:>9.2}  {:<24}{:>15}",
                    format!("{ours} / {theirs}"),
                    w.0.label(),
                    c,
                    ka,
                    kb,
                    ka / kb.max(1e-9),
                    rounds.join(" "),
                    format!(
                        "{:.3} / {:.3}",
                        mean(&a, |r| r.p50_ms),
                        mean(&b, |r| r.p50_ms)
                    ),
                );
            }
        }
    }
}

async fn start_command(
    kinds: &[Kind],
    rounds: usize,
    items: usize,
    kura_args: &[String],
    json: Option<std::path::PathBuf>,
) -> Result<(), String> {
    let mut starts: Vec<start::StartRun> = Vec::new();
    for _ in 0..rounds {
        for &kind in kinds {
            match start::first_answer(kind, kura_args) {
                Ok(run) => starts.push(run),
                Err(why) => eprintln!("{} skipped: {why}", kind.name()),
            }
        }
    }
    println!(
        "\n{:<22}{:>26}{:>12}{:>14}{:>9}",
        "target", "first answer ms (median)", "idle RSS", "of it private", "threads"
    );
    for &kind in kinds {
        let mut runs: Vec<&start::StartRun> =
            starts.iter().filter(|r| r.target == kind.name()).collect();
        if runs.is_empty() {
            continue;
        }
        runs.sort_by(|a, b| a.first_answer_ms.total_cmp(&b.first_answer_ms));
        let mid = runs[runs.len() / 2];
        let each: Vec<String> = starts
            .iter()
            .filter(|r| r.target == kind.name())
            .map(|r| format!("{:.1}", r.first_answer_ms))
            .collect();
        println!(
            "{:<22}{:>26}{:>12}{:>14}{:>9}   each: {}",
            kind.name(),
            format!("{:.1}", mid.first_answer_ms),
            format!("{:.1} MB", mid.idle_rss_kb as f64 / 1024.0),
            format!("{:.1} MB", mid.idle_anon_kb as f64 / 1024.0),
            mid.threads,
            each.join(" ")
        );
    }
    let mut loads = Vec::new();
    if items > 0 {
        println!(
            "\n{:<22}{:>10}{:>12}{:>12}{:>12}{:>14}{:>15}",
            "bulk load",
            "items",
            "items/s",
            "peak RSS",
            "RSS at end",
            "RSS 2 s after",
            "RSS 10 s after"
        );
        for &kind in kinds {
            match start::load(kind, items, kura_args).await {
                Ok(run) => {
                    println!(
                        "{:<22}{:>10}{:>12.0}{:>12}{:>12}{:>14}{:>15}",
                        run.target,
                        run.items,
                        run.items as f64 / run.seconds,
                        format!("{:.1} MB", run.peak_kb as f64 / 1024.0),
                        format!("{:.1} MB", run.end_kb as f64 / 1024.0),
                        format!("{:.1} MB", run.after_2s_kb as f64 / 1024.0),
                        format!("{:.1} MB", run.after_10s_kb as f64 / 1024.0),
                    );
                    loads.push(run);
                }
                Err(why) => eprintln!("{} load skipped: {why}", kind.name()),
            }
        }
    }
    save_json(
        json,
        &serde_json::json!({"machine": machine(), "starts": starts, "loads": loads}),
    )
}

/// Writes `report` as pretty JSON to `path`, when one was given.
fn save_json(path: Option<std::path::PathBuf>, report: &serde_json::Value) -> Result<(), String> {
    let Some(path) = path else {
        return Ok(());
    };
    let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| e.to_string())
}

async fn suite_command(
    kinds: &[Kind],
    tests: usize,
    workers: &[usize],
    rounds: usize,
    reset_items: &[usize],
    kura_args: &[String],
    json: Option<std::path::PathBuf>,
) -> Result<(), String> {
    use suite::Cleanup;
    let mut runs = Vec::new();
    for _ in 0..rounds {
        for &w in workers {
            for &kind in kinds {
                match suite::run(kind, tests, w, Cleanup::Delete, kura_args).await {
                    Ok(run) => {
                        eprintln!(
                            "{:<16} {} worker(s), delete: {:.2} s, test p50 {:.1} ms",
                            run.target, w, run.seconds, run.test_p50_ms
                        );
                        runs.push(run);
                    }
                    Err(why) => eprintln!("{} skipped: {why}", kind.name()),
                }
            }
            if w == 1 && kinds.contains(&Kind::KuraMemory) {
                match suite::run(Kind::KuraMemory, tests, 1, Cleanup::Reset, kura_args).await {
                    Ok(run) => {
                        eprintln!(
                            "{:<16} 1 worker, reset: {:.2} s, reset p50 {:.2} ms",
                            run.target, run.seconds, run.cleanup_p50_ms
                        );
                        runs.push(run);
                    }
                    Err(why) => eprintln!("kura-memory with resets skipped: {why}"),
                }
            }
        }
    }
    println!(
        "\n{:<18}{:>8}{:>9}{:>24}{:>12}{:>14}{:>12}",
        "target",
        "workers",
        "cleanup",
        "suite s (each round)",
        "test p50",
        "cleanup p50",
        "vs kura"
    );
    let label = |c: Cleanup| {
        if c == Cleanup::Delete {
            "delete"
        } else {
            "reset"
        }
    };
    let mut seen = Vec::new();
    for run in &runs {
        let key = (run.target.clone(), run.workers, run.cleanup);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let same: Vec<&suite::SuiteRun> = runs
            .iter()
            .filter(|r| {
                r.target == run.target && r.workers == run.workers && r.cleanup == run.cleanup
            })
            .collect();
        let mean =
            |rs: &[&suite::SuiteRun]| rs.iter().map(|r| r.seconds).sum::<f64>() / rs.len() as f64;
        let kura: Vec<&suite::SuiteRun> = runs
            .iter()
            .filter(|r| {
                r.target == "kura-memory"
                    && r.workers == run.workers
                    && r.cleanup == Cleanup::Delete
            })
            .collect();
        let versus = if kura.is_empty() {
            "-".into()
        } else {
            format!("{:.2}", mean(&same) / mean(&kura))
        };
        let each: Vec<String> = same.iter().map(|r| format!("{:.2}", r.seconds)).collect();
        println!(
            "{:<18}{:>8}{:>9}{:>24}{:>12}{:>14}{:>12}",
            run.target,
            run.workers,
            label(run.cleanup),
            each.join(" "),
            format!(
                "{:.1} ms",
                same.iter().map(|r| r.test_p50_ms).sum::<f64>() / same.len() as f64
            ),
            format!(
                "{:.2} ms",
                same.iter().map(|r| r.cleanup_p50_ms).sum::<f64>() / same.len() as f64
            ),
            versus
        );
    }
    let mut resets = Vec::new();
    for &items in reset_items {
        let (median_ms, times) = suite::reset_cost(items, 5, kura_args).await?;
        println!(
            "reset of kura --in-memory --test-controls at {items} items: {median_ms:.2} ms median of {:?}",
            times
                .iter()
                .map(|t| (t * 100.0).round() / 100.0)
                .collect::<Vec<_>>()
        );
        resets.push(serde_json::json!({"items": items, "median_ms": median_ms, "times_ms": times}));
    }
    save_json(
        json,
        &serde_json::json!({"machine": machine(), "runs": runs, "resets": resets}),
    )
}

fn print_footprint(f: &footprint::Footprint) {
    println!("\nkura footprint ({} items of ~1 KB)", f.items);
    println!(
        "start to /ready        {:.1} ms median of {:?} (new data directory)",
        f.ready_median_ms,
        f.ready_ms
            .iter()
            .map(|m| (m * 10.0).round() / 10.0)
            .collect::<Vec<_>>()
    );
    println!(
        "restart to /ready      {:.1} ms median, {} items, after kill -9",
        f.restart_median_ms, f.items
    );
    println!(
        "RSS idle               {:.1} MB",
        f.rss_idle_kb as f64 / 1024.0
    );
    println!(
        "RSS after the load     {:.1} MB 2 s after, {:.1} MB 10 s after (peak {:.1} MB)",
        f.rss_loaded_kb as f64 / 1024.0,
        f.rss_settled_kb as f64 / 1024.0,
        f.rss_peak_kb as f64 / 1024.0
    );
    println!("on disk                {:.1} MB", f.disk_bytes as f64 / 1e6);
    println!(
        "fsync                  {:.2} ms median (4 KB append + fdatasync beside the data)",
        f.fsync_median_ms
    );
    println!(
        "bulk load              {:.0} items/s (BatchWriteItem 25, 16 clients)",
        f.bulk_load_items_per_sec
    );
    println!(
        "Query p50 / p99        {:.3} / {:.3} ms at {} items; {:.3} / {:.3} ms at {} items; p50 growth {:.2}x",
        f.query_small.p50_ms,
        f.query_small.p99_ms,
        f.query_small
            .target
            .trim_start_matches("kura, ")
            .trim_end_matches(" items"),
        f.query_large.p50_ms,
        f.query_large.p99_ms,
        f.items,
        f.query_p50_growth
    );
}
