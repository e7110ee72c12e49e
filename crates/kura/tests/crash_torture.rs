//! Crash-restart torture: concurrent clients put, conditionally update, delete, batch-write
//! and transact on a table with a GSI and a stream; `kill -9` lands at a random moment;
//! after each restart:
//!
//! - every acknowledged write is there, and the one write each client had in flight is
//!   either wholly applied or not at all (a transaction is never half-visible);
//! - nothing else is in the table, and ItemCount agrees;
//! - the GSI equals its table;
//! - the stream holds exactly the changes, per item, in order, across every crash;
//! - items written already expired (TTL) are all deleted by the sweeper after each
//!   restart, each deletion in the stream once, as DynamoDB's service deletion.
//!
//! Each client owns its keys, so its model of them is exact: any refusal while the server
//! is up (a failed condition, a cancelled transaction) is a defect too.
//!
//! `KURA_TORTURE_CYCLES` (default 3) sets the number of crashes, `KURA_TORTURE_SEED` the
//! seed (printed, so a failure can be replayed), `KURA_TORTURE_MAX_PAUSE_MS` (default 900)
//! the longest load before a kill. `docs/reliability.md` gives the long form's command and
//! its result.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::{
    AttributeValue as Av, BillingMode, ConditionCheck, Delete, DeleteRequest, GlobalSecondaryIndex,
    KeyType, Projection, ProjectionType, Put, PutRequest, ScalarAttributeType, StreamSpecification,
    StreamViewType, TransactWriteItem, Update, WriteRequest,
};
use aws_sdk_dynamodbstreams::types::{AttributeValue as SV, OperationType};
use common::KuraProcess;

const TABLE: &str = "Torture";
const INDEX: &str = "byGroup";
const CLIENTS: usize = 6;
const KEYS_PER_CLIENT: usize = 12;
/// Keys a client only ever puts already expired, for the TTL sweeper to delete.
const EXPIRING_PER_CLIENT: usize = 3;
/// The TTL attribute.
const EXPIRES: &str = "exp";

/// An item's state as the model knows it: its `ver` stamp, or absent.
type State = Option<u64>;

/// The write a client had in flight when the server died: each key's state before and
/// after. `atomic` writes land wholly or not at all; a batch may land item by item.
#[derive(Debug, Clone)]
struct InFlight {
    what: &'static str,
    changes: Vec<(String, State, State)>,
    atomic: bool,
    /// When and how the request failed: it must be the kill, not anything before it.
    failed_at: Option<std::time::Instant>,
    error: String,
    /// An expiring put: its key and stamp (the table cannot tell whether it landed,
    /// since the sweeper deletes it; the stream can).
    expiring: Option<(String, u64)>,
}

/// One client's exact knowledge of its keys.
#[derive(Debug, Clone)]
struct Model {
    client: usize,
    rng: fastrand::Rng,
    stamp: u64,
    keys: BTreeMap<String, State>,
    /// Every applied change per key, in order: what the stream must hold.
    history: BTreeMap<String, Vec<State>>,
    in_flight: Option<InFlight>,
    /// The expiring put in flight at the last kill, until the stream says whether it landed.
    expiring_in_flight: Option<(String, u64)>,
    acknowledged: usize,
}

impl Model {
    fn new(client: usize, seed: u64) -> Self {
        Model {
            client,
            rng: fastrand::Rng::with_seed(seed ^ (client as u64 * 0x9E37_79B9)),
            stamp: 0,
            keys: (0..KEYS_PER_CLIENT)
                .map(|k| (format!("c{client}-k{k}"), None))
                .collect(),
            history: BTreeMap::new(),
            in_flight: None,
            expiring_in_flight: None,
            acknowledged: 0,
        }
    }

    fn next_stamp(&mut self) -> u64 {
        self.stamp += 1;
        self.client as u64 * 1_000_000_000 + self.stamp
    }

    fn pick_keys(&mut self, n: usize) -> Vec<String> {
        let mut all: Vec<String> = self.keys.keys().cloned().collect();
        self.rng.shuffle(&mut all);
        all.truncate(n);
        all
    }

    /// Records a write's effect once it is acknowledged.
    fn apply(&mut self, changes: &[(String, State, State)]) {
        for (key, before, after) in changes {
            debug_assert_eq!(self.keys[key], *before);
            if before != after {
                self.history.entry(key.clone()).or_default().push(*after);
            }
            self.keys.insert(key.clone(), *after);
        }
        self.acknowledged += 1;
    }

