//! Runs one workload at one concurrency against one target and summarises it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::driver::Driver;
use crate::workload::{WorkerState, Workload};

/// A request that takes longer counts as an error of type `timeout`.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The figures of one run.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub target: String,
    pub workload: Workload,
    pub concurrency: usize,
    pub seconds: f64,
    /// Completed requests per second, errors included.
    pub ops_per_sec: f64,
    /// An open-loop run's offered rate, requests per second (`--rate`); None for a closed
    /// loop.
    pub offered_per_sec: Option<f64>,
    /// An open-loop run's p99 latency counted from when each request was due rather than
    /// sent: what a caller on that schedule waited, the client's own queue included
    /// (wrk2's correction for coordinated omission).
    pub p99_from_due_ms: Option<f64>,
    /// An open-loop run's requests that fell due in the measured window but were never
    /// sent (their connection was still waiting for an earlier answer at the end).
    pub due_not_sent: Option<usize>,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub requests: usize,
    /// Failed requests by error type.
    pub errors: BTreeMap<String, usize>,
    /// The target process's CPU time (user + system, from its own accounting in
    /// `/proc/PID/stat`) during the measured window, per completed request, in
    /// microseconds. None for a target that is not a process of this machine.
    pub server_cpu_us: Option<f64>,
    /// Of `server_cpu_us`, what Kura spent moving data to the disk: the system time of its
    /// writer thread (journal writes and syncs) and all of fjall's background workers
    /// (memtable flushes, compactions). Issue 16 measures writes without it. None for
    /// targets without such threads.
    pub storage_cpu_us: Option<f64>,
}

impl RunResult {
    pub fn error_count(&self) -> usize {
        self.errors.values().sum()
    }
}

/// How long to run: `warmup` first (not counted), then `measure`; and how fast.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub warmup: Duration,
    pub measure: Duration,
    /// Paced: this many requests per second in all, each client connection on its own
    /// even schedule (as wrk2 does), sending late rather than skipping when it falls
    /// behind. A connection still has one request in flight at most, so past capacity
    /// the target sees what a closed loop of the same connections shows; what pacing adds
    /// is the latency counted from when each request was due, and the count of those
    /// never sent. None: a closed loop, each client sends as soon as its answer is in.
    pub rate: Option<f64>,
}

/// A `stat` file's command name and its user and system CPU time in clock ticks (fields 2,
/// 14 and 15 of `/proc/PID/stat` or `/proc/PID/task/TID/stat`). The name may hold spaces
/// and parentheses: the fields after it start past its last ')'.
fn stat_times(stat: &str) -> Option<(&str, u64, u64)> {
    let close = stat.rfind(')')?;
    let name = stat.get(stat.find('(')? + 1..close)?;
    let mut fields = stat.get(close + 2..)?.split_whitespace().skip(11);
    let user = fields.next()?.parse().ok()?;
    let system = fields.next()?.parse().ok()?;
    Some((name, user, system))
}

/// Clock ticks of 10 ms on Linux, in microseconds.
const TICK_US: u64 = 10_000;

/// CPU time a process has used, user and system, in microseconds.
pub fn process_cpu_us(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, user, system) = stat_times(&stat)?;
    Some((user + system) * TICK_US)
}

/// The CPU time of a process's threads that work for the disk (see
/// [`RunResult::storage_cpu_us`]), from `/proc/PID/task/TID/stat`; None when it has none.
pub fn storage_cpu_us(pid: u32) -> Option<u64> {
    let mut total = None;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .flatten()
    {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        let ticks = match stat_times(&stat) {
            Some(("kura-writer", _, system)) => system,
            Some((name, user, system)) if name.starts_with("fjall:") => user + system,
            _ => continue,
        };
        *total.get_or_insert(0) += ticks * TICK_US;
    }
    total
}

