//! Streams through aws-sdk-dynamodb and aws-sdk-dynamodbstreams: a consumer that follows
//! shard lineage as one written for AWS does, and the exactly-once, in-order check of
//! what it reads against what writers were acknowledged.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as V, BillingMode, KeyType, ReturnValue, ScalarAttributeType,
    StreamSpecification, StreamViewType,
};
use aws_sdk_dynamodbstreams::Client as StreamsClient;
use aws_sdk_dynamodbstreams::types::{AttributeValue as SV, Record, ShardIteratorType};

use super::{def, key};

pub const ITEMS_PER_WRITER: usize = 10;
pub const WRITERS: usize = 8;

/// Creates `table` (string key `pk`) with a NEW_AND_OLD_IMAGES stream.
pub async fn create_streamed_table(client: &Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
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
}

/// Every record of the table's latest stream, shard by shard, parents before children,
/// each shard from TRIM_HORIZON to its end (closed) or to the present (open); and the
/// number of shards.
pub async fn read_all(
    client: &Client,
    streams: &StreamsClient,
    table: &str,
) -> (Vec<Record>, usize) {
    let mut follower = StreamFollower::default();
    let records = follower.read_new(client, streams, table).await;
    (records, follower.shards.len())
}

/// A consumer that remembers where it stopped in each shard, so a long run reads each
/// record once instead of the whole stream at every check.
#[derive(Debug, Default)]
pub struct StreamFollower {
    /// Each shard seen, in listing order: the last sequence number read from it, and
    /// whether it is closed and read to its end.
    shards: Vec<(String, Option<String>, bool)>,
}

impl StreamFollower {
    /// The records written since the last call (all of them on the first), shard by
    /// shard, parents before children.
    pub async fn read_new(
        &mut self,
        client: &Client,
        streams: &StreamsClient,
        table: &str,
    ) -> Vec<Record> {
        let arn = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .expect("describe table")
            .table()
            .and_then(|t| t.latest_stream_arn())
            .expect("a stream")
            .to_owned();
        let mut listed = Vec::new();
        let mut start: Option<String> = None;
        loop {
            let page = streams
                .describe_stream()
                .stream_arn(&arn)
                .set_exclusive_start_shard_id(start.take())
                .send()
                .await
                .expect("describe stream");
            let description = page.stream_description().expect("description");
            listed.extend(description.shards().iter().cloned());
            match description.last_evaluated_shard_id() {
                Some(last) => start = Some(last.to_owned()),
                None => break,
            }
        }
        // Lineage: every parent comes before its children.
        for (i, shard) in listed.iter().enumerate() {
            if let Some(parent) = shard.parent_shard_id() {
                assert!(
                    listed[..i].iter().any(|s| s.shard_id() == Some(parent)),
                    "shard {i} lists its parent after it"
                );
            }
        }
        let mut records = Vec::new();
        for shard in &listed {
            let id = shard.shard_id().expect("shard id");
            let at = match self.shards.iter().position(|(s, _, _)| s == id) {
                Some(at) => at,
                None => {
                    self.shards.push((id.to_owned(), None, false));
                    self.shards.len() - 1
                }
            };
            let (_, last, done) = &self.shards[at];
            if *done {
                continue;
            }
            let request = streams.get_shard_iterator().stream_arn(&arn).shard_id(id);
            let request = match last {
                Some(seq) => request
                    .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
                    .sequence_number(seq),
                None => request.shard_iterator_type(ShardIteratorType::TrimHorizon),
            };
            let mut iterator = request
                .send()
                .await
                .expect("iterator")
                .shard_iterator()
                .map(str::to_owned);
            // An open shard is read up to the present; a closed one to its end.
            let closed = shard
                .sequence_number_range()
                .and_then(|r| r.ending_sequence_number())
                .is_some();
            let mut last_read = None;
            while let Some(current) = iterator.take() {
                let page = streams
                    .get_records()
                    .shard_iterator(current)
                    .limit(100)
                    .send()
                    .await
                    .expect("records");
                let got = page.records().to_vec();
                let empty = got.is_empty();
                if let Some(seq) = got.last().and_then(|r| r.dynamodb()?.sequence_number()) {
                    last_read = Some(seq.to_owned());
                }
                records.extend(got);
                if !empty || closed {
                    iterator = page.next_shard_iterator().map(str::to_owned);
                }
            }
            let entry = &mut self.shards[at];
            if last_read.is_some() {
                entry.1 = last_read;
            }
            entry.2 = closed;
        }
        records
    }
}

