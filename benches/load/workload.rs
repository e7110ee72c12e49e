//! The workloads: DynamoDB requests as JSON bodies, identical for every target, so Kura,
//! its peers, the echo baseline and the embedded engine all receive the same bytes.

use bytes::Bytes;
use serde::Deserialize;
use serde_json::{Value, json};

/// Holds the rows that GetItem, Query and Scan read: [`PARTITIONS`] × [`PER_PARTITION`].
pub const READ_TABLE: &str = "kura_bench_read";
/// Takes every write workload; keys never collide across workers or runs.
pub const WRITE_TABLE: &str = "kura_bench_write";
pub const PARTITIONS: usize = 10;
pub const PER_PARTITION: usize = 100;
/// Length of the random text that makes an item about 1 KB.
const PAYLOAD_CHARS: usize = 960;
/// Items per page of Query and Scan.
pub const PAGE: usize = 25;
/// Items per page of the large Scan (issue 16 measures a Scan page of 100 items).
pub const LARGE_PAGE: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    Put,
    Get,
    Query,
    BatchWrite,
    Update,
    Transact,
    Scan,
    #[value(name = "scan-100")]
    #[serde(rename = "scan-100")]
    Scan100,
}

/// One request: the operation (after `DynamoDB_20120810.`) and its JSON body.
#[derive(Debug, Clone)]
pub struct Request {
    pub operation: &'static str,
    pub body: Bytes,
}

impl Request {
    pub fn new(operation: &'static str, body: &Value) -> Self {
        Request {
            operation,
            body: Bytes::from(body.to_string()),
        }
    }
}

/// What one worker remembers between its requests.
pub struct WorkerState {
    worker: usize,
    run: usize,
    seq: u64,
    rng: fastrand::Rng,
    /// The version the next optimistic-lock update expects.
    version: u64,
    /// Where the next Scan page starts (None: from the beginning).
    scan_start: Option<Value>,
}

impl WorkerState {
    pub fn new(run: usize, worker: usize) -> Self {
        WorkerState {
            worker,
            run,
            seq: 0,
            rng: fastrand::Rng::with_seed((run * 10_007 + worker) as u64),
            version: 0,
            scan_start: None,
        }
    }
}

impl Workload {
    pub const ALL: [Workload; 8] = [
        Workload::Put,
        Workload::Get,
        Workload::Query,
        Workload::BatchWrite,
        Workload::Update,
        Workload::Transact,
        Workload::Scan,
        Workload::Scan100,
    ];

