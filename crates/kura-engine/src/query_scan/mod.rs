//! Query and Scan: one page of a key range of a table or of one of its secondary
//! indexes, read from a snapshot.
//!
//! A page stops after `Limit` items were read or once the items read reach 1 MB, both
//! counted before the filter, as DynamoDB counts them; `LastEvaluatedKey` is then the key
//! of the last item read. Capacity is charged on the bytes read, rounded up to 4 KB once
//! per page (Developer Guide, "Read consumption for Query and Scan").

use std::ops::Bound;

use kura_expr::eval::condition::evaluate;
use kura_expr::eval::projection::project;
use kura_expr::key_condition::{
    MultiKeyCondition, SortCondition, index_key_condition, multi_key_condition,
};
use kura_expr::request::{Compiled, Operation, compile};
use kura_expr::{Condition, Projection};
use kura_model::constraint::Constraints;
use kura_model::messages::vectors as vector_messages;
use kura_model::size::item_size;
use kura_model::{Item, messages};

use crate::Engine;
use crate::api::*;
use crate::catalog::{IndexKind, IndexProjection};
use crate::error::{EngineError, Result};
use crate::indexes::entries::encode_values;
use crate::items::{decode_stored, read_snapshot};
use crate::keys;
use kura_store::{Direction, KeyRange};

mod fetch;
mod ranges;
mod target;

use fetch::Fetch;
use ranges::{
    check_key_value_type, check_sort_condition_types, segment_range, sort_matches, sort_range,
};
use target::{Output, Target};

/// DynamoDB stops a page once this many bytes were read.
const PAGE_BYTES: usize = 1024 * 1024;
/// In the order DynamoDB lists them in its enum constraint message (dynalite
/// `test/query.js`).
const SELECT: [&str; 4] = [
    "SPECIFIC_ATTRIBUTES",
    "COUNT",
    "ALL_ATTRIBUTES",
    "ALL_PROJECTED_ATTRIBUTES",
];

/// AttributesToGet holds 1..=255 names (a framework constraint).
fn attributes_to_get_length(c: &mut Constraints, expressions: &ExpressionParams) {
    if let Some(names) = &expressions.attributes_to_get {
        c.length(
            "attributesToGet",
            &format!("[{}]", names.join(", ")),
            names.len(),
            1,
            255,
        );
    }
}

/// `attributes_to_get`: the projection came from the legacy AttributesToGet, which the
/// messages name instead of ProjectionExpression.
fn output(
    select: Option<&str>,
    index: Option<&str>,
    projection: Option<Projection>,
    attributes_to_get: bool,
) -> Result<Output> {
    let items = |projection| Output::Items { projection };
    match (select, &projection) {
        (Some("COUNT"), Some(_)) if attributes_to_get => Err(EngineError::validation(
            messages::COUNT_WITH_ATTRIBUTES_TO_GET,
        )),
        (Some("COUNT"), Some(_)) => Err(EngineError::validation(messages::COUNT_WITH_PROJECTION)),
        (Some("ALL_ATTRIBUTES"), Some(_)) if attributes_to_get => Err(EngineError::validation(
            messages::ALL_ATTRIBUTES_WITH_ATTRIBUTES_TO_GET,
        )),
        (Some("COUNT"), None) => Ok(Output::Count),
        (Some("SPECIFIC_ATTRIBUTES"), None) => Err(EngineError::validation(
            messages::SPECIFIC_WITHOUT_PROJECTION,
        )),
        (Some("ALL_ATTRIBUTES"), Some(_)) => Err(EngineError::validation(
            messages::ALL_ATTRIBUTES_WITH_PROJECTION,
        )),
        (Some("ALL_PROJECTED_ATTRIBUTES"), _) if index.is_none() => Err(EngineError::validation(
            messages::ALL_PROJECTED_WITHOUT_INDEX,
        )),
        _ => Ok(items(projection)),
    }
}

/// The last item a page read, whose key attributes end the page when it is cut.
enum LastRead {
    Nothing,
    Item(Item),
    /// Moved into the answer: the page's last item.
    Answered,
}

