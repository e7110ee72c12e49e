//! `kura serve --audit FILE`: one JSON line per request in CloudTrail's record shape.
//!
//! Control-plane operations are always recorded; data-plane operations (item reads and
//! writes, PartiQL, Streams `GetRecords`/`GetShardIterator`) only when data events are on.
//! Lines carry the table name(s) and, for data events, the key as sent; never item
//! values. Each line is written and flushed to the OS (no fsync) under a mutex before the
//! response leaves, so an acknowledged write's line is in the file. The file is rotated by
//! size: `FILE` becomes `FILE.1`, `FILE.1` becomes `FILE.2`, ... up to `FILE.<keep>`.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::operation::{Access, Api, Op, Plane};
use serde_json::{Map, Value, json};

/// Where and what to record.
#[derive(Debug, Clone)]
pub struct AuditOptions {
    pub path: PathBuf,
    /// Record data-plane operations too (CloudTrail's data events).
    pub data_events: bool,
    /// Rotate before a line would take the file past this many bytes.
    pub max_bytes: u64,
    /// Rotated files kept (`FILE.1` ... `FILE.<keep>`).
    pub keep: usize,
}

impl AuditOptions {
    /// Defaults: control plane only, 64 MiB files, five rotated files kept.
    pub fn new(path: impl Into<PathBuf>) -> AuditOptions {
        AuditOptions {
            path: path.into(),
            data_events: false,
            max_bytes: 64 << 20,
            keep: 5,
        }
    }
}

/// The audit log: a mutex-guarded writer shared by every request.
pub struct AuditLog {
    options: AuditOptions,
    writer: Mutex<Writer>,
}

struct Writer {
    file: BufWriter<File>,
    written: u64,
}

fn open(path: &Path) -> std::io::Result<Writer> {
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    let written = file.metadata()?.len();
    Ok(Writer {
        file: BufWriter::new(file),
        written,
    })
}

impl AuditLog {
    /// Opens (appends to) the file.
    pub fn open(options: AuditOptions) -> std::io::Result<AuditLog> {
        let writer = open(&options.path)?;
        Ok(AuditLog {
            options,
            writer: Mutex::new(writer),
        })
    }

    /// Whether `event` is recorded at all.
    pub(crate) fn records(&self, event: &Event<'_>) -> bool {
        self.options.data_events || !is_data_event(event.operation, event.api)
    }

    /// Writes one line and hands it to the OS before returning.
    pub(crate) fn write(&self, event: &Event<'_>) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(&record(event))?;
        line.push(b'\n');
        self.append(&line)
    }

    /// Records `event` when the log takes it. A line that cannot be written is the
    /// request's error (InternalServerError), so nothing goes unrecorded.
    pub(crate) fn record(&self, event: &Event<'_>) -> Result<(), crate::error::ApiError> {
        if !self.records(event) {
            return Ok(());
        }
        self.write(event).map_err(|error| {
            tracing::error!("cannot write the audit log: {error}");
            crate::error::ApiError::internal("The audit log could not be written")
        })
    }

    fn append(&self, line: &[u8]) -> std::io::Result<()> {
        let mut writer = self
            .writer
            .lock()
            .map_err(|_| std::io::Error::other("audit writer poisoned"))?;
        if writer.written > 0 && writer.written + line.len() as u64 > self.options.max_bytes {
            writer.file.flush()?;
            self.rotate()?;
            *writer = open(&self.options.path)?;
        }
        writer.file.write_all(line)?;
        writer.file.flush()?;
        writer.written += line.len() as u64;
        Ok(())
    }

    fn rotate(&self) -> std::io::Result<()> {
        let numbered = |n: usize| {
            let mut name = self.options.path.clone().into_os_string();
            name.push(format!(".{n}"));
            PathBuf::from(name)
        };
        if self.options.keep == 0 {
            return std::fs::remove_file(&self.options.path);
        }
        for n in (1..self.options.keep).rev() {
            let from = numbered(n);
            if from.exists() {
                std::fs::rename(&from, numbered(n + 1))?;
            }
        }
        std::fs::rename(&self.options.path, numbered(1))
    }
}

/// Who made a request, as far as Kura knows.
pub(crate) struct Identity<'a> {
    pub principal: Option<&'a kura_auth::Principal>,
    pub access_key_id: Option<&'a str>,
}