    /// How the workload appears in tables.
    pub fn label(self) -> &'static str {
        match self {
            Workload::Put => "PutItem 1KB",
            Workload::Get => "GetItem",
            Workload::Query => "Query 25 of 100",
            Workload::BatchWrite => "BatchWriteItem 25",
            Workload::Update => "UpdateItem cond+ADD",
            Workload::Transact => "TransactWrite 4",
            Workload::Scan => "Scan page of 25",
            Workload::Scan100 => "Scan page of 100",
        }
    }

    /// The next request of a worker.
    pub fn next(self, s: &mut WorkerState) -> Request {
        s.seq += 1;
        let (run, w, seq) = (s.run, s.worker, s.seq);
        match self {
            Workload::Put => Request::new(
                "PutItem",
                &json!({"TableName": WRITE_TABLE,
                        "Item": item(&format!("put#{run}#{w}#{seq}"), "0", &mut s.rng)}),
            ),
            Workload::Get => {
                let (p, i) = (s.rng.usize(..PARTITIONS), s.rng.usize(..PER_PARTITION));
                Request::new(
                    "GetItem",
                    &json!({"TableName": READ_TABLE, "Key": key(&partition(p), &sort_key(i))}),
                )
            }
            Workload::Query => query_page(READ_TABLE, s.rng.usize(..PARTITIONS)),
            Workload::BatchWrite => {
                let puts: Vec<Value> = (0..25)
                    .map(|j| {
                        json!({"PutRequest": {"Item":
                            item(&format!("bw#{run}#{w}#{seq}#{j}"), "0", &mut s.rng)}})
                    })
                    .collect();
                Request::new(
                    "BatchWriteItem",
                    &json!({"RequestItems": {WRITE_TABLE: puts}}),
                )
            }
            Workload::Update => Request::new(
                "UpdateItem",
                &json!({
                    "TableName": WRITE_TABLE,
                    "Key": key(&update_key(run, w), "0"),
                    "UpdateExpression": "SET #v = :next ADD #n :one",
                    "ConditionExpression": "#v = :expected",
                    "ExpressionAttributeNames": {"#v": "v", "#n": "n"},
                    "ExpressionAttributeValues": {
                        ":expected": {"N": s.version.to_string()},
                        ":next": {"N": (s.version + 1).to_string()},
                        ":one": {"N": "1"},
                    },
                }),
            ),
            Workload::Transact => {
                let puts: Vec<Value> = (0..4)
                    .map(|j| {
                        json!({"Put": {"TableName": WRITE_TABLE,
                            "Item": item(&format!("tx#{run}#{w}#{seq}#{j}"), "0", &mut s.rng)}})
                    })
                    .collect();
                Request::new("TransactWriteItems", &json!({"TransactItems": puts}))
            }
            Workload::Scan | Workload::Scan100 => {
                let limit = if self == Workload::Scan {
                    PAGE
                } else {
                    LARGE_PAGE
                };
                let mut body = json!({"TableName": READ_TABLE, "Limit": limit});
                if let Some(start) = &s.scan_start {
                    body["ExclusiveStartKey"] = start.clone();
                }
                Request::new("Scan", &body)
            }
        }
    }

    /// Learns from a response what the worker's next request needs.
    pub fn observe(self, s: &mut WorkerState, ok: bool, body: &[u8]) {
        match self {
            Workload::Update if ok => s.version += 1,
            Workload::Scan | Workload::Scan100 if ok => {
                // Skips the items without building them; only the page's end matters.
                #[derive(Deserialize)]
                struct Page {
                    #[serde(rename = "LastEvaluatedKey")]
                    last: Option<Value>,
                }
                s.scan_start = serde_json::from_slice::<Page>(body)
                    .ok()
                    .and_then(|p| p.last);
            }
            _ => {}
        }
    }

    /// Requests that prepare a run of `concurrency` workers (not timed).
    pub fn setup(self, run: usize, concurrency: usize) -> Vec<Request> {
        match self {
            Workload::Update => {
                let mut rng = fastrand::Rng::with_seed(run as u64);
                (0..concurrency)
                    .map(|w| {
                        Request::new(
                            "PutItem",
                            &json!({"TableName": WRITE_TABLE,
                                    "Item": item(&update_key(run, w), "0", &mut rng)}),
                        )
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }
}

/// CreateTable for both tables.
pub fn create_tables() -> Vec<Request> {
    [READ_TABLE, WRITE_TABLE].map(create_table).to_vec()
}

/// CreateTable: pk S, sk S, on demand.
pub fn create_table(table: &str) -> Request {
    Request::new("CreateTable", &table_definition(table))
}

/// CreateTable as [`create_table`], with one global secondary index that inverts the key
/// (sk HASH, pk RANGE) and projects ALL: every item is stored twice, as in the issue's
/// footprint figure.
pub fn create_table_with_gsi(table: &str) -> Request {
    let mut definition = table_definition(table);
    definition["GlobalSecondaryIndexes"] = json!([{
        "IndexName": "by_sk",
        "KeySchema": [
            {"AttributeName": "sk", "KeyType": "HASH"},
            {"AttributeName": "pk", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"},
    }]);
    Request::new("CreateTable", &definition)
}

pub(crate) fn table_definition(table: &str) -> Value {
    json!({
        "TableName": table,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
    })
}

pub fn describe_table(table: &str) -> Request {
    Request::new("DescribeTable", &json!({"TableName": table}))
}

/// BatchWriteItem requests that fill the read table.
pub fn load_read_table() -> Vec<Request> {
    let mut rng = fastrand::Rng::with_seed(7);
    (0..PARTITIONS * PER_PARTITION)
        .step_by(25)
        .map(|first| bulk_batch(READ_TABLE, first, &mut rng))
        .collect()
}

/// BatchWriteItem of 25 items in `table`: partitions of [`PER_PARTITION`] items, numbered
/// from `first` (for bulk loads).
pub fn bulk_batch(table: &str, first: usize, rng: &mut fastrand::Rng) -> Request {
    let puts: Vec<Value> = (first..first + 25)
        .map(|n| {
            let pk = partition(n / PER_PARTITION);
            json!({"PutRequest": {"Item": item(&pk, &sort_key(n % PER_PARTITION), rng)}})
        })
        .collect();
    Request::new("BatchWriteItem", &json!({"RequestItems": {table: puts}}))
}

/// A Query of a page of [`PAGE`] items from partition `p` of `table`.
pub fn query_page(table: &str, p: usize) -> Request {
    Request::new(
        "Query",
        &json!({
            "TableName": table,
            "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
            "ExpressionAttributeValues": {":p": {"S": partition(p)}, ":s": {"S": "item#"}},
            "Limit": PAGE,
        }),
    )
}

pub fn partition(p: usize) -> String {
    format!("part#{p:07}")
}

fn sort_key(i: usize) -> String {
    format!("item#{i:04}")
}

fn update_key(run: usize, worker: usize) -> String {
    format!("upd#{run}#{worker}")
}

fn key(pk: &str, sk: &str) -> Value {
    json!({"pk": {"S": pk}, "sk": {"S": sk}})
}

/// An item of about 1 KB; the text is random so that compression does not flatter sizes.
pub fn item(pk: &str, sk: &str, rng: &mut fastrand::Rng) -> Value {
    let payload: String = (0..PAYLOAD_CHARS).map(|_| rng.alphanumeric()).collect();
    json!({
        "pk": {"S": pk},
        "sk": {"S": sk},
        "v": {"N": "0"},
        "n": {"N": "0"},
        "payload": {"S": payload},
    })
}
