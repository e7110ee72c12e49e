//! The rules that read key values in the sample: entity prefixes (single-table design,
//! overloaded GSIs), integer and time-stamped partition keys, zero padding and separators
//! of composite keys (docs/advisor.md, "keys" and `index.gsi-overloading`).

use std::collections::{BTreeMap, BTreeSet};

use kura_engine::design::{IndexKind, TableDesign};
use kura_model::keycode::ScalarType;
use kura_model::{AttributeValue, Item};

use crate::check::Check;
use crate::values::{self, Zone};

/// The text of a key value: S as is, N in its digits (B has none).
fn text(value: &AttributeValue) -> Option<String> {
    match value {
        AttributeValue::S(s) => Some(s.clone()),
        AttributeValue::N(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `USER` of `USER#123`: a letter, then letters, digits or `_`, then `#`.
fn entity_prefix(value: &str) -> Option<&str> {
    let (prefix, _) = value.split_once('#')?;
    let mut chars = prefix.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(prefix)
}

/// Prefixes carried by at least 5% of `values` (`of` items), when there are two or more.
fn mixed_prefixes(values: &[String], of: usize) -> Option<Vec<(String, usize)>> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for v in values {
        if let Some(p) = entity_prefix(v) {
            *counts.entry(p).or_default() += 1;
        }
    }
    let common: Vec<(String, usize)> = counts
        .into_iter()
        .filter(|(_, n)| n * 20 >= of)
        .map(|(p, n)| (p.to_owned(), n))
        .collect();
    (common.len() >= 2).then_some(common)
}

fn shown(prefixes: &[(String, usize)]) -> String {
    prefixes
        .iter()
        .map(|(p, n)| format!("{p}# ({n})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Attribute names the single-table libraries and hand-written designs give an item's
/// entity type (DynamoDB Toolbox's `_et`, ElectroDB's `__edb_e__`, OneTable's `_type`,
/// GraphQL's `__typename`, ...).
const ENTITY_ATTRIBUTES: &[&str] = &[
    "entity",
    "entity_type",
    "entityType",
    "_entity",
    "_type",
    "__typename",
    "_et",
    "__edb_e__",
    "type",
    "kind",
    "record_type",
    "recordType",
    "item_type",
    "itemType",
];

/// The items of one entity-type value: how many, and how many hold each attribute.
type Shape<'a> = (usize, BTreeMap<&'a str, usize>);

/// Single-table design told by an entity-type attribute rather than key prefixes: an
/// attribute of [`ENTITY_ATTRIBUTES`] with ≥ 2 values on ≥ 5 % of the sample each, whose
/// items hold different attributes (an order's `type` of `online` and `store` shapes the
/// same item; a `type` of `user` and `order` does not). The attribute's name and its values.
fn entity_attribute(
    sample: &[Item],
    keys: &[&str],
) -> Option<(&'static str, Vec<(String, usize)>)> {
    ENTITY_ATTRIBUTES.iter().find_map(|&name| {
        let mut groups: BTreeMap<&str, Shape> = BTreeMap::new();
        for item in sample {
            let Some(AttributeValue::S(value)) = item.get(name) else {
                continue;
            };
            let (count, attributes) = groups.entry(value.as_str()).or_default();
            *count += 1;
            for attribute in item.keys().map(String::as_str) {
                if attribute != name && !keys.contains(&attribute) {
                    *attributes.entry(attribute).or_default() += 1;
                }
            }
        }
        let common: Vec<(&str, &Shape)> = groups
            .iter()
            .filter(|(_, (n, _))| n * 20 >= sample.len())
            .map(|(v, g)| (*v, g))
            .collect();
        // An attribute most of one entity's items hold and few of another's.
        let differ = |(n1, a1): &(usize, BTreeMap<&str, usize>),
                      (n2, a2): &(usize, BTreeMap<&str, usize>)| {
            a1.iter().any(|(attribute, c1)| {
                let c2 = a2.get(attribute).copied().unwrap_or(0);
                c1 * 5 >= n1 * 4 && c2 * 5 <= *n2
            })
        };
        let shaped = common.iter().enumerate().any(|(i, (_, a))| {
            common
                .iter()
                .skip(i + 1)
                .any(|(_, b)| differ(a, b) || differ(b, a))
        });
        (common.len() >= 2 && shaped).then(|| {
            (
                name,
                common
                    .iter()
                    .map(|(v, (n, _))| ((*v).to_owned(), *n))
                    .collect(),
            )
        })
    })
}

/// An ISO date-time with a time part somewhere in the text: `dddd-dd-ddTdd:dd`.
fn has_iso_datetime(text: &str) -> bool {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd";
    text.as_bytes().windows(SHAPE.len()).any(|w| {
        w.iter().zip(SHAPE).all(|(b, s)| match s {
            b'd' => b.is_ascii_digit(),
            other => b == other,
        })
    })
}

/// The greatest common divisor (0 with 0 is 0).
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn all_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Numbers that sort wrongly as text in `values` (a sort key's whole values, and any
/// key's `#` segments at each position, among values with as many segments).
fn padding_problem(values: &[String], is_sort: bool) -> Option<String> {
    let whole: Vec<&str> = values.iter().map(String::as_str).collect();
    let mut problem = if is_sort { unpadded(&whole) } else { None };
    let mut by_shape: BTreeMap<usize, Vec<Vec<&str>>> = BTreeMap::new();
    for v in values {
        let parts: Vec<&str> = v.split('#').collect();
        if parts.len() > 1 {
            by_shape.entry(parts.len()).or_default().push(parts);
        }
    }
    for (count, rows) in &by_shape {
        for position in 0..*count {
            let column: Vec<&str> = rows.iter().map(|r| r[position]).collect();
            if problem.is_none()
                && let Some(p) = unpadded(&column)
            {
                problem = Some(format!("segment {} of {count}: {p}", position + 1));
            }
        }
    }
    problem
}

/// Digit strings of more than one length among at least 20: numbers that do not sort as
/// strings. None when they do (or there are too few to say).
fn unpadded(values: &[&str]) -> Option<String> {
    if values.len() < 20 || !values.iter().all(|v| all_digits(v)) {
        return None;
    }
    let lengths: BTreeSet<usize> = values.iter().map(|v| v.len()).collect();
    (lengths.len() > 1).then(|| {
        format!(
            "digit strings of lengths {} (e.g. {:?} sorts before {:?})",
            lengths
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            "10",
            "9"
        )
    })
}

/// The separator (other than `#`) that splits at least 80% of at least 20 values, none of
/// which contains `#`.
fn foreign_separator(values: &[String]) -> Option<(char, usize)> {
    if values.len() < 20 || values.iter().any(|v| v.contains('#')) {
        return None;
    }
    ['|', ';', '~', '^', '$', ':'].into_iter().find_map(|sep| {
        let split = values
            .iter()
            .filter(|v| {
                if sep == ':' {
                    let lower = v.to_ascii_lowercase();
                    let excluded = has_iso_datetime(v)
                        || lower.starts_with("arn:")
                        || lower.starts_with("urn:")
                        || lower.contains("://");
                    if excluded {
                        return false;
                    }
                }
                let parts: Vec<&str> = v.split(sep).collect();
                parts.len() >= 2 && parts.iter().all(|p| !p.is_empty())
            })
            .count();
        (split * 5 >= values.len() * 4).then_some((sep, split))
    })
}

/// The values of `attribute` in the sample, as text.
fn key_values(sample: &[Item], attribute: &str) -> Vec<String> {
    sample
        .iter()
        .filter_map(|i| i.get(attribute).and_then(text))
        .collect()
}

/// Sort-key entity prefixes carried by ≥ 5% of the sample, when two or more of them share a
/// partition and their items hold different attributes (other entity types, not one
/// entity's states).
fn sort_key_entities(sample: &[Item], hash: &str, range: &str) -> Option<Vec<(String, usize)>> {
    let mut attributes: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut partitions: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    let mut values = Vec::new();
    for item in sample {
        let Some(AttributeValue::S(sort)) = item.get(range) else {
            continue;
        };
        values.push(sort.clone());
        let Some(prefix) = entity_prefix(sort) else {
            continue;
        };
        attributes.entry(prefix).or_default().extend(
            item.keys()
                .map(String::as_str)
                .filter(|name| *name != hash && *name != range),
        );
        if let Some(partition) = item.get(hash).and_then(text) {
            partitions.entry(partition).or_default().insert(prefix);
        }
    }
    let prefixes = mixed_prefixes(&values, sample.len())?;
    let shared = partitions.values().any(|p| p.len() > 1);
    let sets: BTreeSet<&BTreeSet<&str>> = prefixes
        .iter()
        .filter_map(|(p, _)| attributes.get(p.as_str()))
        .collect();
    (shared && sets.len() > 1).then_some(prefixes)
}

/// Whether partition key values are mostly `#`-joined parts of which two or more vary,
/// not counting a leading entity prefix (`USER#42` is one part that varies; `t1#u42` two):
/// the evidence, or None.
fn composite_partition(values: &[String]) -> Option<String> {
    let joined: Vec<Vec<&str>> = values
        .iter()
        .filter(|v| v.contains('#'))
        .map(|v| v.split('#').collect())
        .collect();
    if values.len() < 20 || joined.len() * 5 < values.len() * 4 {
        return None;
    }
    let width = joined.iter().map(Vec::len).max()?;
    let varying: Vec<usize> = (0..width)
        .filter(|&at| {
            let parts: BTreeSet<&str> = joined.iter().filter_map(|p| p.get(at).copied()).collect();
            // A position holding a few entity names is the type, not a key part.
            let entity = at == 0
                && parts.len() <= 10
                && parts
                    .iter()
                    .all(|p| entity_prefix(&format!("{p}#")).is_some());
            parts.len() > 1 && !entity
        })
        .collect();
    (varying.len() >= 2).then(|| {
        format!(
            "joins {} varying parts with '#' in {} of {} sampled values (e.g. {:?})",
            varying.len(),
            joined.len(),
            values.len(),
            values
                .iter()
                .find(|v| v.contains('#'))
                .map_or("", String::as_str)
        )
    })
}

/// GSI key attribute names that say nothing of what they hold (`GSI1PK`, `gsi1_sk`, `pk2`).
fn overloaded_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let rest = match lower.strip_prefix("gsi") {
        Some(after) => {
            let digits = after.trim_start_matches(|c: char| c.is_ascii_digit());
            let after_sep = digits
                .strip_prefix('_')
                .or_else(|| digits.strip_prefix('-'))
                .unwrap_or(digits);
            let long = after_sep.strip_suffix("_key").unwrap_or(after_sep);
            if digits.len() < after.len() && ["hash", "range", "partition", "sort"].contains(&long)
            {
                return true;
            }
            after_sep.to_owned()
        }
        None => lower,
    };
    let word = rest.trim_end_matches(|c: char| c.is_ascii_digit());
    ["pk", "sk", "hk", "rk", "key"].contains(&word)
}

/// The shape of an ISO 8601 date or date-time: what docs/advisor.md's
/// `types.datetime-consistent-format` compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct DateShape {
    pub(super) time: bool,
    seconds: bool,
    fraction_digits: usize,
    pub(super) zone: Zone,
}

/// `^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$`, and its
/// shape.
pub(super) fn date_shape(text: &str) -> Option<DateShape> {
    let b = text.as_bytes();
    let digits = |from: usize, n: usize| {
        b.get(from..from + n)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(digits(0, 4) && at(4, b'-') && digits(5, 2) && at(7, b'-') && digits(8, 2)) {
        return None;
    }
    let mut shape = DateShape {
        time: false,
        seconds: false,
        fraction_digits: 0,
        zone: Zone::None,
    };
    if b.len() == 10 {
        return Some(shape);
    }
    if !(at(10, b'T') && digits(11, 2) && at(13, b':') && digits(14, 2)) {
        return None;
    }
    shape.time = true;
    let mut i = 16;
    if at(i, b':') && digits(i + 1, 2) {
        shape.seconds = true;
        i += 3;
        if at(i, b'.') {
            let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if !(1..=9).contains(&n) {
                return None;
            }
            shape.fraction_digits = n;
            i += 1 + n;
        }
    }
    match &b[i..] {
        [] => {}
        [b'Z'] => shape.zone = Zone::Utc,
        [sign, ..] if (*sign == b'+' || *sign == b'-') && b.len() == i + 6 => {
            if !(digits(i + 1, 2) && at(i + 3, b':') && digits(i + 4, 2)) {
                return None;
            }
            shape.zone = Zone::Offset;
        }
        _ => return None,
    }
    Some(shape)
}

/// Whether `segment` equals some other top-level attribute of `item`: as text, or as numbers
/// (`"0042"` equals `42`).
fn stored_elsewhere(item: &Item, key: &str, segment: &str) -> bool {
    let number: Option<f64> = segment.parse().ok();
    item.iter().any(|(name, value)| {
        name != key
            && match value {
                AttributeValue::S(s) => s == segment,
                AttributeValue::N(n) => {
                    let text = n.to_string();
                    text == segment || number.is_some_and(|x| text.parse::<f64>() == Ok(x))
                }
                _ => false,
            }
    })
}

impl Check<'_> {
    /// Composite keys whose varying parts are not also stored as attributes of their own.
    fn composite_sources(&mut self, sample: &[Item], key: &str) -> Option<String> {
        let rows: Vec<(&Item, Vec<&str>)> = sample
            .iter()
            .filter_map(|item| match item.get(key) {
                Some(AttributeValue::S(v)) => Some((item, v.split('#').collect())),
                _ => None,
            })
            .collect();
        let composite = rows.iter().filter(|(_, parts)| parts.len() > 1).count();
        if rows.len() < 20 || composite * 5 < rows.len() * 4 {
            return None;
        }
        let mut by_count: BTreeMap<usize, Vec<&(&Item, Vec<&str>)>> = BTreeMap::new();
        for row in rows.iter().filter(|(_, parts)| parts.len() > 1) {
            by_count.entry(row.1.len()).or_default().push(row);
        }
        for (count, group) in by_count {
            for position in 0..count {
                let distinct: BTreeSet<&str> = group.iter().map(|(_, p)| p[position]).collect();
                if distinct.len() < 2 {
                    continue;
                }
                let kept = group
                    .iter()
                    .filter(|(item, parts)| stored_elsewhere(item, key, parts[position]))
                    .count();
                if kept * 10 < group.len() * 9 {
                    return Some(format!(
                        "{key:?} segment {} of {count} is stored as an attribute in {kept} of {} items",
                        position + 1,
                        group.len()
                    ));
                }
            }
        }
        None
    }

    /// Single-table design: several entity types share the partition key. Or the sort key
    /// does (`USER#1` holding `PROFILE#` and `ORDER#…` items): prefixes that share
    /// partitions and hold different attributes, so not one entity's composite sort key
    /// (`PENDING#…`, `SHIPPED#…`), which the guideline recommends. Or an attribute tells
    /// them apart.
    fn single_table_design(&mut self, sample: &[Item], partitions: &[String]) {
        let table: &TableDesign = self.table;
        let hash = &table.key_schema.hash;
        let partitioned = (hash.ty == ScalarType::S && sample.len() >= 100)
            .then(|| mixed_prefixes(partitions, sample.len()))
            .flatten()
            .map(|prefixes| ("partition", &hash.name, prefixes));
        let sorted = table
            .key_schema
            .range
            .as_ref()
            .filter(|r| r.ty == ScalarType::S && sample.len() >= 100)
            .and_then(|r| {
                sort_key_entities(sample, &hash.name, &r.name).map(|p| ("sort", &r.name, p))
            });
        if let Some((which, name, prefixes)) = partitioned.or(sorted) {
            self.found(
                "keys.single-table-design",
                None,
                format!(
                    "{which} key {name:?} holds several entity types: {}",
                    shown(&prefixes)
                ),
            );
        } else if sample.len() >= 100 {
            let mut keys = vec![hash.name.as_str()];
            keys.extend(table.key_schema.range.as_ref().map(|r| r.name.as_str()));
            if let Some((name, values)) = entity_attribute(sample, &keys) {
                let listed: Vec<String> =
                    values.iter().map(|(v, n)| format!("{v:?} ({n})")).collect();
                self.found(
                    "keys.single-table-design",
                    None,
                    format!(
                        "attribute {name:?} tells several entity types apart, holding different attributes: {}",
                        listed.join(", ")
                    ),
                );
            }
        }
    }

    pub(super) fn key_values(&mut self, sample: &[Item]) {
        let table: &TableDesign = self.table;
        let hash = &table.key_schema.hash;
        let partitions = key_values(sample, &hash.name);
        self.single_table_design(sample, &partitions);
        // A composite partition key: two or more parts that vary, past an entity prefix.
        if hash.ty == ScalarType::S
            && let Some(evidence) = composite_partition(&partitions)
        {
            self.found(
                "keys.composite-partition-key",
                None,
                format!("partition key {:?} {evidence}", hash.name),
            );
        }
        // A dense run of integers as the partition key, by one or by a step (10, 20, 30,
        // ...: the step is the differences' greatest common divisor). Dense against the
        // distinct values the whole table has (the sample's scaled by its share of the
        // items), not the sample's: a sample of 1,000 of 5,000 sequential ids spans all
        // 5,000.
        if sample.len() >= 100 && partitions.iter().all(|v| all_digits(v) && v.len() < 19) {
            let numbers: BTreeSet<u64> = partitions.iter().filter_map(|v| v.parse().ok()).collect();
            let items = table.size.as_ref().map_or(0, |s| s.item_count);
            let scaled = numbers.len() as u64 * items / sample.len() as u64;
            let population = scaled.max(numbers.len() as u64);
            let step = numbers
                .iter()
                .zip(numbers.iter().skip(1))
                .fold(0, |g, (a, b)| gcd(g, b - a))
                .max(1);
            if let (Some(min), Some(max)) = (numbers.first(), numbers.last())
                && (max - min) / step < 2 * population
            {
                let stepping = if step > 1 {
                    format!(" stepping by {step}")
                } else {
                    String::new()
                };
                self.found(
                    "keys.sequential-partition-key",
                    None,
                    format!(
                        "partition key {:?} is a run of integers{stepping} ({min} to {max}, {} distinct in a sample of {} of {} items)",
                        hash.name,
                        numbers.len(),
                        sample.len(),
                        items.max(sample.len() as u64)
                    ),
                );
            }
        }
        // Time in the partition key.
        if partitions.len() >= 20 {
            let timed = partitions.iter().filter(|v| has_iso_datetime(v)).count();
            let epochs = sample
                .iter()
                .filter_map(|i| i.get(&hash.name))
                .filter(|v| values::is_epoch_like(v))
                .count();
            let by_epoch = hash.ty == ScalarType::N && epochs * 10 >= partitions.len() * 9;
            if timed * 2 >= partitions.len() || by_epoch {
                self.found(
                    "keys.timestamp-in-partition-key",
                    None,
                    format!(
                        "partition key {:?} holds times ({} of {} values)",
                        hash.name,
                        timed.max(epochs),
                        partitions.len()
                    ),
                );
            }
        }
        self.padding_and_separators(sample);
        self.overloaded_indexes(sample);
    }

    /// Zero padding of S sort keys and of key segments; separators other than `#`.
    fn padding_and_separators(&mut self, sample: &[Item]) {
        let table = self.table;
        let mut keys: Vec<(Option<&str>, &kura_model::schema::KeyAttribute, bool)> = Vec::new();
        keys.push((None, &table.key_schema.hash, false));
        if let Some(range) = &table.key_schema.range {
            keys.push((None, range, true));
        }
        for index in &table.indexes {
            keys.push((Some(&index.name), &index.key_schema.hash, false));
            if let Some(range) = &index.key_schema.range {
                keys.push((Some(&index.name), range, true));
            }
        }
        let mut padding = Vec::new();
        let mut separators = Vec::new();
        let mut sources = Vec::new();
        let mut mixed_dates = Vec::new();
        let mut seen = BTreeSet::new();
        for (_, attribute, is_sort) in keys {
            if attribute.ty != ScalarType::S || !seen.insert(attribute.name.as_str()) {
                continue;
            }
            let values = key_values(sample, &attribute.name);
            if let Some(problem) = padding_problem(&values, is_sort) {
                padding.push(format!("{:?}: {problem}", attribute.name));
            }
            if let Some(found) = self.composite_sources(sample, &attribute.name) {
                sources.push(found);
            }
            for (at, kinds) in self.date_shapes(&values) {
                if kinds.len() > 1 {
                    mixed_dates.push(format!("{:?}{at}: {} shapes", attribute.name, kinds.len()));
                }
            }
            if let Some((sep, n)) = foreign_separator(&values) {
                separators.push(format!(
                    "{:?} joins {n} of {} values with {sep:?}",
                    attribute.name,
                    values.len()
                ));
            }
        }
        if !padding.is_empty() {
            self.found("keys.zero-padded-numbers", None, padding.join("; "));
        }
        if !separators.is_empty() {
            self.found("keys.composite-key-separator", None, separators.join("; "));
        }
        if !sources.is_empty() {
            self.found(
                "keys.composite-key-source-attributes",
                None,
                sources.join("; "),
            );
        }
        if !mixed_dates.is_empty() {
            self.found(
                "types.datetime-consistent-format",
                None,
                format!(
                    "date-times in more than one format: {}",
                    mixed_dates.join("; ")
                ),
            );
        }
    }

    /// The date-time shapes of `values`, whole (at `""`) and at each segment position (at
    /// `" segment i of n"`); the time zones of those with a time are noted on the way.
    fn date_shapes(&mut self, values: &[String]) -> BTreeMap<String, BTreeSet<DateShape>> {
        let mut shapes: BTreeMap<String, BTreeSet<DateShape>> = BTreeMap::new();
        for v in values {
            if let Some(shape) = date_shape(v) {
                shapes.entry(String::new()).or_default().insert(shape);
                if shape.time {
                    self.zones.insert(shape.zone);
                }
            }
            let parts: Vec<&str> = v.split('#').collect();
            if parts.len() > 1 {
                for (i, part) in parts.iter().enumerate() {
                    if let Some(shape) = date_shape(part) {
                        let at = format!(" segment {} of {}", i + 1, parts.len());
                        shapes.entry(at).or_default().insert(shape);
                        if shape.time {
                            self.zones.insert(shape.zone);
                        }
                    }
                }
            }
        }
        shapes
    }

    /// GSIs whose keys are generic names or hold several entity types.
    fn overloaded_indexes(&mut self, sample: &[Item]) {
        let table = self.table;
        for index in table.indexes.iter().filter(|i| i.kind == IndexKind::Global) {
            let names: Vec<&str> = std::iter::once(&index.key_schema.hash)
                .chain(index.key_schema.range.as_ref())
                .map(|a| a.name.as_str())
                .filter(|n| overloaded_name(n))
                .collect();
            let hash = &index.key_schema.hash.name;
            let carried = sample.iter().filter(|i| i.contains_key(hash)).count();
            let mixed = mixed_prefixes(&key_values(sample, hash), carried);
            let evidence = match (names.is_empty(), mixed) {
                (false, _) => Some((
                    super::rules::Basis::Definition,
                    format!("generic key attribute names: {}", names.join(", ")),
                )),
                (true, Some(prefixes)) => Some((
                    super::rules::Basis::Sample,
                    format!("{hash:?} holds several entity types: {}", shown(&prefixes)),
                )),
                (true, None) => None,
            };
            if let Some((basis, evidence)) = evidence {
                self.found_as(basis, "index.gsi-overloading", Some(&index.name), evidence);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_shapes() {
        let shape = |t: &str| date_shape(t);
        assert_eq!(shape("2026-11-26").map(|s| s.time), Some(false));
        assert_eq!(
            shape("2026-11-26T10:00:00Z").map(|s| s.zone),
            Some(Zone::Utc)
        );
        assert_eq!(
            shape("2026-11-26T10:00:00.123+09:00").map(|s| (s.fraction_digits, s.zone)),
            Some((3, Zone::Offset))
        );
        assert_eq!(
            shape("2026-11-26T10:00").map(|s| (s.seconds, s.zone)),
            Some((false, Zone::None))
        );
        for bad in [
            "2026-11-26 10:00",
            "2026/11/26",
            "2026-11-26T10:00:00+0900",
            "2026-11-26T10:00:00.Z",
            "x",
        ] {
            assert_eq!(shape(bad), None, "{bad}");
        }
    }

    #[test]
    fn recognisers() {
        assert_eq!(entity_prefix("USER#1"), Some("USER"));
        assert_eq!(entity_prefix("2026#1"), None);
        assert_eq!(entity_prefix("plain"), None);
        assert!(has_iso_datetime("METER#2026-11-26T10:00:00Z"));
        assert!(!has_iso_datetime("2026-11-26"));
        for generic in [
            "GSI1PK",
            "gsi1_sk",
            "pk2",
            "Key",
            "gsi2-hash_key",
            "GSI1Sort",
        ] {
            assert!(overloaded_name(generic), "{generic}");
        }
        for specific in ["shop_id", "ordered_at", "gsi_owner", "keyword"] {
            assert!(!overloaded_name(specific), "{specific}");
        }
        let digits: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
        let refs: Vec<&str> = digits.iter().map(String::as_str).collect();
        assert!(unpadded(&refs).is_some());
        let padded: Vec<String> = (1..=20).map(|i| format!("{i:02}")).collect();
        let refs: Vec<&str> = padded.iter().map(String::as_str).collect();
        assert!(unpadded(&refs).is_none());
        let piped: Vec<String> = (0..20).map(|i| format!("SHIPPED|{i}")).collect();
        assert_eq!(foreign_separator(&piped), Some(('|', 20)));
        let timed: Vec<String> = (0..20)
            .map(|i| format!("2026-11-26T10:{i:02}:00Z"))
            .collect();
        assert_eq!(foreign_separator(&timed), None);
    }
}
