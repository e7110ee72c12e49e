//! The catalog: one persisted record per table, and the in-memory published view of it.
//!
//! Records are JSON with an explicit format version `v` (see `docs/design.md`). The
//! published view is replaced only by the writer thread, right after the commit that
//! changed it, so every later write sees the catalog its predecessors committed.

use std::collections::BTreeMap;
use std::sync::Arc;

use kura_model::keycode::ScalarType;
use kura_model::{KeyAttribute, KeySchema};
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

pub use self::projection::IndexProjection;
use self::publication::Publication;
pub use self::replica::{IndexOverride, ReplicaOverrides, ReplicaRecord, ReplicationRecord};
pub use self::vector::VectorIndexRecord;
use crate::error::EngineError;
pub use crate::resource_policy::ResourcePolicyRecord;
use crate::streams::meta::StreamSpec;

mod projection;
mod publication;
mod replica;
mod stage;
pub mod vector;

pub const TABLE_RECORD_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BillingMode {
    Provisioned,
    PayPerRequest,
}

impl BillingMode {
    /// The mode a request's `BillingMode` asks for; `current` when it names none.
    pub fn requested(wire: Option<&str>, current: BillingMode) -> BillingMode {
        match wire {
            Some("PAY_PER_REQUEST") => BillingMode::PayPerRequest,
            Some(_) => BillingMode::Provisioned,
            None => current,
        }
    }

    pub fn wire(self) -> &'static str {
        match self {
            BillingMode::Provisioned => "PROVISIONED",
            BillingMode::PayPerRequest => "PAY_PER_REQUEST",
        }
    }
}

/// Provisioned throughput and its change history, as DescribeTable reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throughput {
    pub read: i64,
    pub write: i64,
    pub last_increase_ms: Option<i64>,
    pub last_decrease_ms: Option<i64>,
    pub decreases_today: u32,
}

/// Everything Kura keeps about one table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRecord {
    /// Encoding version of this record.
    pub v: u32,
    pub name: String,
    /// Internal id: the prefix of the table's item keys; never reused.
    pub id: u64,
    /// The `TableId` DynamoDB reports (a UUID).
    pub uuid: String,
    pub key_schema: KeySchema,
    pub attribute_definitions: Vec<(String, ScalarType)>,
    pub created_ms: i64,
    pub billing_mode: BillingMode,
    /// Whether BillingMode was ever given explicitly (DynamoDB then reports a summary).
    pub billing_mode_explicit: bool,
    pub pay_per_request_since_ms: Option<i64>,
    pub throughput: Throughput,
    pub deletion_protection: bool,
    pub table_class: Option<String>,
    pub tags: Vec<TagRecord>,
    /// Secondary indexes, LSIs and GSIs in the order they were defined.
    #[serde(default)]
    pub indexes: Vec<IndexRecord>,
    /// The number the next index gets: index numbers prefix index entries and are never
    /// reused within a table, so a deleted index's leftovers stay unreachable.
    #[serde(default)]
    pub next_index_number: u32,
    /// The table's latest stream, enabled or not (DescribeTable names it either way).
    #[serde(default)]
    pub stream: Option<StreamSpec>,
    /// Time to live, once UpdateTimeToLive was called.
    #[serde(default)]
    pub ttl: Option<TtlSpec>,
    /// Server-side encryption with a KMS key; absent (and not stored) for the AWS owned
    /// key, so records written before it existed keep their bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sse: Option<SseRecord>,
    /// The table's resource-based policy; absent (and not stored) when there is none, so
    /// records written before resource policies existed keep their bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_policy: Option<ResourcePolicyRecord>,
    /// Point-in-time recovery, while enabled. Absent (and not stored) otherwise, as are
    /// the two fields below, so older records keep their bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pitr: Option<PitrSpec>,
    /// The change stamp from which the table's changes keep their pre-images in the
    /// `History` space: set while point-in-time recovery is on or a backup of the table
    /// exists (see `backups`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_from: Option<u64>,
    /// Where a restored table came from; `in_progress` while it is being filled (the table
    /// is CREATING and refuses data operations until then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore: Option<RestoreRecord>,
    /// The import filling a table ImportTable created (CREATING until it ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importing: Option<String>,
    /// Contributor Insights enabled on the table or its GSIs; absent (and not stored)
    /// when none is, so older records keep their bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub insights: Vec<InsightsRecord>,
    /// Vector indexes, in the order they were defined; absent (and not stored) when there
    /// are none, so older records keep their bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vector_indexes: Vec<VectorIndexRecord>,
    /// Kinesis data streams the table's changes are written to (the enabled one and those
    /// disabled since); absent (and not stored) when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinesis_destinations: Vec<KinesisDestinationRecord>,
    /// The global table this table is a replica of; absent (and not stored) otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replication: Option<ReplicationRecord>,
    /// Whether this record is the one the catalog publishes now (not stored).
    #[serde(skip)]
    pub(crate) publication: Publication,
}

