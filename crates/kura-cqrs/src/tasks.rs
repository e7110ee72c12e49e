//! Long-running tasks with status and sub-tasks, kept as the framework's own entities (so
//! every transition is a versioned command, with history, notifications and optimistic
//! locking): a task `TASK#tenant` / `TASK#id` and its sub-tasks `SUB_TASK#id#001`, ... in
//! the task's partition. A task is `CREATED`, then `STARTED`; when every sub-task has
//! ended it ends itself, `COMPLETED`, or `FAILED` when one failed.
//!
//! Inputs and results are the caller's own types (anything serde reads and writes):
//! `create` and `end_sub_task` take them as they are, [`TaskService::get_as`] reads them
//! back typed; [`TaskService::get`] reads them as JSON.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::command::{CommandInput, Invoker};
use crate::condition::SkCondition;
use crate::data::{DataService, ListOptions};
use crate::entity::{Entity, entities};
use crate::error::{CqrsError, Result};
use crate::keys::{self, Key, VERSION_FIRST};
use crate::service::CommandService;
use crate::version::Version;

const TASK: &str = "TASK";
const SUB_TASK: &str = "SUB_TASK";

/// Where a task or a sub-task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TaskStatus {
    Created,
    Started,
    Completed,
    Failed,
}

impl TaskStatus {
    pub fn is_final(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed)
    }
}

/// A task's own attributes: its input `I` and result `R`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task<I = Value, R = Value> {
    /// What kind of work (the caller's name for it).
    pub kind: String,
    pub status: TaskStatus,
    pub input: I,
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub result: Option<R>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub sub_tasks: u32,
}

/// A sub-task's own attributes: its input `I` and result `R`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubTask<I = Value, R = Value> {
    /// Its place among the task's sub-tasks, from 1.
    pub index: u32,
    pub status: TaskStatus,
    pub input: I,
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub result: Option<R>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A task as read: itself (input `I`, result `R`), its sub-tasks (input `S`, result
/// `R`) in order, and how many have ended.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskView<I = Value, S = Value, R = Value> {
    pub task: Entity<Task<I, R>>,
    pub sub_tasks: Vec<Entity<SubTask<S, R>>>,
    pub ended: u32,
}

/// `None` as serde's default for an absent result, without asking `R: Default`.
fn none<R>() -> Option<R> {
    None
}

/// Tasks of one module (its tables hold them beside its other entities).
#[derive(Debug, Clone)]
pub struct TaskService {
    commands: CommandService,
    data: DataService,
}

/// A worker's outcome as the status, result and error it writes.
fn ending<R: Serialize>(
    outcome: std::result::Result<R, String>,
) -> Result<(TaskStatus, Option<Value>, Option<String>)> {
    Ok(match outcome {
        Ok(result) => (TaskStatus::Completed, Some(to_json(&result)?), None),
        Err(error) => (TaskStatus::Failed, None, Some(error)),
    })
}

fn to_json<T: Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|source| CqrsError::Entity {
        what: std::any::type_name::<T>().to_owned(),
        source,
    })
}

fn sub_key(task: &Key, index: u32) -> Result<Key> {
    task.child(SUB_TASK, &format!("{index:03}"))
}

impl TaskService {
    /// `commands` must publish to the tables `data` reads.
    pub fn new(commands: CommandService, data: DataService) -> TaskService {
        TaskService { commands, data }
    }

    /// A new task with one sub-task per input, all `CREATED`; returns its key.
    pub async fn create<I: Serialize, S: Serialize>(
        &self,
        tenant_code: &str,
        kind: &str,
        input: I,
        sub_inputs: Vec<S>,
        invoker: &Invoker,
    ) -> Result<Key> {
        let key = keys::parent(TASK, tenant_code, &keys::new_ulid())?;
        let task: Task = Task {
            kind: kind.to_owned(),
            status: TaskStatus::Created,
            input: to_json(&input)?,
            result: None,
            error: None,
            sub_tasks: sub_inputs.len() as u32,
        };
        self.put(&key, VERSION_FIRST, TASK, &task, invoker).await?;
        for (at, input) in sub_inputs.into_iter().enumerate() {
            let index = at as u32 + 1;
            let sub: SubTask = SubTask {
                index,
                status: TaskStatus::Created,
                input: to_json(&input)?,
                result: None,
                error: None,
            };
            self.put(
                &sub_key(&key, index)?,
                VERSION_FIRST,
                SUB_TASK,
                &sub,
                invoker,
            )
            .await?;
        }
        Ok(key)
    }

    async fn put<T: Serialize>(
        &self,
        key: &Key,
        version: Version,
        kind: &str,
        entity: &T,
        invoker: &Invoker,
    ) -> Result<()> {
        let input = CommandInput::for_key(key, version)
            .with_kind(kind)
            .with_entity(entity)?;
        self.commands.publish_sync(&input, invoker).await?;
        Ok(())
    }

    /// The task and its sub-tasks, inputs and results as JSON.
    pub async fn get(&self, key: &Key) -> Result<Option<TaskView>> {
        self.get_as(key).await
    }

