//! The rules `kura advise` checks: ids, severities, the guideline section each comes from
//! and the fix, as docs/advisor.md lists them (that file says what each one looks at).

/// How much a finding matters: the guideline's "must" (必須, 禁止), "recommended"
/// (推奨, 原則), or "consider" (検討).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    /// The name as the JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// What a rule's findings rest on: the evidence a reader weighs them by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Basis {
    /// The table's definition or settings (DescribeTable and friends): a fact.
    Definition,
    /// The item sample: holds for the sampled items, and judges a larger table by them.
    Sample,
    /// The application's requests since `trafficSince`, each counted.
    Traffic,
    /// Contributor Insights' heavy hitters: an estimate with its error bound.
    Insights,
    /// What the engine keeps for itself (item collection sizes).
    Storage,
    /// Identity policies of a credentials file.
    Policies,
}

/// What `id`'s findings rest on (docs/advisor.md's Evidence column).
pub fn basis(id: &str) -> Basis {
    match id {
        "keys.hot-partition" => Basis::Insights,
        "index.lsi-collection-size" => Basis::Storage,
        "security.identity-full-access" | "security.identity-resource-scope" => Basis::Policies,
        "naming.table-name-pattern"
        | "naming.key-attribute-descriptive"
        | "naming.gsi-sequential-name"
        | "naming.mixed-environments"
        | "index.duplicate-key-schema"
        | "index.gsi-count"
        | "index.gsi-overloading"
        | "projection.all"
        | "ttl.attribute-name"
        | "streams.view-type"
        | "streams.large-item-view-type"
        | "capacity.on-demand"
        | "availability.deletion-protection"
        | "availability.pitr"
        | "availability.pitr-recovery-period"
        | "security.resource-policy-public"
        | "streams.kinesis-destination"
        | "security.sse-kms" => Basis::Definition,
        id if id.starts_with("api.")
            || id.starts_with("projection.")
            || matches!(
                id,
                "index.lsi-conditions"
                    | "index.unused-gsi"
                    | "index.key-value-refused"
                    | "types.collection-in-search"
                    | "types.collection-append"
                    | "ttl.deletes-instead-of-ttl"
                    | "streams.switch-gap-writes"
                    | "streams.noop-put"
                    | "availability.global-write-conflicts"
            ) =>
        {
            Basis::Traffic
        }
        _ => Basis::Sample,
    }
}

/// What a finding (as JSON) saw, in a few words for people: the report and the console.
pub fn seen(finding: &serde_json::Value) -> String {
    let count = |key: &str| finding["sampled"][key].as_u64().unwrap_or_default();
    match finding["basis"].as_str().unwrap_or_default() {
        "sample" if finding["sampled"].is_object() => format!(
            "a sample of {} of the table's {} items",
            count("sampled"),
            count("items")
        ),
        "sample" => "the samples of every table".into(),
        "traffic" => format!(
            "the application's requests since {}",
            finding["since"].as_str().unwrap_or("the server's start")
        ),
        "insights" => {
            "Contributor Insights over the last hour (an estimate, ± its error bound)".into()
        }
        "storage" => "the item collection sizes the engine keeps".into(),
        "policies" => "the identity policies".into(),
        _ => "the table's definition".into(),
    }
}

/// One checkable recommendation of the guideline.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    /// The guideline's heading, as written, and an English gloss.
    pub section: &'static str,
    pub fix: &'static str,
}

use Severity::{Error, Info, Warning};

macro_rules! rule {
    ($id:literal, $severity:expr, $section:literal, $fix:literal) => {
        Rule {
            id: $id,
            severity: $severity,
            section: $section,
            fix: $fix,
        }
    };
}