/// A Kinesis streaming destination of a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KinesisDestinationRecord {
    pub stream_arn: String,
    /// Whether changes are written to it now (`ACTIVE`) or no longer (`DISABLED`).
    pub active: bool,
    /// `MILLISECOND` or `MICROSECOND`: the unit of `ApproximateCreationDateTime`.
    pub precision: String,
}

/// Contributor Insights enabled on a table (`index` None) or one of its GSIs. What it
/// records lives in memory (`counters::insights`); the setting survives restarts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InsightsRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// `ACCESSED_AND_THROTTLED_KEYS` or `THROTTLED_KEYS`.
    pub mode: String,
    pub updated_ms: i64,
}

/// A table's point-in-time recovery setting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PitrSpec {
    /// When it was last enabled: nothing earlier can be restored.
    pub enabled_ms: i64,
    /// `RecoveryPeriodInDays`, 1 to 35.
    pub recovery_days: u32,
}

/// DescribeTable's `RestoreSummary` of a restored table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoreRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_backup_arn: Option<String>,
    pub source_table_arn: String,
    /// The point in time the data is from.
    pub restore_ms: i64,
    pub in_progress: bool,
}

/// A table's KMS key setting (Kura keeps it; it does not encrypt with it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SseRecord {
    pub kms_master_key_arn: String,
}

/// A tag as stored: the API's `Tag` once validated, so both members are there. Its JSON
/// is the catalog's own, whatever the API's `Tag` becomes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagRecord {
    #[serde(rename = "Key")]
    pub key: String,
    #[serde(rename = "Value")]
    pub value: String,
}

/// A table's time-to-live setting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TtlSpec {
    pub attribute: String,
    pub enabled: bool,
    /// When it was last enabled or disabled (DynamoDB allows one change per hour).
    pub changed_ms: i64,
    /// False until the items that were there when TTL was enabled are in the TTL index.
    pub indexed: bool,
}

impl TtlSpec {
    /// The attribute whose expiry the TTL index tracks, while TTL is enabled.
    pub fn active_attribute(&self) -> Option<&str> {
        self.enabled.then_some(self.attribute.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IndexKind {
    Global,
    Local,
}

/// One secondary index of a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexRecord {
    pub name: String,
    pub kind: IndexKind,
    /// Prefix of this index's entries within the table (see `keys::index_prefix`).
    pub number: u32,
    pub key_schema: KeySchema,
    pub projection: IndexProjection,
    /// A GSI's own throughput on a provisioned table.
    pub throughput: Option<Throughput>,
    /// True while an index added by UpdateTable is being filled from the table's items.
    pub backfilling: bool,
    /// A multi-attribute GSI key's HASH attributes after `key_schema.hash`, in KeySchema
    /// order. Empty, and absent from the stored record, for a single-attribute key, so
    /// the records of such indexes keep the bytes they always had.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_hash: Vec<KeyAttribute>,
    /// As `more_hash`, the RANGE attributes after `key_schema.range` (never set without
    /// `key_schema.range`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_range: Vec<KeyAttribute>,
}

impl IndexRecord {
    /// The partition key attributes, in KeySchema order (one, or up to four for a GSI).
    pub fn hash_attributes(&self) -> impl Iterator<Item = &KeyAttribute> {
        std::iter::once(&self.key_schema.hash).chain(&self.more_hash)
    }

    /// The sort key attributes, in KeySchema order (none, one, or up to four for a GSI).
    pub fn range_attributes(&self) -> impl Iterator<Item = &KeyAttribute> {
        self.key_schema.range.iter().chain(&self.more_range)
    }

    /// Every key attribute of the index: the partition key's, then the sort key's.
    pub fn key_attributes(&self) -> impl Iterator<Item = &KeyAttribute> {
        self.hash_attributes().chain(self.range_attributes())
    }

    /// DynamoDB's `IndexStatus`: a GSI being filled is CREATING.
    pub fn status(&self) -> &'static str {
        if self.backfilling {
            "CREATING"
        } else {
            "ACTIVE"
        }
    }
}

/// The checks a secondary or vector index's key value gets on write: its type is the
/// definition's, and a string or binary is not empty (DynamoDB's texts).
pub(crate) fn check_index_key_value(
    index: &str,
    attr: &str,
    ty: ScalarType,
    value: &kura_model::AttributeValue,
) -> Result<(), EngineError> {
    use kura_model::{AttributeValue, messages};
    if ScalarType::of(value) != Some(ty) {
        return Err(EngineError::validation(messages::index_key_type_mismatch(
            attr,
            ty.descriptor(),
            value.value_type().descriptor(),
            index,
        )));
    }
    let empty = match value {
        AttributeValue::S(s) => s.is_empty().then_some("string"),
        AttributeValue::B(b) => b.is_empty().then_some("binary"),
        _ => None,
    };
    match empty {
        Some(kind) => Err(EngineError::validation(messages::empty_index_key(
            kind, index, attr,
        ))),
        None => Ok(()),
    }
}

impl TableRecord {
    pub fn index(&self, name: &str) -> Option<&IndexRecord> {
        self.indexes.iter().find(|i| i.name == name)
    }

