//! The peer table (issue 54) in one run: Kura beside Dynoxide, each figure with its goal.
//!
//! - reads and writes with 16 clients, durable (`kura serve` on a data directory, Dynoxide
//!   on a database file), the targets interleaved round by round;
//! - every workload with one client, in memory;
//! - start to first answer, idle memory, memory 2 s after a 100k-item bulk load;
//! - the loopback echo server's GetItem-sized exchange with 16 clients: the HTTP floor of
//!   this machine, which bounds every read ratio (a server that did no work at all would
//!   reach it, no more).
//!
//! The table is printed as Markdown (for the README and docs/figures.md) and written as
//! JSON with `--json`.

use serde::Serialize;

use crate::runner::RunResult;
use crate::start::{self, LoadRun, StartRun};
use crate::targets::{self, Kind};
use crate::workload::Workload;
use crate::{LoadArgs, WorkloadArg};

/// What a row is held to.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// Kura ÷ Dynoxide at least this.
    RatioAtLeast(f64),
    /// Kura's own figure at most this (MB or ms).
    AtMost(f64),
    /// No goal: shown for context.
    None,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub figure: String,
    pub unit: &'static str,
    pub kura: Option<f64>,
    pub dynoxide: Option<f64>,
    pub goal: Goal,
}

impl Row {
    fn ratio(&self) -> Option<f64> {
        Some(self.kura? / self.dynoxide?.max(1e-9))
    }

    /// None when a figure is missing or there is no goal.
    fn met(&self) -> Option<bool> {
        match self.goal {
            Goal::RatioAtLeast(at_least) => Some(self.ratio()? >= at_least),
            Goal::AtMost(at_most) => Some(self.kura? <= at_most),
            Goal::None => None,
        }
    }
}

pub struct PeerArgs {
    /// `kura` (the README's build) or `kura-dist` (the shipped one).
    pub kura: Kind,
    pub seconds: f64,
    pub rounds: usize,
    pub starts: usize,
    pub items: usize,
}

const DURABLE_READS: [Workload; 4] = [
    Workload::Get,
    Workload::Query,
    Workload::Scan,
    Workload::Scan100,
];
const DURABLE_WRITES: [Workload; 4] = [
    Workload::Put,
    Workload::Update,
    Workload::Transact,
    Workload::BatchWrite,
];
/// The ratios issue 54 measured for writes, to be kept.
const WRITE_RATIOS_KEPT: [f64; 4] = [3.7, 4.6, 5.5, 0.0];

/// Runs everything and returns the rows, in the table's order.
pub async fn measure(args: &PeerArgs) -> Result<Vec<Row>, String> {
    let memory_kura = memory_kind(args.kura)?;
    let durable = [args.kura, Kind::Dynoxide];
    let in_memory = [memory_kura, Kind::DynoxideMemory];
    let sixteen = load_args(args, DURABLE_READS.iter().chain(&DURABLE_WRITES), 16);
    let one = load_args(
        args,
        DURABLE_READS
            .iter()
            .chain(&DURABLE_WRITES)
            .filter(|w| **w != Workload::Scan100),
        1,
    );
    let floor = load_args(args, [Workload::Get].iter(), 16);
    let mut results = Vec::new();
    for _ in 0..args.rounds {
        run_targets(&[Kind::Echo], &floor, &mut results).await;
        run_targets(&durable, &sixteen, &mut results).await;
        run_targets(&in_memory, &one, &mut results).await;
    }
    let mut starts: Vec<StartRun> = Vec::new();
    for _ in 0..args.starts {
        for kind in [args.kura, Kind::Dynoxide, memory_kura, Kind::DynoxideMemory] {
            match start::first_answer(kind, &[]) {
                Ok(run) => starts.push(run),
                Err(why) => eprintln!("{} start skipped: {why}", kind.name()),
            }
        }
    }
    let mut loads: Vec<LoadRun> = Vec::new();
    for kind in durable {
        match start::load(kind, args.items, &[]).await {
            Ok(run) => loads.push(run),
            Err(why) => eprintln!("{} load skipped: {why}", kind.name()),
        }
    }
    let mut rows = Vec::new();
    let mean_ops = |kind: Kind, w: Workload, c: usize| mean_ops(&results, kind, w, c);
    for w in DURABLE_READS {
        rows.push(Row {
            figure: format!("{}, 16 clients, durable", w.label()),
            unit: "/s",
            kura: mean_ops(args.kura, w, 16),
            dynoxide: mean_ops(Kind::Dynoxide, w, 16),
            goal: Goal::RatioAtLeast(3.0),
        });
    }
    rows.push(Row {
        figure: "HTTP floor: the echo server, GetItem's exchange, 16 clients".into(),
        unit: "/s",
        kura: mean_ops(Kind::Echo, Workload::Get, 16),
        dynoxide: mean_ops(Kind::Dynoxide, Workload::Get, 16),
        goal: Goal::None,
    });
    for (w, kept) in DURABLE_WRITES.into_iter().zip(WRITE_RATIOS_KEPT) {
        rows.push(Row {
            figure: format!("{}, 16 clients, durable", w.label()),
            unit: "/s",
            kura: mean_ops(args.kura, w, 16),
            dynoxide: mean_ops(Kind::Dynoxide, w, 16),
            goal: if kept > 0.0 {
                Goal::RatioAtLeast(kept)
            } else {
                Goal::None
            },
        });
    }
    for w in one.workloads.iter().map(|w| w.0) {
        rows.push(Row {
            figure: format!("{}, 1 client, in memory", w.label()),
            unit: "/s",
            kura: mean_ops(memory_kura, w, 1),
            dynoxide: mean_ops(Kind::DynoxideMemory, w, 1),
            goal: Goal::RatioAtLeast(1.5),
        });
    }
    let start_ms = |kind: Kind| median(&starts, kind, |r| r.first_answer_ms);
    let idle_mb = |kind: Kind| median(&starts, kind, |r| r.idle_rss_kb as f64 / 1024.0);
    rows.push(Row {
        figure: "start to first answer, new data directory".into(),
        unit: "ms",
        kura: start_ms(args.kura),
        dynoxide: start_ms(Kind::Dynoxide),
        goal: Goal::AtMost(5.0),
    });
    rows.push(Row {
        figure: "start to first answer, in memory".into(),
        unit: "ms",
        kura: start_ms(memory_kura),
        dynoxide: start_ms(Kind::DynoxideMemory),
        goal: Goal::AtMost(3.0),
    });
    rows.push(Row {
        figure: "idle RSS".into(),
        unit: "MB",
        kura: idle_mb(args.kura),
        dynoxide: idle_mb(Kind::Dynoxide),
        goal: Goal::AtMost(10.0),
    });
    let after_load = |kind: Kind| {
        loads
            .iter()
            .find(|r| r.target == kind.name())
            .map(|r| r.after_2s_kb as f64 / 1024.0)
    };
    rows.push(Row {
        figure: format!(
            "RSS 2 s after loading {}k 1 KB items with a GSI",
            args.items / 1000
        ),
        unit: "MB",
        kura: after_load(args.kura),
        dynoxide: after_load(Kind::Dynoxide),
        goal: Goal::AtMost(16.0),
    });
    Ok(rows)
}

