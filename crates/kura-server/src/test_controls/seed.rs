//! Starting state for tests and development: `--schema FILE` creates tables from
//! DescribeTable-shaped JSON, `--seed DIR` loads items. Both go through the same
//! operations a client calls (CreateTable, BatchWriteItem), so a seed is validated exactly
//! as a client's writes are.
//!
//! A schema file holds `aws dynamodb describe-table` output (`{"Table": {...}}`), a list of
//! those, `{"Tables": [...]}`, or CreateTable inputs. A seed directory holds, per table:
//! - `TABLE.json`: a list of items in DynamoDB JSON, or `aws dynamodb scan` output
//!   (`{"Items": [...]}`);
//! - any `*.json` holding BatchWriteItem's `RequestItems` (with or without that wrapper),
//!   as `aws dynamodb batch-write-item --request-items file://...` takes;
//! - `TABLE/`: a DynamoDB export (DYNAMODB_JSON lines, `.json` or `.json.gz`, any depth;
//!   manifests are skipped).

use std::collections::BTreeMap;
use std::path::Path;

use kura_engine::Engine;
use serde_json::{Value, json};

/// Items loaded per table.
pub type Loaded = BTreeMap<String, usize>;

/// A server's starting state: creates the tables of `schema` and loads `seed`, without
/// throttling, into a server with no tables yet only (a durable data directory is seeded
/// once, and a restart keeps what it holds). With in-memory test controls, the result is
/// kept as the snapshot `seed`.
pub async fn start_state(
    engine: &Engine,
    controls: Option<&super::TestControls>,
    schema: Option<&Path>,
    seed: Option<&Path>,
) -> Result<(), String> {
    if schema.is_none() && seed.is_none() {
        return Ok(());
    }
    if engine.has_any_table() {
        tracing::info!("the data directory has tables: --schema and --seed are not applied");
        return Ok(());
    }
    engine.capacity().pause(true);
    let applied = async {
        if let Some(path) = schema {
            let created = apply_schema(engine, path).await?;
            tracing::info!(tables = ?created, "schema applied from {}", path.display());
        }
        if let Some(dir) = seed {
            let loaded = load_seed(engine, dir).await?;
            tracing::info!(items = ?loaded, "seed loaded from {}", dir.display());
        }
        Ok::<(), String>(())
    }
    .await;
    engine.capacity().pause(false);
    applied?;
    if let Some(controls) = controls
        && controls.can_snapshot()
    {
        controls.snapshot("seed")?;
    }
    Ok(())
}

/// Creates the tables a schema file describes; their names.
pub async fn apply_schema(engine: &Engine, path: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the schema {}: {e}", path.display()))?;
    let inputs = kura_api::schema_file::schema_inputs(&text)
        .map_err(|e| format!("the schema {}: {e}", path.display()))?;
    let mut created = Vec::new();
    for input in inputs {
        let name = input["TableName"].as_str().unwrap_or_default().to_owned();
        call(engine, "CreateTable", &input)
            .await
            .map_err(|e| format!("{}: table {name}: {e}", path.display()))?;
        created.push(name);
    }
    Ok(created)
}

/// Loads every seed file and export under `dir`.
pub async fn load_seed(engine: &Engine, dir: &Path) -> Result<Loaded, String> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the seed directory {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    let mut loaded = Loaded::new();
    for path in entries {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        let requests = if path.is_dir() {
            let items = export_items(&path)?;
            BTreeMap::from([(file_name(&path), items)])
        } else if path.extension().and_then(|e| e.to_str()) == Some("json") {
            seed_file(&path, &stem)?
        } else {
            continue;
        };
        for (table, items) in requests {
            let count = items.len();
            // The test's set-up, not the application's traffic: counted apart, as the
            // console's browsing is (no advisor evidence, no Contributor Insights keys,
            // no consumed capacity of the application's).
            kura_engine::counters::counted_apart(put_all(engine, &table, items))
                .await
                .map_err(|e| format!("{}: table {table}: {e}", path.display()))?;
            *loaded.entry(table).or_default() += count;
        }
    }
    Ok(loaded)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned()
}

/// The items of one seed file, by table.
fn seed_file(path: &Path, stem: &str) -> Result<BTreeMap<String, Vec<Value>>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    seed_requests(&text, stem).map_err(|e| format!("{}: {e}", path.display()))
}

