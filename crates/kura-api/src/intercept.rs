//! The hook before a client's request runs: what may delay it, or answer it with an error
//! instead. The test controls' fault injection (kura-server) is one; the pipeline knows
//! the hook, not the controls.

use std::time::Duration;

use crate::error::ApiError;

/// Decides, for each request of the API's own traffic (not the console's, not an
/// embedded call's), whether it runs as sent.
pub trait Interceptor: Send + Sync {
    /// Whether any rule could apply: a cheap check made before the request is read.
    fn armed(&self) -> bool;

    /// What to do with one request, or None to let it run. `partition_key` names a
    /// table's partition key attribute, for rules that match a request's key.
    fn intercept(
        &self,
        operation: &str,
        body: &[u8],
        partition_key: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Interception>;
}

/// A request held back: waited `latency`, then answered with `error` if there is one.
pub struct Interception {
    pub latency: Duration,
    pub error: Option<ApiError>,
    /// The tables the request names, charged with the error in the metrics.
    pub tables: Vec<String>,
}
