//! `kura serve`'s flags and the parsers of their values.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use kura_engine::writer::WriteLimits;

#[derive(Args)]
pub(crate) struct ServeArgs {
    /// TCP port to listen on.
    #[arg(long, default_value_t = 8000, env = "KURA_PORT")]
    pub(crate) port: u16,
    /// Address to bind.
    #[arg(long, default_value = "127.0.0.1", env = "KURA_BIND")]
    pub(crate) bind: std::net::IpAddr,
    /// Directory of the durable store (created if missing).
    #[arg(long, default_value = "./kura-data", env = "KURA_DATA_DIR")]
    pub(crate) data_dir: PathBuf,
    /// Keep everything in memory: nothing survives a restart (for tests). The data
    /// directory is then not used, so `serve --in-memory` works in the image, whose
    /// KURA_DATA_DIR is /data.
    #[arg(long, env = "KURA_IN_MEMORY")]
    pub(crate) in_memory: bool,
    /// `shared`: every region a request is signed for shares one set of tables (DynamoDB
    /// Local's `-sharedDb`). `separate`: each region is its own, as in AWS, which global
    /// tables (UpdateTable's ReplicaUpdates) need; `--region` is the one the data
    /// directory's top holds, the others live in `regions/<name>/` under it.
    #[arg(long, default_value = "shared", env = "KURA_REGIONS", value_parser = ["shared", "separate"])]
    pub(crate) regions: String,
    /// The home region under `--regions separate`: the one the console, the test controls
    /// and triggers act on.
    #[arg(long, default_value = "us-east-1", env = "KURA_REGION")]
    pub(crate) region: String,
    /// Milliseconds a global table's change waits before it is sent to the other replicas
    /// (0: at once): rehearses a replica that lags, as cross-region replication does.
    #[arg(long, default_value_t = 0, env = "KURA_REPLICATION_DELAY_MS")]
    pub(crate) replication_delay_ms: u64,
    /// Seconds between sweeps that delete expired (TTL) items and trim stream records.
    #[arg(long, default_value_t = 1.0, env = "KURA_TTL_INTERVAL", value_parser = positive_seconds)]
    pub(crate) ttl_interval: f64,
    /// Seconds after which a stream shard is closed and a child shard opened (DynamoDB:
    /// about four hours).
    #[arg(long, default_value_t = 14_400.0, env = "KURA_STREAM_SHARD_SECONDS", value_parser = positive_seconds)]
    pub(crate) stream_shard_seconds: f64,
    /// Open shards of a newly enabled stream (DynamoDB: one per partition; four on a new
    /// on-demand table).
    #[arg(long, default_value_t = 4, env = "KURA_STREAM_SHARDS", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(crate) stream_shards: u32,
    /// Records after which a stream shard splits into two children (0: never; else at
    /// least 10, since every split lengthens the stream's metadata each write rewrites).
    #[arg(long, default_value_t = 100_000, env = "KURA_STREAM_SPLIT_RECORDS", value_parser = split_records)]
    pub(crate) stream_split_records: u64,
    /// Open shards a stream may reach by splits; a full shard then rolls over instead.
    #[arg(long, default_value_t = 16, env = "KURA_STREAM_MAX_SHARDS", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub(crate) stream_max_shards: u32,
    /// Vector searches over at most this many candidates (the index, or the partition
    /// searched) are exact; larger ones walk an approximate HNSW graph. `all`: exact
    /// everywhere (the true top-k, what a test asserts on).
    #[arg(long, default_value = "10000", env = "KURA_VECTOR_EXACT_BELOW", value_parser = exact_below)]
    pub(crate) vector_exact_below: usize,
    /// Candidates a vector search above the exact threshold keeps per level of the HNSW
    /// graph (usearch's ef): more finds more of the true nearest, and takes longer.
    #[arg(long, default_value = "128", env = "KURA_VECTOR_SEARCH_EXPANSION", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096))]
    pub(crate) vector_search_expansion: usize,
    /// Megabytes of block cache: reads of data not in memory go to disk beyond it.
    #[arg(long, default_value_t = 8, env = "KURA_CACHE_MB", value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub(crate) cache_mb: u64,
    /// Tables at most, as DynamoDB's account quota (2,500 by default): CreateTable, restores
    /// and ImportTable past it get LimitExceededException.
    #[arg(long, default_value_t = WriteLimits::default().max_tables, env = "KURA_MAX_TABLES", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub(crate) max_tables: usize,
    /// Megabytes a table space's write buffer holds before it is flushed to disk; applies
    /// to data directories created with it. Flushed and freed after a second without
    /// writes.
    #[arg(long, default_value_t = 4, env = "KURA_MEMTABLE_MB", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub(crate) memtable_mb: u64,
    /// Require SigV4-signed requests from the access keys in this JSON credentials file
    /// (docs/security.md); reloaded on SIGHUP. Without it Kura accepts any request.
    #[arg(long, env = "KURA_AUTH")]
    pub(crate) auth: Option<PathBuf>,
    /// Append one JSON line per request to this file in CloudTrail's record shape
    /// (control-plane operations; data-plane ones too with --audit-data-events). A request
    /// is answered only after its line is written.
    #[arg(long, env = "KURA_AUDIT")]
    pub(crate) audit: Option<PathBuf>,
    /// Also audit data-plane operations (item reads and writes, PartiQL, Streams records).
    #[arg(long, env = "KURA_AUDIT_DATA_EVENTS", requires = "audit")]
    pub(crate) audit_data_events: bool,
    /// Rotate the audit file (to FILE.1 ... FILE.5) before it grows past this many bytes.
    #[arg(long, default_value_t = 64 << 20, env = "KURA_AUDIT_MAX_BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) audit_max_bytes: u64,
    /// Serve HTTPS on the port with this PEM certificate chain (leaf first); needs
    /// --tls-key. Clients trust it or its CA (e.g. `aws --ca-bundle FILE`).
    #[arg(long, env = "KURA_TLS_CERT", requires = "tls_key")]
    pub(crate) tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, env = "KURA_TLS_KEY", requires = "tls_cert")]
    pub(crate) tls_key: Option<PathBuf>,
    /// Where exports are written and imports read: bucket B is the directory DIR/B
    /// (default: `buckets` in the data directory; in memory with --in-memory).
    #[arg(long, env = "KURA_BUCKETS_DIR", conflicts_with = "s3_endpoint")]
    pub(crate) buckets_dir: Option<PathBuf>,
    /// Use the buckets of this S3 or S3-compatible server instead (path-style; keys from
    /// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
    #[arg(long, env = "KURA_S3_ENDPOINT")]
    pub(crate) s3_endpoint: Option<String>,
    /// The region of --s3-endpoint.
    #[arg(long, default_value = "us-east-1", env = "KURA_S3_REGION")]
    pub(crate) s3_region: String,
    /// Record per-request metrics and serve them at GET /metrics (Prometheus text).
    #[arg(long, env = "KURA_METRICS", default_value_t = true, action = clap::ArgAction::Set)]
    pub(crate) metrics: bool,
    /// Let GET /metrics on the API's port answer requests carrying `Authorization: Bearer
    /// TOKEN` only (with --auth, /metrics there is otherwise refused; docs/security.md).
    #[arg(long, env = "KURA_METRICS_TOKEN", hide_env_values = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub(crate) metrics_token: Option<String>,
    /// Also serve GET /metrics, unauthenticated, on this address (e.g. 10.0.0.5:9464):
    /// the Prometheus convention, on an interface only scrapers reach.
    #[arg(long, env = "KURA_METRICS_BIND")]
    pub(crate) metrics_bind: Option<SocketAddr>,
    /// Connections served at once; more wait in the kernel's backlog until one closes
    /// (each idle connection holds about 14 KB).
    #[arg(long, env = "KURA_MAX_CONNECTIONS", default_value_t = kura_server::connections::ConnectionLimits::DEFAULT.max_open as u32, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_connections: u32,
    /// Seconds a request's headers, and then its body, may take to arrive: a client that
    /// trickles them slower loses the connection (headers) or gets HTTP 408
    /// RequestTimeoutException (body), which the SDKs retry. A keep-alive connection left
    /// idle this long is closed too.
    #[arg(long, env = "KURA_REQUEST_READ_TIMEOUT", default_value_t = kura_server::connections::ConnectionLimits::DEFAULT.read_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub(crate) request_read_timeout: u64,
    /// Megabytes of request bodies read or held at once, over every connection (inflated
    /// copies included); a request past it is answered HTTP 503 ServiceUnavailable,
    /// which the SDKs retry. Bounds what clients sending large bodies together can hold.
    #[arg(long, env = "KURA_REQUEST_MEMORY_MB", default_value_t = (kura_server::connections::ConnectionLimits::DEFAULT.request_memory >> 20) as u32, value_parser = clap::value_parser!(u32).range(16..=65_536))]
    pub(crate) request_memory_mb: u32,
    /// API requests run at once; more wait for a place in arrival order (see
    /// --max-queue-wait-ms).
    #[arg(long, env = "KURA_MAX_IN_FLIGHT", default_value_t = kura_server::admission::AdmissionLimits::DEFAULT.max_in_flight as u32, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_in_flight: u32,
    /// Milliseconds a request waits for a place before it is answered HTTP 503
    /// ServiceUnavailable, which the SDKs retry with backoff (0: refuse at once).
    #[arg(long, env = "KURA_MAX_QUEUE_WAIT_MS", default_value_t = kura_server::admission::AdmissionLimits::DEFAULT.queue_wait.as_millis() as u64, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub(crate) max_queue_wait_ms: u64,
    /// Serve the web console at http://HOST:PORT/console (`--console false` turns it off).
    #[arg(long, env = "KURA_CONSOLE", default_value_t = true, action = clap::ArgAction::Set)]
    pub(crate) console: bool,
    /// Deliver stream records to functions as the triggers in this JSON file say
    /// (`{"Triggers": [...]}`, docs/triggers.md); checkpoints are kept in
    /// <data-dir>/triggers.
    #[arg(long, env = "KURA_TRIGGERS")]
    pub(crate) triggers: Option<PathBuf>,
    /// Let POST and DELETE /kura/triggers create and delete triggers at run time (a
    /// trigger may run a command on this host; `kura dev` turns this on).
    #[arg(long, env = "KURA_TRIGGER_ADMIN")]
    pub(crate) trigger_admin: bool,
    /// Throttle requests past their table's capacity as DynamoDB does: provisioned RCU/WCU
    /// with burst credit, per-GSI capacity, and the per-partition-key limits
    /// (docs/testing.md).
    #[arg(long, env = "KURA_ENFORCE_CAPACITY")]
    pub(crate) enforce_capacity: bool,
    /// Seconds of unused provisioned capacity a table or GSI keeps for bursts (with
    /// --enforce-capacity; DynamoDB keeps 300).
    #[arg(long, default_value_t = 300.0, env = "KURA_BURST_SECONDS", value_parser = non_negative_seconds)]
    pub(crate) burst_seconds: f64,
    /// Serve the test controls under /kura/admin/: snapshots, restore and reset (in
    /// memory), fault injection, and the manual clock (docs/testing.md).
    #[arg(long, env = "KURA_TEST_CONTROLS")]
    pub(crate) test_controls: bool,
    /// `manual`: time stands still until POST /kura/admin/clock moves it (TTL, stream
    /// trimming, iterator expiry and capacity refill follow it). Turns on the test
    /// controls.
    #[arg(long, default_value = "system", env = "KURA_CLOCK", value_parser = ["system", "manual"])]
    pub(crate) clock: String,
    /// Create the tables this file describes at start (DescribeTable output, a list of
    /// them, or CreateTable inputs).
    #[arg(long, env = "KURA_SCHEMA")]
    pub(crate) schema: Option<PathBuf>,
    /// Load the items of this directory at start: TABLE.json item lists or scan output,
    /// BatchWriteItem request files, and DynamoDB exports in TABLE/ directories.
    #[arg(long, env = "KURA_SEED")]
    pub(crate) seed: Option<PathBuf>,
}

fn non_negative_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(s),
        _ => Err(format!("{text} is not a number of seconds (0 or more)")),
    }
}

/// `--stream-split-records`: 0, or at least 10.
fn split_records(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n == 0 || n >= 10 => Ok(n),
        _ => Err(format!(
            "{text:?} is not 0 or a number of records of at least 10"
        )),
    }
}

/// `--vector-exact-below`: a number of candidates, or `all`.
fn exact_below(text: &str) -> Result<usize, String> {
    match text {
        "all" => Ok(usize::MAX),
        _ => text
            .parse()
            .map_err(|_| format!("{text:?} is neither a number of vectors nor `all`")),
    }
}

/// A duration in seconds: positive, and at most about 30 years.
fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e9 => Ok(s),
        _ => Err(format!(
            "{text:?} is not a number of seconds between 0 and 1e9"
        )),
    }
}