fn memory_kind(kura: Kind) -> Result<Kind, String> {
    match kura {
        Kind::Kura => Ok(Kind::KuraMemory),
        Kind::KuraDist => Ok(Kind::KuraDistMemory),
        other => Err(format!(
            "the peer table compares kura or kura-dist, not {}",
            other.name()
        )),
    }
}

fn load_args<'a>(
    args: &PeerArgs,
    workloads: impl Iterator<Item = &'a Workload>,
    c: usize,
) -> LoadArgs {
    LoadArgs {
        workloads: workloads.map(|w| WorkloadArg(*w)).collect(),
        concurrency: vec![c],
        seconds: args.seconds,
        warmup: 1.0,
        rate: None,
        kura_args: Vec::new(),
        json: None,
    }
}

/// Each target started, set up and run in turn (a target that cannot start is skipped
/// with a message: its cells stay empty).
async fn run_targets(kinds: &[Kind], load: &LoadArgs, out: &mut Vec<RunResult>) {
    for &kind in kinds {
        let target = match targets::start(kind, &load.kura_args).await {
            Ok(t) => t,
            Err(why) => {
                eprintln!("{} skipped: {why}", kind.name());
                continue;
            }
        };
        if target.needs_setup
            && let Err(why) = targets::prepare(&target).await
        {
            eprintln!("{} skipped: set-up failed: {why}", kind.name());
            continue;
        }
        crate::run_all(&target, load, out).await;
    }
}

fn mean_ops(results: &[RunResult], kind: Kind, w: Workload, c: usize) -> Option<f64> {
    let runs: Vec<f64> = results
        .iter()
        .filter(|r| r.target == kind.name() && r.workload == w && r.concurrency == c)
        .map(|r| r.ops_per_sec)
        .collect();
    (!runs.is_empty()).then(|| runs.iter().sum::<f64>() / runs.len() as f64)
}

fn median(starts: &[StartRun], kind: Kind, figure: fn(&StartRun) -> f64) -> Option<f64> {
    let mut values: Vec<f64> = starts
        .iter()
        .filter(|r| r.target == kind.name())
        .map(figure)
        .collect();
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

/// The rows as a Markdown table.
pub fn markdown(rows: &[Row], kura: Kind) -> String {
    let mut out = format!(
        "| figure | Kura ({}) | Dynoxide | Kura ÷ Dynoxide | goal | met |\n|---|---:|---:|---:|---:|:---:|\n",
        kura.name()
    );
    for row in rows {
        let value = |v: Option<f64>| match (v, row.unit) {
            (None, _) => "-".to_owned(),
            (Some(v), "/s") => format!("{v:.0}/s"),
            (Some(v), unit) => format!("{v:.1} {unit}"),
        };
        let goal = match row.goal {
            Goal::RatioAtLeast(r) => format!("≥ {r:.1}×"),
            Goal::AtMost(v) => format!("≤ {v:.0} {}", row.unit),
            Goal::None => String::new(),
        };
        let met = match row.met() {
            Some(true) => "yes",
            Some(false) => "no",
            None => "",
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {goal} | {met} |\n",
            row.figure,
            value(row.kura),
            value(row.dynoxide),
            row.ratio().map_or("-".into(), |r| format!("{r:.2}×")),
        ));
    }
    out
}