    pub fn vector_index(&self, name: &str) -> Option<&VectorIndexRecord> {
        self.vector_indexes.iter().find(|i| i.name == name)
    }

    pub fn has_local_indexes(&self) -> bool {
        self.indexes.iter().any(|i| i.kind == IndexKind::Local)
    }

    /// Whether a restore is still filling the table (it is CREATING until then).
    pub fn restoring(&self) -> bool {
        self.restore.as_ref().is_some_and(|r| r.in_progress)
    }

    /// Whether a restore or an import is still filling the table: it is CREATING, and
    /// data operations do not find it.
    pub fn creating(&self) -> bool {
        self.restoring()
            || self.importing.is_some()
            || self
                .replication
                .as_ref()
                .is_some_and(|r| r.filling_from.is_some())
    }
}

impl TableRecord {
    /// The stored form. An encoding failure is an error, never an empty record.
    pub fn encode(&self) -> Result<Vec<u8>, EngineError> {
        serde_json::to_vec(self)
            .map_err(|e| EngineError::Internal(format!("cannot encode table record: {e}")))
    }

    pub fn decode(bytes: &[u8]) -> Result<TableRecord, String> {
        let record: TableRecord = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        if record.v != TABLE_RECORD_VERSION {
            return Err(format!("unsupported table record version {}", record.v));
        }
        Ok(record)
    }
}

/// The published catalog: table name → record, ordered as ListTables returns names.
///
/// A persistent map: a reader's snapshot ([`Catalog::all`]) and each change share what
/// did not change, so publishing one table costs log(n), not a copy of every record (a
/// template of 10,000 tables made that quadratic).
#[derive(Default)]
pub struct Catalog {
    tables: RwLock<Tables>,
}

/// A snapshot of the catalog.
pub type Tables = imbl::OrdMap<String, Arc<TableRecord>>;

impl TableRecord {
    /// The primary key attribute names, partition key first.
    pub(crate) fn primary_key_names(&self) -> Vec<String> {
        std::iter::once(&self.key_schema.hash)
            .chain(self.key_schema.range.as_ref())
            .map(|a| a.name.clone())
            .collect()
    }

    /// The partition key attribute names of the table, or of its `index` (None: no such
    /// index).
    pub(crate) fn partition_key_names(&self, index: Option<&str>) -> Option<Vec<String>> {
        match index {
            None => Some(vec![self.key_schema.hash.name.clone()]),
            Some(name) => Some(
                self.index(name)?
                    .hash_attributes()
                    .map(|a| a.name.clone())
                    .collect(),
            ),
        }
    }
}

/// One table as the catalog published it when a front end asked
/// ([`Design::table`](crate::design::Design::table)): the copy a request keeps for all its
/// steps and hands back to the engine's checks
/// ([`Capacity::check_on`](crate::Capacity::check_on),
/// [`Engine::resource_policy_with`](crate::Engine::resource_policy_with)). Opaque, so the
/// catalog's stored form stays the engine's own.
#[derive(Clone)]
pub struct PublishedTable(pub(crate) Arc<TableRecord>);

impl PublishedTable {
    /// The primary key attribute names, partition key first.
    pub fn primary_key_names(&self) -> Vec<String> {
        self.0.primary_key_names()
    }

