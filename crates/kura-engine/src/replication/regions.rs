//! Regions as DynamoDB has them (`--regions separate`): each region a request is signed
//! for is its own engine, with its own tables, streams, backups and ARNs. The home region
//! is the engine the server was started with (the test controls may replace it); the
//! others are opened on first use, `regions/<name>/` beside it. One thread fills new
//! replicas and sends every replica's changes to the others.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;

use super::status;
use crate::Engine;
use crate::error::{EngineError, Result};

/// Opens the engine of a region other than the home one.
pub type OpenRegion = Box<dyn Fn(&str) -> Result<Arc<Engine>> + Send + Sync>;
/// The home region's engine now.
pub type HomeEngine = Box<dyn Fn() -> Arc<Engine> + Send + Sync>;

/// Regions at most: each is an engine with its own files and threads, and a region is
/// named by the client, so their number is bounded.
pub const MAX_REGIONS: usize = 16;
/// How long the replication thread sleeps when nothing was left to send.
const IDLE: Duration = Duration::from_millis(10);
/// Changes sent in one step.
const PAGE: usize = 500;

/// Every region's engine, and the replication between them.
pub struct Regions {
    home: String,
    home_engine: HomeEngine,
    open: OpenRegion,
    others: Mutex<BTreeMap<String, Arc<Engine>>>,
    /// Replication latency (ms) of the last changes sent, per table and direction.
    lag: Mutex<BTreeMap<(String, String, String), i64>>,
    /// Changes younger than this (ms) are held back: tests set a replication delay.
    pub(super) delay_ms: AtomicI64,
    stop: AtomicBool,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Regions the drill isolated, and when (`drill`).
    pub(super) outages: Mutex<Vec<super::status::Outage>>,
    /// Regions healed and still catching up, whose requests are refused (`drill`).
    pub(super) healing: Mutex<Vec<String>>,
    /// The items of MRSC tables being written (`strong`).
    pub(super) flights: Mutex<super::flights::Flights>,
}

/// How far behind one direction of a global table's replication is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicationLag {
    pub table: String,
    pub from: String,
    pub to: String,
    pub latency_ms: i64,
}

impl Regions {
    pub fn new(home: &str, home_engine: HomeEngine, open: OpenRegion) -> Arc<Regions> {
        Arc::new(Regions {
            home: home.to_owned(),
            home_engine,
            open,
            others: Mutex::new(BTreeMap::new()),
            lag: Mutex::new(BTreeMap::new()),
            delay_ms: AtomicI64::new(0),
            stop: AtomicBool::new(false),
            thread: Mutex::new(None),
            outages: Mutex::new(Vec::new()),
            flights: Mutex::new(Default::default()),
            healing: Mutex::new(Vec::new()),
        })
    }

    /// The region the server's own engine serves.
    pub fn home(&self) -> &str {
        &self.home
    }

    /// The engine of `region`, opened now if it is not yet.
    pub fn engine(self: &Arc<Self>, region: &str) -> Result<Arc<Engine>> {
        let engine = if region == self.home {
            (self.home_engine)()
        } else {
            let mut others = self.others.lock();
            match others.get(region) {
                Some(engine) => engine.clone(),
                None => {
                    if !valid_region(region) {
                        return Err(EngineError::validation(format!(
                            "One or more parameter values were invalid: Invalid region name: {region}"
                        )));
                    }
                    if others.len() + 1 >= MAX_REGIONS {
                        return Err(EngineError::LimitExceeded(format!(
                            "Kura serves at most {MAX_REGIONS} regions; {region} would be one more"
                        )));
                    }
                    tracing::info!(region, "opening region");
                    let engine = (self.open)(region)?;
                    others.insert(region.to_owned(), engine.clone());
                    engine
                }
            }
        };
        Ok(engine)
    }

    /// The regions open now, the home one first.
    pub fn open_regions(&self) -> Vec<String> {
        std::iter::once(self.home.clone())
            .chain(self.others.lock().keys().cloned())
            .collect()
    }

    /// The latency of every direction of replication, as last measured.
    pub fn lag(&self) -> Vec<ReplicationLag> {
        self.lag
            .lock()
            .iter()
            .map(|((table, from, to), ms)| ReplicationLag {
                table: table.clone(),
                from: from.clone(),
                to: to.clone(),
                latency_ms: *ms,
            })
            .collect()
    }

    /// Holds back changes younger than `delay` (tests rehearse a lagging replica).
    pub fn set_delay(&self, delay: Duration) {
        self.delay_ms
            .store(delay.as_millis() as i64, Ordering::Relaxed);
    }

    /// Starts the replication thread.
    pub fn start(self: &Arc<Self>) -> std::io::Result<()> {
        let regions = Arc::downgrade(self);
        let thread = std::thread::Builder::new()
            .name("kura-replication".into())
            .spawn(move || run(regions))?;
        *self.thread.lock() = Some(thread);
        Ok(())
    }

