//! One table under check: the findings it collects and the helpers the rule families share.

use std::collections::BTreeSet;

use kura_engine::design::{BillingMode, IndexProjection, TableDesign};
use kura_model::{AttributeValue, Item};

use crate::finding::{Finding, Sample};
use crate::rules::{self, Rule};
use crate::values::{self, Zone};
use kura_engine::counters::TrafficSnapshot;

/// A table larger than this does not fit one Scan page ("small" tables may be scanned).
pub(crate) const SCAN_PAGE_BYTES: u64 = 1 << 20;

pub(crate) struct Check<'a> {
    pub(crate) table: &'a TableDesign,
    /// The environment identifiers table names start with ([`Options`]).
    pub(crate) environments: &'a [String],
    pub(crate) findings: &'a mut Vec<Finding>,
    /// Time-zone designators of the key date-times seen so far, across tables.
    pub(crate) zones: &'a mut BTreeSet<Zone>,
    /// This table's sample, for the findings that rest on it.
    pub(crate) sample: Option<Sample>,
    /// When the traffic counters start.
    pub(crate) since: &'a str,
}

impl Check<'_> {
    pub(crate) fn found(&mut self, id: &str, index: Option<&str>, evidence: String) {
        self.found_as(rules::basis(id), id, index, evidence);
    }

    /// [`Check::found`] for a rule that reads two kinds of evidence: `basis` is the one
    /// this finding rests on.
    pub(crate) fn found_as(
        &mut self,
        basis: rules::Basis,
        id: &str,
        index: Option<&str>,
        evidence: String,
    ) {
        let Some(Rule {
            id,
            severity,
            section,
            fix,
        }) = rules::rule(id).copied()
        else {
            debug_assert!(false, "advisor rule {id} is not in rules::RULES");
            return;
        };
        self.findings.push(Finding {
            rule: id,
            severity,
            section,
            table: self.table.name.clone(),
            region: None,
            index: index.map(str::to_owned),
            evidence,
            fix,
            basis,
            sampled: self
                .sample
                .clone()
                .filter(|_| basis == rules::Basis::Sample),
            since: (basis == rules::Basis::Traffic).then(|| self.since.to_owned()),
        });
    }

    pub(crate) fn types(&mut self, sample: &[Item], traffic: &TrafficSnapshot) {
        let mut codes = BTreeSet::new();
        let mut flags = BTreeSet::new();
        let mut largest: Option<(usize, String)> = None;
        for item in sample {
            for (name, value) in item {
                let code_like = CODE_SUFFIXES.iter().any(|s| name.ends_with(s));
                if code_like && matches!(value, AttributeValue::N(_)) {
                    codes.insert(name.clone());
                }
                let flag_like =
                    name.starts_with("is_") || name.starts_with("has_") || name.ends_with("_flag");
                if flag_like && !matches!(value, AttributeValue::Bool(_)) {
                    flags.insert(name.clone());
                }
            }
            let size = kura_model::size::item_size(item);
            if size >= kura_engine::counters::traffic::NEAR_LIMIT_BYTES
                && largest.as_ref().is_none_or(|(s, _)| size > *s)
            {
                largest = Some((size, self.key_text(item)));
            }
        }
        if !codes.is_empty() {
            let names: Vec<&str> = codes.iter().map(String::as_str).collect();
            self.found(
                "types.code-as-number",
                None,
                format!("codes stored as Number: {}", listed(&names)),
            );
        }
        if !flags.is_empty() {
            let names: Vec<&str> = flags.iter().map(String::as_str).collect();
            self.found(
                "types.flag-as-string",
                None,
                format!("flags not stored as BOOL: {}", listed(&names)),
            );
        }
        let evidence = match (&largest, traffic.near_limit_writes) {
            (Some((size, key)), writes) => Some((
                rules::Basis::Sample,
                format!(
                    "item {key} is {size} bytes (limit 409,600); {writes} write(s) at 90% of the limit or more"
                ),
            )),
            (None, n) if n > 0 => Some((
                rules::Basis::Traffic,
                format!(
                    "{n} write(s) at 90% of the 400 KB limit or more, e.g. {}",
                    traffic.near_limit_example.as_deref().unwrap_or("?")
                ),
            )),
            _ => None,
        };
        if let Some((basis, evidence)) = evidence {
            self.found_as(basis, "types.item-size-near-limit", None, evidence);
        }
    }

    /// Sampled values: large binaries and collections, compressed strings, non-ISO
    /// date-times, epoch numbers in sort keys.
    pub(crate) fn values(&mut self, sample: &[Item]) {
        let mut large_binary = BTreeSet::new();
        let mut large_collection = BTreeSet::new();
        let mut compressed_text = BTreeSet::new();
        // Per attribute: (S values, non-ISO date-times).
        let mut dates: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
        for item in sample {
            for (name, value) in item {
                match value {
                    AttributeValue::B(b) if b.len() >= 32 * 1024 && !values::is_compressed(b) => {
                        large_binary.insert(name.as_str());
                    }
                    AttributeValue::Bs(set)
                        if set
                            .iter()
                            .any(|b| b.len() >= 32 * 1024 && !values::is_compressed(b)) =>
                    {
                        large_binary.insert(name.as_str());
                    }
                    AttributeValue::S(text) => {
                        if values::is_compressed_base64(text) {
                            compressed_text.insert(name.as_str());
                        }
                        let entry = dates.entry(name.as_str()).or_default();
                        entry.0 += 1;
                        if values::is_non_iso_datetime(text) {
                            entry.1 += 1;
                        }
                    }
                    _ => {}
                }
                let elements = match value {
                    AttributeValue::L(l) => Some(l.len()),
                    AttributeValue::M(m) => Some(m.len()),
                    AttributeValue::Ss(s) => Some(s.len()),
                    AttributeValue::Ns(s) => Some(s.len()),
                    AttributeValue::Bs(s) => Some(s.len()),
                    _ => None,
                };
                // A vector index's embedding is a list of its dimensions by design.
                let vector = self
                    .table
                    .vector_indexes
                    .iter()
                    .any(|v| v.attribute == *name);
                if let Some(count) = elements
                    && !vector
                    && (count >= 1000 || kura_model::size::value_size(value) >= 64 * 1024)
                {
                    large_collection.insert(name.as_str());
                }
            }
        }
        self.numbers_as_strings(sample);
        self.compression_scope(sample);
        let found_names = |set: &BTreeSet<&str>| listed(&set.iter().copied().collect::<Vec<_>>());
        if !large_binary.is_empty() {
            let evidence = format!(
                "binary values of 32 KB or more: {}",
                found_names(&large_binary)
            );
            self.found("types.large-binary", None, evidence);
        }
        if !large_collection.is_empty() {
            let evidence = format!(
                "lists, maps or sets of 64 KB or 1,000 elements or more: {}",
                found_names(&large_collection)
            );
            self.found("types.large-collection", None, evidence);
        }
        if !compressed_text.is_empty() {
            let evidence = format!(
                "gzip or zstd data stored as base64 strings: {}",
                found_names(&compressed_text)
            );
            self.found("types.compressed-as-string", None, evidence);
        }
        let not_iso: Vec<String> = dates
            .iter()
            .filter(|(_, (all, odd))| *all >= 5 && odd * 5 >= all * 4)
            .map(|(name, (all, odd))| format!("{name:?} ({odd} of {all})"))
            .collect();
        if !not_iso.is_empty() {
            self.found(
                "types.datetime-iso8601",
                None,
                format!("date-times not in ISO 8601: {}", not_iso.join(", ")),
            );
        }
        self.epoch_sort_keys(sample);
    }

    /// Epoch numbers in N sort keys: the table's, and each index's.
    fn epoch_sort_keys(&mut self, sample: &[Item]) {
        let table = self.table;
        let sort_keys = std::iter::once((None, table.key_schema.range.as_ref())).chain(
            table
                .indexes
                .iter()
                .map(|i| (Some(i.name.as_str()), i.key_schema.range.as_ref())),
        );
        let mut epoch_sorts = Vec::new();
        for (index, range) in sort_keys {
            let Some(range) = range.filter(|r| r.ty == kura_model::keycode::ScalarType::N) else {
                continue;
            };
            let values: Vec<&AttributeValue> =
                sample.iter().filter_map(|i| i.get(&range.name)).collect();
            let epochs = values.iter().filter(|v| values::is_epoch_like(v)).count();
            if values.len() >= 20 && epochs * 10 >= values.len() * 9 {
                epoch_sorts.push((index, range.name.clone(), epochs, values.len()));
            }
        }
        for (index, name, epochs, all) in epoch_sorts {
            self.found(
                "keys.sort-key-epoch-number",
                index,
                format!("sort key {name:?} holds epoch numbers ({epochs} of {all} sampled)"),
            );
        }
    }

    /// Numbers kept as strings: an attribute always S, at least 20 values, all decimal
    /// numbers without leading zeros, of more than one length.
    pub(crate) fn numbers_as_strings(&mut self, sample: &[Item]) {
        let keys = key_attribute_names(self.table);
        let mut seen: std::collections::BTreeMap<&str, (usize, bool, BTreeSet<usize>)> =
            Default::default();
        for item in sample {
            for (name, value) in item {
                let entry = seen
                    .entry(name.as_str())
                    .or_insert((0, true, BTreeSet::new()));
                match value {
                    AttributeValue::S(text) if is_plain_number(text) => {
                        entry.0 += 1;
                        entry.2.insert(text.len());
                    }
                    _ => entry.1 = false,
                }
            }
        }
        let names: Vec<String> = seen
            .into_iter()
            .filter(|(name, (count, all, lengths))| {
                *all && *count >= 20
                    && lengths.len() >= 2
                    && !keys.contains(*name)
                    && !CODE_SUFFIXES.iter().any(|s| name.ends_with(s))
            })
            .map(|(name, (count, _, _))| format!("{name:?} ({count} values)"))
            .collect();
        if !names.is_empty() {
            self.found(
                "types.numeric-string",
                None,
                format!("numbers stored as strings: {}", names.join(", ")),
            );
        }
    }

    /// Compressed payloads where the guideline keeps them out: in keys, in two attributes of
    /// one item, or under 1 KB.
    pub(crate) fn compression_scope(&mut self, sample: &[Item]) {
        let keys = key_attribute_names(self.table);
        let mut places = BTreeSet::new();
        for item in sample {
            let compressed: Vec<(&String, usize)> = item
                .iter()
                .filter_map(|(name, value)| match value {
                    AttributeValue::B(b) if values::is_compressed(b) => Some((name, b.len())),
                    _ => None,
                })
                .collect();
            for (name, size) in &compressed {
                if keys.contains(name.as_str()) {
                    places.insert(format!("key attribute {name:?}"));
                }
                if *size < 1024 {
                    places.insert(format!(
                        "{name:?} holds {size} compressed bytes (under 1 KB)"
                    ));
                }
            }
            if compressed.len() >= 2 {
                let names: Vec<&str> = compressed.iter().map(|(n, _)| n.as_str()).collect();
                places.insert(format!("one item compresses {}", names.join(" and ")));
            }
        }
        if !places.is_empty() {
            let places: Vec<String> = places.into_iter().take(5).collect();
            self.found("types.compression-scope", None, places.join("; "));
        }
    }

    pub(crate) fn ttl(&mut self, sample: &[Item]) {
        let Some(attribute) = self.table.ttl_attribute.as_deref() else {
            return;
        };
        let with_ttl: Vec<&AttributeValue> =
            sample.iter().filter_map(|i| i.get(attribute)).collect();
        if attribute != "ttl" {
            self.found(
                "ttl.attribute-name",
                None,
                format!("the TTL attribute is {attribute:?}, not \"ttl\""),
            );
        } else if sample.len() >= 100 && (sample.len() - with_ttl.len()) * 4 >= sample.len() {
            // The guideline asks for the attribute on items from the start: a quarter or
            // more without it is items written as if TTL were not there.
            self.found_as(
                rules::Basis::Sample,
                "ttl.attribute-name",
                None,
                format!(
                    "{} of {} sampled items have no TTL attribute",
                    sample.len() - with_ttl.len(),
                    sample.len()
                ),
            );
        }
        let wrong: Vec<String> = with_ttl
            .iter()
            .filter(|v| !is_epoch_seconds(v))
            .take(3)
            .map(|v| format!("{v:?}"))
            .collect();
        if !wrong.is_empty() {
            self.found(
                "ttl.epoch-seconds",
                None,
                format!(
                    "{} value(s) are not a Number of epoch seconds, e.g. {}",
                    with_ttl.iter().filter(|v| !is_epoch_seconds(v)).count(),
                    wrong.join(", ")
                ),
            );
        }
    }

    pub(crate) fn settings(&mut self, size: Option<(u64, u64)>) {
        let table = self.table;
        if let Some(view) = table.stream_view_type {
            let average = size.map_or(0, |(items, bytes)| bytes.checked_div(items).unwrap_or(0));
            if view != "NEW_AND_OLD_IMAGES" && average < 100 * 1024 {
                self.found(
                    "streams.view-type",
                    None,
                    format!("the stream's view type is {view} (items average {average} bytes)"),
                );
            }
            if view == "NEW_AND_OLD_IMAGES" && average >= 200 * 1024 {
                self.found(
                    "streams.large-item-view-type",
                    None,
                    format!("NEW_AND_OLD_IMAGES with items of {average} bytes on average: each record carries two"),
                );
            }
        }
        if table.billing_mode == BillingMode::Provisioned {
            self.found(
                "capacity.on-demand",
                None,
                "billing mode is PROVISIONED".to_owned(),
            );
        }
        if !table.deletion_protection {
            self.found(
                "availability.deletion-protection",
                None,
                "deletion protection is off".to_owned(),
            );
        }
        match table.pitr_recovery_days {
            None => self.found(
                "availability.pitr",
                None,
                "point-in-time recovery is off".to_owned(),
            ),
            Some(days) if days < 35 => self.found(
                "availability.pitr-recovery-period",
                None,
                format!("RecoveryPeriodInDays is {days}"),
            ),
            Some(_) => {}
        }
        for stream in &table.kinesis_destinations {
            self.found(
                "streams.kinesis-destination",
                None,
                format!("Changes are streamed to Kinesis Data Streams ({stream})."),
            );
        }
        if let Some(policy) = &table.resource_policy
            && let Some(statement) = public_statement(policy)
        {
            self.found(
                "security.resource-policy-public",
                None,
                format!("Allow to any principal without a Condition: {statement}"),
            );
        }
        if let Some(key) = &table.sse_kms_key {
            self.found(
                "security.sse-kms",
                None,
                format!("encrypted with the KMS key {key}"),
            );
        }
    }

    pub(crate) fn key_text(&self, item: &Item) -> String {
        self.table.key_schema.key_of_item(item).map_or_else(
            |_| "?".to_owned(),
            |key| kura_engine::counters::key_label(&key),
        )
    }
}