pub async fn run(
    target: &str,
    driver: Arc<Driver>,
    workload: Workload,
    run_id: usize,
    concurrency: usize,
    timing: Timing,
    pid: Option<u32>,
) -> RunResult {
    let started = Instant::now();
    let measure_from = started + timing.warmup;
    let end = measure_from + timing.measure;
    // The target's CPU clock at both ends of the measured window.
    let cpu_window = pid.map(|pid| {
        tokio::spawn(async move {
            tokio::time::sleep_until(measure_from.into()).await;
            let first = (process_cpu_us(pid), storage_cpu_us(pid));
            tokio::time::sleep_until(end.into()).await;
            let last = (process_cpu_us(pid), storage_cpu_us(pid));
            let spent = |a: Option<u64>, b: Option<u64>| a.zip(b).map(|(a, b)| b.saturating_sub(a));
            (spent(first.0, last.0), spent(first.1, last.1))
        })
    });
    // Each client's interval between requests, and where its schedule starts (spread
    // over one interval, so the clients do not all send at once).
    let interval = timing
        .rate
        .map(|rate| Duration::from_secs_f64(concurrency as f64 / rate.max(1e-3)));
    let mut tasks = Vec::with_capacity(concurrency);
    for worker in 0..concurrency {
        let driver = driver.clone();
        let first_due = interval.map(|i| started + i.mul_f64(worker as f64 / concurrency as f64));
        tasks.push(tokio::spawn(async move {
            let mut state = WorkerState::new(run_id, worker);
            let mut latencies: Vec<u32> = Vec::new();
            let mut from_due: Vec<u32> = Vec::new();
            let mut errors: BTreeMap<String, usize> = BTreeMap::new();
            let mut due = first_due;
            loop {
                if let Some(at) = due
                    && at > Instant::now()
                {
                    tokio::time::sleep_until(at.into()).await;
                }
                if Instant::now() >= end {
                    break;
                }
                // The body is built before the clock starts: latency is the target's.
                let request = workload.next(&mut state);
                let sent = Instant::now();
                let outcome =
                    match tokio::time::timeout(REQUEST_TIMEOUT, driver.call(&request)).await {
                        Ok(outcome) => outcome,
                        Err(_) => crate::driver::Outcome {
                            error: Some("timeout".into()),
                            body: bytes::Bytes::new(),
                        },
                    };
                let took = sent.elapsed();
                workload.observe(&mut state, outcome.error.is_none(), &outcome.body);
                // A closed loop: what completes inside the window counts, whenever it was
                // sent (a target slower than the warm-up still shows its completions).
                let completed = sent + took;
                let micros = |d: Duration| u32::try_from(d.as_micros()).unwrap_or(u32::MAX);
                if completed >= measure_from && completed <= end {
                    latencies.push(micros(took));
                    if let (Some(at), Some(_)) = (due, interval) {
                        from_due.push(micros(completed.saturating_duration_since(at)));
                    }
                    if let Some(e) = outcome.error {
                        *errors.entry(e).or_default() += 1;
                    }
                }
                due = due.zip(interval).map(|(at, i)| at + i);
            }
            // What fell due in the window and was never sent.
            let mut not_sent = 0usize;
            if let (Some(at), Some(i)) = (due, interval) {
                let from = at.max(measure_from);
                if from <= end {
                    let behind = (end - from).as_secs_f64() / i.as_secs_f64();
                    not_sent = behind as usize + 1;
                }
            }
            (latencies, from_due, errors, not_sent)
        }));
    }
    let mut latencies = Vec::new();
    let mut from_due = Vec::new();
    let mut not_sent = 0;
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    for task in tasks {
        if let Ok((l, d, e, n)) = task.await {
            latencies.extend(l);
            from_due.extend(d);
            not_sent += n;
            for (k, v) in e {
                *errors.entry(k).or_default() += v;
            }
        }
    }
    let seconds = timing.measure.as_secs_f64();
    let (cpu_us, storage_us) = match cpu_window {
        Some(task) => task.await.unwrap_or_default(),
        None => (None, None),
    };
    let mut result = summarise(
        target,
        workload,
        concurrency,
        seconds,
        &mut latencies,
        errors,
    );
    let per_request = |us: Option<u64>| {
        us.filter(|_| result.requests > 0)
            .map(|us| us as f64 / result.requests as f64)
    };
    result.server_cpu_us = per_request(cpu_us);
    result.offered_per_sec = timing.rate;
    if timing.rate.is_some() {
        from_due.sort_unstable();
        result.p99_from_due_ms = Some(quantile_ms(&from_due, 0.99));
        result.due_not_sent = Some(not_sent);
    }
    result.storage_cpu_us = per_request(storage_us);
    result
}

pub fn summarise(
    target: &str,
    workload: Workload,
    concurrency: usize,
    seconds: f64,
    latencies_us: &mut [u32],
    errors: BTreeMap<String, usize>,
) -> RunResult {
    latencies_us.sort_unstable();
    let at = |q: f64| quantile_ms(latencies_us, q);
    RunResult {
        target: target.to_owned(),
        workload,
        concurrency,
        seconds,
        ops_per_sec: latencies_us.len() as f64 / seconds,
        offered_per_sec: None,
        p99_from_due_ms: None,
        due_not_sent: None,
        p50_ms: at(0.50),
        p99_ms: at(0.99),
        max_ms: at(1.0),
        requests: latencies_us.len(),
        errors,
        server_cpu_us: None,
        storage_cpu_us: None,
    }
}

/// The `q` quantile of sorted microseconds, in milliseconds (0 for none).
fn quantile_ms(sorted_us: &[u32], q: f64) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let i = ((sorted_us.len() as f64 * q).ceil() as usize).clamp(1, sorted_us.len());
    f64::from(sorted_us[i - 1]) / 1000.0
}

#[cfg(test)]
mod tests {
    #[test]
    fn stat_times_reads_the_fields_after_a_name_with_spaces_and_parentheses() {
        let stat = "42 (fjall:worker (1)) S 1 2 3 4 5 6 7 8 9 10 250 37 0 0 20 0";
        assert_eq!(super::stat_times(stat), Some(("fjall:worker (1)", 250, 37)));
        assert_eq!(super::stat_times("42 (kura"), None);
    }
}
