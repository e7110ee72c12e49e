//! Kura's own figures: time from process start to `/ready`, resident memory idle and after
//! a bulk load, the size on disk, the bulk load rate, and how Query latency grows from a
//! small table to a large one. The bulk table has one ALL-projection GSI, so every item is
//! stored twice.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::driver::Driver;
use crate::runner::{RunResult, summarise};
use crate::targets::{self, Kind, Target};
use crate::workload::{self, PER_PARTITION, Workload};

pub(crate) const BULK_TABLE: &str = "kura_bench_bulk";
/// Items in the small table whose Query latency is the reference.
const SMALL: usize = 10_000;

#[derive(Debug, Serialize)]
pub struct Footprint {
    /// Milliseconds from spawning `kura serve` to the first 200 from `/ready`, each start.
    pub ready_ms: Vec<f64>,
    pub ready_median_ms: f64,
    /// The same on the loaded data directory, after a kill -9.
    pub restart_ms: Vec<f64>,
    pub restart_median_ms: f64,
    pub rss_idle_kb: u64,
    pub items: usize,
    pub bulk_load_items_per_sec: f64,
    /// RSS 2 s after the load (compactions may still run), and 10 s after it.
    pub rss_loaded_kb: u64,
    pub rss_settled_kb: u64,
    pub rss_peak_kb: u64,
    pub disk_bytes: u64,
    /// Median time of a 4 KB write and `fdatasync` to a file beside the data directory:
    /// the disk's floor under every synced commit.
    pub fsync_median_ms: f64,
    pub query_small: RunResult,
    pub query_large: RunResult,
    /// p50 at `items` over p50 at the small table.
    pub query_p50_growth: f64,
}

pub async fn measure(items: usize, kura_args: &[String]) -> Result<Footprint, String> {
    let items = items.max(SMALL) / 25 * 25;
    let mut ready_ms = Vec::new();
    for _ in 0..5 {
        let fresh = tempfile::tempdir().map_err(|e| e.to_string())?;
        ready_ms.push(time_to_ready(&fresh.path().join("data"), kura_args)?);
    }
    let ready_median_ms = median(&ready_ms);

    let target = targets::start(Kind::Kura, kura_args).await?;
    let pid = target.pid().ok_or("kura has no pid")?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_idle_kb = status_kb(pid, "VmRSS")?;

    target
        .driver
        .must(&workload::create_table_with_gsi(BULK_TABLE))
        .await?;
    targets::wait_active(&target.driver, BULK_TABLE).await?;

    bulk_load(&target, 0, SMALL).await?;
    let query_small = query_latency(&target, SMALL).await;
    let started = Instant::now();
    bulk_load(&target, SMALL, items).await?;
    let bulk_load_items_per_sec = (items - SMALL) as f64 / started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_loaded_kb = status_kb(pid, "VmRSS")?;
    let rss_peak_kb = status_kb(pid, "VmHWM")?;
    tokio::time::sleep(Duration::from_secs(8)).await;
    let rss_settled_kb = status_kb(pid, "VmRSS")?;
    let query_large = query_latency(&target, items).await;
    let data = target.data_dir().ok_or("no data dir")?;
    let disk_bytes = dir_size(&data);
    let fsync_median_ms = fsync_latency_ms(&data)?;
    let query_p50_growth = query_large.p50_ms / query_small.p50_ms.max(1e-9);
    // Restarts on the loaded directory, each after a kill -9 (the journal is replayed).
    let kept = target.kill_keeping_data();
    let mut restart_ms = Vec::new();
    for _ in 0..5 {
        restart_ms.push(time_to_ready(&data, kura_args)?);
    }
    drop(kept);
    Ok(Footprint {
        ready_ms,
        ready_median_ms,
        restart_median_ms: median(&restart_ms),
        restart_ms,
        rss_idle_kb,
        items,
        bulk_load_items_per_sec,
        rss_loaded_kb,
        rss_settled_kb,
        rss_peak_kb,
        disk_bytes,
        fsync_median_ms,
        query_small,
        query_large,
        query_p50_growth,
    })
}

/// The median of 200 appends of 4 KB, each followed by `fdatasync`, in a file created
/// in `dir`'s parent (same file system as the data) and removed after.
fn fsync_latency_ms(dir: &Path) -> Result<f64, String> {
    let path = dir.parent().unwrap_or(dir).join("kura-load-fsync-probe");
    let mut file = std::fs::File::create(&path).map_err(|e| e.to_string())?;
    let block = [0x5a_u8; 4096];
    let mut times = Vec::with_capacity(200);
    for _ in 0..200 {
        let started = Instant::now();
        file.write_all(&block).map_err(|e| e.to_string())?;
        file.sync_data().map_err(|e| e.to_string())?;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    drop(file);
    let _ = std::fs::remove_file(&path);
    Ok(median(&times))
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}

/// Spawns `kura serve` on `data` and polls `/ready` as fast as it can; then kills it.
fn time_to_ready(data: &Path, kura_args: &[String]) -> Result<f64, String> {
    let port = targets::free_port()?;
    let started = Instant::now();
    let mut child = Command::new(targets::kura_binary()?)
        .arg("serve")
        .args(["--port", &port.to_string(), "--data-dir"])
        .arg(data)
        .args(kura_args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let result = loop {
        if ready_once(port) {
            break Ok(started.elapsed().as_secs_f64() * 1000.0);
        }
        if started.elapsed() > Duration::from_secs(30) {
            break Err("kura did not become ready in 30 s".to_owned());
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let _ = child.kill();
    let _ = child.wait();
    result
}

fn ready_once(port: u16) -> bool {
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let request = b"GET /ready HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    if stream.write_all(request).is_err() {
        return false;
    }
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    answer.starts_with(b"HTTP/1.1 200")
}

/// Loads items `from..to` with BatchWriteItem from 16 concurrent writers.
pub(crate) async fn bulk_load(target: &Target, from: usize, to: usize) -> Result<(), String> {
    const WRITERS: usize = 16;
    let mut tasks = Vec::new();
    for writer in 0..WRITERS {
        let driver: Arc<Driver> = target.driver.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = fastrand::Rng::with_seed(writer as u64);
            let mut first = from + writer * 25;
            while first < to {
                let batch = workload::bulk_batch(BULK_TABLE, first, &mut rng);
                targets::write_batch(&driver, batch).await?;
                first += WRITERS * 25;
            }
            Ok::<(), String>(())
        }));
    }
    for task in tasks {
        task.await.map_err(|e| e.to_string())??;
    }
    Ok(())
}

/// Query latency, one client at a time, over partitions spread across `items`.
async fn query_latency(target: &Target, items: usize) -> RunResult {
    let partitions = items / PER_PARTITION;
    let mut rng = fastrand::Rng::with_seed(99);
    let mut latencies = Vec::new();
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    let measure = Duration::from_secs(3);
    let started = Instant::now();
    while started.elapsed() < measure {
        let request = workload::query_page(BULK_TABLE, rng.usize(..partitions));
        let sent = Instant::now();
        let outcome = target.driver.call(&request).await;
        latencies.push(u32::try_from(sent.elapsed().as_micros()).unwrap_or(u32::MAX));
        if let Some(e) = outcome.error {
            *errors.entry(e).or_default() += 1;
        }
    }
    summarise(
        &format!("kura, {items} items"),
        Workload::Query,
        1,
        measure.as_secs_f64(),
        &mut latencies,
        errors,
    )
}

/// A `/proc/PID/status` field in kB (VmRSS: resident now; VmHWM: the peak).
pub(crate) fn status_kb(pid: u32, field: &str) -> Result<u64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status"))
}

fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}