    fn item(&self, key: &str, stamp: u64) -> HashMap<String, Av> {
        HashMap::from([
            ("pk".to_owned(), Av::S(key.to_owned())),
            ("grp".to_owned(), Av::S(format!("c{}", self.client))),
            ("ver".to_owned(), Av::N(stamp.to_string())),
            (
                "pad".to_owned(),
                Av::S("p".repeat(200 + (stamp % 300) as usize)),
            ),
        ])
    }
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_acknowledged_write_survives_repeated_kill9() {
    let cycles = env_or("KURA_TORTURE_CYCLES", 3) as usize;
    // How long load runs before a kill, at most (a sixth of it at least).
    let max_pause = env_or("KURA_TORTURE_MAX_PAUSE_MS", 900).max(6);
    let started = std::time::Instant::now();
    let seed = env_or(
        "KURA_TORTURE_SEED",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs()),
    );
    eprintln!("crash torture: {cycles} cycles, KURA_TORTURE_SEED={seed}");
    let mut timing = fastrand::Rng::with_seed(seed);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut models: Vec<Model> = (0..CLIENTS).map(|c| Model::new(c, seed)).collect();
    let mut total_acks = 0;
    let mut stream = StreamCheck::default();
    for cycle in 0..=cycles {
        let server = KuraProcess::start(Some(dir.path()));
        let client = server.client();
        if cycle == 0 {
            create_table(&client).await;
        }
        check(&server, &mut models, &mut stream, cycle).await;
        if cycle == cycles {
            break;
        }
        let mut tasks = Vec::new();
        let before: Vec<usize> = models.iter().map(|m| m.acknowledged).collect();
        let acked: Vec<Arc<AtomicUsize>> = (0..CLIENTS).map(|_| Arc::default()).collect();
        // Writers do not retry: a retry after the kill only waits out its backoff.
        let writer = common::without_retries(&client);
        for (model, acked) in models.drain(..).zip(&acked) {
            let client = writer.clone();
            tasks.push(tokio::spawn(run_client(client, model, acked.clone())));
        }
        let pause = timing.u64(max_pause / 6..max_pause);
        tokio::time::sleep(Duration::from_millis(pause)).await;
        // On a loaded machine the pause can end before a client's first write: the kill
        // waits for one acknowledgement each, so every cycle tests every client.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while acked.iter().any(|a| a.load(Ordering::Relaxed) == 0) {
            assert!(
                std::time::Instant::now() < deadline,
                "cycle {cycle}: a client had no write acknowledged within 60 s"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let killed_at = std::time::Instant::now();
        server.kill9();
        for task in tasks {
            models.push(task.await.expect("client task"));
        }
        for (model, acked_before) in models.iter().zip(before) {
            let flight = model
                .in_flight
                .as_ref()
                .expect("a client stops only on an error");
            assert!(
                flight.failed_at.is_some_and(|t| t >= killed_at),
                "cycle {cycle}: client {} failed before the kill: {}",
                model.client,
                flight.error
            );
            assert!(
                model.acknowledged > acked_before,
                "cycle {cycle}: client {} had no write acknowledged",
                model.client
            );
        }
        let acks: usize = models.iter().map(|m| m.acknowledged).sum();
        assert!(
            acks > total_acks,
            "cycle {cycle}: some writes must be acknowledged"
        );
        total_acks = acks;
        if (cycle + 1) % 100 == 0 {
            eprintln!(
                "crash torture: {} crashes, {total_acks} acknowledged writes, {:.0} s",
                cycle + 1,
                started.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!("crash torture: {total_acks} acknowledged writes checked over {cycles} crashes");
}

/// Writes until the server goes away; returns the model with the write left in flight.
async fn run_client(client: Client, mut model: Model, acked: Arc<AtomicUsize>) -> Model {
    loop {
        let roll = model.rng.u32(0..100);
        let result = match roll {
            0..30 => put(&client, &mut model).await,
            30..55 => update(&client, &mut model).await,
            55..65 => delete(&client, &mut model).await,
            65..80 => batch(&client, &mut model).await,
            80..95 => transact(&client, &mut model).await,
            _ => expire(&client, &mut model).await,
        };
        match result {
            Ok(()) => {
                acked.fetch_add(1, Ordering::Relaxed);
            }
            Err(in_flight) => {
                model.in_flight = Some(in_flight);
                return model;
            }
        }
    }
}

/// Records an acknowledged write in the model, or returns it as the write in flight.
/// A refusal while the server is up is a defect; any other failure means the server is
/// gone and the write's fate is unknown.
fn settle<T, E: std::fmt::Debug, R: std::fmt::Debug>(
    result: Result<T, SdkError<E, R>>,
    model: &mut Model,
    what: &'static str,
    changes: Vec<(String, State, State)>,
    atomic: bool,
) -> Result<(), InFlight> {
    let e = match result {
        Ok(_) => {
            model.apply(&changes);
            return Ok(());
        }
        Err(e) => e,
    };
    let mut in_flight = InFlight {
        what,
        changes,
        atomic,
        failed_at: None,
        error: String::new(),
        expiring: None,
    };
    if let SdkError::ServiceError(service) = &e {
        panic!(
            "client {}: {} refused while the server was up: {:?}",
            model.client,
            in_flight.what,
            service.err()
        );
    }
    in_flight.failed_at = Some(std::time::Instant::now());
    in_flight.error = format!("{e:?}");
    Err(in_flight)
}

fn condition_on(before: State) -> (String, Option<Av>) {
    match before {
        Some(v) => ("#ver = :cur".to_owned(), Some(Av::N(v.to_string()))),
        None => ("attribute_not_exists(pk)".to_owned(), None),
    }
}

async fn put(client: &Client, model: &mut Model) -> Result<(), InFlight> {
    let key = model.pick_keys(1).remove(0);
    let before = model.keys[&key];
    let stamp = model.next_stamp();
    let changes = vec![(key.clone(), before, Some(stamp))];
    let (condition, current) = condition_on(before);
    let result = client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(model.item(&key, stamp)))
        .condition_expression(condition)
        .set_expression_attribute_names(
            current
                .is_some()
                .then(|| HashMap::from([("#ver".to_owned(), "ver".to_owned())])),
        )
        .set_expression_attribute_values(current.map(|c| HashMap::from([(":cur".to_owned(), c)])))
        .send()
        .await;
    settle(result, model, "PutItem", changes, true)
}

async fn update(client: &Client, model: &mut Model) -> Result<(), InFlight> {
    let key = model.pick_keys(1).remove(0);
    let before = model.keys[&key];
    let stamp = model.next_stamp();
    let changes = vec![(key.clone(), before, Some(stamp))];
    let (condition, current) = condition_on(before);
    let mut values = HashMap::from([
        (":new".to_owned(), Av::N(stamp.to_string())),
        (":grp".to_owned(), Av::S(format!("c{}", model.client))),
        (":one".to_owned(), Av::N("1".into())),
    ]);
    if let Some(c) = current {
        values.insert(":cur".to_owned(), c);
    }
    let result = client
        .update_item()
        .table_name(TABLE)
        .key("pk", Av::S(key.clone()))
        .update_expression("SET #ver = :new, #grp = :grp ADD #updates :one")
        .condition_expression(condition)
        .expression_attribute_names("#ver", "ver")
        .expression_attribute_names("#grp", "grp")
        .expression_attribute_names("#updates", "updates")
        .set_expression_attribute_values(Some(values))
        .send()
        .await;
    settle(result, model, "UpdateItem", changes, true)
}

async fn delete(client: &Client, model: &mut Model) -> Result<(), InFlight> {
    let key = model.pick_keys(1).remove(0);
    let before = model.keys[&key];
    let changes = vec![(key.clone(), before, None)];
    let result = client
        .delete_item()
        .table_name(TABLE)
        .key("pk", Av::S(key.clone()))
        .send()
        .await;
    settle(result, model, "DeleteItem", changes, true)
}

async fn batch(client: &Client, model: &mut Model) -> Result<(), InFlight> {
    let n = model.rng.usize(2..=8);
    let keys = model.pick_keys(n);
    let mut changes = Vec::new();
    let mut requests = Vec::new();
    for key in keys {
        let before = model.keys[&key];
        if model.rng.u8(0..4) == 0 {
            changes.push((key.clone(), before, None));
            let delete = DeleteRequest::builder()
                .key("pk", Av::S(key))
                .build()
                .expect("delete request");
            requests.push(WriteRequest::builder().delete_request(delete).build());
        } else {
            let stamp = model.next_stamp();
            changes.push((key.clone(), before, Some(stamp)));
            let put = PutRequest::builder()
                .set_item(Some(model.item(&key, stamp)))
                .build()
                .expect("put request");
            requests.push(WriteRequest::builder().put_request(put).build());
        }
    }
    let result = client
        .batch_write_item()
        .request_items(TABLE, requests)
        .send()
        .await;
    if let Ok(out) = &result {
        assert!(
            out.unprocessed_items().is_none_or(HashMap::is_empty),
            "Kura does not throttle, so nothing comes back unprocessed"
        );
    }
    settle(result, model, "BatchWriteItem", changes, false)
}

/// Four actions on four of the client's keys, each conditioned on the model's state: puts,
/// updates, deletes, and a condition check that changes nothing.
async fn transact(client: &Client, model: &mut Model) -> Result<(), InFlight> {
    let keys = model.pick_keys(4);
    let mut changes = Vec::new();
    let mut actions = Vec::new();
    for key in keys {
        let before = model.keys[&key];
        let (condition, current) = condition_on(before);
        let names = current
            .is_some()
            .then(|| HashMap::from([("#ver".to_owned(), "ver".to_owned())]));
        let mut values: HashMap<String, Av> = current
            .map(|c| HashMap::from([(":cur".to_owned(), c)]))
            .unwrap_or_default();
        let pk = HashMap::from([("pk".to_owned(), Av::S(key.clone()))]);
        let action = match (before, model.rng.u8(0..4)) {
            (Some(_), 0) => {
                changes.push((key.clone(), before, None));
                TransactWriteItem::builder()
                    .delete(
                        Delete::builder()
                            .table_name(TABLE)
                            .set_key(Some(pk))
                            .condition_expression(condition)
                            .set_expression_attribute_names(names)
                            .set_expression_attribute_values(Some(values))
                            .build()
                            .expect("delete"),
                    )
                    .build()
            }
            (_, 1) => {
                changes.push((key.clone(), before, before));
                TransactWriteItem::builder()
                    .condition_check(
                        ConditionCheck::builder()
                            .table_name(TABLE)
                            .set_key(Some(pk))
                            .condition_expression(condition)
                            .set_expression_attribute_names(names)
                            .set_expression_attribute_values((!values.is_empty()).then_some(values))
                            .build()
                            .expect("condition check"),
                    )
                    .build()
            }
            (_, 2) => {
                let stamp = model.next_stamp();
                changes.push((key.clone(), before, Some(stamp)));
                values.insert(":new".to_owned(), Av::N(stamp.to_string()));
                values.insert(":grp".to_owned(), Av::S(format!("c{}", model.client)));
                let mut names = names.unwrap_or_default();
                names.insert("#ver".to_owned(), "ver".to_owned());
                names.insert("#grp".to_owned(), "grp".to_owned());
                TransactWriteItem::builder()
                    .update(
                        Update::builder()
                            .table_name(TABLE)
                            .set_key(Some(pk))
                            .update_expression("SET #ver = :new, #grp = :grp")
                            .condition_expression(condition)
                            .set_expression_attribute_names(Some(names))
                            .set_expression_attribute_values(Some(values))
                            .build()
                            .expect("update"),
                    )
                    .build()
            }
            _ => {
                let stamp = model.next_stamp();
                changes.push((key.clone(), before, Some(stamp)));
                TransactWriteItem::builder()
                    .put(
                        Put::builder()
                            .table_name(TABLE)
                            .set_item(Some(model.item(&key, stamp)))
                            .condition_expression(condition)
                            .set_expression_attribute_names(names)
                            .set_expression_attribute_values((!values.is_empty()).then_some(values))
                            .build()
                            .expect("put"),
                    )
                    .build()
            }
        };
        actions.push(action);
    }
    let result = client
        .transact_write_items()
        .set_transact_items(Some(actions))
        .send()
        .await;
    settle(result, model, "TransactWriteItems", changes, true)
}

/// An unconditional put of an item whose TTL has passed: the sweeper deletes it.
async fn expire(client: &Client, model: &mut Model) -> Result<(), InFlight> {
    let key = format!(
        "c{}-x{}",
        model.client,
        model.rng.usize(0..EXPIRING_PER_CLIENT)
    );
    let stamp = model.next_stamp();
    let mut item = model.item(&key, stamp);
    let past = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
        - 60;
    item.insert(EXPIRES.to_owned(), Av::N(past.to_string()));
    let result = client
        .put_item()
        .table_name(TABLE)
        .set_item(Some(item))
        .send()
        .await;
    match settle(result, model, "PutItem (expired)", Vec::new(), true) {
        Ok(()) => {
            model.history.entry(key).or_default().push(Some(stamp));
            Ok(())
        }
        Err(mut in_flight) => {
            in_flight.expiring = Some((key, stamp));
            Err(in_flight)
        }
    }
}

fn is_expiring(key: &str) -> bool {
    key.contains("-x")
}

async fn create_table(client: &Client) {
    let index = GlobalSecondaryIndex::builder()
        .index_name(INDEX)
        .key_schema(common::key("grp", KeyType::Hash))
        .key_schema(common::key("ver", KeyType::Range))
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::All)
                .build(),
        )
        .build()
        .expect("index");
    client
        .create_table()
        .table_name(TABLE)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(common::def("pk", ScalarAttributeType::S))
        .attribute_definitions(common::def("grp", ScalarAttributeType::S))
        .attribute_definitions(common::def("ver", ScalarAttributeType::N))
        .key_schema(common::key("pk", KeyType::Hash))
        .global_secondary_indexes(index)
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewAndOldImages)
                .build()
                .expect("stream specification"),
        )
        .send()
        .await
        .expect("create table");
    common::enable_ttl(client, TABLE, EXPIRES).await;
}