/// The shared part of a Query or Scan request, once validated.
struct Page<'a> {
    target: Target,
    range: KeyRange,
    direction: Direction,
    /// Sort key conditions, by attribute name, that every item read must meet.
    sort: Vec<(String, SortCondition)>,
    filter: Option<&'a Condition>,
    output: Output,
    fetch: Fetch,
    limit: Option<usize>,
    consistent: bool,
    capacity: ReturnConsumedCapacity,
    /// Whether the request is a Scan (the advisor counts them apart from Queries).
    scan: bool,
    /// The ExclusiveStartKey's fingerprint when the request continued an earlier page
    /// (the advisor matches it to the LastEvaluatedKey it follows).
    continued: Option<u64>,
    /// What its filter reaches into (the advisor's `types.collection-in-search`).
    filter_used: FilterUse,
}

/// Whether a filter uses a nested path, and the attributes it searches with `contains`.
#[derive(Debug, Default)]
struct FilterUse {
    nested: bool,
    contains: Vec<String>,
}

/// Reads a Query's or Scan's filter (FilterExpression, or QueryFilter/ScanFilter) for the
/// advisor. Expressions carry no literals, so `.` and `[` only ever belong to paths.
fn filter_use(expressions: &kura_expr::request::ExpressionParams) -> FilterUse {
    let mut used = FilterUse::default();
    if let Some(text) = &expressions.filter_expression {
        used.nested = text.contains(['.', '[']);
        let names = expressions.expression_attribute_names.as_ref();
        for (at, _) in text.match_indices("contains") {
            let rest = text[at + "contains".len()..].trim_start();
            let Some(args) = rest.strip_prefix('(') else {
                continue;
            };
            let operand = args.split([',', ')']).next().unwrap_or("").trim();
            let name = match operand.strip_prefix('#') {
                Some(_) => names.and_then(|n| n.get(operand)).cloned(),
                None => Some(operand.to_owned()),
            };
            used.contains.extend(name.filter(|n| !n.is_empty()));
        }
    }
    for legacy in [&expressions.query_filter, &expressions.scan_filter]
        .into_iter()
        .flatten()
    {
        for (name, condition) in legacy {
            if condition.comparison_operator.as_deref() == Some("CONTAINS") {
                used.contains.push(name.clone());
            }
        }
    }
    used
}

impl Engine {
    /// The table or index a Query or Scan reads, with DynamoDB's checks in its order.
    fn target(
        &self,
        name: &str,
        index: Option<&str>,
        consistent: bool,
        scan: bool,
    ) -> Result<Target> {
        let table = self.table_for_items(name)?;
        let Some(index_name) = index else {
            return Ok(Target { table, index: None });
        };
        // A vector index is read with SearchVectors only; a Query's consistent-read error
        // comes first, a Scan's refusal before it (as captured from DynamoDB).
        if table.vector_index(index_name).is_some() {
            return Err(EngineError::validation(match (scan, consistent) {
                (true, _) => vector_messages::SCAN_NOT_SUPPORTED,
                (false, true) => messages::GSI_CONSISTENT_READ,
                (false, false) => vector_messages::QUERY_NOT_SUPPORTED,
            }));
        }
        let index = table
            .index(index_name)
            .cloned()
            .ok_or_else(|| EngineError::validation(messages::no_such_index(index_name)))?;
        if index.kind == IndexKind::Global && consistent {
            return Err(EngineError::validation(messages::GSI_CONSISTENT_READ));
        }
        if index.backfilling {
            return Err(EngineError::validation(messages::gsi_backfilling(
                &index.name,
            )));
        }
        Ok(Target {
            table,
            index: Some(index),
        })
    }

