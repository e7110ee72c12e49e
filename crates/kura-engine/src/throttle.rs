//! Capacity emulation (`kura serve --enforce-capacity`): DynamoDB's throttling, so that
//! SDK retry and backoff paths run before production does.
//!
//! Every limit is a token bucket read by the engine's clock (a manual clock refills it
//! too):
//! - a provisioned table's reads and writes, and each provisioned GSI's, refill at their
//!   RCU/WCU per second and hold up to [`ThrottleOptions::burst_seconds`] of unused
//!   capacity (DynamoDB's burst capacity: 300 seconds);
//! - every partition key value, on any table, takes at most 3,000 RCU and 1,000 WCU per
//!   second (DynamoDB's per-partition limits), with no burst beyond one second.
//!
//! A request is admitted while its buckets hold the least it can consume (1 WCU, 0.5
//! RCU), and what it consumed is taken
//! afterwards, so one large request can leave a bucket in debt that later requests wait
//! out, as on DynamoDB. LSIs consume the table's capacity. A write is refused while any of
//! the table's provisioned GSIs is out of write capacity: a GSI that cannot keep up
//! throttles the table's writes.

use std::collections::HashMap;

use parking_lot::Mutex;

use crate::capacity::Consumed;
use crate::catalog::{BillingMode, TableRecord, Throughput};

/// The limits of capacity emulation. The defaults are DynamoDB's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThrottleOptions {
    /// Seconds of unused provisioned capacity a bucket keeps (burst capacity).
    pub burst_seconds: f64,
    /// Read capacity units per second one partition key value takes.
    pub partition_read_units: f64,
    /// Write capacity units per second one partition key value takes.
    pub partition_write_units: f64,
}

impl Default for ThrottleOptions {
    fn default() -> Self {
        ThrottleOptions {
            burst_seconds: 300.0,
            partition_read_units: 3_000.0,
            partition_write_units: 1_000.0,
        }
    }
}

/// Whether a request reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
}

impl Access {
    pub fn of(is_write: bool) -> Access {
        if is_write {
            Access::Write
        } else {
            Access::Read
        }
    }

    /// The least a request consumes: a bucket holding less refuses it.
    fn least_units(self) -> f64 {
        match self {
            Access::Read => 0.5,
            Access::Write => 1.0,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Access::Read => "Read",
            Access::Write => "Write",
        }
    }
}

pub use crate::error::{Throttled, ThrottlingReason};

pub const TABLE_MESSAGE: &str = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.";
pub const INDEX_MESSAGE: &str = "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API";
pub const KEY_RANGE_MESSAGE: &str = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html";

/// What a bucket limits: by table id (a table re-created under its name starts afresh).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Resource {
    Table(u64),
    Index(u64, u32),
    /// A table's partition key value, by a hash of its text (no allocation per request).
    Partition(u64, u64),
}

fn partition_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    balance: f64,
    at_ms: i64,
}

impl Bucket {
    /// Refills by the time passed at `rate` units per second, up to `cap`.
    fn refill(&mut self, now_ms: i64, rate: f64, cap: f64) {
        let elapsed = (now_ms - self.at_ms).max(0) as f64 / 1000.0;
        self.balance = (self.balance + elapsed * rate).min(cap);
        self.at_ms = now_ms.max(self.at_ms);
    }
}

/// One request asking for capacity.
pub struct CapacityRequest<'a> {
    pub table: &'a TableRecord,
    /// The GSI or LSI a Query or Scan reads.
    pub index: Option<&'a str>,
    pub access: Access,
    /// The partition key value the request addresses, in Contributor Insights' text,
    /// when it addresses one.
    pub partition: Option<String>,
    /// The request's region (the throttled resource's ARN is built only on refusal).
    pub region: &'a str,
}

/// The buckets of every table, index and partition key in use.
pub struct Throttle {
    options: ThrottleOptions,
    buckets: Mutex<Buckets>,
    paused: std::sync::atomic::AtomicBool,
}

struct Buckets {
    map: HashMap<(Resource, Access), Bucket>,
    /// The map's size at which idle partition buckets are dropped next.
    prune_at: usize,
}

impl Buckets {
    /// The bucket of `key` refilled to `now_ms` (a new one starts full).
    fn refilled(
        &mut self,
        key: (Resource, Access),
        rate: f64,
        cap: f64,
        now_ms: i64,
    ) -> &mut Bucket {
        let bucket = self.map.entry(key).or_insert(Bucket {
            balance: cap,
            at_ms: now_ms,
        });
        bucket.refill(now_ms, rate, cap);
        bucket
    }

    /// Drops idle partition buckets (they are full again) once the map doubled since the
    /// last prune, so the cost per request stays constant.
    fn prune(&mut self, now_ms: i64) {
        if self.map.len() >= self.prune_at {
            self.map.retain(|(resource, _), b| {
                !matches!(resource, Resource::Partition(..)) || now_ms - b.at_ms < IDLE_PARTITION_MS
            });
            self.prune_at = (self.map.len() * 2).max(PRUNE_FLOOR);
        }
    }
}

