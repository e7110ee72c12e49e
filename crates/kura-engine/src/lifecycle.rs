//! Opening an engine (recovery, the background workers), its side doors for tools, and
//! shutting it down.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::context::RequestContext;
use crate::engine::{Engine, EngineOptions, Health};
use crate::error::{EngineError, Result};
use crate::sweeper::Sweeper;
use crate::writer::Writer;
use crate::{
    backups, counters, exports, imports, indexes, objects, open, purge, throttle, transactions,
    vectors,
};
use kura_store::{Direction, FjallStore, KeyRange, MemoryStore, Space, Store};

impl Engine {
    /// The primary key attribute names of a table (partition key, then sort key): what the
    /// audit log splits a Put's key out of its item with. None for an unknown table.
    pub fn key_names(&self, table: &str) -> Option<Vec<String>> {
        let record = self.catalog.get(table)?;
        let schema = &record.key_schema;
        Some(
            std::iter::once(&schema.hash)
                .chain(schema.range.as_ref())
                .map(|a| a.name.clone())
                .collect(),
        )
    }

    /// The partition key attribute names of a table, or of one of its indexes: what the
    /// server's authorization step reads `dynamodb:LeadingKeys` from. None for an unknown
    /// table or index.
    pub fn partition_key_names(&self, table: &str, index: Option<&str>) -> Option<Vec<String>> {
        let record = self.catalog.get(table)?;
        match index {
            None => Some(vec![record.key_schema.hash.name.clone()]),
            Some(name) => Some(
                record
                    .index(name)?
                    .hash_attributes()
                    .map(|a| a.name.clone())
                    .collect(),
            ),
        }
    }

    /// Opens (or creates) a durable database in `dir`.
    pub fn open(dir: &Path) -> Result<Arc<Engine>> {
        Engine::open_with_options(dir, EngineOptions::default())
    }

    /// [`Engine::open`] with options other than the defaults.
    pub fn open_with_options(dir: &Path, options: EngineOptions) -> Result<Arc<Engine>> {
        std::fs::create_dir_all(dir)
            .map_err(|e| EngineError::Internal(format!("cannot create {}: {e}", dir.display())))?;
        let store = FjallStore::open_with(dir, options.store)?;
        let objects = options
            .objects
            .clone()
            .unwrap_or_else(|| Arc::new(objects::LocalBuckets::new(dir.join("buckets"))));
        Engine::with_options(
            Arc::new(store),
            EngineOptions {
                objects: Some(objects),
                ..options
            },
        )
    }

    /// A database that lives in memory only.
    pub fn in_memory() -> Arc<Engine> {
        Engine::in_memory_with_options(EngineOptions::default())
    }

    /// [`Engine::in_memory`] with options other than the defaults.
    pub fn in_memory_with_options(options: EngineOptions) -> Arc<Engine> {
        // An empty in-memory store cannot fail to open.
        match Engine::with_options(Arc::new(MemoryStore::new()), options) {
            Ok(engine) => engine,
            Err(e) => unreachable!("in-memory engine failed to open: {e}"),
        }
    }

    /// Opens the engine over any [`Store`]: checks the format, loads the catalog, resumes
    /// unfinished table purges and index backfills.
    pub fn with_store(store: Arc<dyn Store>) -> Result<Arc<Engine>> {
        Engine::with_options(store, EngineOptions::default())
    }

