//! The design advisor: checks the live tables and the traffic Kura has seen against the
//! design guideline in the project's seeds (docs/advisor.md lists every rule, and the
//! recommendations no program can check).
//!
//! It reads table definitions, a sample of each table's first items (read without
//! counting as traffic), the engine's traffic counters, and Contributor Insights where it
//! is on. Each finding names the table, the evidence, the rule and its section, and the fix.
//!
//! It reads the engine only through its public, read-only views
//! ([`kura_engine::design`], [`kura_engine::counters`]) and has no HTTP in it: the server
//! serves its [`Advice`] as JSON (`GET /kura/advise`) and the console draws it.

mod check;
mod finding;
mod identities;
mod index_values;
mod keys;
mod naming;
mod options;
mod partitions;
pub mod rules;
pub use identities::{identities, identities_with};
mod search;
pub mod suppressions;
pub mod template;
pub mod template_intrinsics;
pub mod template_yaml;
mod traffic;
mod values;
mod writes;

use std::collections::BTreeSet;

use kura_engine::Engine;

pub use finding::{Advice, Finding, Sample};
pub use options::Options;

use check::Check;
pub use check::public_statement;
use finding::{instance_wide, rfc3339};
use rules::RULES;

/// Items sampled per table, and at most this many bytes of them (1,000 items of 400 KB
/// would otherwise be held at once).
const SAMPLE: usize = 1000;
const SAMPLE_BYTES: usize = 16 << 20;

/// Checkable rules docs/advisor.md lists (the coverage's denominator).
pub const CHECKABLE: usize = 76;

/// The advisor with the guideline's defaults ([`Options::default`]).
pub fn advise(engine: &Engine) -> Advice {
    advise_with(engine, &Options::default())
}

/// The advisor's findings on every table of `engine`.
pub fn advise_with(engine: &Engine, options: &Options) -> Advice {
    let design = engine.design();
    let tables = design.table_designs();
    let mut findings = Vec::new();
    let mut zones = BTreeSet::new();
    let mut samples = Vec::new();
    let since = rfc3339(engine.telemetry().since_ms());
    for table in &tables {
        let size = table.size.as_ref();
        let sample = design
            .sample_items(table, SAMPLE, SAMPLE_BYTES)
            .unwrap_or_default();
        samples.push(Sample {
            table: table.name.clone(),
            region: None,
            sampled: sample.len(),
            items: size.map_or(sample.len() as u64, |s| s.item_count),
        });
        let counters = engine.telemetry().existing(&table.name);
        let traffic = counters
            .as_ref()
            .map(|c| c.traffic.snapshot())
            .unwrap_or_default();
        let mut check = Check {
            table,
            environments: &options.environments,
            findings: &mut findings,
            zones: &mut zones,
            sample: samples.last().cloned(),
            since: &since,
        };
        check.naming(&sample);
        check.indexes();
        check.types(&sample, &traffic);
        check.searched_collections(&sample, &traffic);
        check.values(&sample);
        check.key_values(&sample);
        // Distinct partition values, skipping from one to the next (a sample cannot count them).
        let distinct = std::iter::once(None)
            .chain(
                table
                    .indexes
                    .iter()
                    .filter(|i| i.kind == kura_engine::design::IndexKind::Global)
                    .map(|i| Some(i.name.as_str())),
            )
            .filter_map(|index| {
                let counted = design.distinct_partitions(table, index, partitions::COUNTED);
                counted.ok().map(|c| (index.map(str::to_owned), c))
            })
            .collect();
        check.cardinality(&sample, &distinct);
        check.index_values(&sample);
        check.collections(design.largest_item_collection(table).ok().flatten());
        if let Some(counters) = &counters {
            check.index_use(counters);
        }
        check.ttl(&sample);
        check.settings(size.map(|s| (s.item_count, s.size_bytes)));
        check.traffic(&traffic, size.map_or(0, |s| s.size_bytes));
        check.writes(&traffic);
        if let Some(counters) = &counters {
            check.hot_partitions(&counters.insights, &counters.hot.report(), engine.now_ms());
        }
    }
    // Key date-times in more than one kind of zone across the tables, when no one table
    // already shows it.
    let reported = findings
        .iter()
        .any(|f| f.rule == "types.datetime-consistent-format");
    if zones.len() > 1 && !reported {
        findings.extend(instance_wide(
            "types.datetime-consistent-format",
            format!(
                "key date-times use {} kinds of time zone across the tables",
                zones.len()
            ),
        ));
    }
    // One server (one account) holding tables of several environments.
    let environments = naming::environments(
        tables.iter().map(|t| t.name.as_str()),
        &options.environments,
    );
    if environments.len() > 1 {
        let listed: Vec<&str> = environments.into_iter().collect();
        findings.extend(instance_wide(
            "naming.mixed-environments",
            format!("tables of the environments {}", listed.join(", ")),
        ));
    }
    Advice {
        tables: tables.len(),
        rules_checked: RULES.len(),
        rules_checkable: CHECKABLE,
        traffic_since: since,
        samples,
        findings,
    }
}