/// Every rule the advisor checks, in docs/advisor.md's order.
pub const RULES: &[Rule] = &[
    rule!(
        "naming.table-name-pattern",
        Warning,
        "命名規則 (Naming rules)",
        "Name tables {env}-{product}-{usage} in lower case joined by hyphens (e.g. prod-fuga-user-access-log); DynamoDB cannot rename, so create the new table and copy the data."
    ),
    rule!(
        "naming.attribute-snake-case",
        Warning,
        "命名規則 (Naming rules)",
        "Use snake_case attribute names (user_name, created_at)."
    ),
    rule!(
        "naming.attribute-reserved-word",
        Warning,
        "命名規則 (Naming rules)",
        "Rename attributes that are DynamoDB reserved words; until then, use ExpressionAttributeNames for them."
    ),
    rule!(
        "naming.key-attribute-descriptive",
        Warning,
        "命名規則 (Naming rules)",
        "Name primary key attributes for what they identify (user_id, order_id)."
    ),
    rule!(
        "naming.gsi-sequential-name",
        Warning,
        "命名規則 (Naming rules)",
        "Name GSIs gsi1, gsi2, ... rather than after their key attributes."
    ),
    rule!(
        "naming.mixed-environments",
        Info,
        "命名規則 (Naming rules)",
        "Keep one environment per account (and per Kura server): dev, stg and prod tables apart, so a policy or a mistake in one cannot reach another."
    ),
    rule!(
        "keys.single-table-design",
        Warning,
        "シングルテーブル/マルチテーブル (Single table or many)",
        "Give each entity its own table; keep single-table design only where its very low latency is needed, and write down why."
    ),
    rule!(
        "keys.hot-partition",
        Warning,
        "プライマリーキーの設計 (Primary key design)",
        "Spread the traffic: choose a partition key with many evenly used values, or add a write-sharding suffix to the hot key."
    ),
    rule!(
        "keys.low-cardinality-partition-key",
        Warning,
        "プライマリーキーの設計 (Primary key design)",
        "Choose a partition key with many distinct values (a user or order id, not a status or a type); for an index on a status, add a sharding suffix or make the index sparse."
    ),
    rule!(
        "keys.sort-key-epoch-number",
        Warning,
        "プライマリーキーの設計 (Primary key design)",
        "Store timestamps in sort keys as ISO 8601 strings (YYYY-MM-DDTHH:MM:SSZ), one format and zone; this needs a new table or index."
    ),
    rule!(
        "keys.sequential-partition-key",
        Info,
        "プライマリーキーの設計 (Primary key design)",
        "Load-test the throughput; a dense run of integers concentrates new writes, so consider a random or hashed ID."
    ),
    rule!(
        "keys.timestamp-in-partition-key",
        Warning,
        "プライマリーキーの設計 (Primary key design)",
        "Use the entity's ID as the partition key and the time as the sort key."
    ),
    rule!(
        "keys.zero-padded-numbers",
        Warning,
        "プライマリーキーの設計 (Primary key design)",
        "Zero-pad numbers in string keys to a fixed width (01, 02, 10) so they sort as numbers."
    ),
    rule!(
        "keys.composite-key-separator",
        Warning,
        "複合キー (Composite keys)",
        "Join the parts of composite keys with '#' (SHIPPING_PENDING#2025-08-01)."
    ),
    rule!(
        "keys.composite-key-source-attributes",
        Warning,
        "複合キー (Composite keys)",
        "Also write each part of a composite key as an attribute of its own (order_status, ordered_at)."
    ),
    rule!(
        "keys.composite-partition-key",
        Info,
        "複合キー (Composite keys)",
        "Keep the partition key simple (one value every query knows) and join the other parts in the sort key, where begins_with and ranges can select them; compose the partition key only when every query always has all its parts."
    ),
    rule!(
        "index.gsi-overloading",
        Warning,
        "インデックスの使い分け (Choosing indexes)",
        "Create one GSI per access pattern, with key attributes whose meaning is fixed."
    ),
    rule!(
        "index.lsi-conditions",
        Warning,
        "インデックスの使い分け (Choosing indexes)",
        "Use a GSI unless the query needs strong consistency on the table's partition key in another order; an LSI can only go with the table."
    ),
    rule!(
        "index.lsi-collection-size",
        Warning,
        "インデックスの使い分け (Choosing indexes)",
        "Spread the partition key's items over more partition keys (a sharding suffix, or another key), or move the LSI's query to a GSI, which has no item collection limit: at 10 GB DynamoDB refuses writes to the partition key."
    ),
    rule!(
        "index.unused-gsi",
        Warning,
        "インデックスの使い分け (Choosing indexes)",
        "Delete the GSI nothing reads, and add it back when a query needs it."
    ),
    rule!(
        "index.gsi-count",
        Warning,
        "インデックスの使い分け (Choosing indexes)",
        "Keep GSIs to the queries that need them now (each one is another copy of every write it projects); add one when a query needs it, and remove those nothing reads."
    ),
    rule!(
        "index.duplicate-key-schema",
        Warning,
        "インデックスの使い分け (Choosing indexes)",
        "Delete the index that repeats another's (or the table's) keys; each index costs a write per item change."
    ),
    rule!(
        "index.key-value-refused",
        Error,
        "インデックスの使い分け (Choosing indexes)",
        "Leave an index key attribute out of the item (remove it) instead of writing NULL or an empty value: the item then stays out of the index (a sparse index)."
    ),
    rule!(
        "index.gsi-sentinel-key",
        Warning,
        "インデックスの使い分け (Choosing indexes)",
        "Remove the attribute (REMOVE in UpdateItem) instead of writing a stand-in such as \"NULL\" or \"-\": an item without the index key stays out of the GSI, which keeps it sparse."
    ),
    rule!(
        "projection.all",
        Warning,
        "インデックスの射影（プロジェクション） (Index projections)",
        "Project KEYS_ONLY or INCLUDE the attributes the index's queries read; ALL copies every attribute on every write."
    ),
    rule!(
        "projection.gsi-read-without-projection-expression",
        Error,
        "インデックスの射影（プロジェクション） (Index projections)",
        "Give every GSI Query and Scan a ProjectionExpression naming the attributes it needs."
    ),
    rule!(
        "projection.index-not-covered",
        Warning,
        "インデックスの射影（プロジェクション） (Index projections)",
        "Project the attributes these queries read (INCLUDE), so the index answers them without reading the table."
    ),
    rule!(
        "types.code-as-number",
        Warning,
        "データ型 (Data types)",
        "Store codes and statuses as strings (S): they are identifiers, not quantities."
    ),
    rule!(
        "types.uuid-as-string",
        Warning,
        "データ型 (Data types)",
        "Store UUIDs as String in their canonical text form (8-4-4-4-12 hex digits), as codes and classifications."
    ),
    rule!(
        "types.flag-as-string",
        Warning,
        "データ型 (Data types)",
        "Store flags as BOOL, not \"0\"/\"1\" or \"true\"/\"false\" strings."
    ),
    rule!(
        "types.datetime-iso8601",
        Warning,
        "データ型 (Data types)",
        "Write dates and times as ISO 8601 strings: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS(.sss)Z."
    ),
    rule!(
        "types.datetime-consistent-format",
        Warning,
        "プライマリーキーの設計 (Primary key design)",
        "Use one date-time format and one time zone in keys across the system (e.g. UTC, YYYY-MM-DDTHH:MM:SSZ)."
    ),
    rule!(
        "types.large-binary",
        Warning,
        "データ型 (Data types)",
        "Keep large binaries in object storage (S3) and store only their path in the item."
    ),
    rule!(
        "types.large-collection",
        Warning,
        "データ型 (Data types)",
        "Store one item per element under the same partition key, with its own sort key."
    ),
    rule!(
        "types.collection-append",
        Warning,
        "データ型 (Data types)",
        "Keep history as items of their own under the same partition key (a sort key per entry), not appended to a list or set in one item, which grows toward the 400 KB limit; use List, Set and Map only for values replaced whole."
    ),
    rule!(
        "types.compressed-as-string",
        Warning,
        "データの圧縮 (Compression)",
        "Store compressed data as Binary (B), not base64 in a String."
    ),
    rule!(
        "types.numeric-string",
        Warning,
        "データ型 (Data types)",
        "Store numbers as N."
    ),
    rule!(
        "types.compression-scope",
        Warning,
        "データの圧縮 (Compression)",
        "Compress only the one large attribute that needs it; keep keys and small values uncompressed."
    ),
    rule!(
        "types.collection-in-search",
        Warning,
        "データ型 (Data types)",
        "Move the searched value to a top-level attribute (a GSI key if it is queried); keep lists, sets and maps for values nobody searches."
    ),
    rule!(
        "types.item-size-near-limit",
        Warning,
        "データ型 (Data types)",
        "Split large items (vertical partitioning) or move large values to S3 and keep a reference."
    ),
    rule!(
        "ttl.attribute-name",
        Warning,
        "共通カラム (Common attributes)",
        "Name the TTL attribute ttl, and write it on the items that should expire."
    ),
    rule!(
        "ttl.epoch-seconds",
        Error,
        "データ型 (Data types)",
        "Write TTL values as a Number of Unix epoch seconds (not milliseconds, not a string)."
    ),
    rule!(
        "ttl.deletes-instead-of-ttl",
        Info,
        "コスト (Cost)",
        "Let TTL delete items that expire (UpdateTimeToLive with a ttl attribute of epoch seconds): its deletes cost no write capacity."
    ),
    rule!(
        "api.read-modify-write",
        Warning,
        "レコードの書き込み (Writing items)",
        "Use UpdateItem with SET or ADD (atomic counters) instead of GetItem then PutItem; add a ConditionExpression where another writer may interfere."
    ),
    rule!(
        "api.update-existence-condition",
        Warning,
        "レコードの書き込み (Writing items)",
        "Add attribute_exists(<partition key>) to updates of existing items (attribute_not_exists to creations)."
    ),
    rule!(
        "api.put-drops-attributes",
        Warning,
        "レコードの書き込み (Writing items)",
        "Change some attributes with UpdateItem (SET, REMOVE); keep PutItem for creating an item or replacing it with a complete new one."
    ),
    rule!(
        "api.keyword-search",
        Warning,
        "全文検索サービス連携 (Full-text search)",
        "Search text with OpenSearch Service, fed by the application's dual writes; keep DynamoDB to the queries its keys and GSIs answer."
    ),
    rule!(
        "api.create-without-condition",
        Info,
        "条件付き書き込み (Conditional writes)",
        "Create items with PutItem and ConditionExpression attribute_not_exists(<partition key>), so a create never overwrites an item that exists."
    ),
    rule!(
        "api.batch-write-for-bulk",
        Info,
        "複数レコードの書き込み (Writing many items)",
        "Send bulk writes as BatchWriteItem requests of up to 25, and retry UnprocessedItems."
    ),
    rule!(
        "api.unprocessed-retry",
        Error,
        "複数レコードの書き込み (Writing many items)",
        "Resend UnprocessedItems/UnprocessedKeys with exponential backoff until none are left (the SDKs' batch helpers do)."
    ),
    rule!(
        "api.scan",
        Warning,
        "複数レコードの一括取得 (Reading many items)",
        "Serve the access pattern with Query on the table or a GSI; use an export for bulk reads."
    ),
    rule!(
        "api.query-filter-discard",
        Info,
        "複数レコードの一括取得 (Reading many items)",
        "Make the key condition select what the filter keeps (a sort key or a GSI on the filtered attribute), or read the items with BatchGetItem when their keys are known: a filter discards after the read is paid for."
    ),
    rule!(
        "api.pagination-followed",
        Error,
        "複数レコードの一括取得 (Reading many items)",
        "Follow LastEvaluatedKey with ExclusiveStartKey until it is absent, or items are silently missed."
    ),
    rule!(
        "api.query-projection-expression",
        Error,
        "複数レコードの一括取得 (Reading many items)",
        "Give every Query a ProjectionExpression naming the attributes it needs."
    ),
    rule!(
        "api.scan-projection-expression",
        Warning,
        "複数レコードの一括取得 (Reading many items)",
        "Give every Scan a ProjectionExpression naming the attributes it needs."
    ),
    rule!(
        "api.consistent-reads",
        Warning,
        "結果整合性・強力な整合性の読み込み (Consistent reads)",
        "Read with eventual consistency (half the cost) unless the read must see the latest write."
    ),
    rule!(
        "api.write-then-read-eventual",
        Info,
        "結果整合性・強力な整合性の読み込み (Consistent reads)",
        "Where a read must see the write just made, read with ConsistentRead true (on the table or an LSI); an eventually consistent read may return the item as it was."
    ),
    rule!(
        "streams.view-type",
        Warning,
        "ストリームビュータイプ (Stream view types)",
        "Use NEW_AND_OLD_IMAGES so consumers see what changed without reading the table."
    ),
    rule!(
        "streams.large-item-view-type",
        Info,
        "ストリームビュータイプ (Stream view types)",
        "With items this large, consider NEW_IMAGE or KEYS_ONLY and reading the rest from the table."
    ),
    rule!(
        "streams.switch-gap-writes",
        Error,
        "ストリームビュータイプ (Stream view types)",
        "Stop the table's writes while a stream is switched (its view type changes by turning it off and on), or recover what was written in between (from a backup or PITR export) for the stream's consumers."
    ),
    rule!(
        "streams.noop-put",
        Info,
        "DynamoDB Streams",
        "To make the stream carry a re-run, change an attribute (a rerun_at time, for example): a PutItem that writes the same item again produces no stream record."
    ),
    rule!(
        "capacity.on-demand",
        Warning,
        "キャパシティモード (Capacity modes)",
        "Use on-demand (PAY_PER_REQUEST) unless the traffic is steady and forecast."
    ),
    rule!(
        "availability.deletion-protection",
        Warning,
        "テーブルの誤削除への備え (Guarding against deleting a table)",
        "Turn on deletion protection (UpdateTable --deletion-protection-enabled)."
    ),
    rule!(
        "availability.pitr",
        Warning,
        "偶発的データ損失への備え (Guarding against accidental data loss)",
        "Turn on point-in-time recovery (UpdateContinuousBackups)."
    ),
    rule!(
        "availability.pitr-recovery-period",
        Warning,
        "偶発的データ損失への備え (Guarding against accidental data loss)",
        "Keep the point-in-time recovery period at 35 days."
    ),
    rule!(
        "availability.global-write-conflicts",
        Warning,
        "DR (Disaster recovery)",
        "Write each item in one region (route a tenant's or an item's writes to its home region's endpoint, as the guideline's multi-site pattern asks), or make the global table multi-region strongly consistent (MultiRegionConsistency STRONG), which refuses a conflicting write instead of dropping it."
    ),
    rule!(
        "streams.kinesis-destination",
        Warning,
        "ストリーミングオプション (Streaming options)",
        "Capture changes with DynamoDB Streams (cheaper, in order, exactly once); choose a Kinesis Data Streams destination only for write rates Streams cannot serve, and consider a Lambda fan-out first."
    ),
    rule!(
        "security.resource-policy-public",
        Warning,
        "アクセス制御（IAM） (Access control)",
        "Name the principals in the resource policy, or add a Condition; never Allow \"*\" unconditionally."
    ),
    rule!(
        "security.identity-full-access",
        Warning,
        "アクセス制御（IAM） (Access control)",
        "Grant people the operations they need (GetItem only, to look into production data); keep dynamodb:* for the applications (roles) that operate DynamoDB."
    ),
    rule!(
        "security.identity-resource-scope",
        Info,
        "アクセス制御（IAM） (Access control)",
        "Narrow the policy's Resource to one environment's tables by their prefix (arn:aws:dynamodb:*:*:table/dev-*)."
    ),
    rule!(
        "security.sse-kms",
        Info,
        "暗号化 (Encryption)",
        "Unless a compliance duty (PCI DSS, for example) asks for a KMS key, use the AWS owned key (SSESpecification Enabled false): KMS keys cost per request and per key."
    ),
];

/// The rule with `id`.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}
