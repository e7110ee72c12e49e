//! The triggers of one server: started from the triggers file and from the definitions
//! saved by the admin endpoint, created and deleted at run time, and what each has done.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use kura_engine::Engine;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;

use crate::config::{
    EventSource, FailureDestination, Function, StartingPosition, Trigger, TriggerInput,
};
use crate::error::TriggerError;
use crate::runner::{Runner, RunnerOptions, TriggerStats};
use crate::source::StreamSource;
use crate::state::StateStore;

/// Triggers created at run time stop at this many running (each holds a task and, when
/// it runs, a process or a connection): the endpoint is not signed.
pub const MAX_TRIGGERS: usize = 256;

/// Where a trigger was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Origin {
    /// The triggers file: it comes back at every start.
    File,
    /// The admin endpoint: its definition is saved with its checkpoints.
    Api,
}

struct Running {
    runner: Arc<Runner>,
    origin: Origin,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

/// A shard's position, as the admin endpoint shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ShardPosition {
    pub shard_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    pub finished: bool,
}

/// What the admin endpoint says of a trigger.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TriggerStatus {
    pub name: String,
    /// The table whose stream it reads (empty for a Kinesis trigger).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub table: String,
    /// The Kinesis stream it reads, for a Kinesis trigger.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kinesis_stream: Option<String>,
    pub origin: Origin,
    pub state: &'static str,
    pub function: String,
    pub batch_size: usize,
    pub maximum_batching_window_in_seconds: u64,
    pub starting_position: &'static str,
    pub parallelization_factor: usize,
    pub maximum_retry_attempts: i64,
    pub maximum_record_age_in_seconds: i64,
    pub bisect_batch_on_function_error: bool,
    pub function_response_types: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_arn: Option<String>,
    pub shards: Vec<ShardPosition>,
    pub invocations: u64,
    pub records_delivered: u64,
    pub records_filtered: u64,
    pub function_errors: u64,
    pub retries: u64,
    pub records_failed: u64,
    pub iterator_age_milliseconds: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

/// A trigger's figures for `/metrics`.
pub struct TriggerFigures {
    pub name: String,
    pub stats: Arc<TriggerStats>,
}

pub struct Triggers {
    source: StreamSource,
    store: StateStore,
    options: RunnerOptions,
    running: parking_lot::Mutex<BTreeMap<String, Running>>,
}

impl Triggers {
    /// The triggers of a server on `engine`, keeping their state in `store`; none runs
    /// until added (or [`Triggers::resume_saved`]).
    pub fn new(
        engine: Arc<Engine>,
        region: &str,
        store: StateStore,
        options: RunnerOptions,
    ) -> Arc<Triggers> {
        Arc::new(Triggers {
            source: StreamSource::new(engine, region),
            store,
            options,
            running: parking_lot::Mutex::new(BTreeMap::new()),
        })
    }

    /// Starts the triggers the admin endpoint created before a restart.
    pub fn resume_saved(&self) -> Result<usize, TriggerError> {
        let mut resumed = 0;
        for (name, state) in self.store.load_all()? {
            let Some(definition) = state.definition.clone() else {
                continue;
            };
            if self.running.lock().contains_key(&name) {
                continue;
            }
            let input: TriggerInput = serde_json::from_value(definition)
                .map_err(|e| TriggerError::InvalidConfig(format!("saved trigger {name}: {e}")))?;
            self.start(input.validate()?, Origin::Api, None)?;
            resumed += 1;
        }
        Ok(resumed)
    }

    /// Starts a trigger from the triggers file.
    pub fn add_from_file(&self, trigger: Trigger) -> Result<(), TriggerError> {
        self.start(trigger, Origin::File, None)
    }

    /// Creates a trigger from an admin request's body (a triggers file entry); its
    /// definition is saved so it survives restarts.
    pub fn create(&self, definition: Value) -> Result<TriggerStatus, TriggerError> {
        let input: TriggerInput = serde_json::from_value(definition.clone())
            .map_err(|e| TriggerError::InvalidConfig(e.to_string()))?;
        let trigger = input.validate()?;
        let name = trigger.name.clone();
        self.start(trigger, Origin::Api, Some(definition))?;
        self.status(&name)
            .ok_or_else(|| TriggerError::NotFound(format!("trigger {name} stopped at once")))
    }

