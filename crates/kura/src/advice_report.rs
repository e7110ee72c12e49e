//! `kura advise` for CI: the advisor's findings (`GET /kura/advise`) with a suppressions
//! file applied (each suppression has a reason and may expire; a suppressed finding is
//! listed as suppressed, never hidden), ordered by severity, written as text, JSON, SARIF
//! 2.1.0 (code scanning) or JUnit XML, and the exit status a pipeline gates on
//! (`--fail-on error|warning|info|never`).

use std::fmt::Write as _;

use serde_json::{Value, json};

use kura_advisor::suppressions::rank;
pub use kura_advisor::suppressions::{
    Reported, SuppressionWarning, read_suppressions, report, today, warnings,
};

/// The lowest severity that fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

impl FailOn {
    fn fails(self, severity: &str) -> bool {
        match self {
            FailOn::Never => false,
            FailOn::Error => rank(severity) == 0,
            FailOn::Warning => rank(severity) <= 1,
            FailOn::Info => true,
        }
    }
}

/// The unsuppressed findings that fail the run under `fail_on`.
pub fn failing(reported: &[Reported], fail_on: FailOn) -> usize {
    reported
        .iter()
        .filter(|r| {
            r.suppressed.is_none() && fail_on.fails(r.finding["severity"].as_str().unwrap_or(""))
        })
        .count()
}

fn text_of(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_owned()
}

/// What the evidence covers: traffic since when, and the tables whose item sample is
/// part of them (a template's report has neither).
fn evidence_line(advice: &Value) -> String {
    let since = advice["trafficSince"].as_str().filter(|s| !s.is_empty());
    let partial: Vec<String> = advice["samples"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["sampled"].as_u64() < s["items"].as_u64())
        .map(|s| format!("{} {} of {}", text_of(s, "table"), s["sampled"], s["items"]))
        .collect();
    let mut line = String::new();
    if let Some(since) = since {
        line.push_str(&format!("traffic since {since}"));
    }
    if !partial.is_empty() {
        if !line.is_empty() {
            line.push_str("; ");
        }
        line.push_str(&format!(
            "items sampled across the key space: {}",
            partial.join(", ")
        ));
    }
    if !line.is_empty() {
        line.push('\n');
    }
    line
}

/// Where a suppression applies, as the report names it: `rule` on `table` `index`.
fn suppression_scope(w: &SuppressionWarning) -> String {
    let s = &w.suppression;
    let mut scope = s.rule.clone();
    if let Some(table) = &s.table {
        scope.push_str(&format!(" on {table}"));
    }
    if let Some(index) = &s.index {
        scope.push_str(&format!(" index {index}"));
    }
    scope
}

/// One line per suppression warning, for text reports and standard error.
pub fn warning_lines(warnings: &[SuppressionWarning]) -> Vec<String> {
    warnings
        .iter()
        .map(|w| format!("suppression {}: {w}", suppression_scope(w)))
        .collect()
}

