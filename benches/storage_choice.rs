//! Storage engine choice: fjall vs redb on Kura's workload shape (ADR 0002).
//!
//! Kura acknowledges a write only after it is synced, and groups concurrent writes into one
//! synced commit. So the figures that matter are: synced commits per second at group sizes
//! 1 and 32 (1 KB values), random point reads, and 100-key range scans over a warm store.
//!
//! Run: `cargo run --release -p kura-bench --bin storage-choice [-- ITEMS]`

use std::time::{Duration, Instant};

const VALUE_LEN: usize = 1024;

fn key(i: u64) -> [u8; 16] {
    // A hash-like prefix spreads keys like Kura's hash(pk) prefix does.
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_be_bytes());
    k[8..].copy_from_slice(&i.to_be_bytes());
    k
}

/// Deterministic pseudo-random sequence (xorshift), so both engines see the same reads.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

struct Figures {
    sync_commit_1: f64,
    sync_commit_32: f64,
    load: f64,
    point_read: f64,
    range_100: f64,
    disk_bytes: u64,
}

trait Engine {
    /// Writes `keys` in one atomic batch, synced before returning.
    fn commit_synced(&self, keys: &[u64], value: &[u8]);
    /// Writes `keys` in one batch without waiting for a sync (bulk load).
    fn commit_unsynced(&self, keys: &[u64], value: &[u8]);
    fn get(&self, k: u64) -> bool;
    fn range_count(&self, from: u64, n: usize) -> usize;
    fn flush(&self);
}

struct Fjall {
    db: fjall::Database,
    ks: fjall::Keyspace,
}

impl Engine for Fjall {
    fn commit_synced(&self, keys: &[u64], value: &[u8]) {
        // As FjallStore commits: the journal is synced before the batch becomes visible.
        let mut b = self
            .db
            .batch()
            .durability(Some(fjall::PersistMode::SyncAll));
        for &k in keys {
            b.insert(&self.ks, key(k), value);
        }
        b.commit().expect("commit");
    }
    fn commit_unsynced(&self, keys: &[u64], value: &[u8]) {
        let mut b = self.db.batch();
        for &k in keys {
            b.insert(&self.ks, key(k), value);
        }
        b.commit().expect("commit");
    }
    // Reads through a snapshot, as FjallStore does.
    fn get(&self, k: u64) -> bool {
        use fjall::Readable;
        self.db
            .snapshot()
            .get(&self.ks, key(k))
            .expect("get")
            .is_some()
    }
    fn range_count(&self, from: u64, n: usize) -> usize {
        use fjall::Readable;
        self.db
            .snapshot()
            .range(&self.ks, key(from)..)
            .take(n)
            .count()
    }
    fn flush(&self) {
        self.db
            .persist(fjall::PersistMode::SyncAll)
            .expect("persist");
    }
}

const TABLE: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new("items");

struct Redb {
    db: redb::Database,
}

impl Redb {
    fn write(&self, keys: &[u64], value: &[u8], durability: redb::Durability) {
        let mut tx = self.db.begin_write().expect("begin");
        tx.set_durability(durability).expect("durability");
        {
            let mut t = tx.open_table(TABLE).expect("open");
            for &k in keys {
                t.insert(key(k).as_slice(), value).expect("insert");
            }
        }
        tx.commit().expect("commit");
    }
}

impl Engine for Redb {
    fn commit_synced(&self, keys: &[u64], value: &[u8]) {
        self.write(keys, value, redb::Durability::Immediate);
    }
    fn commit_unsynced(&self, keys: &[u64], value: &[u8]) {
        self.write(keys, value, redb::Durability::None);
    }
    fn get(&self, k: u64) -> bool {
        use redb::ReadableDatabase;
        let tx = self.db.begin_read().expect("read");
        let t = tx.open_table(TABLE).expect("open");
        t.get(key(k).as_slice()).expect("get").is_some()
    }
    fn range_count(&self, from: u64, n: usize) -> usize {
        use redb::ReadableDatabase;
        let tx = self.db.begin_read().expect("read");
        let t = tx.open_table(TABLE).expect("open");
        let start = key(from);
        t.range(start.as_slice()..).expect("range").take(n).count()
    }
    fn flush(&self) {
        self.write(&[], &[], redb::Durability::Immediate);
    }
}