/// One request, as the audit record needs it.
pub(crate) struct Event<'a> {
    pub operation: &'a str,
    /// The API of the port it addressed (DynamoDB, Streams, Kinesis).
    pub api: Api,
    pub region: &'a str,
    pub source_ip: String,
    pub user_agent: Option<&'a str>,
    pub identity: Identity<'a>,
    /// The request body (decoded).
    pub body: &'a [u8],
    pub request_id: &'a str,
    /// `(errorCode, errorMessage)` when the request failed.
    pub error: Option<(&'a str, Option<&'a str>)>,
    /// To split a Put's key out of its item (None: the key is not split out).
    /// Key schemas, for the keys of a Put's items (None: keys are not split out).
    pub keys: Option<&'a crate::schemas::Schemas<'a>>,
}

/// The operation an event names, from the one operation table.
fn op(operation: &str, api: Api) -> Option<Op> {
    Op::parse(api, operation)
}

/// CloudTrail's data events for DynamoDB: item-level operations, PartiQL, and the Streams
/// record reads (the operation table's `Data` plane). Everything else is a management
/// event.
pub(crate) fn is_data_event(operation: &str, api: Api) -> bool {
    op(operation, api).is_some_and(|op| op.plane() == Plane::Data)
}

/// CloudTrail's `readOnly`, from the operation table; an ExecuteStatement reads when its
/// statement is a SELECT.
fn is_read_only(operation: &str, api: Api, body: &Map<String, Value>) -> bool {
    match op(operation, api).map(Op::access) {
        Some(Access::Read) => true,
        Some(Access::Write) | None => false,
        Some(Access::Statement) => body
            .get("Statement")
            .and_then(Value::as_str)
            .is_some_and(|s| s.trim_start().to_ascii_uppercase().starts_with("SELECT")),
    }
}

/// The CloudTrail record for `event`.
pub(crate) fn record(event: &Event<'_>) -> Value {
    let body = match serde_json::from_slice::<Value>(event.body) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let data = is_data_event(event.operation, event.api);
    let now = time::OffsetDateTime::now_utc();
    let event_time = now
        .format(&time::macros::format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second]Z"
        ))
        .unwrap_or_default();
    let account = event
        .identity
        .principal
        .map_or(kura_engine::ACCOUNT_ID, |p| p.account.as_str());
    let mut out = Map::new();
    out.insert("eventVersion".into(), json!("1.09"));
    out.insert("userIdentity".into(), identity(&event.identity));
    out.insert("eventTime".into(), json!(event_time));
    let source = match event.api {
        Api::Kinesis => "kinesis.amazonaws.com",
        Api::DynamoDb | Api::Streams => "dynamodb.amazonaws.com",
    };
    out.insert("eventSource".into(), json!(source));
    out.insert("eventName".into(), json!(event.operation));
    out.insert("awsRegion".into(), json!(event.region));
    out.insert("sourceIPAddress".into(), json!(event.source_ip));
    out.insert("userAgent".into(), json!(event.user_agent.unwrap_or("")));
    if let Some((code, message)) = event.error {
        out.insert("errorCode".into(), json!(code));
        out.insert("errorMessage".into(), json!(message.unwrap_or("")));
    }
    out.insert(
        "requestParameters".into(),
        request_parameters(event.operation, &body, data, event.keys),
    );
    out.insert("responseElements".into(), Value::Null);
    out.insert("requestID".into(), json!(event.request_id));
    out.insert(
        "eventID".into(),
        json!(uuid::Uuid::new_v4().hyphenated().to_string()),
    );
    out.insert(
        "readOnly".into(),
        json!(is_read_only(event.operation, event.api, &body)),
    );
    out.insert("eventType".into(), json!("AwsApiCall"));
    out.insert("apiVersion".into(), json!("2012-08-10"));
    out.insert("managementEvent".into(), json!(!data));
    out.insert("recipientAccountId".into(), json!(account));
    out.insert(
        "eventCategory".into(),
        json!(if data { "Data" } else { "Management" }),
    );
    Value::Object(out)
}