    fn start(
        &self,
        trigger: Trigger,
        origin: Origin,
        definition: Option<Value>,
    ) -> Result<(), TriggerError> {
        let mut running = self.running.lock();
        if running.contains_key(&trigger.name) {
            return Err(TriggerError::Exists(format!(
                "a trigger named {} exists",
                trigger.name
            )));
        }
        if definition.is_some() && running.len() >= MAX_TRIGGERS {
            return Err(TriggerError::InvalidConfig(format!(
                "a server runs at most {MAX_TRIGGERS} triggers; delete one first"
            )));
        }
        let mut state = self.store.load(&trigger.name)?;
        if definition.is_some() {
            state.definition = definition;
            self.store.save(&trigger.name, &state)?;
        }
        let enabled = trigger.enabled;
        let name = trigger.name.clone();
        let source = self.source.reading(&trigger.source);
        let runner = Arc::new(Runner::new(
            trigger,
            source,
            self.store.clone(),
            state,
            self.options,
        ));
        let (stop, stopped) = watch::channel(!enabled);
        let task = if enabled {
            tokio::spawn(runner.clone().run(stopped))
        } else {
            tokio::spawn(async {})
        };
        tracing::info!(trigger = %name, ?origin, enabled, "trigger started");
        running.insert(
            name,
            Running {
                runner,
                origin,
                stop,
                task,
            },
        );
        Ok(())
    }

    /// Stops trigger `name` and forgets its checkpoints (and its saved definition).
    pub async fn delete(&self, name: &str) -> Result<(), TriggerError> {
        let removed = self.running.lock().remove(name);
        let Some(running) = removed else {
            return Err(TriggerError::NotFound(format!(
                "no trigger is named {name}"
            )));
        };
        let _ = running.stop.send(true);
        let _ = running.task.await;
        self.store.remove(name)
    }

    /// Stops every trigger, their checkpoints saved.
    pub async fn shutdown(&self) {
        let all: Vec<Running> = std::mem::take(&mut *self.running.lock())
            .into_values()
            .collect();
        for running in all {
            let _ = running.stop.send(true);
            let _ = running.task.await;
        }
    }

    pub fn names(&self) -> Vec<String> {
        self.running.lock().keys().cloned().collect()
    }

    pub fn figures(&self) -> Vec<TriggerFigures> {
        self.running
            .lock()
            .iter()
            .map(|(name, r)| TriggerFigures {
                name: name.clone(),
                stats: r.runner.stats.clone(),
            })
            .collect()
    }

    pub fn list(&self) -> Vec<TriggerStatus> {
        self.names().iter().filter_map(|n| self.status(n)).collect()
    }

    pub fn status(&self, name: &str) -> Option<TriggerStatus> {
        let (runner, origin, enabled) = {
            let running = self.running.lock();
            let r = running.get(name)?;
            (r.runner.clone(), r.origin, !*r.stop.borrow())
        };
        let state = runner.state_now();
        let t = &runner.trigger;
        let stats = &runner.stats;
        Some(TriggerStatus {
            name: t.name.clone(),
            table: match &t.source {
                EventSource::Table(table) => table.clone(),
                EventSource::KinesisStream(_) => String::new(),
            },
            kinesis_stream: match &t.source {
                EventSource::KinesisStream(stream) => Some(stream.clone()),
                EventSource::Table(_) => None,
            },
            origin,
            state: if enabled { "Enabled" } else { "Disabled" },
            function: match &t.function {
                Function::Url(url) => url.clone(),
                Function::Command(argv) => argv.join(" "),
            },
            batch_size: t.batch_size,
            maximum_batching_window_in_seconds: t.batching_window_seconds,
            starting_position: match t.starting_position {
                StartingPosition::TrimHorizon => "TRIM_HORIZON",
                StartingPosition::Latest => "LATEST",
                StartingPosition::AtTimestamp(_) => "AT_TIMESTAMP",
            },
            parallelization_factor: t.parallelization_factor,
            maximum_retry_attempts: t.maximum_retry_attempts.map_or(-1, |v| v as i64),
            maximum_record_age_in_seconds: t.maximum_record_age_seconds.map_or(-1, |v| v as i64),
            bisect_batch_on_function_error: t.bisect_batch_on_function_error,
            function_response_types: if t.report_batch_item_failures {
                vec!["ReportBatchItemFailures"]
            } else {
                Vec::new()
            },
            on_failure: t.on_failure.as_ref().map(|d| match d {
                FailureDestination::Table(table) => format!("table/{table}"),
                FailureDestination::File(path) => format!("file:{}", path.display()),
            }),
            stream_arn: state.stream_arn.clone(),
            shards: state
                .shards
                .into_iter()
                .map(|(id, c)| ShardPosition {
                    shard_id: id,
                    checkpoint: c.after,
                    finished: c.finished,
                })
                .collect(),
            invocations: stats.invocations.load(Ordering::Relaxed),
            records_delivered: stats.records_delivered.load(Ordering::Relaxed),
            records_filtered: stats.records_filtered.load(Ordering::Relaxed),
            function_errors: stats.function_errors.load(Ordering::Relaxed),
            retries: stats.retries.load(Ordering::Relaxed),
            records_failed: stats.records_failed.load(Ordering::Relaxed),
            iterator_age_milliseconds: stats.iterator_age_ms.load(Ordering::Relaxed),
            last_error: stats.last_error.lock().clone(),
        })
    }
}