    pub fn query(&self, input: QueryInput) -> Result<QueryOutput> {
        // Long: Query's checks in DynamoDB's order, which decides the error a bad request gets.
        // A ConditionalOperator outside its enum comes first, bare and on its own.
        if let Some(operator) = input.expressions.conditional_operator.as_deref()
            && !kura_expr::legacy::CONDITIONAL_OPERATORS.contains(&operator)
        {
            return Err(EngineError::validation(
                messages::QUERY_CONDITIONAL_OPERATOR_ENUM,
            ));
        }
        // DynamoDB's order (dynalite `validations/query.js`, `types`): Limit,
        // ReturnConsumedCapacity, AttributesToGet, Select, TableName, IndexName.
        let mut c = Constraints::new();
        c.at_least("limit", input.limit, 1);
        c.one_of(
            "returnConsumedCapacity",
            input.return_consumed_capacity.as_deref(),
            &ReturnConsumedCapacity::VALUES,
        );
        attributes_to_get_length(&mut c, &input.expressions);
        c.one_of("select", input.select.as_deref(), &SELECT);
        c.name("tableName", input.table_name.as_deref());
        if input.index_name.is_some() {
            c.name("indexName", input.index_name.as_deref());
        }
        c.finish()?;
        let attributes_to_get = input.expressions.attributes_to_get.is_some();
        let filter_used;
        let Compiled {
            key_condition: condition,
            filter,
            projection,
            ..
        } = {
            let used = filter_use(&input.expressions);
            filter_used = used;
            compile(Operation::Query, input.expressions)?
        };
        let condition = condition
            .ok_or_else(|| EngineError::validation(messages::QUERY_NEEDS_KEY_CONDITION))?;
        let output = output(
            input.select.as_deref(),
            input.index_name.as_deref(),
            projection,
            attributes_to_get,
        )?;
        kura_expr::key_condition::key_parts(&condition)?;
        let table_name = input.table_name.unwrap_or_default();
        let consistent = input.consistent_read.unwrap_or(false);
        let target = self.target(&table_name, input.index_name.as_deref(), consistent, false)?;
        let hash_attrs = target.hash_attributes();
        let range_attrs = target.range_attributes();
        let hash_names: Vec<&str> = hash_attrs.iter().map(|a| a.name.as_str()).collect();
        let range_names: Vec<&str> = range_attrs.iter().map(|a| a.name.as_str()).collect();
        let MultiKeyCondition { partition, sort } = match &target.index {
            Some(index) if index.kind == IndexKind::Global => {
                index_key_condition(&condition, &hash_names, &range_names)?
            }
            _ => multi_key_condition(&condition, &hash_names, &range_names)?,
        };
        if let Some(filter) = &filter
            && let Some(key) = filter
                .paths()
                .into_iter()
                .find(|p| hash_names.contains(&p.top()) || range_names.contains(&p.top()))
        {
            return Err(EngineError::validation(messages::filter_on_key(key.top())));
        }
        for (value, attr) in partition.iter().zip(&hash_attrs) {
            check_key_value_type(value, attr.ty)?;
            attr.check_partition_value(value)?;
        }
        for (condition, attr) in sort.iter().zip(&range_attrs) {
            check_sort_condition_types(condition, attr.ty)?;
            let values = match condition {
                SortCondition::Compare(_, v) | SortCondition::BeginsWith(v) => vec![v],
                SortCondition::Between(lo, hi) => vec![lo, hi],
            };
            for value in values {
                attr.check_sort_value(value)?;
            }
        }
        // The partition a Query reads, for the always-on hot-key count: a GSI's own, an
        // LSI's is the table's.
        let counted_on = target
            .index
            .as_ref()
            .filter(|i| i.kind == IndexKind::Global)
            .map(|i| i.name.as_str());
        self.counters
            .table(&table_name)
            .hot
            .accessed(counted_on, &partition);
        let continued = start_fingerprint(input.exclusive_start_key.as_ref(), input.limit);
        let start = target.start_key(input.exclusive_start_key)?;
        if let Some((start_key, _)) = &start {
            let within = start_key.hash == partition
                && sort
                    .iter()
                    .zip(&start_key.range)
                    .all(|(condition, value)| sort_matches(condition, value));
            if !within {
                return Err(EngineError::validation(messages::START_KEY_OUTSIDE_QUERY));
            }
        }
        // The partition, then the sort key values fixed by equalities: every key the
        // query reads starts with their encodings.
        let prefix = keys::partition_prefix(&target.prefix(), &encode_values(&partition)?);
        let forward = input.scan_index_forward.unwrap_or(true);
        let mut range = match sort.split_last() {
            Some((last, equalities)) => {
                let mut prefix = prefix;
                for condition in equalities {
                    if let SortCondition::Compare(_, value) = condition {
                        prefix.extend_from_slice(&encode_values([value])?);
                    }
                }
                sort_range(&prefix, last)?
            }
            None => KeyRange::prefix(&prefix),
        };
        let sort: Vec<(String, SortCondition)> = range_names
            .iter()
            .map(|n| (*n).to_owned())
            .zip(sort)
            .collect();
        if let Some((_, start)) = start {
            if forward {
                range.start = Bound::Excluded(start);
            } else {
                range.end = Bound::Excluded(start);
            }
        }
        let fetch = self.fetch_plan(
            &table_name,
            &output,
            input.select.as_deref(),
            filter.as_ref(),
            &target,
        )?;
        self.read_page(
            &table_name,
            Page {
                target,
                range,
                direction: if forward {
                    Direction::Forward
                } else {
                    Direction::Reverse
                },
                sort,
                filter: filter.as_ref(),
                output,
                fetch,
                limit: input.limit.map(|l| l as usize),
                consistent,
                capacity: ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref()),
                scan: false,
                continued,
                filter_used,
            },
        )
    }

    pub fn scan(&self, input: ScanInput) -> Result<ScanOutput> {
        let segments = scan_constraints(&input)?;
        let attributes_to_get = input.expressions.attributes_to_get.is_some();
        let filter_used;
        let Compiled {
            filter, projection, ..
        } = {
            let used = filter_use(&input.expressions);
            filter_used = used;
            compile(Operation::Scan, input.expressions)?
        };
        let output = output(
            input.select.as_deref(),
            input.index_name.as_deref(),
            projection,
            attributes_to_get,
        )?;
        let table_name = input.table_name.unwrap_or_default();
        let consistent = input.consistent_read.unwrap_or(false);
        let target = self.target(&table_name, input.index_name.as_deref(), consistent, true)?;
        let mut range = match segments {
            None => KeyRange::prefix(&target.prefix()),
            Some((segment, total)) => segment_range(&target.prefix(), segment, total),
        };
        let continued = start_fingerprint(input.exclusive_start_key.as_ref(), input.limit);
        if let Some((_, start)) = target.start_key(input.exclusive_start_key)? {
            // A parallel Scan's start key must lie in its own segment (dynalite
            // `actions/scan.js`, recorded against DynamoDB).
            let after_start = match &range.start {
                Bound::Included(first) => start >= *first,
                _ => true,
            };
            let before_end = match &range.end {
                Bound::Excluded(end) => start < *end,
                _ => true,
            };
            if let Some((segment, total)) = segments
                && total > 1
                && !(after_start && before_end)
            {
                return Err(EngineError::validation(messages::start_key_wrong_segment(
                    total as i64,
                    segment as i64,
                )));
            }
            range.start = Bound::Excluded(start);
        }
        let fetch = self.fetch_plan(
            &table_name,
            &output,
            input.select.as_deref(),
            filter.as_ref(),
            &target,
        )?;
        self.read_page(
            &table_name,
            Page {
                target,
                range,
                direction: Direction::Forward,
                sort: Vec::new(),
                filter: filter.as_ref(),
                output,
                fetch,
                limit: input.limit.map(|l| l as usize),
                consistent,
                capacity: ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref()),
                scan: true,
                continued,
                filter_used,
            },
        )
    }

    fn read_page(&self, table_name: &str, page: Page<'_>) -> Result<PageOutput> {
        // Long: one loop over the key range whose steps (fetch, filter, project, count, the Limit and 1 MB stops, LastEvaluatedKey) share the page's state.
        let snapshot = self.store.snapshot()?;
        let target = &page.target;
        let mut out = PageOutput::default();
        let mut items = Vec::new();
        let mut bytes_read = 0usize;
        let mut fetched_units = 0.0;
        // Items read from the table for an LSI count toward the page's 1 MB too.
        let mut fetched_bytes = 0usize;
        let mut last_read = LastRead::Nothing;
        let mut stopped_early = false;
        let counters = self.counters.table(table_name);
        // Contributor Insights keys: a GSI's own, otherwise the table's.
        let insights = counters.insights.active().then(|| target.insights_key());
        // GSIs that do not project every attribute mark their pages' first table key.
        let mark_gsi = target
            .index
            .as_ref()
            .filter(|i| i.kind == IndexKind::Global && i.projection != IndexProjection::All)
            .map(|i| i.number);
        let rows = if page.range.is_empty() {
            Box::new(std::iter::empty()) as kura_store::KvIter<'_>
        } else {
            snapshot.range(target.space(), page.range, page.direction)
        };
        for entry in rows {
            let (_, value) = entry?;
            let item = decode_stored(&value)?;
            let meets_sort = page.sort.iter().all(|(name, condition)| {
                item.get(name).is_some_and(|v| sort_matches(condition, v))
            });
            if !meets_sort {
                continue;
            }
            if page.limit.is_some_and(|l| out.scanned_count >= l)
                || bytes_read + fetched_bytes >= PAGE_BYTES
            {
                stopped_early = true;
                break;
            }
            out.scanned_count += 1;
            bytes_read += item_size(&item);
            if out.scanned_count == 1
                && let Some(number) = mark_gsi
            {
                // The page's first table key: a GetItem of it soon after means the index
                // did not carry what the client wanted (advisor, projection.index-not-covered).
                if let Ok(key) = target.table.key_schema.key_of_item(&item)
                    && let Ok(storage_key) = keys::item_key(target.table.id, &key)
                {
                    counters.gsi_page_returned(&storage_key, number, self.clock.now_ms());
                }
            }
            if let Some((index, names)) = &insights {
                let now = self.clock.now_ms();
                crate::counters::note_item(&counters, *index, *names, &item, now);
            }
            // An LSI entry lacking requested attributes is answered from the table item.
            let full = if page.fetch != Fetch::Never {
                let key = target.table.key_schema.key_of_item(&item)?;
                let storage_key = keys::item_key(target.table.id, &key)?;
                let fetched = read_snapshot(snapshot.as_ref(), &storage_key)?;
                let fetched = fetched.unwrap_or_else(|| item.clone());
                fetched_bytes += item_size(&fetched);
                fetched_units += read_units(item_size(&fetched), page.consistent);
                Some(fetched)
            } else {
                None
            };
            let filtered = full.as_ref().unwrap_or(&item);
            if !page.filter.is_none_or(|f| evaluate(f, filtered)) {
                last_read = LastRead::Item(item);
                continue;
            }
            out.count += 1;
            let Output::Items { projection, .. } = &page.output else {
                last_read = LastRead::Item(item);
                continue;
            };
            // The answer takes the item itself, not a copy, unless it is projected.
            let fetched_for_output = match full {
                Some(full) if page.fetch == Fetch::ForOutput => Some(full),
                _ => None,
            };
            match (projection, fetched_for_output) {
                (Some(paths), fetched) => {
                    items.push(project(fetched.as_ref().unwrap_or(&item), paths));
                    last_read = LastRead::Item(item);
                }
                (None, Some(fetched)) => {
                    items.push(fetched);
                    last_read = LastRead::Item(item);
                }
                (None, None) => {
                    items.push(item);
                    last_read = LastRead::Answered;
                }
            }
        }
        let last_read = match &last_read {
            LastRead::Nothing => None,
            LastRead::Item(item) => Some(item),
            // The last item read is the last one answered (an unprojected table item).
            LastRead::Answered => items.last(),
        };
        // A page cut by Limit reports where it stopped even when nothing follows, as
        // DynamoDB does; a page cut by size always has more to read.
        let cut_by_limit = page.limit.is_some_and(|l| out.scanned_count >= l);
        if stopped_early || cut_by_limit {
            out.last_evaluated_key = last_read.map(|item| {
                target
                    .page_key_attributes()
                    .into_iter()
                    .filter_map(|k| item.get(k).map(|v| (k.to_owned(), v.clone())))
                    .collect()
            });
        }
        if let Output::Items { .. } = page.output {
            out.items = Some(items);
        }
        let units = read_units(bytes_read, page.consistent);
        let consumed = target.consumed(units, fetched_units);
        counters.consume(&consumed, false);
        self.counters
            .charge_table(&target.table, &consumed, false, None);
        let traffic = &counters.traffic;
        if page.scan {
            traffic.scan(out.scanned_count, out.count);
        }
        if page.filter.is_some() {
            traffic.filtered(out.scanned_count, out.count, page.scan);
        }
        traffic.read(page.consistent);
        let used = &page.filter_used;
        if used.nested || !used.contains.is_empty() {
            traffic.filter_use(used.nested, &used.contains);
        }
        if let Some(index) = &target.index {
            let scope = match index.kind {
                IndexKind::Global => crate::counters::IndexScope::Global,
                IndexKind::Local => crate::counters::IndexScope::Local,
            };
            let fetched = index.kind == IndexKind::Local && fetched_bytes > 0;
            counters.index_page(scope, &index.name, page.consistent, fetched);
        }
        if let Output::Items { projection: None } = &page.output {
            let gsi = target
                .index
                .as_ref()
                .is_some_and(|i| i.kind == IndexKind::Global);
            traffic.unprojected(page.scan, gsi);
        }
        // Only a page the 1 MB size cut must be followed; one cut by Limit is the client's.
        let cut_by_size = (stopped_early && !cut_by_limit)
            .then_some(out.last_evaluated_key.as_ref())
            .flatten()
            .map(|key| crate::counters::traffic::page_fingerprint(key, page.limit));
        traffic.page(cut_by_size, page.continued, page.scan);
        out.consumed_capacity =
            ConsumedCapacity::report(page.capacity, table_name, &consumed, false);
        Ok(out)
    }
}

