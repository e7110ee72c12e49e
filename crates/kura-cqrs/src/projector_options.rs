//! What the projector is told ([`ProjectorOptions`]) and what it reports
//! ([`ProjectorStats`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How hard the projector tries before parking a record, and how it reads the stream.
#[derive(Debug, Clone)]
pub struct ProjectorOptions {
    /// How long a record that keeps failing with a retryable error (throttling, an
    /// unavailable table or read model) is retried before it is parked; a record
    /// DynamoDB refuses is parked at once. The shard waits meanwhile, so the order of an
    /// item's versions holds.
    pub retry_for: Duration,
    /// The first wait between attempts; it doubles up to `max_backoff`.
    pub first_backoff: Duration,
    pub max_backoff: Duration,
    /// Records per GetRecords call.
    pub page: i32,
    /// Empty GetRecords pages in a row the projector follows in one round in a closed
    /// shard before it keeps the iterator for the next round (an empty page is not the
    /// end of a shard; in an open shard it stops at the first, most often the present).
    pub empty_pages: u32,
    /// How long the shard list (DescribeTable and DescribeStream, which AWS allows 10
    /// times a second) is reused. A shard that ends has it read again at once, for its
    /// children.
    pub shard_refresh: Duration,
    /// How long a projector's hold on a shard lasts without being renewed (it renews it
    /// as it reads, and while it retries a record): the time another projector of the
    /// module waits to take over the shards of one that died.
    pub lease: Duration,
    /// The name leases give this projector. `None`: a new one per instance, so a
    /// projector started again after a crash waits out its predecessor's lease. A stable
    /// name (the host and the service, say) takes its own shards back at once; two
    /// projectors running at the same time must not share one.
    pub owner: Option<String>,
    /// How long the projector waits for the publisher of a version published in sync to
    /// finish its handlers before it takes them over (the publisher died): the shard
    /// waits meanwhile.
    pub sync_grace: Duration,
}

impl Default for ProjectorOptions {
    fn default() -> Self {
        ProjectorOptions {
            retry_for: Duration::from_secs(120),
            first_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(5),
            page: 100,
            empty_pages: 8,
            shard_refresh: Duration::from_secs(5),
            lease: Duration::from_secs(30),
            owner: None,
            sync_grace: Duration::from_secs(30),
        }
    }
}

/// What the projector has done, for monitoring.
#[derive(Debug, Default)]
pub struct ProjectorStats {
    pub applied: AtomicU64,
    pub dead_lettered: AtomicU64,
    /// Creation time (epoch seconds) of the last record finished: the lag is now minus it.
    pub last_record_time: AtomicU64,
    /// Failed attempts to apply a record that were retried (after backoff).
    pub retried: AtomicU64,
    /// Rounds that failed (reading the stream, a checkpoint) and were tried again after
    /// a pause by [`crate::Projector::run`].
    pub failed_rounds: AtomicU64,
    /// DescribeStream calls made (each page of the shard list is one).
    pub describe_stream_calls: AtomicU64,
    /// GetRecords calls made.
    pub get_records_calls: AtomicU64,
}

impl ProjectorStats {
    /// How far behind the stream the projector is: now minus the creation time of the
    /// last record it finished (`None` before the first).
    pub fn lag(&self) -> Option<Duration> {
        let last = self.last_record_time.load(Ordering::Relaxed);
        if last == 0 {
            return None;
        }
        let now = time::OffsetDateTime::now_utc().unix_timestamp().max(0) as u64;
        Some(Duration::from_secs(now.saturating_sub(last)))
    }
}
