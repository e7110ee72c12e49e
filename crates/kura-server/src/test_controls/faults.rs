//! Fault injection: rules that answer matching requests with a DynamoDB error, after an
//! added latency, at a rate, for a count or a duration. Nothing is injected unless a rule
//! asks for it; every injected fault is counted on its rule and logged.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use kura_api::error::ApiError;

/// What a rule injects and where, as `POST /kura/admin/faults` and `kura fault add` take it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultSpec {
    /// The error answered (see [`ERRORS`]); none for latency alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The operation (`PutItem`, `Query`, ...); none for every operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// The table the request names (any of a batch's or transaction's tables); none for
    /// every table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// Only requests whose `Key` or `Item` has a partition key value starting with this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_prefix: Option<String>,
    /// The share of matching requests that get the fault, 0 to 1 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// Milliseconds added before the answer (or before the request runs, without an error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// How many faults to inject before the rule ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// How many seconds the rule lasts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<f64>,
}

/// The errors a rule can inject: a name (with its aliases), the HTTP status, the
/// `__type` and DynamoDB's message.
pub const ERRORS: &[(&[&str], u16, &str, &str)] = &[
    (
        &["ProvisionedThroughputExceededException", "throttling"],
        400,
        "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
        kura_engine::throttle::TABLE_MESSAGE,
    ),
    (
        &["ThrottlingException"],
        400,
        "com.amazon.coral.availability#ThrottlingException",
        "Rate of requests exceeds the allowed throughput.",
    ),
    (
        &["InternalServerError", "internal"],
        500,
        "com.amazonaws.dynamodb.v20120810#InternalServerError",
        "Internal server error",
    ),
    (
        &["ServiceUnavailable", "unavailable"],
        503,
        "com.amazonaws.dynamodb.v20120810#ServiceUnavailable",
        kura_model::messages::SERVICE_UNAVAILABLE,
    ),
    (
        &["TransactionConflictException", "conflict"],
        400,
        "com.amazonaws.dynamodb.v20120810#TransactionConflictException",
        "Transaction is ongoing for the item",
    ),
    (
        &["RequestLimitExceeded"],
        400,
        "com.amazonaws.dynamodb.v20120810#RequestLimitExceeded",
        "Throughput exceeds the current throughput limit for your account. Please contact AWS Support at https://aws.amazon.com/support request a limit increase",
    ),
];

fn error_of(
    name: &str,
) -> Option<&'static (&'static [&'static str], u16, &'static str, &'static str)> {
    ERRORS
        .iter()
        .find(|(names, ..)| names.iter().any(|n| n.eq_ignore_ascii_case(name)))
}

/// A rule as listed: its spec, its id and what it injected so far.
#[derive(Debug, Clone, Serialize)]
pub struct FaultRule {
    pub id: u64,
    #[serde(flatten)]
    pub spec: FaultSpec,
    pub injected: u64,
}

struct Rule {
    listed: FaultRule,
    until: Option<Instant>,
}

impl Rule {
    fn spent(&self, now: Instant) -> bool {
        self.until.is_some_and(|u| now >= u)
            || self
                .listed
                .spec
                .count
                .is_some_and(|c| self.listed.injected >= c)
    }
}

/// What a request is, as rules match it.
pub struct Request<'a> {
    pub operation: &'a str,
    /// What the request names, as kura-api reads it off the request's typed input.
    pub named: &'a kura_api::Named<'a>,
}

/// An injection decided for one request.
pub struct Injection {
    pub latency: Duration,
    pub error: Option<ApiError>,
}

/// Rules kept at once: each request that finds rules armed matches it against all.
pub const MAX_RULES: usize = 256;

#[derive(Default)]
pub struct Faults {
    rules: Mutex<Vec<Rule>>,
    /// Whether any rule exists: requests skip all matching while none does.
    armed: AtomicBool,
    next_id: AtomicU64,
}