/// Partition buckets idle this long are dropped (they are full again by then).
const IDLE_PARTITION_MS: i64 = 2_000;

/// The least number of buckets kept before pruning.
const PRUNE_FLOOR: usize = 10_000;

impl Throttle {
    pub fn new(options: ThrottleOptions) -> Self {
        Throttle {
            options,
            buckets: Mutex::new(Buckets {
                map: HashMap::new(),
                prune_at: PRUNE_FLOOR,
            }),
            paused: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Units per second and the bucket's size for a provisioned throughput: the burst,
    /// and never less than one second of capacity (which DynamoDB always allows).
    fn provisioned(&self, throughput: &Throughput, access: Access) -> (f64, f64) {
        let rate = match access {
            Access::Read => throughput.read,
            Access::Write => throughput.write,
        } as f64;
        (rate, (rate * self.options.burst_seconds).max(rate))
    }

    /// Stops (or resumes) throttling; resuming refills every bucket. Seeding at start
    /// runs paused, so neither its writes fail nor the tests start on drained buckets.
    pub fn pause(&self, paused: bool) {
        self.paused
            .store(paused, std::sync::atomic::Ordering::SeqCst);
        if !paused {
            self.buckets.lock().map.clear();
        }
    }

    fn partition_rate(&self, access: Access) -> f64 {
        match access {
            Access::Read => self.options.partition_read_units,
            Access::Write => self.options.partition_write_units,
        }
    }

    /// Whether the request may run now (`Err` says why not).
    pub fn may_run(&self, request: &CapacityRequest<'_>, now_ms: i64) -> Result<(), Throttled> {
        if self.paused.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(());
        }
        let table = request.table;
        let access = request.access;
        let mut buckets = self.buckets.lock();
        let mut empty = |resource: Resource, rate: f64, cap: f64| -> bool {
            let bucket = buckets.refilled((resource, access), rate, cap, now_ms);
            bucket.balance < access.least_units()
        };
        let throttled = |resource_type: &str, limit: &str, arn: String, message| Throttled {
            message,
            reason: ThrottlingReason {
                reason: format!("{resource_type}{}{limit}", access.word()),
                resource: arn,
            },
        };
        let table_arn = || crate::arn::table(request.region, &table.name);
        let index_refused = |name: &str| {
            throttled(
                "Index",
                "ProvisionedThroughputExceeded",
                format!("{}/index/{name}", table_arn()),
                INDEX_MESSAGE,
            )
        };
        if let Some(partition) = &request.partition {
            let rate = self.partition_rate(access);
            let resource = Resource::Partition(table.id, partition_hash(partition));
            if empty(resource, rate, rate) {
                return Err(throttled(
                    "Table",
                    "KeyRangeThroughputExceeded",
                    table_arn(),
                    KEY_RANGE_MESSAGE,
                ));
            }
        }
        if table.billing_mode != BillingMode::Provisioned {
            return Ok(());
        }
        // A GSI read uses the GSI's capacity; an LSI read the table's.
        let read_gsi = request
            .index
            .and_then(|name| table.index(name))
            .filter(|i| i.throughput.is_some());
        if let (Access::Read, Some(gsi)) = (access, read_gsi) {
            let throughput = gsi.throughput.clone().unwrap_or_default();
            let (rate, cap) = self.provisioned(&throughput, access);
            if empty(Resource::Index(table.id, gsi.number), rate, cap) {
                return Err(index_refused(&gsi.name));
            }
            return Ok(());
        }
        let (rate, cap) = self.provisioned(&table.throughput, access);
        if empty(Resource::Table(table.id), rate, cap) {
            return Err(throttled(
                "Table",
                "ProvisionedThroughputExceeded",
                table_arn(),
                TABLE_MESSAGE,
            ));
        }
        if access == Access::Write {
            for gsi in &table.indexes {
                let Some(throughput) = &gsi.throughput else {
                    continue;
                };
                let (rate, cap) = self.provisioned(throughput, access);
                if empty(Resource::Index(table.id, gsi.number), rate, cap) {
                    return Err(index_refused(&gsi.name));
                }
            }
        }
        Ok(())
    }

    /// Takes what a request consumed on `table` and its indexes from their buckets, and
    /// from the bucket of the partition key value it addressed (`partition`, in
    /// Contributor Insights' text). LSIs consume the table's capacity.
    pub fn consume(
        &self,
        table: &TableRecord,
        consumed: &Consumed,
        access: Access,
        partition: Option<&str>,
        now_ms: i64,
    ) {
        let mut buckets = self.buckets.lock();
        let mut take = |resource: Resource, rate: f64, cap: f64, units: f64| {
            buckets
                .refilled((resource, access), rate, cap, now_ms)
                .balance -= units;
        };
        let on_table = consumed.table + consumed.local.values().sum::<f64>();
        if let Some(partition) = partition {
            let rate = self.partition_rate(access);
            let resource = Resource::Partition(table.id, partition_hash(partition));
            take(resource, rate, rate, on_table);
        }
        if table.billing_mode == BillingMode::Provisioned {
            let (rate, cap) = self.provisioned(&table.throughput, access);
            take(Resource::Table(table.id), rate, cap, on_table);
            for (name, units) in &consumed.global {
                if let Some(gsi) = table.index(name)
                    && let Some(throughput) = &gsi.throughput
                {
                    let (rate, cap) = self.provisioned(throughput, access);
                    take(Resource::Index(table.id, gsi.number), rate, cap, *units);
                }
            }
        }
        if partition.is_some() {
            buckets.prune(now_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(read: i64, write: i64) -> TableRecord {
        let mut record: TableRecord = serde_json::from_value(serde_json::json!({
            "v": 1, "name": "t", "id": 7, "uuid": "u",
            "key_schema": {"hash": {"name": "pk", "ty": "S"}, "range": null},
            "attribute_definitions": [], "created_ms": 0,
            "billing_mode": "Provisioned", "billing_mode_explicit": true,
            "pay_per_request_since_ms": null,
            "throughput": {"read": 0, "write": 0, "last_increase_ms": null,
                           "last_decrease_ms": null, "decreases_today": 0},
            "deletion_protection": false, "table_class": null, "tags": []
        }))
        .expect("a table record");
        record.throughput.read = read;
        record.throughput.write = write;
        record
    }

    fn request(table: &TableRecord, access: Access) -> CapacityRequest<'_> {
        CapacityRequest {
            table,
            index: None,
            access,
            partition: None,
            region: "us-east-1",
        }
    }

    #[test]
    fn a_bucket_holds_the_burst_then_refills_at_the_rate() {
        let throttle = Throttle::new(ThrottleOptions {
            burst_seconds: 10.0,
            ..ThrottleOptions::default()
        });
        let t = table(5, 1);
        let write = request(&t, Access::Write);
        // 10 seconds of 1 WCU: ten writes of 1 unit pass, the eleventh is refused.
        for _ in 0..10 {
            assert!(throttle.may_run(&write, 0).is_ok());
            throttle.consume(&t, &Consumed::table(1.0), Access::Write, None, 0);
        }
        let refused = throttle.may_run(&write, 0).expect_err("out of capacity");
        assert_eq!(
            refused.reason.reason,
            "TableWriteProvisionedThroughputExceeded"
        );
        assert_eq!(refused.message, TABLE_MESSAGE);
        // Reads have their own bucket.
        assert!(throttle.may_run(&request(&t, Access::Read), 0).is_ok());
        // A second later one unit is back.
        assert!(throttle.may_run(&write, 1_000).is_ok());
        throttle.consume(&t, &Consumed::table(1.0), Access::Write, None, 1_000);
        assert!(throttle.may_run(&write, 1_000).is_err());
    }

    #[test]
    fn no_burst_still_allows_one_second_of_capacity() {
        let throttle = Throttle::new(ThrottleOptions {
            burst_seconds: 0.0,
            ..ThrottleOptions::default()
        });
        let t = table(1, 2);
        let write = request(&t, Access::Write);
        for _ in 0..2 {
            assert!(throttle.may_run(&write, 0).is_ok());
            throttle.consume(&t, &Consumed::table(1.0), Access::Write, None, 0);
        }
        assert!(throttle.may_run(&write, 0).is_err());
        assert!(
            throttle.may_run(&write, 500).is_ok(),
            "half a second brings one unit back"
        );
        throttle.pause(true);
        throttle.consume(&t, &Consumed::table(100.0), Access::Write, None, 500);
        assert!(throttle.may_run(&write, 500).is_ok(), "paused");
        throttle.pause(false);
        assert!(
            throttle.may_run(&write, 500).is_ok(),
            "resumed with full buckets"
        );
    }

    #[test]
    fn a_large_request_leaves_debt_that_later_requests_wait_out() {
        let throttle = Throttle::new(ThrottleOptions {
            burst_seconds: 1.0,
            ..ThrottleOptions::default()
        });
        let t = table(10, 10);
        let read = request(&t, Access::Read);
        assert!(throttle.may_run(&read, 0).is_ok());
        throttle.consume(&t, &Consumed::table(40.0), Access::Read, None, 0);
        assert!(
            throttle.may_run(&read, 2_000).is_err(),
            "30 units of debt, 20 back"
        );
        assert!(throttle.may_run(&read, 3_100).is_ok());
    }

    #[test]
    fn a_hot_partition_key_is_throttled_on_any_table() {
        let throttle = Throttle::new(ThrottleOptions::default());
        let mut t = table(0, 0);
        t.billing_mode = BillingMode::PayPerRequest;
        let mut write = request(&t, Access::Write);
        write.partition = Some("hot".into());
        assert!(throttle.may_run(&write, 0).is_ok());
        throttle.consume(&t, &Consumed::table(1_000.0), Access::Write, Some("hot"), 0);
        let refused = throttle.may_run(&write, 0).expect_err("hot key");
        assert_eq!(
            refused.reason.reason,
            "TableWriteKeyRangeThroughputExceeded"
        );
        write.partition = Some("cold".into());
        assert!(throttle.may_run(&write, 0).is_ok());
    }
}
