//! Opening an engine (recovery, the background workers), its side doors for tools, and
//! shutting it down.

use std::path::Path;
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::engine::{Engine, EngineOptions, Health};
use crate::error::{EngineError, Result};
use crate::sweeper::Sweeper;
use crate::writer::{WriteEnv, Writer};
use crate::{
    backups, counters, exports, imports, indexes, objects, open, purge, throttle, transactions,
    vectors,
};
use kura_store::{FjallStore, MemoryStore, Store};

impl Engine {
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
            WriteEnv {
                limits,
                vectors: vectors.clone(),
            },
            clock.clone(),
            counters.clone(),
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

    /// The engine's clock (what Contributor Insights' windows are cut by).
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
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