fn rate(ops: u64, took: Duration) -> f64 {
    ops as f64 / took.as_secs_f64()
}

fn measure(engine: &dyn Engine, dir: &std::path::Path, items: u64) -> Figures {
    let value = vec![0xAB_u8; VALUE_LEN];
    let mut next = items; // fresh keys for the synced-commit phases

    let budget = Duration::from_secs(3);
    let mut phase = |group: usize| {
        let start = Instant::now();
        let mut writes = 0u64;
        while start.elapsed() < budget {
            let keys: Vec<u64> = (next..next + group as u64).collect();
            next += group as u64;
            engine.commit_synced(&keys, &value);
            writes += group as u64;
        }
        rate(writes, start.elapsed())
    };
    let sync_commit_1 = phase(1);
    let sync_commit_32 = phase(32);

    let start = Instant::now();
    for chunk in (0..items).collect::<Vec<_>>().chunks(1000) {
        engine.commit_unsynced(chunk, &value);
    }
    engine.flush();
    let load = rate(items, start.elapsed());

    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let reads = 200_000u64;
    let start = Instant::now();
    let mut found = 0u64;
    for _ in 0..reads {
        found += u64::from(engine.get(rng.next() % items));
    }
    assert_eq!(found, reads, "every loaded key must be found");
    let point_read = rate(reads, start.elapsed());

    let scans = 20_000u64;
    let start = Instant::now();
    for _ in 0..scans {
        let n = engine.range_count(rng.next() % items, 100);
        assert!(n > 0);
    }
    let range_100 = rate(scans, start.elapsed());

    let disk_bytes = dir_size(dir);
    Figures {
        sync_commit_1,
        sync_commit_32,
        load,
        point_read,
        range_100,
        disk_bytes,
    }
}

fn dir_size(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let Ok(meta) = e.metadata() else { continue };
            total += if meta.is_dir() {
                dir_size(&e.path())
            } else {
                meta.len()
            };
        }
    }
    total
}

#[allow(clippy::print_stdout)] // a benchmark's job is to print
fn main() {
    let items: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let fjall_dir = tempfile::tempdir().expect("tempdir");
    let redb_dir = tempfile::tempdir().expect("tempdir");

    let fjall_fig = {
        // Configured as Kura's FjallStore: every commit syncs itself.
        let db = fjall::Database::builder(fjall_dir.path())
            .manual_journal_persist(true)
            .open()
            .expect("open fjall");
        let ks = db
            .keyspace("items", fjall::KeyspaceCreateOptions::default)
            .expect("ks");
        measure(&Fjall { db, ks }, fjall_dir.path(), items)
    };
    let redb_fig = {
        let db = redb::Database::create(redb_dir.path().join("kura.redb")).expect("open redb");
        measure(&Redb { db }, redb_dir.path(), items)
    };

    println!(
        "storage choice, {items} items of {VALUE_LEN} B, same process (higher is better except disk)"
    );
    println!(
        "{:<34}{:>14}{:>14}{:>12}",
        "figure", "fjall", "redb", "fjall/redb"
    );
    let rows = [
        (
            "synced commits, 1 write/commit /s",
            fjall_fig.sync_commit_1,
            redb_fig.sync_commit_1,
        ),
        (
            "synced writes, 32 writes/commit /s",
            fjall_fig.sync_commit_32,
            redb_fig.sync_commit_32,
        ),
        ("bulk load writes /s", fjall_fig.load, redb_fig.load),
        (
            "random point reads /s",
            fjall_fig.point_read,
            redb_fig.point_read,
        ),
        (
            "100-key range scans /s",
            fjall_fig.range_100,
            redb_fig.range_100,
        ),
        (
            "disk bytes",
            fjall_fig.disk_bytes as f64,
            redb_fig.disk_bytes as f64,
        ),
    ];
    for (name, f, r) in rows {
        println!("{name:<34}{f:>14.0}{r:>14.0}{:>12.2}", f / r);
    }
}