/// The report for people.
pub fn text(advice: &Value, reported: &[Reported], warnings: &[SuppressionWarning]) -> String {
    let mut out = format!(
        "{} table(s), {} rule(s) checked of {} checkable (docs/advisor.md)\n",
        advice["tables"], advice["rulesChecked"], advice["rulesCheckable"]
    );
    out.push_str(&evidence_line(advice));
    let (suppressed, open): (Vec<&Reported>, Vec<&Reported>) =
        reported.iter().partition(|r| r.suppressed.is_some());
    if open.is_empty() {
        out.push_str("no findings\n");
    }
    for r in &open {
        let f = &r.finding;
        let mut index = f["index"]
            .as_str()
            .map(|i| format!(" index {i}"))
            .unwrap_or_default();
        if let Some(resource) = f["resource"].as_str() {
            index.push_str(&format!(" (resource {resource}"));
            if let Some(line) = f["line"].as_u64() {
                index.push_str(&format!(", line {line}"));
            } else if let Some(why) = f["noLine"].as_str() {
                index.push_str(&format!(", no line: {why}"));
            }
            index.push(')');
        }
        let _ = write!(
            out,
            "\n[{}] {}{index}: {}\n  rule: {} ({})\n  seen: {}\n  fix:  {}\n",
            text_of(f, "severity"),
            match f["region"].as_str() {
                Some(region) => format!("{} in {region}", text_of(f, "table")),
                None => text_of(f, "table"),
            },
            text_of(f, "evidence"),
            text_of(f, "rule"),
            text_of(f, "section"),
            kura_advisor::rules::seen(f),
            text_of(f, "fix"),
        );
        if let Some(s) = &r.expired {
            let _ = writeln!(
                out,
                "  (its suppression expired on {}: {})",
                s.expires.as_deref().unwrap_or_default(),
                s.reason
            );
        }
    }
    if !suppressed.is_empty() {
        let _ = writeln!(out, "\nsuppressed ({}):", suppressed.len());
        for r in suppressed {
            let s = r.suppressed.as_ref().map_or((String::new(), None), |s| {
                (s.reason.clone(), s.expires.clone())
            });
            let _ = writeln!(
                out,
                "  [{}] {}: {} — {}{}",
                text_of(&r.finding, "severity"),
                text_of(&r.finding, "table"),
                text_of(&r.finding, "rule"),
                s.0,
                s.1.map(|d| format!(" (until {d})")).unwrap_or_default()
            );
        }
    }
    if !warnings.is_empty() {
        let _ = writeln!(out, "\nsuppression warnings ({}):", warnings.len());
        for line in warning_lines(warnings) {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}

/// A suppression as JSON.
fn suppression_json(s: &kura_advisor::suppressions::Suppression) -> Value {
    json!({"rule": s.rule, "table": s.table, "index": s.index, "reason": s.reason, "expires": s.expires})
}

/// The server's JSON with the unsuppressed `findings` (one whose suppression expired
/// carries it as `expiredSuppression`), the `suppressed` ones (each with its
/// suppression) beside them, and `suppressionWarnings`.
pub fn json(advice: &Value, reported: &[Reported], warnings: &[SuppressionWarning]) -> Value {
    let mut out = advice.clone();
    out["findings"] = reported
        .iter()
        .filter(|r| r.suppressed.is_none())
        .map(|r| {
            let mut f = r.finding.clone();
            if let Some(s) = &r.expired {
                f["expiredSuppression"] = suppression_json(s);
            }
            f
        })
        .collect();
    out["suppressionWarnings"] = warnings
        .iter()
        .map(|w| {
            let mut v = suppression_json(&w.suppression);
            v["problem"] = json!(w.to_string());
            v
        })
        .collect();
    out["suppressed"] = reported
        .iter()
        .filter_map(|r| {
            let s = r.suppressed.as_ref()?;
            let mut f = r.finding.clone();
            f["suppression"] = json!({"reason": s.reason, "expires": s.expires});
            Some(f)
        })
        .collect();
    out
}

fn sarif_level(severity: &str) -> &'static str {
    match severity {
        "error" => "error",
        "warning" => "warning",
        _ => "note",
    }
}

/// SARIF 2.1.0: one rule per rule found, one result per finding (a suppressed one with
/// its `suppressions`), located at the table (and index) as a logical location, and, for a
/// template (`artifact`), at the line that declares its resource. A finding whose
/// suppression expired carries it in its `properties` (it is not suppressed); suppression
/// warnings are the run's tool configuration notifications.
pub fn sarif(
    reported: &[Reported],
    warnings: &[SuppressionWarning],
    version: &str,
    artifact: Option<&str>,
) -> Value {
    let mut rules: Vec<Value> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for r in reported {
        let f = &r.finding;
        let id = text_of(f, "rule");
        if seen.insert(id.clone()) {
            rules.push(json!({
                "id": id,
                "shortDescription": {"text": text_of(f, "section")},
                "fullDescription": {"text": text_of(f, "fix")},
                "help": {"text": text_of(f, "fix")},
                "defaultConfiguration": {"level": sarif_level(f["severity"].as_str().unwrap_or(""))},
            }));
        }
    }
    let results: Vec<Value> = reported
        .iter()
        .map(|r| {
            let f = &r.finding;
            let table = text_of(f, "table");
            let name = match f["index"].as_str() {
                Some(index) => format!("{table}/{index}"),
                None => table.clone(),
            };
            let mut result = json!({
                "ruleId": text_of(f, "rule"),
                "level": sarif_level(f["severity"].as_str().unwrap_or("")),
                "message": {"text": format!("{}: {} Fix: {}", name, text_of(f, "evidence"), text_of(f, "fix"))},
                "locations": [{"logicalLocations": [{
                    "name": name, "fullyQualifiedName": format!("dynamodb/table/{name}"), "kind": "resource"}]}],
            });
            // Code scanning takes a result only with a physical location: the template's
            // file and line, else the table as a path of its own.
            let mut physical = json!({"artifactLocation": {"uri": artifact.map_or_else(
                || format!("dynamodb/table/{name}"), str::to_owned)}});
            if let (Some(_), Some(line)) = (artifact, f["line"].as_u64()) {
                physical["region"] = json!({"startLine": line});
            }
            result["locations"][0]["physicalLocation"] = physical;
            if let Some(why) = f["noLine"].as_str() {
                result["properties"] = json!({"noLine": why});
            }
            if let Some(s) = &r.suppressed {
                result["suppressions"] = json!([{"kind": "external", "status": "accepted", "justification": s.reason}]);
            } else if let Some(s) = &r.expired {
                result["properties"]["expiredSuppression"] = suppression_json(s);
            }
            result
        })
        .collect();
    let notifications: Vec<Value> = warnings
        .iter()
        .zip(warning_lines(warnings))
        .map(|(w, line)| {
            json!({
                "level": "warning",
                "message": {"text": line},
                "descriptor": {"id": "suppressions"},
                "associatedRule": {"id": w.suppression.rule},
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kura advise",
                "version": version,
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": true,
                "toolConfigurationNotifications": notifications,
            }],
            "results": results,
        }],
    })
}

