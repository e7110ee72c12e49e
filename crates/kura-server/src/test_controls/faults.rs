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
    pub tables: Vec<String>,
    /// The partition key value of the request's `Key` or `Item`, in text.
    pub partition: Option<String>,
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
            tables = ?request.tables,
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
            .is_none_or(|t| request.tables.iter().any(|n| n == t))
        && spec.key_prefix.as_deref().is_none_or(|prefix| {
            request
                .partition
                .as_deref()
                .is_some_and(|p| p.starts_with(prefix))
        })
}

/// The tables a request body names: `TableName`, or the keys of `RequestItems`, or the
/// tables of `TransactItems`; and the partition key value of its `Key` or `Item` (read
/// with `partition_key`, which names a table's partition key attribute).
pub fn describe<'a>(
    operation: &'a str,
    body: &[u8],
    partition_key: impl Fn(&str) -> Option<String>,
) -> Request<'a> {
    let value: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let mut tables = Vec::new();
    let name_of = |v: &serde_json::Value| {
        v.as_str()
            .map(|t| t.rsplit('/').next().unwrap_or(t).to_owned())
    };
    if let Some(t) = value.get("TableName").and_then(name_of) {
        tables.push(t);
    }
    if let Some(items) = value.get("RequestItems").and_then(|r| r.as_object()) {
        tables.extend(
            items
                .keys()
                .map(|k| k.rsplit('/').next().unwrap_or(k).to_owned()),
        );
    }
    if let Some(actions) = value.get("TransactItems").and_then(|t| t.as_array()) {
        for action in actions.iter().filter_map(|a| a.as_object()) {
            for inner in action.values() {
                if let Some(t) = inner.get("TableName").and_then(name_of)
                    && !tables.contains(&t)
                {
                    tables.push(t);
                }
            }
        }
    }
    let partition = tables.first().and_then(|table| {
        let attribute = partition_key(table)?;
        let key = value.get("Key").or_else(|| value.get("Item"))?;
        let typed = key.get(&attribute)?.as_object()?;
        typed.values().next()?.as_str().map(str::to_owned)
    });
    Request {
        operation,
        tables,
        partition,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: serde_json::Value) -> FaultSpec {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn nothing_is_injected_without_a_rule_and_a_rule_ends_after_its_count() {
        let faults = Faults::default();
        let request = describe(
            "PutItem",
            br#"{"TableName":"t","Item":{"pk":{"S":"user#1"}}}"#,
            |_| Some("pk".into()),
        );
        assert!(!faults.armed());
        assert!(faults.decide(&request).is_none());
        faults
            .add(spec(serde_json::json!({"error": "throttling", "table": "t", "key_prefix": "user#", "count": 2})))
            .unwrap();
        for _ in 0..2 {
            let injected = faults.decide(&request).expect("a fault");
            assert_eq!(
                injected.error.unwrap().name(),
                "ProvisionedThroughputExceededException"
            );
        }
        assert!(faults.decide(&request).is_none(), "the count is spent");
        assert!(faults.list().is_empty());
    }

    #[test]
    fn rules_match_operation_table_and_key_prefix() {
        let faults = Faults::default();
        faults
            .add(spec(serde_json::json!({"error": "InternalServerError", "operation": "GetItem", "key_prefix": "a"})))
            .unwrap();
        let get = |key: &str| {
            let body = format!(r#"{{"TableName":"t","Key":{{"pk":{{"S":"{key}"}}}}}}"#);
            let request = describe("GetItem", body.as_bytes(), |_| Some("pk".into()));
            faults.decide(&request).is_some()
        };
        assert!(get("abc"));
        assert!(!get("bcd"));
        let put = describe(
            "PutItem",
            br#"{"TableName":"t","Item":{"pk":{"S":"a"}}}"#,
            |_| Some("pk".into()),
        );
        assert!(faults.decide(&put).is_none());
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
        let request = describe(
            "GetItem",
            br#"{"TableName":"t","Key":{"pk":{"S":"a"}}}"#,
            |_| Some("pk".into()),
        );
        assert!(
            faults.decide(&request).is_some(),
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