/// The items a seed file's text holds, by table (`stem`, the file's name without
/// `.json`, for a plain list or scan output).
pub fn seed_requests(text: &str, stem: &str) -> Result<BTreeMap<String, Vec<Value>>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let shape = || {
        "expected a list of items, scan output ({\"Items\": [...]}) or BatchWriteItem RequestItems"
            .to_owned()
    };
    match value {
        Value::Array(items) => Ok(BTreeMap::from([(stem.to_owned(), items)])),
        Value::Object(o) if o.get("Items").is_some_and(Value::is_array) => Ok(BTreeMap::from([(
            stem.to_owned(),
            o["Items"].as_array().cloned().unwrap_or_default(),
        )])),
        Value::Object(o) => {
            let requests = o
                .get("RequestItems")
                .and_then(Value::as_object)
                .unwrap_or(&o);
            let mut out = BTreeMap::new();
            for (table, list) in requests {
                let list = list.as_array().ok_or_else(shape)?;
                let items = list
                    .iter()
                    .map(|r| r["PutRequest"]["Item"].clone())
                    .filter(|i| !i.is_null())
                    .collect::<Vec<_>>();
                if items.len() != list.len() {
                    return Err(format!("table {table}: a seed holds PutRequests only"));
                }
                out.insert(table.clone(), items);
            }
            Ok(out)
        }
        _ => Err(shape()),
    }
}

/// The items of a DynamoDB export (DYNAMODB_JSON) under `dir`, in file order.
fn export_items(dir: &Path) -> Result<Vec<Value>, String> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        let entries =
            std::fs::read_dir(&next).map_err(|e| format!("cannot read {}: {e}", next.display()))?;
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = file_name(&path);
            if path.is_dir() {
                pending.push(path);
            } else if !name.starts_with("manifest-")
                && (name.ends_with(".json") || name.ends_with(".json.gz"))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut items = Vec::new();
    for path in files {
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let kind = if file_name(&path).ends_with(".gz") {
            "GZIP"
        } else {
            "NONE"
        };
        let bytes = kura_engine::imports::parse::decompress(kind, bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("{} is not UTF-8 text", path.display()))?;
        for (line, item) in kura_engine::imports::parse::lines("DYNAMODB_JSON", &text) {
            let item = item.map_err(|e| format!("{} line {line}: {e}", path.display()))?;
            items.push(serde_json::to_value(item).map_err(|e| e.to_string())?);
        }
    }
    Ok(items)
}

/// Writes `items` to `table` with BatchWriteItem, 25 at a time.
async fn put_all(engine: &Engine, table: &str, items: Vec<Value>) -> Result<(), String> {
    for chunk in items.chunks(25) {
        let requests: Vec<Value> = chunk
            .iter()
            .map(|item| json!({"PutRequest": {"Item": item}}))
            .collect();
        call(
            engine,
            "BatchWriteItem",
            &json!({"RequestItems": {table: requests}}),
        )
        .await?;
    }
    Ok(())
}

async fn call(engine: &Engine, operation: &str, input: &Value) -> Result<Value, String> {
    let body = serde_json::to_vec(input).map_err(|e| e.to_string())?;
    match kura_api::invoke(engine, operation, body.into()).await {
        Ok(answer) => serde_json::from_slice(&answer).map_err(|e| e.to_string()),
        Err(e) => Err(format!(
            "{}: {}",
            e.name(),
            e.message.as_deref().unwrap_or_default()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn seeded_items_are_not_the_applications_traffic() {
        let engine = Engine::in_memory();
        let create = json!({"TableName": "seeded", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]});
        call(&engine, "CreateTable", &create).await.expect("table");
        let dir = std::env::temp_dir().join(format!("kura-seed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let items: Vec<Value> = (0..30)
            .map(|i| json!({"pk": {"S": format!("k{i}")}}))
            .collect();
        std::fs::write(dir.join("seeded.json"), Value::Array(items).to_string()).expect("seed");
        let loaded = load_seed(&engine, &dir).await.expect("seeded");
        let _cleanup = std::fs::remove_dir_all(&dir);
        assert_eq!(loaded.get("seeded"), Some(&30));
        let counted = engine.telemetry().existing("seeded");
        let requests = counted.map_or(0, |c| c.requests.load(std::sync::atomic::Ordering::Relaxed));
        assert_eq!(requests, 0, "seeding is counted apart");
        let scan = call(
            &engine,
            "Scan",
            &json!({"TableName": "seeded", "Select": "COUNT"}),
        )
        .await
        .expect("scan");
        assert_eq!(scan["Count"], 30);
        let counted = engine
            .telemetry()
            .existing("seeded")
            .expect("the scan counts");
        assert_eq!(
            counted.requests.load(std::sync::atomic::Ordering::Relaxed),
            1
        );
    }
}
