//! Start and memory, the same way for Kura and its peers, in one run: time from spawning
//! the server to its first DynamoDB answer (a ListTables polled every 0.5 ms, as a test
//! fixture waits), memory idle, and memory while and after a bulk load of 1 KB items into
//! a table with a GSI.

use std::io::{Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::footprint::{BULK_TABLE, bulk_load, status_kb};
use crate::targets::{self, Kind};
use crate::workload;

#[derive(Debug, Clone, Serialize)]
pub struct StartRun {
    pub target: String,
    /// Spawn to the first ListTables answer, in milliseconds.
    pub first_answer_ms: f64,
    /// One second after the first answer: resident memory, and of it the private
    /// (anonymous) part, which is what the process itself allocated; the rest is its
    /// binary's pages, shared with the page cache.
    pub idle_rss_kb: u64,
    pub idle_anon_kb: u64,
    pub threads: usize,
}

/// Spawns `kind` on a new directory and polls ListTables until it answers.
pub fn first_answer(kind: Kind, kura_args: &[String]) -> Result<StartRun, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let port = targets::free_port()?;
    let mut command = targets::command(kind, port, dir.path(), kura_args)?;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let started = Instant::now();
    let mut child = command.spawn().map_err(|e| e.to_string())?;
    let answered = loop {
        if list_tables_once(port) {
            break Ok(started.elapsed().as_secs_f64() * 1000.0);
        }
        if started.elapsed() > Duration::from_secs(60) {
            break Err(format!("{} did not answer in 60 s", kind.name()));
        }
        std::thread::sleep(Duration::from_micros(500));
    };
    let result = answered.and_then(|ms| {
        std::thread::sleep(Duration::from_secs(1));
        let pid = child.id();
        Ok(StartRun {
            target: kind.name().into(),
            first_answer_ms: ms,
            idle_rss_kb: status_kb(pid, "VmRSS")?,
            idle_anon_kb: status_kb(pid, "RssAnon")?,
            threads: std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |d| d.count()),
        })
    });
    let _ = child.kill();
    let _ = child.wait();
    result
}

fn list_tables_once(port: u16) -> bool {
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let body = b"{}";
    let request = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-amz-json-1.0\r\n\
         X-Amz-Target: DynamoDB_20120810.ListTables\r\nX-Amz-Date: 20260101T000000Z\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if stream.write_all(request.as_bytes()).is_err() || stream.write_all(body).is_err() {
        return false;
    }
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    answer.starts_with(b"HTTP/1.1 200") && answer.windows(10).any(|w| w == b"TableNames")
}

#[derive(Debug, Clone, Serialize)]
pub struct LoadRun {
    pub target: String,
    pub items: usize,
    pub seconds: f64,
    /// Highest resident memory during the load (VmHWM), at its end, 2 s after and 10 s
    /// after (what an idle server settles at).
    pub peak_kb: u64,
    pub end_kb: u64,
    pub after_2s_kb: u64,
    pub after_10s_kb: u64,
}

/// Loads `items` items of ~1 KB into a table with an ALL-projection GSI (16 writers of
/// BatchWriteItem), sampling resident memory as it goes.
pub async fn load(kind: Kind, items: usize, kura_args: &[String]) -> Result<LoadRun, String> {
    let target = targets::start(kind, kura_args).await?;
    let pid = target.pid().ok_or("not a process")?;
    target
        .driver
        .must(&workload::create_table_with_gsi(BULK_TABLE))
        .await?;
    targets::wait_active(&target.driver, BULK_TABLE).await?;
    let started = Instant::now();
    bulk_load(&target, 0, items / 25 * 25).await?;
    let seconds = started.elapsed().as_secs_f64();
    let end_kb = status_kb(pid, "VmRSS")?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after_2s_kb = status_kb(pid, "VmRSS")?;
    tokio::time::sleep(Duration::from_secs(8)).await;
    Ok(LoadRun {
        target: kind.name().into(),
        items,
        seconds,
        peak_kb: status_kb(pid, "VmHWM")?,
        end_kb,
        after_2s_kb,
        after_10s_kb: status_kb(pid, "VmRSS")?,
    })
}