impl Faults {
    /// Adds a rule; `Err` says what is wrong with the spec.
    pub fn add(&self, spec: FaultSpec) -> Result<FaultRule, String> {
        if let Some(name) = &spec.error
            && error_of(name).is_none()
        {
            let known: Vec<&str> = ERRORS.iter().map(|(names, ..)| names[0]).collect();
            return Err(format!("unknown error {name}: one of {}", known.join(", ")));
        }
        if spec.rate.is_some_and(|r| !(0.0..=1.0).contains(&r)) {
            return Err("rate must be between 0 and 1".into());
        }
        if spec
            .duration_seconds
            .is_some_and(|d| !d.is_finite() || d <= 0.0)
        {
            return Err("duration_seconds must be a positive number".into());
        }
        if spec.count == Some(0) {
            return Err("count must be at least 1".into());
        }
        if spec.error.is_none() && spec.latency_ms.unwrap_or(0) == 0 {
            return Err("a fault needs an error, a latency_ms, or both".into());
        }
        if spec.latency_ms.is_some_and(|l| l > 600_000) {
            return Err("latency_ms is at most 600000".into());
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        // A duration past what an Instant holds lasts for ever.
        let until = spec.duration_seconds.and_then(|d| {
            Duration::try_from_secs_f64(d)
                .ok()
                .and_then(|d| Instant::now().checked_add(d))
        });
        let listed = FaultRule {
            id,
            spec,
            injected: 0,
        };
        let mut rules = self.rules.lock();
        // Spent and expired rules do not count; every request walks the live ones.
        let now = Instant::now();
        rules.retain(|r| !r.spent(now));
        if rules.len() >= MAX_RULES {
            return Err(format!(
                "at most {MAX_RULES} fault rules at once: clear some first (DELETE /kura/admin/faults)"
            ));
        }
        tracing::warn!(id, spec = ?listed.spec, "fault injection rule added");
        rules.push(Rule {
            listed: listed.clone(),
            until,
        });
        self.armed.store(true, Ordering::SeqCst);
        Ok(listed)
    }

    /// The rules in force.
    pub fn list(&self) -> Vec<FaultRule> {
        let mut rules = self.rules.lock();
        let now = Instant::now();
        rules.retain(|r| !r.spent(now));
        rules.iter().map(|r| r.listed.clone()).collect()
    }

    /// Removes one rule (`Some(id)`) or all; the number removed.
    pub fn clear(&self, id: Option<u64>) -> usize {
        let mut rules = self.rules.lock();
        let before = rules.len();
        rules.retain(|r| id.is_some_and(|id| r.listed.id != id));
        self.armed.store(!rules.is_empty(), Ordering::SeqCst);
        before - rules.len()
    }

    /// Whether any rule exists (a relaxed read; the request path's only cost otherwise).
    pub fn armed(&self) -> bool {
        self.armed.load(Ordering::Relaxed)
    }

    /// The injection for `request`, if a rule matches and its rate says so.
    pub fn decide(&self, request: &Request<'_>) -> Option<Injection> {
        let mut rules = self.rules.lock();
        let now = Instant::now();
        rules.retain(|r| !r.spent(now));
        self.armed.store(!rules.is_empty(), Ordering::SeqCst);
        // The first matching rule whose rate lets it fire.
        let rule = rules.iter_mut().find(|r| {
            let rate = r.listed.spec.rate.unwrap_or(1.0);
            matches(&r.listed.spec, request) && (rate >= 1.0 || fastrand::f64() < rate)
        })?;
        rule.listed.injected += 1;
        let spec = &rule.listed.spec;
        let error = spec
            .error
            .as_deref()
            .and_then(error_of)
            .map(|(_, status, ty, message)| {
                ApiError::injected(
                    StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                    ty,
                    message,
                )
            });
        tracing::warn!(
            rule = rule.listed.id,
            operation = request.operation,
            tables = ?request.named.tables,
            error = spec.error.as_deref().unwrap_or("none"),
            latency_ms = spec.latency_ms.unwrap_or(0),
            "fault injected"
        );
        Some(Injection {
            latency: Duration::from_millis(spec.latency_ms.unwrap_or(0)),
            error,
        })
    }
}

fn matches(spec: &FaultSpec, request: &Request<'_>) -> bool {
    spec.operation
        .as_deref()
        .is_none_or(|op| op == request.operation)
        && spec
            .table
            .as_deref()
            .is_none_or(|t| request.named.tables.contains(&t))
        && spec.key_prefix.as_deref().is_none_or(|prefix| {
            request
                .named
                .partition
                .is_some_and(|p| p.starts_with(prefix))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: serde_json::Value) -> FaultSpec {
        serde_json::from_value(json).unwrap()
    }

    /// Whether `faults` injects into `operation` on table `t` with partition key `key`.
    fn decide(faults: &Faults, operation: &str, key: &str) -> Option<Injection> {
        let named = kura_api::Named {
            tables: &["t"],
            partition: Some(key),
        };
        faults.decide(&Request {
            operation,
            named: &named,
        })
    }

    #[test]
    fn nothing_is_injected_without_a_rule_and_a_rule_ends_after_its_count() {
        let faults = Faults::default();
        assert!(!faults.armed());
        assert!(decide(&faults, "PutItem", "user#1").is_none());
        faults
            .add(spec(serde_json::json!({"error": "throttling", "table": "t", "key_prefix": "user#", "count": 2})))
            .unwrap();
        for _ in 0..2 {
            let injected = decide(&faults, "PutItem", "user#1").expect("a fault");
            assert_eq!(
                injected.error.unwrap().name(),
                "ProvisionedThroughputExceededException"
            );
        }
        assert!(
            decide(&faults, "PutItem", "user#1").is_none(),
            "the count is spent"
        );
        assert!(faults.list().is_empty());
    }

    #[test]
    fn rules_match_operation_table_and_key_prefix() {
        let faults = Faults::default();
        faults
            .add(spec(serde_json::json!({"error": "InternalServerError", "operation": "GetItem", "key_prefix": "a"})))
            .unwrap();
        assert!(decide(&faults, "GetItem", "abc").is_some());
        assert!(decide(&faults, "GetItem", "bcd").is_none());
        assert!(decide(&faults, "PutItem", "a").is_none());
    }

    #[test]
    fn rules_are_bounded_and_spent_ones_make_room() {
        let faults = Faults::default();
        for _ in 0..MAX_RULES {
            faults
                .add(spec(serde_json::json!({"error": "throttling", "count": 1})))
                .expect("within the bound");
        }
        let refused = faults
            .add(spec(serde_json::json!({"error": "throttling"})))
            .expect_err("past the bound");
        assert!(refused.contains("at most 256"), "{refused}");
        assert!(
            decide(&faults, "GetItem", "a").is_some(),
            "one rule spends its count"
        );
        faults
            .add(spec(serde_json::json!({"error": "throttling"})))
            .expect("the spent rule made room");
    }

    #[test]
    fn bad_specs_are_refused() {
        let faults = Faults::default();
        for bad in [
            serde_json::json!({"error": "Nope"}),
            serde_json::json!({"error": "throttling", "rate": 2}),
            serde_json::json!({}),
            serde_json::json!({"error": "throttling", "count": 0}),
        ] {
            assert!(faults.add(spec(bad)).is_err());
        }
        assert!(serde_json::from_value::<FaultSpec>(serde_json::json!({"errr": "x"})).is_err());
    }
}