fn identity(identity: &Identity<'_>) -> Value {
    let Some(principal) = identity.principal else {
        return json!({ "type": "Anonymous", "principalId": "", "accountId": kura_engine::ACCOUNT_ID });
    };
    let mut out = Map::new();
    let kind = match principal.kind {
        kura_auth::PrincipalKind::User => "IAMUser",
        kura_auth::PrincipalKind::Role => "AssumedRole",
    };
    out.insert("type".into(), json!(kind));
    out.insert("principalId".into(), json!(principal.name));
    out.insert("arn".into(), json!(principal.arn()));
    out.insert("accountId".into(), json!(principal.account));
    if let Some(key) = identity.access_key_id {
        out.insert("accessKeyId".into(), json!(key));
    }
    if principal.kind == kura_auth::PrincipalKind::User {
        out.insert("userName".into(), json!(principal.name));
    }
    Value::Object(out)
}

/// Names of the request fields copied as they are (identifiers, never values).
const NAMES: &[(&str, &str)] = &[
    ("TableName", "tableName"),
    ("IndexName", "indexName"),
    ("ResourceArn", "resourceArn"),
    ("StreamArn", "streamArn"),
    ("ShardId", "shardId"),
    ("ShardIteratorType", "shardIteratorType"),
    ("BackupArn", "backupArn"),
    ("BackupName", "backupName"),
    ("ExportArn", "exportArn"),
    ("TableArn", "tableArn"),
    ("TargetTableName", "targetTableName"),
    ("SourceTableName", "sourceTableName"),
    ("GlobalTableName", "globalTableName"),
];

fn copy_names(from: &Map<String, Value>, to: &mut Map<String, Value>) {
    for (field, name) in NAMES {
        if let Some(v @ Value::String(_)) = from.get(*field) {
            to.insert((*name).into(), v.clone());
        }
    }
}

/// The attribute names of an item (CloudTrail lists them; the values stay out).
fn names_of(item: Option<&Value>) -> Option<Value> {
    let item = item?.as_object()?;
    Some(Value::Array(
        item.keys().map(|k| Value::String(k.clone())).collect(),
    ))
}

/// The key attributes of a Put's item, by the table's key schema.
fn key_of(
    keys: Option<&crate::schemas::Schemas<'_>>,
    table: Option<&Value>,
    item: &Value,
) -> Option<Value> {
    let names = keys?.primary_keys(table?.as_str()?)?;
    let item = item.as_object()?;
    let key: Map<String, Value> = names
        .into_iter()
        .filter_map(|name| Some((name.clone(), item.get(&name)?.clone())))
        .collect();
    (!key.is_empty()).then_some(Value::Object(key))
}

/// One action of a batch or transaction: its table, its key, and a Put's attribute names.
fn action(
    operation: &str,
    table: Option<&Value>,
    request: &Map<String, Value>,
    keys: Option<&crate::schemas::Schemas<'_>>,
) -> Value {
    let mut out = Map::new();
    out.insert("operation".into(), json!(operation));
    let table = table.or_else(|| request.get("TableName"));
    if let Some(t) = table {
        out.insert("tableName".into(), t.clone());
    }
    if let Some(key) = request.get("Key") {
        out.insert("key".into(), key.clone());
    }
    if let Some(item) = request.get("Item") {
        if let Some(key) = key_of(keys, table, item) {
            out.insert("key".into(), key);
        }
        if let Some(names) = names_of(Some(item)) {
            out.insert("items".into(), names);
        }
    }
    Value::Object(out)
}