/// XML text with its five special characters escaped.
fn xml(text: &str) -> String {
    // XML 1.0 has no control characters but tab, newline and carriage return.
    let text: String = text
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        .collect();
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// JUnit XML: a test case per finding, named by its rule and classed by its table; a
/// failure where it fails the run under `fail_on`, skipped where suppressed.
/// Suppression warnings are the suite's `system-err`.
pub fn junit(reported: &[Reported], warnings: &[SuppressionWarning], fail_on: FailOn) -> String {
    let failures = failing(reported, fail_on);
    let skipped = reported.iter().filter(|r| r.suppressed.is_some()).count();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kura advise\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">\n<testsuite name=\"kura advise\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">\n",
        reported.len(),
        reported.len()
    );
    for r in reported {
        let f = &r.finding;
        let severity = text_of(f, "severity");
        let _ = write!(
            out,
            "<testcase classname=\"{}\" name=\"{}\">",
            xml(&text_of(f, "table")),
            xml(&text_of(f, "rule"))
        );
        let body = format!("{}\nFix: {}", text_of(f, "evidence"), text_of(f, "fix"));
        match &r.suppressed {
            Some(s) => {
                let _ = write!(out, "<skipped message=\"suppressed: {}\"/>", xml(&s.reason));
            }
            None if fail_on.fails(&severity) => {
                let _ = write!(
                    out,
                    "<failure type=\"{}\" message=\"{}\">{}</failure>",
                    xml(&severity),
                    xml(&text_of(f, "evidence")),
                    xml(&body)
                );
            }
            None => {
                let _ = write!(out, "<system-out>{}</system-out>", xml(&body));
            }
        }
        out.push_str("</testcase>\n");
    }
    if !warnings.is_empty() {
        let _ = writeln!(
            out,
            "<system-err>{}</system-err>",
            xml(&warning_lines(warnings).join("\n"))
        );
    }
    out.push_str("</testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kura_advisor::suppressions::{Suppression, parse_date};

    fn finding(rule: &str, severity: &str, table: &str) -> Value {
        json!({"rule": rule, "severity": severity, "table": table, "section": "命名規則 (Naming rules)",
               "evidence": "seen <x>", "fix": "do y & z"})
    }

    fn findings() -> Vec<Value> {
        vec![
            finding("naming.table-name-pattern", "warning", "Orders"),
            finding("api.scan", "error", "dev-shop-main"),
            finding("ttl.enabled", "info", "Orders"),
        ]
    }

    const TODAY: i64 = 20_000; // 2024-10-04

    #[test]
    fn errors_come_first_and_suppressions_are_listed_not_hidden() {
        let suppressions = read_suppressions(
            r#"{"suppressions": [{"rule": "api.scan", "table": "dev-shop-*", "reason": "the nightly export"}]}"#,
        )
        .expect("file");
        let reported = report(&findings(), &suppressions, TODAY);
        let order: Vec<&str> = reported
            .iter()
            .map(|r| r.finding["rule"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(
            order,
            ["api.scan", "naming.table-name-pattern", "ttl.enabled"]
        );
        assert!(reported[0].suppressed.is_some());
        assert_eq!(failing(&reported, FailOn::Error), 0);
        assert_eq!(failing(&reported, FailOn::Warning), 1);
        assert_eq!(failing(&reported, FailOn::Info), 2);
        assert_eq!(failing(&reported, FailOn::Never), 0);
        let text = text(
            &json!({"tables": 2, "rulesChecked": 49, "rulesCheckable": 49,
                    "trafficSince": "2026-11-29T10:00:00Z",
                    "samples": [{"table": "big", "sampled": 1000, "items": 5000},
                                {"table": "small", "sampled": 20, "items": 20}]}),
            &reported,
            &[],
        );
        assert!(
            text.contains(
                "traffic since 2026-11-29T10:00:00Z; items sampled across the key space: big 1000 of 5000\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "suppressed (1):\n  [error] dev-shop-main: api.scan — the nightly export"
            ),
            "{text}"
        );
        let json = json(&json!({}), &reported, &[]);
        assert_eq!(json["findings"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            json["suppressed"][0]["suppression"]["reason"],
            "the nightly export"
        );
    }

    #[test]
    fn an_expired_suppression_no_longer_applies_and_says_so() {
        let suppressions = read_suppressions(
            r#"{"suppressions": [{"rule": "api.scan", "reason": "until the migration", "expires": "2024-10-01"}]}"#,
        )
        .expect("file");
        let reported = report(&findings(), &suppressions, TODAY);
        assert!(reported[0].suppressed.is_none() && reported[0].expired.is_some());
        assert_eq!(failing(&reported, FailOn::Error), 1);
        let warned = warnings(&suppressions, &reported);
        let text = text(&json!({}), &reported, &warned);
        assert!(
            text.contains("(its suppression expired on 2024-10-01: until the migration)"),
            "{text}"
        );
        assert!(
            text.contains(
                "suppression warnings (1):\n  suppression api.scan: expired on 2024-10-01"
            ),
            "{text}"
        );
        // Carried by the machine formats too: JSON on the finding and in the warnings,
        // SARIF in the result's properties (not suppressed) and the run's notifications,
        // JUnit in the suite's standard error.
        let json = json(&json!({}), &reported, &warned);
        assert_eq!(
            json["findings"][0]["expiredSuppression"]["expires"],
            "2024-10-01"
        );
        assert_eq!(
            json["suppressionWarnings"][0]["problem"]
                .as_str()
                .map(|p| p.starts_with("expired on 2024-10-01")),
            Some(true)
        );
        let sarif = sarif(&reported, &warned, "0.1.0", None);
        let result = &sarif["runs"][0]["results"][0];
        assert!(result.get("suppressions").is_none(), "{result}");
        assert_eq!(
            result["properties"]["expiredSuppression"]["reason"],
            "until the migration"
        );
        let notice = &sarif["runs"][0]["invocations"][0]["toolConfigurationNotifications"][0];
        assert_eq!(
            (
                notice["level"].as_str(),
                notice["associatedRule"]["id"].as_str()
            ),
            (Some("warning"), Some("api.scan"))
        );
        let xml = junit(&reported, &warned, FailOn::Error);
        assert!(
            xml.contains("<system-err>suppression api.scan: expired on 2024-10-01"),
            "{xml}"
        );
        // On its last day it still applies.
        let on_the_day = report(
            &findings(),
            &suppressions,
            parse_date("2024-10-01").unwrap_or(0),
        );
        assert!(on_the_day[0].suppressed.is_some());
    }

    #[test]
    fn sarif_has_one_rule_per_rule_and_suppressions_on_results() {
        let suppressions = vec![Suppression {
            rule: "api.scan".into(),
            table: None,
            index: None,
            reason: "accepted".into(),
            expires: None,
        }];
        let sarif = sarif(
            &report(&findings(), &suppressions, TODAY),
            &[],
            "0.1.0",
            None,
        );
        assert_eq!(sarif["version"], "2.1.0");
        let run = &sarif["runs"][0];
        assert_eq!(
            run["tool"]["driver"]["rules"].as_array().map(Vec::len),
            Some(3)
        );
        assert_eq!(run["results"][0]["level"], "error");
        assert_eq!(
            run["results"][0]["suppressions"][0]["justification"],
            "accepted"
        );
        assert_eq!(run["results"][2]["level"], "note");
        assert_eq!(
            run["results"][1]["locations"][0]["logicalLocations"][0]["name"],
            "Orders"
        );
    }

    #[test]
    fn junit_fails_what_fails_the_run_and_escapes() {
        let xml = junit(&report(&findings(), &[], TODAY), &[], FailOn::Warning);
        assert!(
            xml.contains("tests=\"3\" failures=\"2\" skipped=\"0\""),
            "{xml}"
        );
        assert!(xml.contains("<testcase classname=\"dev-shop-main\" name=\"api.scan\"><failure type=\"error\" message=\"seen &lt;x&gt;\">"));
        assert!(xml.contains("Fix: do y &amp; z"));
        assert_eq!(super::xml("a\u{1b}b\tc"), "ab\tc");
        assert!(xml.contains("<testcase classname=\"Orders\" name=\"ttl.enabled\"><system-out>"));
    }
}