    /// The partition key attribute names of the table, or of its `index` (None: no such
    /// index).
    pub fn partition_key_names(&self, index: Option<&str>) -> Option<Vec<String>> {
        self.0.partition_key_names(index)
    }
}

impl Catalog {
    pub fn new(tables: BTreeMap<String, Arc<TableRecord>>) -> Self {
        for record in tables.values() {
            record.publication.go_live();
        }
        Catalog {
            tables: RwLock::new(tables.into_iter().collect()),
        }
    }

    pub fn get(&self, name: &str) -> Option<Arc<TableRecord>> {
        reads::count();
        self.tables.read().get(name).cloned()
    }

    /// Table `name` unless a restore or an import is still filling it: DynamoDB finds no
    /// CREATING table for data operations, backups and exports.
    pub fn ready(&self, name: &str) -> Option<Arc<TableRecord>> {
        self.get(name).filter(|t| !t.creating())
    }

    pub fn all(&self) -> Tables {
        self.tables.read().clone()
    }

    /// Replaces one table's record (`None` removes it), after the commit that wrote it.
    pub(super) fn publish(&self, name: &str, record: Option<Arc<TableRecord>>) {
        let mut tables = self.tables.write();
        let previous = match &record {
            Some(r) => {
                r.publication.go_live();
                tables.insert(name.to_owned(), r.clone())
            }
            None => tables.remove(name),
        };
        if let Some(previous) = previous
            && !record.as_ref().is_some_and(|r| Arc::ptr_eq(r, &previous))
        {
            previous.publication.supersede();
        }
    }
}

/// How many times this thread read a table from the catalog, in debug builds: what tests
/// count the reads of one request with (issue 51). Release builds count nothing.
pub mod reads {
    #[cfg(debug_assertions)]
    thread_local! {
        static READS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    pub(super) fn count() {
        #[cfg(debug_assertions)]
        READS.with(|reads| reads.set(reads.get() + 1));
    }

    /// Reads on this thread so far (always 0 in release builds).
    pub fn on_this_thread() -> u64 {
        #[cfg(debug_assertions)]
        return READS.with(std::cell::Cell::get);
        #[cfg(not(debug_assertions))]
        0
    }
}

/// Here rather than in `vector.rs`: it reads the table's keys, and `vector.rs` stays below
/// `TableRecord`.
impl VectorIndexRecord {
    /// Whether SearchVectors results carry attribute `name`: table keys and the search
    /// schema always, the rest as the projection says. The vector itself only when the
    /// request's ProjectionExpression names it (`asked`), as in DynamoDB.
    pub fn projects(&self, table: &TableRecord, name: &str, asked: bool) -> bool {
        if name == self.attribute {
            return asked;
        }
        let key = table.key_schema.attributes().any(|k| k.name == name)
            || self.search_schema.iter().any(|(n, _, _)| n == name);
        key || match &self.projection {
            IndexProjection::All => true,
            IndexProjection::KeysOnly => false,
            IndexProjection::Include(names) => names.iter().any(|n| n == name),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::{Catalog, TableRecord};

    fn record(id: u64) -> TableRecord {
        serde_json::from_value(serde_json::json!({
            "v": 1, "name": "t", "id": id, "uuid": "u",
            "key_schema": {"hash": {"name": "pk", "ty": "S"}, "range": null},
            "attribute_definitions": [], "created_ms": 0,
            "billing_mode": "PayPerRequest", "billing_mode_explicit": true,
            "pay_per_request_since_ms": null,
            "throughput": {"read": 0, "write": 0, "last_increase_ms": null,
                           "last_decrease_ms": null, "decreases_today": 0},
            "deletion_protection": false, "table_class": null, "tags": []
        }))
        .expect("a table record")
    }

    #[test]
    fn a_record_is_live_from_its_publication_until_it_is_replaced_or_removed() {
        let first = Arc::new(record(1));
        assert!(
            !first.publication.is_live(),
            "read from disk, not yet published"
        );
        let catalog = Catalog::new(BTreeMap::from([("t".to_owned(), first.clone())]));
        assert!(first.publication.is_live());
        assert!(
            !(*first).clone().publication.is_live(),
            "a copy is not published"
        );

        catalog.publish("t", Some(first.clone()));
        assert!(first.publication.is_live(), "published again as it is");

        let second = Arc::new(record(1));
        catalog.publish("t", Some(second.clone()));
        assert!(!first.publication.is_live());
        assert!(second.publication.is_live());

        catalog.publish("t", None);
        assert!(!second.publication.is_live(), "a deleted table's record");
        assert!(catalog.get("t").is_none());
    }
}