/// The advisor's findings on every table of every region (`--regions separate`, where
/// each region is its own namespace): each finding and sample names its region. The
/// evidence of traffic starts at the first region's start.
pub fn advise_regions(regions: &[(String, std::sync::Arc<Engine>)], options: &Options) -> Advice {
    let mut all: Option<Advice> = None;
    for (region, engine) in regions {
        let mut advice = advise_with(engine, options);
        for finding in &mut advice.findings {
            finding.region = Some(region.clone());
        }
        for sample in &mut advice.samples {
            sample.region = Some(region.clone());
        }
        match &mut all {
            None => all = Some(advice),
            Some(all) => {
                all.tables += advice.tables;
                all.samples.append(&mut advice.samples);
                all.findings.append(&mut advice.findings);
            }
        }
    }
    all.unwrap_or_else(|| Advice {
        tables: 0,
        rules_checked: RULES.len(),
        rules_checkable: CHECKABLE,
        traffic_since: String::new(),
        samples: Vec::new(),
        findings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::naming::{is_sequential_gsi_name, is_snake_case, table_name_follows};
    use super::*;

    #[test]
    fn names_follow_the_guideline_patterns() {
        assert!(table_name_follows(
            "stg-fuga-user",
            &Options::default().environments
        ));
        assert!(table_name_follows(
            "prod-fuga-user-access-log",
            &Options::default().environments
        ));
        assert!(!table_name_follows(
            "Users",
            &Options::default().environments
        ));
        assert!(!table_name_follows(
            "stg_fuga_user",
            &Options::default().environments
        ));
        assert!(!table_name_follows(
            "test-fuga-user",
            &Options::default().environments
        ));
        assert!(!table_name_follows(
            "dev-fuga",
            &Options::default().environments
        ));
        assert!(is_snake_case("user_name") && is_snake_case("ttl") && is_snake_case("a1"));
        assert!(!is_snake_case("userName") && !is_snake_case("_x") && !is_snake_case("a__b"));
        assert!(is_sequential_gsi_name("gsi1") && is_sequential_gsi_name("gsi12"));
        assert!(!is_sequential_gsi_name("gsi0") && !is_sequential_gsi_name("user_id-index"));
    }

    #[test]
    fn every_rule_id_is_known_and_unique() {
        let ids: BTreeSet<&str> = RULES.iter().map(|r| r.id).collect();
        assert_eq!(ids.len(), RULES.len());
        assert!(RULES.len() <= CHECKABLE);
    }

    #[test]
    fn public_statements_need_a_star_principal_and_no_condition() {
        let open = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}]}"#;
        assert!(public_statement(open).is_some());
        let scoped = r#"{"Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"dynamodb:GetItem","Resource":"*","Condition":{"StringEquals":{"aws:PrincipalAccount":"1"}}}]}"#;
        assert!(public_statement(scoped).is_none());
        let named = r#"{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::1:root"},"Action":"*","Resource":"*"}]}"#;
        assert!(public_statement(named).is_none());
    }
}