/// Names of attributes that hold codes (docs/advisor.md, `types.code-as-number`).
pub(crate) const CODE_SUFFIXES: &[&str] = &["_code", "_cd", "_status", "_type", "_kind"];

/// Every key attribute of the table and its indexes.
pub(crate) fn key_attribute_names(table: &TableDesign) -> BTreeSet<&str> {
    std::iter::once(&table.key_schema)
        .chain(table.indexes.iter().map(|i| &i.key_schema))
        .flat_map(|k| std::iter::once(&k.hash).chain(k.range.as_ref()))
        .map(|a| a.name.as_str())
        .collect()
}

/// `^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`.
pub(crate) fn is_plain_number(text: &str) -> bool {
    let body = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = match body.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(whole) && (whole == "0" || !whole.starts_with('0')) && fraction.is_none_or(digits)
}

/// A Number in [1e9, 1e11): seconds since the epoch (not milliseconds).
pub(crate) fn is_epoch_seconds(value: &AttributeValue) -> bool {
    match value {
        AttributeValue::N(n) => n
            .to_string()
            .parse::<f64>()
            .is_ok_and(|v| (1e9..1e11).contains(&v)),
        _ => false,
    }
}

/// Attribute names the table defines or its sampled items carry.
pub(crate) fn attribute_names(table: &TableDesign, sample: &[Item]) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = table
        .attribute_definitions
        .iter()
        .map(|(n, _)| n.clone())
        .collect();
    for index in &table.indexes {
        if let IndexProjection::Include(extra) = &index.projection {
            names.extend(extra.iter().cloned());
        }
    }
    for item in sample {
        names.extend(item.keys().cloned());
    }
    names
}

/// Up to 20 names, quoted.
pub(crate) fn listed(names: &[&str]) -> String {
    let mut text: Vec<String> = names.iter().take(20).map(|n| format!("{n:?}")).collect();
    if names.len() > 20 {
        text.push(format!("and {} more", names.len() - 20));
    }
    text.join(", ")
}

/// The first Allow statement whose principal includes `*` and that has no Condition.
pub fn public_statement(policy: &str) -> Option<String> {
    let document: serde_json::Value = serde_json::from_str(policy).ok()?;
    let statements = match &document["Statement"] {
        serde_json::Value::Array(list) => list.clone(),
        one @ serde_json::Value::Object(_) => vec![one.clone()],
        _ => return None,
    };
    statements.into_iter().find_map(|s| {
        let allow = s["Effect"] == "Allow";
        let principal = &s["Principal"];
        let anyone = principal == "*"
            || principal["AWS"] == "*"
            || principal["AWS"]
                .as_array()
                .is_some_and(|a| a.iter().any(|p| p == "*"));
        (allow && anyone && s.get("Condition").is_none()).then(|| s.to_string())
    })
}