fn counter(image: Option<&std::collections::HashMap<String, SV>>) -> Option<u64> {
    match image?.get("v")? {
        SV::N(n) => n.parse().ok(),
        _ => None,
    }
}

/// Checks the stream against the items: per item, the records' NewImage counters run
/// 1, 2, ... without gap or repeat up to the item's final value, each OldImage one
/// behind; so every write is there exactly once, in order. `acked` values must be among
/// them (a write cut off by a crash may be there without its acknowledgement).
pub fn check_exactly_once(
    records: &[Record],
    finals: &BTreeMap<String, u64>,
    acked: &BTreeMap<String, Vec<u64>>,
) {
    let mut seen: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    // Sequence numbers are the stream's, increasing within a shard: an item's records,
    // read parents first, carry increasing ones.
    let mut last_seq: BTreeMap<String, u128> = BTreeMap::new();
    for r in records {
        let data = r.dynamodb().expect("stream record");
        let seq: u128 = data
            .sequence_number()
            .expect("seq")
            .parse()
            .expect("digits");
        let pk = match data.keys().and_then(|k| k.get("pk")) {
            Some(SV::S(pk)) => pk.clone(),
            other => panic!("record without its key: {other:?}"),
        };
        let previous = last_seq.insert(pk.clone(), seq);
        assert!(
            previous.is_none_or(|l| l < seq),
            "item {pk}: sequence numbers increase"
        );
        let new = counter(data.new_image()).expect("a NewImage counter");
        assert_eq!(
            counter(data.old_image()),
            new.checked_sub(1).filter(|v| *v > 0)
        );
        seen.entry(pk).or_default().push(new);
    }
    for (pk, last) in finals {
        let values = seen.remove(pk).unwrap_or_default();
        let expected: Vec<u64> = (1..=*last).collect();
        assert_eq!(values, expected, "item {pk}: every write once, in order");
        for value in acked.get(pk).into_iter().flatten() {
            assert!(value <= last, "item {pk}: acknowledged {value} lost");
        }
    }
    assert!(seen.is_empty(), "records for unknown items: {seen:?}");
}

/// `WRITERS` concurrent writers, each incrementing its own items round robin until
/// `stop`, recording every acknowledged value. Returns when the writers stop or fail.
pub async fn write_counters(
    client: &Client,
    table: &str,
    tag: &str,
    run_for: Duration,
    acked: Arc<Mutex<BTreeMap<String, Vec<u64>>>>,
) {
    let deadline = Instant::now() + run_for;
    let mut tasks = Vec::new();
    for writer in 0..WRITERS {
        let client = client.clone();
        let table = table.to_owned();
        let acked = acked.clone();
        let tag = tag.to_owned();
        tasks.push(tokio::spawn(async move {
            let mut round = 0usize;
            while Instant::now() < deadline {
                let pk = format!("{tag}w{writer}-i{}", round % ITEMS_PER_WRITER);
                round += 1;
                let result = client
                    .update_item()
                    .table_name(&table)
                    .key("pk", V::S(pk.clone()))
                    .update_expression("ADD v :one")
                    .expression_attribute_values(":one", V::N("1".into()))
                    .return_values(ReturnValue::UpdatedNew)
                    .send()
                    .await;
                match result {
                    Ok(out) => {
                        let value = match out.attributes().and_then(|a| a.get("v")) {
                            Some(V::N(n)) => n.parse().expect("counter"),
                            other => panic!("no counter: {other:?}"),
                        };
                        acked
                            .lock()
                            .expect("lock")
                            .entry(pk)
                            .or_default()
                            .push(value);
                    }
                    Err(_) => break, // the server is gone
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("writer");
    }
}

/// The current counter of every item of the table (a consistent scan).
pub async fn final_counters(client: &Client, table: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(table)
            .consistent_read(true)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("scan");
        for item in page.items() {
            if let (Some(V::S(pk)), Some(V::N(v))) = (item.get("pk"), item.get("v")) {
                out.insert(pk.clone(), v.parse().expect("counter"));
            }
        }
        match page.last_evaluated_key() {
            Some(k) => start = Some(k.clone()),
            None => return out,
        }
    }
}
