//! A real full disk: `kura serve` on a small tmpfs the test mounts, written to until the
//! filesystem is full (ENOSPC from the kernel, not an injected fault).
//!
//! - writes that do not fit are refused with a 5xx (InternalServerError), never
//!   acknowledged;
//! - reads go on while the disk is full, and every acknowledged write is readable;
//!   `/ready` answers 503; freeing space does not lift the refusal;
//! - once space is freed, a restart (the store is poisoned by a failed write, as for any
//!   failed sync: docs/reliability.md) serves every acknowledged write and takes new ones;
//! - a `kill -9` after that loses nothing acknowledged either.
//!
//! Mounting needs root (or CAP_SYS_ADMIN): where the mount is refused the test says so
//! and checks nothing else. `KURA_FULL_DISK_MB` sets the filesystem's size (default 48).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue as Av;
use common::KuraProcess;

const TABLE: &str = "Full";

/// A tmpfs of `mb` megabytes mounted at a new directory; unmounted on drop.
struct SmallDisk {
    mount: PathBuf,
    _dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(mb: u64) -> Result<SmallDisk, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mount = dir.path().join("disk");
        std::fs::create_dir(&mount).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={mb}m"),
                "kura-full-disk",
            ])
            .arg(&mount)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
        }
        Ok(SmallDisk { mount, _dir: dir })
    }

    fn path(&self) -> &Path {
        &self.mount
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.mount).status();
    }
}

async fn put(client: &Client, i: usize) -> Result<(), String> {
    client
        .put_item()
        .table_name(TABLE)
        .item("pk", Av::S(format!("k{i:05}")))
        .item("pad", Av::S(format!("{i}:{}", "x".repeat(60_000))))
        .send()
        .await
        .map(drop)
        .map_err(|e| common::code(&e))
}

async fn all_there(client: &Client, acknowledged: &[usize], when: &str) {
    for i in acknowledged {
        let got = client
            .get_item()
            .table_name(TABLE)
            .key("pk", Av::S(format!("k{i:05}")))
            .consistent_read(true)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{when}: reading k{i:05}: {e:?}"));
        assert!(got.item().is_some(), "{when}: k{i:05} was acknowledged");
    }
}

/// The status line and body of `GET /ready`.
async fn get_ready(endpoint: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = endpoint.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream
        .write_all(b"GET /ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_writes_loses_nothing_and_recovers_once_space_is_freed() {
    let mb = std::env::var("KURA_FULL_DISK_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    let disk = match SmallDisk::mount(mb) {
        Ok(disk) => disk,
        Err(why) => {
            eprintln!("full disk: not checked, a tmpfs cannot be mounted here ({why})");
            return;
        }
    };
    // Room the test gives back once the disk is full.
    let filler = disk.path().join("filler");
    std::fs::write(&filler, vec![0u8; 12 << 20]).expect("filler");
    let data = disk.path().join("data");
    let server = KuraProcess::start(Some(&data));
    let client = common::without_retries(&server.client());
    common::create_table(&client, TABLE, "pk", None).await;

    let mut acknowledged = Vec::new();
    let mut refusals = Vec::new();
    for i in 0..(mb as usize * 40) {
        match put(&client, i).await {
            Ok(()) => acknowledged.push(i),
            Err(code) => {
                refusals.push(code);
                if refusals.len() >= 5 {
                    break;
                }
            }
        }
    }
    eprintln!(
        "full disk: {} writes acknowledged, then refused with {:?}",
        acknowledged.len(),
        refusals
    );
    assert!(!refusals.is_empty(), "the disk never filled");
    assert!(!acknowledged.is_empty(), "nothing fitted at all");
    for code in &refusals {
        assert!(
            code == "InternalServerError" || code == "ServiceUnavailable",
            "a full disk is a server error, not {code}"
        );
    }
    // Reads go on while the disk is full.
    all_there(&client, &acknowledged, "while full").await;

    // The server says it is not ready, and why.
    let ready = get_ready(&server.endpoint).await;
    eprintln!("full disk: /ready says {ready}");
    assert!(ready.starts_with("HTTP/1.1 503"), "{ready}");

    // Space back: the store stays refused until a restart (as after any failed write).
    std::fs::remove_file(&filler).expect("free space");
    let after = put(&client, 99_999).await;
    eprintln!("full disk: a write once space is freed, before a restart: {after:?}");
    assert_eq!(after, Err("InternalServerError".to_owned()));
    let _ = server.terminate();
    let server = KuraProcess::start(Some(&data));
    let client = common::without_retries(&server.client());
    all_there(&client, &acknowledged, "after freeing space").await;
    let next = acknowledged.last().copied().unwrap_or(0) + 1_000;
    for i in next..next + 20 {
        put(&client, i)
            .await
            .unwrap_or_else(|code| panic!("a write after space was freed: {code}"));
        acknowledged.push(i);
    }
    server.kill9();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let server = KuraProcess::start(Some(&data));
    all_there(&server.client(), &acknowledged, "after kill -9").await;
}