    /// The task and its sub-tasks, inputs and results read as the caller's types (the
    /// task's input `I`, the sub-tasks' `S`, results `R`); a stored value that does not
    /// fit is `CqrsError::Entity`, naming the type.
    pub async fn get_as<I, S, R>(&self, key: &Key) -> Result<Option<TaskView<I, S, R>>>
    where
        I: DeserializeOwned,
        S: DeserializeOwned,
        R: DeserializeOwned,
    {
        let Some(task) = self.data.get::<Task<I, R>>(key).await? else {
            return Ok(None);
        };
        // Consistent: the worker ending the last sub-task must see the others' ends.
        let options = ListOptions {
            sk: Some(SkCondition::BeginsWith(key.children_prefix(SUB_TASK)?)),
            consistent_read: true,
            ..ListOptions::default()
        };
        let rows = self.data.list_all_by_pk(&key.pk, &options).await?;
        let sub_tasks: Vec<Entity<SubTask<S, R>>> = entities(rows)?;
        let ended = sub_tasks.iter().filter(|s| s.status.is_final()).count() as u32;
        Ok(Some(TaskView {
            task,
            sub_tasks,
            ended,
        }))
    }

    async fn task(&self, key: &Key) -> Result<Entity<Task>> {
        self.data
            .get::<Task>(key)
            .await?
            .ok_or_else(|| CqrsError::NotFound(format!("task {} {}", key.pk, key.sk)))
    }

    /// Marks the task started (a task without sub-tasks is then ended by
    /// [`TaskService::finish`]).
    pub async fn start(&self, key: &Key, invoker: &Invoker) -> Result<()> {
        let task = self.task(key).await?;
        if task.status != TaskStatus::Created {
            return Ok(()); // started already, or ended
        }
        let started = Task {
            status: TaskStatus::Started,
            ..task.value.clone()
        };
        self.put(key, task.version(), TASK, &started, invoker).await
    }

    /// Ends sub-task `index` with its result (`Ok`) or error (`Err`); when it was the
    /// last to end, the task ends too. Returns the task's status after.
    pub async fn end_sub_task<R: Serialize>(
        &self,
        key: &Key,
        index: u32,
        outcome: std::result::Result<R, String>,
        invoker: &Invoker,
    ) -> Result<TaskStatus> {
        let sub_key = sub_key(key, index)?;
        let sub = self
            .data
            .get::<SubTask>(&sub_key)
            .await?
            .ok_or_else(|| CqrsError::NotFound(format!("sub-task {index} of {}", key.sk)))?;
        let (status, result, error) = ending(outcome)?;
        let ended = SubTask {
            status,
            result,
            error,
            ..sub.value.clone()
        };
        self.put(&sub_key, sub.version(), SUB_TASK, &ended, invoker)
            .await?;
        // Another worker settling at the same moment moves the task on under us: read
        // again (it may have ended it already).
        let mut attempts = 0;
        loop {
            match self.settle(key, invoker).await {
                Err(CqrsError::VersionConflict { .. }) if attempts < 5 => attempts += 1,
                other => return other,
            }
        }
    }

    /// Ends sub-task `index` as failed with `error` ([`TaskService::end_sub_task`] with
    /// an `Err`, no result type to name).
    pub async fn fail_sub_task(
        &self,
        key: &Key,
        index: u32,
        error: impl Into<String>,
        invoker: &Invoker,
    ) -> Result<TaskStatus> {
        self.end_sub_task::<Value>(key, index, Err(error.into()), invoker)
            .await
    }

    /// Ends a task that has no sub-tasks (or ends it early) with its result or error.
    pub async fn finish<R: Serialize>(
        &self,
        key: &Key,
        outcome: std::result::Result<R, String>,
        invoker: &Invoker,
    ) -> Result<()> {
        let task = self.task(key).await?;
        let (status, result, error) = ending(outcome)?;
        let ended = Task {
            status,
            result,
            error,
            ..task.value.clone()
        };
        self.put(key, task.version(), TASK, &ended, invoker).await
    }

    /// Ends the task when all its sub-tasks have ended. Two workers ending the last two
    /// sub-tasks at once may both get here: the second loses the version race, reads
    /// again and finds the task ended.
    async fn settle(&self, key: &Key, invoker: &Invoker) -> Result<TaskStatus> {
        let view = self
            .get(key)
            .await?
            .ok_or_else(|| CqrsError::NotFound(format!("task {} {}", key.pk, key.sk)))?;
        if view.task.status.is_final() || view.ended < view.task.sub_tasks {
            return Ok(view.task.status);
        }
        let failed: Vec<String> = view
            .sub_tasks
            .iter()
            .filter(|s| s.status == TaskStatus::Failed)
            .map(|s| format!("sub-task {}: {}", s.index, s.error.as_deref().unwrap_or("")))
            .collect();
        let status = if failed.is_empty() {
            TaskStatus::Completed
        } else {
            TaskStatus::Failed
        };
        let ended = Task {
            status,
            error: (!failed.is_empty()).then(|| failed.join("; ")),
            ..view.task.value.clone()
        };
        // On the version read: a task ended meanwhile (finish, another settler) is a
        // version conflict, read again, never overwritten.
        self.put(key, view.task.version(), TASK, &ended, invoker)
            .await?;
        Ok(status)
    }
}