fn request_parameters(
    operation: &str,
    body: &Map<String, Value>,
    data: bool,
    keys: Option<&crate::schemas::Schemas<'_>>,
) -> Value {
    let mut out = Map::new();
    copy_names(body, &mut out);
    if !data {
        return if out.is_empty() {
            Value::Null
        } else {
            Value::Object(out)
        };
    }
    if let Some(key) = body.get("Key") {
        out.insert("key".into(), key.clone());
    }
    if let Some(item) = body.get("Item") {
        if let Some(key) = key_of(keys, body.get("TableName"), item) {
            out.insert("key".into(), key);
        }
        if let Some(names) = names_of(Some(item)) {
            out.insert("item".into(), names);
        }
    }
    let mut items = Vec::new();
    match operation {
        "BatchGetItem" | "BatchWriteItem" => {
            if let Some(tables) = body.get("RequestItems").and_then(Value::as_object) {
                for (table, requests) in tables {
                    let table = Value::String(table.clone());
                    if operation == "BatchGetItem" {
                        let keys = requests.get("Keys").and_then(Value::as_array);
                        for key in keys.into_iter().flatten() {
                            items.push(
                                json!({ "operation": "Get", "tableName": table, "key": key }),
                            );
                        }
                        continue;
                    }
                    for request in requests.as_array().into_iter().flatten() {
                        let Some(request) = request.as_object() else {
                            continue;
                        };
                        for (kind, op) in [("PutRequest", "Put"), ("DeleteRequest", "Delete")] {
                            if let Some(r) = request.get(kind).and_then(Value::as_object) {
                                items.push(action(op, Some(&table), r, keys));
                            }
                        }
                    }
                }
            }
        }
        "TransactGetItems" | "TransactWriteItems" => {
            for entry in body
                .get("TransactItems")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(entry) = entry.as_object() else {
                    continue;
                };
                for (op, request) in entry {
                    if let Some(request) = request.as_object() {
                        items.push(action(op, None, request, keys));
                    }
                }
            }
        }
        _ => {}
    }
    if !items.is_empty() {
        out.insert("requestItems".into(), Value::Array(items));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event<'a>(operation: &'a str, body: &'a [u8]) -> Event<'a> {
        Event {
            operation,
            api: Api::DynamoDb,
            region: "us-east-1",
            source_ip: "127.0.0.1".into(),
            user_agent: Some("test"),
            identity: Identity {
                principal: None,
                access_key_id: None,
            },
            body,
            request_id: "RID",
            error: None,
            keys: None,
        }
    }

    #[test]
    fn put_item_records_key_names_never_values() {
        let body = br#"{"TableName":"T","Item":{"pk":{"S":"a"},"secret":{"S":"hush"}}}"#;
        let r = record(&event("PutItem", body));
        assert_eq!(r["eventCategory"], "Data");
        assert_eq!(r["requestParameters"]["tableName"], "T");
        assert_eq!(r["requestParameters"]["item"], json!(["pk", "secret"]));
        assert!(!r.to_string().contains("hush"));
    }

    #[tokio::test]
    async fn put_item_key_comes_from_the_key_schema() {
        let engine = kura_engine::Engine::in_memory();
        let create = br#"{"TableName":"Tbl","BillingMode":"PAY_PER_REQUEST",
            "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],
            "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}"#;
        let input = serde_json::from_slice(create).expect("input");
        engine
            .create_table(&kura_engine::RequestContext::default(), input)
            .await
            .expect("create");
        let body =
            br#"{"TableName":"Tbl","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"v":{"S":"hush"}}}"#;
        let mut e = event("PutItem", body);
        let schemas = crate::schemas::Schemas::new(&engine);
        e.keys = Some(&schemas);
        let r = record(&e);
        assert_eq!(
            r["requestParameters"]["key"],
            json!({"pk": {"S": "a"}, "sk": {"N": "1"}})
        );
        assert!(!r.to_string().contains("hush"));
    }

    #[test]
    fn batch_write_lists_each_action() {
        let body = br#"{"RequestItems":{"T":[{"PutRequest":{"Item":{"pk":{"S":"x"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"y"}}}}]}}"#;
        let r = record(&event("BatchWriteItem", body));
        let items = r["requestParameters"]["requestItems"].as_array().unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[1]["key"]["pk"]["S"], "y");
        assert!(!r.to_string().contains("\"x\""));
    }

    #[test]
    fn rotation_keeps_n_files() {
        let dir = std::env::temp_dir().join(format!("kura-audit-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("audit.log");
        let mut options = AuditOptions::new(&path);
        options.max_bytes = 10;
        options.keep = 2;
        let log = AuditLog::open(options).unwrap();
        for n in 0..5 {
            log.append(format!("line{n}\n").as_bytes()).unwrap();
        }
        let read = |p: &Path| std::fs::read_to_string(p).unwrap();
        assert_eq!(read(&path), "line4\n");
        assert_eq!(read(&dir.join("audit.log.1")), "line3\n");
        assert_eq!(read(&dir.join("audit.log.2")), "line2\n");
        assert!(!dir.join("audit.log.3").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
