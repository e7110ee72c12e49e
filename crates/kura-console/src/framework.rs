//! The kura-cqrs view: the framework's modules, found by their table names
//! (`{env}-{app}-{module}-command` beside `-data`), and for each its failed commands —
//! parked by the projector (with the dead-letter table's error and time) or refused by
//! a sync handler (with the handler's error) — and its long-running tasks with their
//! sub-tasks. What `kura cqrs failed` prints, beside the commands that replay them: a
//! replay runs the module's own sync handlers, which live in the application, not here.
//!
//! It reads the tables as the console reads any (Scan, counted as the console's own
//! traffic), up to [`SCAN_LIMIT`] items each, and says when it stopped there.

use std::collections::BTreeMap;

use axum::extract::Path;
use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use super::Ctx;
use super::layout::{self, Section, Tab, encode, table_path};
use super::values;
use kura_api::error::ApiError;
use kura_api::operation::Op;

/// Items a page reads from one table at most.
const SCAN_LIMIT: u64 = 20_000;
/// A command row's status once a sync handler or the projector gave up on it.
const FAILED: &str = "finish:FAILED";

/// A module: the common prefix of its tables (`env-app-module`).
fn modules(tables: &[String]) -> Vec<String> {
    tables
        .iter()
        .filter_map(|t| t.strip_suffix("-command"))
        .filter(|prefix| tables.iter().any(|t| *t == format!("{prefix}-data")))
        .map(str::to_owned)
        .collect()
}

