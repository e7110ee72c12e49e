//! The hook before a client's request runs: what may delay it, or answer it with an error
//! instead. The test controls' fault injection (kura-server) is one; the pipeline knows
//! the hook, not the controls. It sees a request once its input is read, through what the
//! input names (the same answer metrics, admission and authorization get).

use std::time::Duration;

use crate::error::ApiError;

/// Decides, for each request of the API's own traffic (not the console's, not an
/// embedded call's), whether it runs as sent.
pub trait Interceptor: Send + Sync {
    /// Whether any rule could apply: a cheap check made before the request is read.
    fn armed(&self) -> bool;

    /// What to do with one request of `operation` (its name on the wire), or None to let
    /// it run.
    fn intercept(&self, operation: &str, request: &Named<'_>) -> Option<Interception>;
}

/// What a request names, for rules that match on it.
pub struct Named<'a> {
    /// The tables it names, each once, in order (none for account-wide operations).
    pub tables: &'a [&'a str],
    /// The partition key value of the one item it addresses (a key or a Put's item), as
    /// sent.
    pub partition: Option<&'a str>,
}

/// A request held back: waited `latency`, then answered with `error` if there is one.
pub struct Interception {
    pub latency: Duration,
    pub error: Option<ApiError>,
}