    /// [`Engine::with_store`] with options other than the defaults (tests lower limits and
    /// drive time by hand).
    pub fn with_options(store: Arc<dyn Store>, options: EngineOptions) -> Result<Arc<Engine>> {
        // Long: starts the engine's workers in order, handing each the work recovered for it.
        let EngineOptions {
            limits,
            clock,
            sweep_interval,
            store: _,
            objects,
            throttle,
            vector_exact_below,
            vector_search_expansion,
            on_idle,
        } = options;
        let objects = objects.unwrap_or_else(|| Arc::new(objects::MemoryBuckets::new()));
        let open::Recovered {
            tables,
            purges,
            backfills,
            restores,
            exports: unfinished_exports,
            imports: unfinished_imports,
            iterator_key,
            first_writes,
        } = open::recover(store.as_ref())?;
        let catalog = Arc::new(Catalog::new(tables));
        let throttle = throttle.map(|o| Arc::new(throttle::Throttle::new(o)));
        let counters = Arc::new(counters::Counters::with_charge(
            throttle.clone().map(|throttle| counters::Charge {
                throttle,
                catalog: catalog.clone(),
                clock: clock.clone(),
            }),
            clock.now_ms(),
        ));
        let vectors = Arc::new(vectors::Vectors::new(
            vector_exact_below,
            vector_search_expansion,
        ));
        let writer = Arc::new(Writer::start(
            store.clone(),
            limits,
            clock.clone(),
            counters.clone(),
            vectors.clone(),
            first_writes,
        ));
        let purger = Arc::new(purge::start(store.clone(), writer.clone()));
        for target in purges {
            purger.submit(target);
        }
        let backfiller = Arc::new(indexes::backfill::start(
            store.clone(),
            writer.clone(),
            catalog.clone(),
        ));
        for job in backfills {
            backfiller.submit(job);
        }
        let restorer = Arc::new(backups::restore::start(
            store.clone(),
            writer.clone(),
            catalog.clone(),
        ));
        for job in restores {
            restorer.submit(job.target_id);
        }
        let exporter = Arc::new(exports::job::start(
            store.clone(),
            writer.clone(),
            objects.clone(),
            clock.clone(),
        ));
        for id in unfinished_exports {
            exporter.submit(id);
        }
        let importer = Arc::new(imports::job::start(imports::job::Parts {
            store: store.clone(),
            writer: writer.clone(),
            catalog: catalog.clone(),
            objects: objects.clone(),
            purger: purger.clone(),
            clock: clock.clone(),
        }));
        for id in unfinished_imports {
            importer.submit(id);
        }
        let sweeper = Arc::new(Sweeper::start(
            store.clone(),
            writer.clone(),
            catalog.clone(),
            purger.clone(),
            clock.clone(),
            counters.clone(),
            crate::sweeper::Pace {
                interval: sweep_interval,
                on_idle,
            },
        ));
        tracing::info!(
            tables = catalog.all().len(),
            durable = store.is_durable(),
            "engine open"
        );
        let engine = Arc::new(Engine {
            store,
            writer,
            catalog,
            purger,
            backfiller,
            sweeper,
            restorer,
            exporter,
            importer,
            tokens: transactions::tokens::InFlight::default(),
            clock,
            counters,
            throttle,
            vectors,
            limits,
            iterator_key,
        });
        engine.resume_insights();
        engine.fill_vector_indexes();
        Ok(engine)
    }

    /// What the engine counted so far (the server's `/metrics` reads it).
    pub fn counters(&self) -> &counters::Counters {
        &self.counters
    }

    /// The engine's clock (what Contributor Insights' windows are cut by).
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Runs a sweep (TTL deletions, stream trimming, shard rollover) that starts now and
    /// waits for it, at most 30 seconds: what a manual clock's move expired is gone on
    /// return. It blocks: call it off the async runtime's threads.
    pub fn sweep_now(&self) -> bool {
        self.sweeper.sweep_now(std::time::Duration::from_secs(30))
    }

    /// Stops throttling while `paused` (seeding at start); resuming refills every bucket.
    pub fn pause_capacity(&self, paused: bool) {
        if let Some(throttle) = &self.throttle {
            throttle.pause(paused);
        }
    }

    /// Whether capacity is emulated (`--enforce-capacity`).
    pub fn enforces_capacity(&self) -> bool {
        self.throttle.is_some()
    }