    /// Stops replication and closes the engines of the other regions (the home one is the
    /// server's to close).
    pub fn shutdown(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.lock().take() {
            let _ = thread.join();
        }
        for engine in std::mem::take(&mut *self.others.lock()).into_values() {
            engine.shutdown();
        }
    }

    /// Every open region and its engine.
    fn engines(self: &Arc<Self>) -> Vec<(String, Arc<Engine>)> {
        self.open_regions()
            .into_iter()
            .filter_map(|region| Some((region.clone(), self.engine(&region).ok()?)))
            .collect()
    }

    /// One pass over every global table: fills new replicas a page further and sends each
    /// replica's changes to the others. Whether anything was left to do.
    async fn pass(self: &Arc<Self>, fills: &mut HashMap<(String, String), Vec<u8>>) -> bool {
        let mut busy = false;
        for (region, engine) in self.engines() {
            for table in engine.catalog.all().values() {
                let Some(group) = &table.replication else {
                    continue;
                };
                if let Some(source) = group
                    .filling_from
                    .as_ref()
                    .filter(|s| !self.is_isolated(s) && !self.is_isolated(&region))
                {
                    // By the replica table's id: a replica deleted and made again while
                    // being filled starts its copy from the beginning.
                    let cursor = fills
                        .entry((region.clone(), table.uuid.clone()))
                        .or_default();
                    match self.fill_step(&engine, &table.name, source, cursor).await {
                        Ok(more) => busy |= more,
                        Err(e) => tracing::warn!(table = %table.name, region, "replica fill: {e}"),
                    }
                }
                for replica in &group.replicas {
                    match self
                        .send(&region, &engine, &table.name, &replica.region, false)
                        .await
                    {
                        Ok(more) => busy |= more,
                        Err(e) => tracing::debug!(
                            table = %table.name,
                            from = region,
                            to = replica.region,
                            "replication: {e}"
                        ),
                    }
                }
            }
        }
        busy
    }

    /// Sends a page of `table`'s changes from `from_region` to `to_region`; whether there
    /// was any. `now`: an MRSC write waiting for it, which no replication delay holds back.
    pub(super) async fn send(
        self: &Arc<Self>,
        from_region: &str,
        from: &Engine,
        table: &str,
        to_region: &str,
        now: bool,
    ) -> Result<bool> {
        // An isolated region neither sends nor receives.
        if self.is_isolated(from_region) || self.is_isolated(to_region) {
            return Ok(false);
        }
        let to = self.engine(to_region)?;
        self.deliver(from_region, from, table, to_region, &to, !now)
            .await
    }

    /// Applies a page of `table`'s changes from `from_region` in `to_region`, isolated or
    /// not (an MRSC replica catching up before it serves again); whether there was any.
    /// `delayed`: changes younger than the replication delay wait.
    pub(super) async fn deliver(
        self: &Arc<Self>,
        from_region: &str,
        from: &Engine,
        table: &str,
        to_region: &str,
        to: &Engine,
        delayed: bool,
    ) -> Result<bool> {
        let checkpoint = to.replication_checkpoint(table, from_region)?;
        let Some(feed) = from.replication_feed(table, checkpoint, PAGE)? else {
            return Ok(false);
        };
        if feed.next == checkpoint {
            return Ok(false);
        }
        let delay = self.delay_ms.load(Ordering::Relaxed);
        if delayed && delay > 0 && feed.oldest_ms.is_some_and(|age| age < delay) {
            return Ok(false);
        }
        let key = (
            table.to_owned(),
            from_region.to_owned(),
            to_region.to_owned(),
        );
        if let Some(age) = feed.oldest_ms {
            self.lag.lock().insert(key, age);
        }
        match to
            .apply_replicated(table, from_region, feed.changes, Some(feed.next))
            .await
        {
            Ok(_) => Ok(true),
            // The replica's table was deleted (DeleteTable in its region): it is no longer
            // one. A replica still being created is not forgotten.
            Err(EngineError::ResourceNotFound(_)) if active(from, table, to_region) => {
                let gone = to_region.to_owned();
                from.change_replication(table, move |g| status::forget_replica(g, &gone))
                    .await?;
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }
}

/// A region name as AWS spells them (`eu-west-1`, `us-gov-east-1`): it names a
/// directory, so nothing else is opened.
pub fn valid_region(region: &str) -> bool {
    (1..=32).contains(&region.len())
        && region
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !region.starts_with('-')
}

/// Whether `table` lists its replica in `region` as ACTIVE.
fn active(engine: &Engine, table: &str, region: &str) -> bool {
    engine
        .catalog
        .get(table)
        .is_some_and(|t| status::lists(&t, region, true))
}

fn run(regions: Weak<Regions>) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!("the replication thread cannot start its runtime: {e}");
            return;
        }
    };
    let mut fills = HashMap::new();
    loop {
        let Some(regions) = regions.upgrade() else {
            return;
        };
        if regions.stop.load(Ordering::Relaxed) {
            return;
        }
        let busy = runtime.block_on(regions.pass(&mut fills));
        drop(regions);
        if !busy {
            std::thread::sleep(IDLE);
        }
    }
}
