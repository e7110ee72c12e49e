//! Accepted exceptions to the advisor's findings: a suppressions file (`{"suppressions":
//! [{"rule", "table", "index", "reason", "expires"}]}`), each suppression with a reason
//! and an optional last day. A suppressed finding is listed as suppressed, never hidden;
//! an expired suppression no longer applies and the finding says so. Read by `kura
//! advise --suppressions` and the console's advisor page alike.

use serde::Deserialize;
use serde_json::Value;

/// One accepted exception: `rule` on `table` (a name, or a prefix ending in `*`; every
/// table when absent) and `index` (when given), for `reason`, until `expires`
/// (`YYYY-MM-DD`, UTC, inclusive) when given.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Suppression {
    pub rule: String,
    #[serde(default)]
    pub table: Option<String>,
    #[serde(default)]
    pub index: Option<String>,
    pub reason: String,
    #[serde(default)]
    pub expires: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SuppressionsFile {
    suppressions: Vec<Suppression>,
}

/// Reads a suppressions file: `{"suppressions": [{"rule": ..., "reason": ...}, ...]}`.
pub fn read_suppressions(text: &str) -> Result<Vec<Suppression>, String> {
    let file: SuppressionsFile =
        serde_json::from_str(text).map_err(|e| format!("the suppressions file: {e}"))?;
    for s in &file.suppressions {
        if s.reason.trim().is_empty() {
            return Err(format!(
                "the suppressions file: the suppression of {} has no reason",
                s.rule
            ));
        }
        if let Some(date) = &s.expires
            && parse_date(date).is_none()
        {
            return Err(format!(
                "the suppressions file: expires {date:?} of {} is not YYYY-MM-DD",
                s.rule
            ));
        }
    }
    Ok(file.suppressions)
}

/// `YYYY-MM-DD` as days since 1970-01-01 (the proleptic Gregorian calendar).
pub fn parse_date(text: &str) -> Option<i64> {
    let mut parts = text.splitn(3, '-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m) || d < 1 || d > days_in[(m - 1) as usize] {
        return None;
    }
    // Days from civil (H. Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// Today as days since 1970-01-01, UTC.
pub fn today() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64 / 86_400)
}

impl Suppression {
    fn matches(&self, finding: &Value) -> bool {
        let table = finding["table"].as_str().unwrap_or_default();
        self.rule == finding["rule"].as_str().unwrap_or_default()
            && self
                .table
                .as_deref()
                .is_none_or(|t| match t.strip_suffix('*') {
                    Some(prefix) => table.starts_with(prefix),
                    None => t == table,
                })
            && self
                .index
                .as_deref()
                .is_none_or(|i| finding["index"].as_str() == Some(i))
    }

    /// Whether it has expired on `today` (days since 1970-01-01).
    fn expired(&self, today: i64) -> bool {
        self.expires
            .as_deref()
            .and_then(parse_date)
            .is_some_and(|last| today > last)
    }
}

/// A finding and what the suppressions say of it.
#[derive(Debug, Clone)]
pub struct Reported {
    pub finding: Value,
    /// The suppression in force for it.
    pub suppressed: Option<Suppression>,
    /// A suppression that matched but has expired.
    pub expired: Option<Suppression>,
}

/// A suppression that needs a look, with what is wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct SuppressionWarning {
    pub suppression: Suppression,
    pub problem: Problem,
}

/// What is wrong with a suppression.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// It names no rule of the advisor; `near` is the closest one, when one is close.
    UnknownRule { near: Option<&'static str> },
    /// Its last day has passed, and the finding it suppressed is open again.
    Expired { on: String },
    /// It matches no finding of this run.
    MatchesNothing,
}

impl std::fmt::Display for SuppressionWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.problem {
            Problem::UnknownRule { near: Some(near) } => write!(
                f,
                "no rule is named {} (did you mean {near}?)",
                self.suppression.rule
            ),
            Problem::UnknownRule { near: None } => write!(
                f,
                "no rule is named {} (docs/advisor.md lists them)",
                self.suppression.rule
            ),
            Problem::Expired { on } => {
                write!(
                    f,
                    "expired on {on}: the finding it suppressed is open again"
                )
            }
            Problem::MatchesNothing => write!(
                f,
                "matches no finding of this run: remove it, or check its table and index"
            ),
        }
    }
}

/// Finding ids outside the guideline's rules that a suppression may name: template mode's
/// own (a table CreateTable refuses).
const OTHER_FINDINGS: &[&str] = &["template.create-table", "template.not-literal"];

fn is_known_rule(id: &str) -> bool {
    crate::rules::rule(id).is_some() || OTHER_FINDINGS.contains(&id)
}

/// The closest rule id to a misspelled one, when one is close.
fn closest_rule(id: &str) -> Option<&'static str> {
    crate::rules::RULES
        .iter()
        .map(|r| (strsim::levenshtein(id, r.id), r.id))
        .filter(|(distance, _)| *distance <= 3.max(id.len() / 5))
        .min()
        .map(|(_, rule)| rule)
}

