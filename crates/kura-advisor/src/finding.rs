//! What the advisor answers: findings, each table's sample, and the whole report.

use crate::rules::{self, Severity};

/// One rule a table breaks.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub section: &'static str,
    pub table: String,
    /// With `--regions separate`: the region of the table (each is its own namespace).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    pub evidence: String,
    pub fix: &'static str,
    /// What the finding rests on.
    pub basis: rules::Basis,
    /// For a sample-based finding: the items it judged, of the table's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampled: Option<Sample>,
    /// For a traffic-based finding: since when the requests were counted (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
}

/// What `kura advise` and `GET /kura/advise` answer.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Advice {
    pub tables: usize,
    pub rules_checked: usize,
    pub rules_checkable: usize,
    /// When the traffic evidence starts (RFC 3339): the server's start, or its last reset.
    pub traffic_since: String,
    /// How many items each table's sample holds, of how many (the evidence of the
    /// sample-based rules).
    pub samples: Vec<Sample>,
    pub findings: Vec<Finding>,
}

/// One table's item sample.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    pub table: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    pub sampled: usize,
    /// The table's items, as DescribeTable counts them.
    pub items: u64,
}

/// Epoch milliseconds as RFC 3339 (UTC).
pub(crate) fn rfc3339(ms: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

/// A finding on the whole server rather than one table (its table is `*`).
pub(crate) fn instance_wide(id: &str, evidence: String) -> Option<Finding> {
    let rule = rules::rule(id)?;
    Some(Finding {
        rule: rule.id,
        severity: rule.severity,
        section: rule.section,
        table: "*".to_owned(),
        region: None,
        index: None,
        evidence,
        fix: rule.fix,
        basis: rules::basis(id),
        sampled: None,
        since: None,
    })
}