/// Every item of the table (or index): pk → ver.
async fn scan_all(client: &Client, index: Option<&str>) -> BTreeMap<String, u64> {
    let mut items = BTreeMap::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(TABLE)
            .set_index_name(index.map(str::to_owned))
            .set_consistent_read(index.is_none().then_some(true))
            .set_exclusive_start_key(start.take())
            .limit(37)
            .send()
            .await
            .expect("scan");
        for item in page.items() {
            let (Some(Av::S(pk)), Some(Av::N(ver))) = (item.get("pk"), item.get("ver")) else {
                panic!("an item without pk or ver: {item:?}");
            };
            let ver: u64 = ver.parse().expect("ver");
            assert!(items.insert(pk.clone(), ver).is_none(), "{pk} listed twice");
        }
        match page.last_evaluated_key() {
            Some(key) => start = Some(key.clone()),
            None => return items,
        }
    }
}

/// The table once the sweeper has deleted every expired item (all of the expiring keys'
/// items are written expired, and nothing else expires).
async fn swept(client: &Client, cycle: usize) -> BTreeMap<String, u64> {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let items = scan_all(client, None).await;
        if !items.keys().any(|k| is_expiring(k)) {
            return items;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "cycle {cycle}: expired items still there after 60 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Checks the restarted server against the models and resolves each in-flight write.
async fn check(server: &KuraProcess, models: &mut [Model], stream: &mut StreamCheck, cycle: usize) {
    let client = server.client();
    let actual = swept(&client, cycle).await;
    let mut owned = BTreeSet::new();
    for model in models.iter_mut() {
        let mut in_flight = model.in_flight.take();
        model.expiring_in_flight = in_flight.as_mut().and_then(|f| f.expiring.take());
        let uncertain: BTreeMap<&str, (State, State)> = in_flight
            .iter()
            .flat_map(|f| f.changes.iter())
            .map(|(k, before, after)| (k.as_str(), (*before, *after)))
            .collect();
        for (key, state) in &model.keys {
            owned.insert(key.clone());
            let found = actual.get(key).copied();
            match uncertain.get(key.as_str()) {
                None => assert_eq!(
                    found, *state,
                    "cycle {cycle}: {key} lost an acknowledged write"
                ),
                Some((before, after)) => assert!(
                    found == *before || found == *after,
                    "cycle {cycle}: {key} is {found:?}; the write in flight leaves it {before:?} or {after:?}"
                ),
            }
        }
        if let Some(flight) = in_flight {
            let landed: Vec<bool> = flight
                .changes
                .iter()
                .filter(|(_, before, after)| before != after)
                .map(|(k, _, after)| actual.get(k).copied() == *after)
                .collect();
            if flight.atomic {
                assert!(
                    landed.iter().all(|l| *l) || landed.iter().all(|l| !*l),
                    "cycle {cycle}: client {}'s {} is half-visible: {:?} vs {:?}",
                    model.client,
                    flight.what,
                    flight.changes,
                    actual
                );
            }
            // What landed joins the acknowledged history.
            for (key, before, after) in &flight.changes {
                if before != after && actual.get(key).copied() == *after {
                    model.history.entry(key.clone()).or_default().push(*after);
                    model.keys.insert(key.clone(), *after);
                }
            }
        }
    }
    let strays: Vec<&String> = actual.keys().filter(|k| !owned.contains(*k)).collect();
    assert!(
        strays.is_empty(),
        "cycle {cycle}: items nobody wrote: {strays:?}"
    );

    let count = client
        .describe_table()
        .table_name(TABLE)
        .send()
        .await
        .expect("describe")
        .table()
        .and_then(|t| t.item_count())
        .expect("ItemCount");
    assert_eq!(count, actual.len() as i64, "cycle {cycle}: ItemCount");
    assert_eq!(
        scan_all(&client, Some(INDEX)).await,
        actual,
        "cycle {cycle}: the GSI equals its table"
    );
    check_stream(server, models, stream, cycle).await;
}

/// What the stream has shown so far: where reading stopped, and each item's state after
/// its last record (the OldImage the next record must carry).
#[derive(Debug, Default)]
struct StreamCheck {
    follower: common::streams::StreamFollower,
    last: BTreeMap<String, State>,
}

/// The stream holds each applied change once, in order, with the right old image. Only
/// the records written since the last check are read, and the history they matched is
/// dropped, so a check costs the same at cycle 10,000 as at cycle 1.
async fn check_stream(
    server: &KuraProcess,
    models: &mut [Model],
    stream: &mut StreamCheck,
    cycle: usize,
) {
    let records = stream
        .follower
        .read_new(&server.client(), &server.streams_client(), TABLE)
        .await;
    let ver = |image: Option<&HashMap<String, SV>>| -> State {
        match image?.get("ver")? {
            SV::N(n) => n.parse().ok(),
            _ => None,
        }
    };
    let mut seen: BTreeMap<String, Vec<State>> = BTreeMap::new();
    for record in &records {
        let data = record.dynamodb().expect("stream record");
        let Some(SV::S(pk)) = data.keys().and_then(|k| k.get("pk")) else {
            panic!("a record without its key");
        };
        let previous = stream.last.get(pk).copied().flatten();
        assert_eq!(
            ver(data.old_image()),
            previous,
            "cycle {cycle}: {pk}'s OldImage is the state before"
        );
        let by_ttl = record
            .user_identity()
            .is_some_and(|u| u.r#type() == Some("Service"));
        assert_eq!(
            by_ttl,
            is_expiring(pk) && record.event_name() == Some(&OperationType::Remove),
            "cycle {cycle}: {pk}: only the sweeper deletes expiring items, as the service"
        );
        if by_ttl {
            let who = record.user_identity().and_then(|u| u.principal_id());
            assert_eq!(who, Some("dynamodb.amazonaws.com"), "cycle {cycle}: {pk}");
            stream.last.insert(pk.clone(), None);
            continue;
        }
        let new = match record.event_name() {
            Some(OperationType::Remove) => None,
            _ => Some(ver(data.new_image()).expect("NewImage ver")),
        };
        seen.entry(pk.clone()).or_default().push(new);
        stream.last.insert(pk.clone(), new);
    }
    for model in models.iter_mut() {
        for key in model.keys.keys() {
            let expected = model.history.remove(key).unwrap_or_default();
            let got = seen.remove(key).unwrap_or_default();
            assert_eq!(
                got, expected,
                "cycle {cycle}: {key}'s stream records are its changes, once each, in order"
            );
        }
        // Expiring keys: each acknowledged put, and the one in flight if it landed; each
        // deleted by the sweeper since.
        let uncertain = model.expiring_in_flight.take();
        for x in 0..EXPIRING_PER_CLIENT {
            let key = format!("c{}-x{x}", model.client);
            let mut expected = model.history.remove(&key).unwrap_or_default();
            let got = seen.remove(&key).unwrap_or_default();
            if let Some((k, stamp)) = &uncertain
                && *k == key
                && got.last() == Some(&Some(*stamp))
            {
                expected.push(Some(*stamp));
            }
            assert_eq!(
                got, expected,
                "cycle {cycle}: {key}'s puts are in the stream once each, in order"
            );
            assert_eq!(
                stream.last.get(&key).copied().flatten(),
                None,
                "cycle {cycle}: {key}'s last put was deleted by the sweeper, in the stream"
            );
        }
    }
    assert!(
        seen.is_empty(),
        "cycle {cycle}: records for items nobody wrote"
    );
}