/// What is wrong with `suppressions` given this run's `reported` findings: a rule the
/// advisor does not have (a misspelling suppresses nothing), a suppression that matches
/// no finding (the breach was fixed, or its table or index is misspelled: it can go),
/// and one that has expired (its finding is open again). In the file's order.
pub fn warnings(suppressions: &[Suppression], reported: &[Reported]) -> Vec<SuppressionWarning> {
    suppressions
        .iter()
        .filter_map(|s| {
            let problem = if !is_known_rule(&s.rule) {
                Problem::UnknownRule {
                    near: closest_rule(&s.rule),
                }
            } else if let Some(day) = reported
                .iter()
                .find(|r| r.expired.as_ref() == Some(s) && r.suppressed.is_none())
                .and(s.expires.as_deref())
            {
                Problem::Expired { on: day.to_owned() }
            } else if !reported.iter().any(|r| s.matches(&r.finding)) {
                Problem::MatchesNothing
            } else {
                return None;
            };
            Some(SuppressionWarning {
                suppression: s.clone(),
                problem,
            })
        })
        .collect()
}

/// Severity's rank: errors first.
pub fn rank(severity: &str) -> u8 {
    match severity {
        "error" => 0,
        "warning" => 1,
        _ => 2,
    }
}

/// The findings with `suppressions` applied on `today`, errors first, then warnings, then
/// the rest; in each, by table and rule.
pub fn report(findings: &[Value], suppressions: &[Suppression], today: i64) -> Vec<Reported> {
    let mut out: Vec<Reported> = findings
        .iter()
        .map(|finding| {
            let matching: Vec<&Suppression> =
                suppressions.iter().filter(|s| s.matches(finding)).collect();
            Reported {
                finding: finding.clone(),
                suppressed: matching
                    .iter()
                    .find(|s| !s.expired(today))
                    .cloned()
                    .cloned(),
                expired: matching.iter().find(|s| s.expired(today)).cloned().cloned(),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        let key = |r: &Reported| {
            (
                rank(r.finding["severity"].as_str().unwrap_or_default()),
                r.finding["table"].as_str().unwrap_or_default().to_owned(),
                r.finding["rule"].as_str().unwrap_or_default().to_owned(),
            )
        };
        key(a).cmp(&key(b))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODAY: i64 = 20_000; // 2024-10-04

    #[test]
    fn dates_are_days_since_the_epoch() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2024-10-04"), Some(TODAY));
        assert_eq!(parse_date("2000-03-01"), Some(11_017));
        assert_eq!(parse_date("2023-02-29"), None);
        assert_eq!(parse_date("2024-2-1"), None);
    }

    #[test]
    fn a_suppression_needs_a_reason_and_a_date_that_parses() {
        assert!(read_suppressions(r#"{"suppressions": [{"rule": "x", "reason": " "}]}"#).is_err());
        assert!(
            read_suppressions(
                r#"{"suppressions": [{"rule": "x", "reason": "r", "expires": "soon"}]}"#
            )
            .is_err()
        );
        assert!(read_suppressions(r#"{"suppressions": [{"rule": "x", "why": "r"}]}"#).is_err());
    }

    fn suppression(rule: &str, table: Option<&str>, expires: Option<&str>) -> Suppression {
        Suppression {
            rule: rule.into(),
            table: table.map(str::to_owned),
            index: None,
            reason: "accepted".into(),
            expires: expires.map(str::to_owned),
        }
    }

    #[test]
    fn a_misspelled_rule_a_suppression_matching_nothing_and_an_expired_one_are_warned_of() {
        let findings = [
            serde_json::json!({"rule": "naming.table-name-pattern", "table": "Orders", "severity": "warning"}),
            serde_json::json!({"rule": "naming.table-name-pattern", "table": "Users", "severity": "warning"}),
        ];
        let suppressions = [
            suppression("naming.table-name-patern", None, None),
            suppression("naming.table-name-pattern", Some("Ordres"), None),
            suppression(
                "naming.table-name-pattern",
                Some("Users"),
                Some("2024-01-01"),
            ),
            suppression("naming.table-name-pattern", Some("Orders"), None),
            suppression("no.such-thing-at-all-here", None, None),
            // Template mode's own finding is a rule a suppression may name (it matches
            // nothing here, and says so, but not that no rule has the name).
            suppression("template.create-table", None, None),
        ];
        let reported = report(&findings, &suppressions, TODAY);
        let problems: Vec<(String, String)> = warnings(&suppressions, &reported)
            .into_iter()
            .map(|w| {
                (
                    w.suppression.table.clone().unwrap_or_default(),
                    w.to_string(),
                )
            })
            .collect();
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert!(
            problems[4].1.starts_with("matches no finding"),
            "{problems:?}"
        );
        assert!(
            problems[0]
                .1
                .contains("did you mean naming.table-name-pattern?"),
            "{problems:?}"
        );
        assert_eq!(problems[1].0, "Ordres");
        assert!(
            problems[1].1.starts_with("matches no finding"),
            "{problems:?}"
        );
        assert!(
            problems[2].1.starts_with("expired on 2024-01-01"),
            "{problems:?}"
        );
        assert!(problems[3].1.contains("docs/advisor.md"), "{problems:?}");
    }
}