/// The fingerprint of a request's ExclusiveStartKey and Limit, which the advisor matches to
/// the page it continues (`api.pagination-followed`).
fn start_fingerprint(
    start: Option<&kura_model::wire::ItemJson>,
    limit: Option<i64>,
) -> Option<u64> {
    let key = kura_model::wire::item_from_json(start?.clone()).ok()?;
    Some(crate::counters::traffic::page_fingerprint(
        &key,
        limit.map(|l| l as usize),
    ))
}

/// Scan's checks in DynamoDB's order; the segment and the total of a parallel Scan.
fn scan_constraints(input: &ScanInput) -> Result<Option<(u64, u64)>> {
    // DynamoDB's order (dynalite `validations/scan.js`, `types`): Limit,
    // ReturnConsumedCapacity, AttributesToGet, Segment, Select, TotalSegments,
    // TableName, IndexName. The upper bounds of Segment (999,999) and TotalSegments
    // (1,000,000) are the API Reference's.
    let mut c = Constraints::new();
    c.at_least("limit", input.limit, 1);
    c.one_of(
        "returnConsumedCapacity",
        input.return_consumed_capacity.as_deref(),
        &ReturnConsumedCapacity::VALUES,
    );
    attributes_to_get_length(&mut c, &input.expressions);
    c.at_least("segment", input.segment, 0);
    c.at_most("segment", input.segment, 999_999);
    c.one_of("select", input.select.as_deref(), &SELECT);
    c.at_least("totalSegments", input.total_segments, 1);
    c.at_most("totalSegments", input.total_segments, 1_000_000);
    c.name("tableName", input.table_name.as_deref());
    if input.index_name.is_some() {
        c.name("indexName", input.index_name.as_deref());
    }
    c.finish()?;
    match (input.segment, input.total_segments) {
        (None, None) => Ok(None),
        (Some(_), None) => Err(EngineError::validation(messages::SEGMENT_WITHOUT_TOTAL)),
        (None, Some(_)) => Err(EngineError::validation(messages::TOTAL_WITHOUT_SEGMENT)),
        (Some(segment), Some(total)) if segment >= total => Err(EngineError::validation(
            messages::segment_out_of_bounds(segment, total),
        )),
        (Some(segment), Some(total)) => Ok(Some((segment as u64, total as u64))),
    }
}