/// `GET /console/framework`.
pub(crate) async fn list(ctx: Ctx) -> Response {
    let body = match all_tables(&ctx).await {
        Ok(tables) => {
            let found = modules(&tables);
            html! {
                h1 { "kura-cqrs modules" }
                p.hint { "Modules of the kura-cqrs framework on this server: each has a command, a data and a history table named " code { "{env}-{app}-{module}-…" } "." }
                @if found.is_empty() {
                    p.empty { "No module yet: a table pair " code { "…-command" } " and " code { "…-data" } " makes one (" code { "kura dev" } " or " code { "ensure_tables" } " creates them)." }
                } @else {
                    table.grid {
                        thead { tr { th { "Module" } th { "Tables" } } }
                        tbody {
                            @for module in &found {
                                tr {
                                    td { a href=(module_path(module)) { (module) } }
                                    td {
                                        @for kind in ["command", "data", "history", "dead-letter"] {
                                            @let table = format!("{module}-{kind}");
                                            @if tables.contains(&table) {
                                                a href=(table_path(&table, Section::Items)) { (kind) } " "
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        Err(e) => layout::error(&e),
    };
    ctx.page("kura-cqrs", Tab::Framework, body)
}

fn module_path(module: &str) -> String {
    format!("/console/framework/{}", encode(module))
}

async fn all_tables(ctx: &Ctx) -> Result<Vec<String>, ApiError> {
    let mut names = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let mut request = json!({ "Limit": 100 });
        if let Some(last) = start.take() {
            request["ExclusiveStartTableName"] = last;
        }
        let out = ctx.call(Op::ListTables, request).await?;
        names.extend(
            out["TableNames"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|n| n.as_str().map(str::to_owned)),
        );
        match out.get("LastEvaluatedTableName") {
            Some(last) => start = Some(last.clone()),
            None => return Ok(names),
        }
    }
}

/// The items of `table` a filtered Scan returns, and whether it read the whole table
/// (false when it stopped at [`SCAN_LIMIT`] items read).
async fn scan(
    ctx: &Ctx,
    table: &str,
    filter: Option<(&str, Value, Value)>,
) -> Result<(Vec<Map<String, Value>>, bool), ApiError> {
    let mut items = Vec::new();
    let mut read = 0;
    let mut start: Option<Value> = None;
    loop {
        let mut request = json!({ "TableName": table });
        if let Some((expression, names, values)) = &filter {
            request["FilterExpression"] = json!(expression);
            request["ExpressionAttributeNames"] = names.clone();
            request["ExpressionAttributeValues"] = values.clone();
        }
        if let Some(key) = start.take() {
            request["ExclusiveStartKey"] = key;
        }
        let out = ctx.call(Op::Scan, request).await?;
        read += out["ScannedCount"].as_u64().unwrap_or(0);
        items.extend(
            out["Items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|i| i.as_object().cloned()),
        );
        match out.get("LastEvaluatedKey") {
            Some(key) if read < SCAN_LIMIT => start = Some(key.clone()),
            Some(_) => return Ok((items, false)),
            None => return Ok((items, true)),
        }
    }
}

/// A string or number attribute as text.
fn text(item: &Map<String, Value>, name: &str) -> String {
    let value = &item.get(name).cloned().unwrap_or(Value::Null);
    value["S"]
        .as_str()
        .or_else(|| value["N"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// One of the entity's own attributes (inside `attributes`).
fn own(item: &Map<String, Value>, name: &str) -> String {
    match item.get("attributes").and_then(|a| a["M"].as_object()) {
        Some(attributes) => text(attributes, name),
        None => String::new(),
    }
}

/// A failed command as the page shows it.
struct Failure {
    key: Value,
    pk: String,
    sk: String,
    version: String,
    error: String,
    parked_at: Option<String>,
}

/// A task and its sub-tasks' statuses.
#[derive(Default)]
struct TaskRow {
    tenant: String,
    kind: String,
    status: String,
    error: String,
    updated: String,
    sub_tasks: BTreeMap<String, String>,
    key: Value,
}

/// Tasks by `pk`/`sk` (`TASK#tenant` / `TASK#id`), each with its sub-tasks
/// (`SUB_TASK#id#001`, ... in the same partition).
fn tasks(rows: &[Map<String, Value>]) -> BTreeMap<(String, String), TaskRow> {
    let mut tasks: BTreeMap<(String, String), TaskRow> = BTreeMap::new();
    for row in rows.iter().filter(|r| text(r, "type") == "TASK") {
        let pk = text(row, "pk");
        let task = tasks.entry((pk.clone(), text(row, "sk"))).or_default();
        task.tenant = text(row, "tenantCode");
        task.kind = own(row, "kind");
        task.status = own(row, "status");
        task.error = own(row, "error");
        task.updated = text(row, "updatedAt");
        task.key = json!({ "pk": row.get("pk"), "sk": row.get("sk") });
    }
    for row in rows.iter().filter(|r| text(r, "type") == "SUB_TASK") {
        let sk = text(row, "sk");
        let Some((id, index)) = sk
            .strip_prefix("SUB_TASK#")
            .and_then(|rest| rest.rsplit_once('#'))
        else {
            continue;
        };
        if let Some(task) = tasks.get_mut(&(text(row, "pk"), format!("TASK#{id}"))) {
            task.sub_tasks.insert(index.to_owned(), own(row, "status"));
        }
    }
    tasks
}

/// `GET /console/framework/{module}`.
pub(crate) async fn module(ctx: Ctx, Path(module): Path<String>) -> Response {
    let body = match module_view(&ctx, &module).await {
        Ok(body) => body,
        Err(e) => html! { (layout::error(&e)) p { a href="/console/framework" { "All modules" } } },
    };
    ctx.page(&module, Tab::Framework, body)
}

async fn module_view(ctx: &Ctx, module: &str) -> Result<Markup, ApiError> {
    let command = format!("{module}-command");
    let dead_letter = format!("{module}-dead-letter");
    let data = format!("{module}-data");
    let (failed_rows, failed_complete) = scan(
        ctx,
        &command,
        Some((
            "#status = :failed",
            json!({ "#status": "status" }),
            json!({ ":failed": { "S": FAILED } }),
        )),
    )
    .await?;
    // A module made before the dead-letter table existed has none: nothing parked.
    let (parked_rows, parked_complete) = match scan(ctx, &dead_letter, None).await {
        Ok(read) => read,
        Err(e) if e.name() == "ResourceNotFoundException" => (Vec::new(), true),
        Err(e) => return Err(e),
    };
    let parked: BTreeMap<(String, String), (String, String)> = parked_rows
        .iter()
        .map(|r| {
            (
                (text(r, "pk"), text(r, "sk")),
                (text(r, "error"), text(r, "parkedAt")),
            )
        })
        .collect();
    let failures: Vec<Failure> = failed_rows
        .iter()
        .map(|row| {
            let (pk, sk) = (text(row, "pk"), text(row, "sk"));
            let parked = parked.get(&(pk.clone(), sk.clone()));
            Failure {
                key: json!({ "pk": row.get("pk"), "sk": row.get("sk") }),
                version: text(row, "version"),
                error: parked.map_or_else(|| text(row, "error"), |(e, _)| e.clone()),
                parked_at: parked.map(|(_, at)| at.clone()),
                pk,
                sk,
            }
        })
        .collect();
    let (task_rows, tasks_complete) = scan(
        ctx,
        &data,
        Some((
            "#type IN (:task, :sub)",
            json!({ "#type": "type" }),
            json!({ ":task": { "S": "TASK" }, ":sub": { "S": "SUB_TASK" } }),
        )),
    )
    .await?;
    let tasks = tasks(&task_rows);
    let cli = cli_names(module);
    Ok(html! {
        h1 { (module) }
        p.hint {
            "The kura-cqrs module's "
            a href=(table_path(&command, Section::Items)) { "command" } ", "
            a href=(table_path(&data, Section::Items)) { "data" } " and "
            a href=(table_path(&format!("{module}-history"), Section::Items)) { "history" } " tables. "
            a href="/console/framework" { "All modules" }
        }
        section.framework-failed {
            h2 { "Failed commands " span.count { "· " (failures.len()) } }
            @if !failed_complete { p.hint { "Read the first " (SCAN_LIMIT) " command rows only." } }
            @if !parked_complete { p.hint { "Read the first " (SCAN_LIMIT) " dead-letter rows only: a command parked after them shows as failed by a sync handler." } }
            @if failures.is_empty() {
                p.empty { "No failed command: every version was applied." }
            } @else {
                table.grid {
                    thead { tr { th { "Entity" } th { "Command" } th { "Version" } th { "Failed by" } th { "Error" } } }
                    tbody {
                        @for f in &failures {
                            tr {
                                td { code { (f.pk) } }
                                td { a href=(format!("{}/item?key={}", table_path(&command, Section::Overview), values::pack(&f.key))) { code { (f.sk) } } }
                                td.num { (f.version) }
                                td {
                                    @match &f.parked_at {
                                        Some(at) => { "the projector, parked " (at) }
                                        None => { "a sync handler" }
                                    }
                                }
                                td { (values::cut(&f.error, 300)) }
                            }
                        }
                    }
                }
                p.hint {
                    "Once the cause is fixed, replay them through the data table and the module's read models (its sync handlers run in the application):"
                }
                pre.cli { "kura cqrs redrive " (cli) " [--sqlite READ_MODEL]" }
            }
            p.hint { "The same list as JSON lines: " code { "kura cqrs failed " (cli) } }
        }
        section.framework-tasks {
            h2 { "Tasks " span.count { "· " (tasks.len()) } }
            @if !tasks_complete { p.hint { "Read the first " (SCAN_LIMIT) " data rows only." } }
            @if tasks.is_empty() {
                p.empty { "No task (TaskService::create makes one)." }
            } @else {
                table.grid {
                    thead { tr { th { "Task" } th { "Tenant" } th { "Kind" } th { "Status" } th { "Sub-tasks" } th { "Updated" } th { "Error" } } }
                    tbody {
                        @for ((_, sk), task) in &tasks {
                            @let ended = task.sub_tasks.values().filter(|s| matches!(s.as_str(), "COMPLETED" | "FAILED")).count();
                            @let failed = task.sub_tasks.values().filter(|s| *s == "FAILED").count();
                            tr {
                                td { a href=(format!("{}/item?key={}", table_path(&data, Section::Overview), values::pack(&task.key))) { code { (sk) } } }
                                td { (task.tenant) }
                                td { (task.kind) }
                                td { strong { (task.status) } }
                                td {
                                    (ended) " of " (task.sub_tasks.len()) " ended"
                                    @if failed > 0 { ", " (failed) " failed" }
                                    " "
                                    progress max=(task.sub_tasks.len().max(1)) value=(ended) {}
                                }
                                td { (task.updated) }
                                td { (values::cut(&task.error, 200)) }
                            }
                        }
                    }
                }
            }
        }
    })
}

/// `--env E --app A --module M` for a module prefix of three dash-free parts; the
/// placeholders when the split is ambiguous.
fn cli_names(module: &str) -> String {
    match module.split('-').collect::<Vec<_>>()[..] {
        [env, app, name] => format!("--env {env} --app {app} --module {name}"),
        _ => format!("--env ENV --app APP --module MODULE  # of {module}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_command_and_data_pairs() {
        let tables = [
            "dev-shop-order-command",
            "dev-shop-order-data",
            "dev-shop-x-command",
            "plain",
        ]
        .map(str::to_owned);
        assert_eq!(modules(&tables), ["dev-shop-order"]);
    }

    #[test]
    fn sub_tasks_join_their_task() {
        let row = |sk: &str, kind: &str, status: &str| {
            json!({
                "pk": {"S": "TASK#t1"}, "sk": {"S": sk}, "type": {"S": kind},
                "attributes": {"M": {"status": {"S": status}, "kind": {"S": "import"}}}
            })
            .as_object()
            .cloned()
            .unwrap_or_default()
        };
        let rows = [
            row("TASK#01", "TASK", "STARTED"),
            row("SUB_TASK#01#001", "SUB_TASK", "COMPLETED"),
            row("SUB_TASK#01#002", "SUB_TASK", "FAILED"),
            row("SUB_TASK#09#001", "SUB_TASK", "COMPLETED"),
        ];
        let tasks = tasks(&rows);
        let task = &tasks[&("TASK#t1".to_owned(), "TASK#01".to_owned())];
        assert_eq!(task.status, "STARTED");
        assert_eq!(task.kind, "import");
        assert_eq!(task.sub_tasks.len(), 2);
    }

    #[test]
    fn cli_names_split_only_when_unambiguous() {
        assert_eq!(
            cli_names("dev-shop-order"),
            "--env dev --app shop --module order"
        );
        assert!(cli_names("dev-my-shop-order").contains("ENV"));
    }
}