    /// Lets a request on `table` (and `index`) through, or refuses it with DynamoDB's
    /// throttling error when capacity is emulated and the table, an index or the partition
    /// key value of `key` (a key or a whole item) is out of capacity. Unknown tables pass
    /// (the operation reports them).
    pub fn check_capacity(
        &self,
        ctx: &RequestContext,
        table: &str,
        index: Option<&str>,
        access: throttle::Access,
        key: Option<&kura_model::wire::ItemJson>,
    ) -> Result<()> {
        let Some(throttle) = &self.throttle else {
            return Ok(());
        };
        let Some(record) = self.catalog.get(table) else {
            return Ok(());
        };
        // The partition key value in Contributor Insights' text: a string as sent, any
        // other type once validated.
        let partition = key
            .and_then(|key| key.get(&record.key_schema.hash.name))
            .and_then(|value| match value.as_string() {
                Some(s) => Some(s.to_owned()),
                None => value
                    .clone()
                    .into_value()
                    .ok()
                    .map(|v| counters::key_text(&v)),
            });
        let request = throttle::CapacityRequest {
            table: &record,
            index,
            access,
            partition,
            region: &ctx.region,
        };
        let now = self.clock.now_ms();
        throttle.may_run(&request, now).map_err(|refused| {
            // Contributor Insights' most throttled keys.
            if let Some(partition) = &request.partition {
                let stats = self.counters.table(table);
                if stats.insights.active() {
                    stats.insights.throttled(
                        index,
                        &counters::insights::EventKey {
                            partition,
                            sort: None,
                        },
                        now,
                    );
                }
            }
            tracing::debug!(table, reason = %refused.reason.reason, "throttled");
            EngineError::Throttled(Box::new(refused))
        })
    }

    /// Items in storage across all tables, deleted-but-unpurged ones included (for tests
    /// and diagnostics; it scans everything).
    pub fn debug_item_count(&self) -> usize {
        self.store.snapshot().map_or(0, |s| {
            s.range(Space::Items, KeyRange::prefix(b""), Direction::Forward)
                .count()
        })
    }

    /// Keys of the `Meta` space under `prefix` (for tests and diagnostics).
    pub fn debug_meta_count(&self, prefix: &[u8]) -> usize {
        self.store.snapshot().map_or(0, |s| {
            s.range(Space::Meta, KeyRange::prefix(prefix), Direction::Forward)
                .count()
        })
    }

    /// Runs one retention pass now (the sweeper runs one every minute): prunes history
    /// nobody can restore to, releases deleted tables nothing holds (for tests). It waits
    /// on the writer: call it off the async runtime's threads (`block_in_place`).
    pub fn run_retention(&self) -> Result<()> {
        backups::retention::Retention {
            store: self.store.as_ref(),
            writer: &self.writer,
            catalog: &self.catalog,
            purger: &self.purger,
            clock: self.clock.as_ref(),
            // A pass of its own: prunes every table, however little its horizon moved.
            pruned: &parking_lot::Mutex::new(BTreeMap::new()),
        }
        .run()
    }

    /// Keys of the `History` space (for tests and diagnostics).
    pub fn debug_history_count(&self) -> usize {
        self.debug_history_size().0
    }

    /// Entries of the `History` space and their bytes, keys and values (for the
    /// benchmark and diagnostics; it scans the space).
    pub fn debug_history_size(&self) -> (usize, usize) {
        self.store.snapshot().map_or((0, 0), |s| {
            s.range(Space::History, KeyRange::prefix(b""), Direction::Forward)
                .filter_map(std::result::Result::ok)
                .fold((0, 0), |(n, b), (k, v)| (n + 1, b + k.len() + v.len()))
        })
    }

    pub fn health(&self) -> Health {
        if self.writer.is_poisoned() {
            Health::Poisoned
        } else {
            Health::Ready
        }
    }

    /// Finishes queued writes and stops the background threads. Every acknowledged write
    /// is already durable; this only lets in-flight ones complete.
    pub fn shutdown(&self) {
        self.sweeper.shutdown();
        self.restorer.shutdown();
        self.exporter.shutdown();
        self.importer.shutdown();
        self.backfiller.shutdown();
        self.purger.shutdown();
        self.writer.shutdown();
    }
}
