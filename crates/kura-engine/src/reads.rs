//! Query and Scan: one page of a key range, read from a snapshot.
//!
//! A page stops after `Limit` items were read or once the items read reach 1 MB, both
//! counted before the filter, as DynamoDB counts them; `LastEvaluatedKey` is then the key
//! of the last item read. Capacity is charged on the bytes read, rounded up to 4 KB once
//! per page (Developer Guide, "Read consumption for Query and Scan").

use std::ops::Bound;
use std::sync::Arc;

use kura_expr::eval::condition::evaluate;
use kura_expr::eval::projection::project;
use kura_expr::key_condition::{KeyCondition, SortCondition, key_condition};
use kura_expr::request::{Compiled, Operation, compile};
use kura_expr::{Comparator, Condition, Projection};
use kura_model::constraint::Constraints;
use kura_model::keycode::ScalarType;
use kura_model::size::item_size;
use kura_model::wire::ItemJson;
use kura_model::{AttributeValue, Item, messages};

use crate::Engine;
use crate::api::*;
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};
use crate::items::decode_stored;
use crate::keys;
use crate::storage::{Direction, KeyRange, Space};

/// DynamoDB stops a page once this many bytes were read.
const PAGE_BYTES: usize = 1024 * 1024;
const SELECT: [&str; 4] = [
    "ALL_ATTRIBUTES",
    "ALL_PROJECTED_ATTRIBUTES",
    "SPECIFIC_ATTRIBUTES",
    "COUNT",
];

/// What to return for the items that pass the filter.
enum Output {
    Items(Option<Projection>),
    Count,
}

fn output(
    select: Option<&str>,
    index: Option<&str>,
    projection: Option<Projection>,
) -> Result<Output> {
    match (select, &projection) {
        (Some("COUNT"), Some(_)) => Err(EngineError::validation(messages::COUNT_WITH_PROJECTION)),
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
        _ => Ok(Output::Items(projection)),
    }
}

/// The shared part of a Query or Scan request, once validated.
struct Page<'a> {
    table: Arc<TableRecord>,
    range: KeyRange,
    direction: Direction,
    sort: Option<SortCondition>,
    filter: Option<&'a Condition>,
    output: Output,
    limit: Option<usize>,
    consistent: bool,
    capacity: ReturnConsumedCapacity,
}

impl Engine {
    fn table_for_reads(&self, name: &str, index: Option<&str>) -> Result<Arc<TableRecord>> {
        let table = self.table_for_items(name)?;
        if let Some(index) = index {
            return Err(EngineError::validation(messages::no_such_index(index)));
        }
        Ok(table)
    }

    /// The key to continue after, from `ExclusiveStartKey`, and its storage key.
    fn start_key(
        &self,
        table: &TableRecord,
        start: Option<ItemJson>,
    ) -> Result<Option<(kura_model::PrimaryKey, Vec<u8>)>> {
        let Some(raw) = start else { return Ok(None) };
        let key = kura_model::wire::item_from_json(raw)?;
        let key = table
            .key_schema
            .key_of_key_map(&key)
            .map_err(|e| EngineError::validation(messages::invalid_start_key(&e.to_string())))?;
        let storage_key = keys::item_key(table.id, &key)?;
        Ok(Some((key, storage_key)))
    }

    pub fn query(&self, input: QueryInput) -> Result<QueryOutput> {
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        c.one_of("select", input.select.as_deref(), &SELECT);
        c.at_least("limit", input.limit, 1);
        c.one_of(
            "returnConsumedCapacity",
            input.return_consumed_capacity.as_deref(),
            &ReturnConsumedCapacity::VALUES,
        );
        c.finish()?;
        let Compiled {
            key_condition: condition,
            filter,
            projection,
            ..
        } = compile(Operation::Query, input.expressions)?;
        let condition = condition
            .ok_or_else(|| EngineError::validation(messages::QUERY_NEEDS_KEY_CONDITION))?;
        let output = output(
            input.select.as_deref(),
            input.index_name.as_deref(),
            projection,
        )?;
        kura_expr::key_condition::key_parts(&condition)?;
        let table_name = input.table_name.unwrap_or_default();
        let table = self.table_for_reads(&table_name, input.index_name.as_deref())?;
        let schema = &table.key_schema;
        let KeyCondition { partition, sort } = key_condition(
            &condition,
            &schema.hash.name,
            schema.range.as_ref().map(|r| r.name.as_str()),
        )?;
        if let Some(filter) = &filter
            && let Some(key) = filter
                .paths()
                .into_iter()
                .find(|p| schema.attributes().any(|k| k.name == p.top()))
        {
            return Err(EngineError::validation(messages::filter_on_key(key.top())));
        }
        check_key_value_type(&partition, schema.hash.ty)?;
        schema.check_partition_value(&partition)?;
        if let (Some(sort), Some(range)) = (&sort, &schema.range) {
            check_sort_condition_types(sort, range.ty)?;
            let values = match sort {
                SortCondition::Compare(_, v) | SortCondition::BeginsWith(v) => vec![v],
                SortCondition::Between(lo, hi) => vec![lo, hi],
            };
            for value in values {
                schema.check_sort_value(value)?;
            }
        }
        let start = self.start_key(&table, input.exclusive_start_key)?;
        if let Some((start_key, _)) = &start {
            let within = start_key.hash == partition
                && match (&sort, &start_key.range) {
                    (Some(sort), Some(value)) => sort_matches(sort, value),
                    _ => true,
                };
            if !within {
                return Err(EngineError::validation(messages::START_KEY_OUTSIDE_QUERY));
            }
        }
        let encoded_pk = kura_model::PrimaryKey {
            hash: partition,
            range: None,
        }
        .encode_hash()?;
        let prefix = keys::partition_prefix(table.id, &encoded_pk);
        let forward = input.scan_index_forward.unwrap_or(true);
        let mut range = match &sort {
            Some(sort) => sort_range(&prefix, sort)?,
            None => KeyRange::prefix(&prefix),
        };
        if let Some((_, start)) = start {
            if forward {
                range.start = Bound::Excluded(start);
            } else {
                range.end = Bound::Excluded(start);
            }
        }
        self.read_page(
            &table_name,
            Page {
                table: table.clone(),
                range,
                direction: if forward {
                    Direction::Forward
                } else {
                    Direction::Reverse
                },
                sort,
                filter: filter.as_ref(),
                output,
                limit: input.limit.map(|l| l as usize),
                consistent: input.consistent_read.unwrap_or(false),
                capacity: ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref()),
            },
        )
    }

    pub fn scan(&self, input: ScanInput) -> Result<ScanOutput> {
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        c.one_of("select", input.select.as_deref(), &SELECT);
        c.at_least("limit", input.limit, 1);
        c.at_least("segment", input.segment, 0);
        c.at_most("segment", input.segment, 999_999);
        c.at_least("totalSegments", input.total_segments, 1);
        c.at_most("totalSegments", input.total_segments, 1_000_000);
        c.one_of(
            "returnConsumedCapacity",
            input.return_consumed_capacity.as_deref(),
            &ReturnConsumedCapacity::VALUES,
        );
        c.finish()?;
        let segments = match (input.segment, input.total_segments) {
            (None, None) => None,
            (Some(_), None) => {
                return Err(EngineError::validation(messages::SEGMENT_WITHOUT_TOTAL));
            }
            (None, Some(_)) => {
                return Err(EngineError::validation(messages::TOTAL_WITHOUT_SEGMENT));
            }
            (Some(segment), Some(total)) if segment >= total => {
                return Err(EngineError::validation(messages::segment_out_of_bounds(
                    segment, total,
                )));
            }
            (Some(segment), Some(total)) => Some((segment as u64, total as u64)),
        };
        let Compiled {
            filter, projection, ..
        } = compile(Operation::Scan, input.expressions)?;
        let output = output(
            input.select.as_deref(),
            input.index_name.as_deref(),
            projection,
        )?;
        let table_name = input.table_name.unwrap_or_default();
        let table = self.table_for_reads(&table_name, input.index_name.as_deref())?;
        let mut range = match segments {
            None => KeyRange::prefix(&keys::table_prefix(table.id)),
            Some((segment, total)) => segment_range(table.id, segment, total),
        };
        if let Some((_, start)) = self.start_key(&table, input.exclusive_start_key)? {
            // A start key before the segment does not widen it.
            let inside = match &range.start {
                Bound::Included(first) => start >= *first,
                _ => true,
            };
            if inside {
                range.start = Bound::Excluded(start);
            }
        }
        self.read_page(
            &table_name,
            Page {
                table: table.clone(),
                range,
                direction: Direction::Forward,
                sort: None,
                filter: filter.as_ref(),
                output,
                limit: input.limit.map(|l| l as usize),
                consistent: input.consistent_read.unwrap_or(false),
                capacity: ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref()),
            },
        )
    }

    fn read_page(&self, table_name: &str, page: Page<'_>) -> Result<PageOutput> {
        let snapshot = self.store.snapshot()?;
        let schema = &page.table.key_schema;
        let sort_name = schema.range.as_ref().map(|r| r.name.as_str());
        let mut out = PageOutput::default();
        let mut items = Vec::new();
        let mut bytes_read = 0usize;
        let mut last_read: Option<Item> = None;
        let mut stopped_early = false;
        let rows = if page.range.is_empty() {
            Box::new(std::iter::empty()) as crate::storage::KvIter<'_>
        } else {
            snapshot.range(Space::Items, page.range, page.direction)
        };
        for entry in rows {
            let (_, value) = entry?;
            let item = decode_stored(&value)?;
            if let (Some(sort), Some(name)) = (&page.sort, sort_name)
                && !item.get(name).is_some_and(|v| sort_matches(sort, v))
            {
                continue;
            }
            if page.limit.is_some_and(|l| out.scanned_count >= l) || bytes_read >= PAGE_BYTES {
                stopped_early = true;
                break;
            }
            out.scanned_count += 1;
            bytes_read += item_size(&item);
            if page.filter.is_none_or(|f| evaluate(f, &item)) {
                out.count += 1;
                if let Output::Items(projection) = &page.output {
                    items.push(match projection {
                        Some(paths) => project(&item, paths),
                        None => item.clone(),
                    });
                }
            }
            last_read = Some(item);
        }
        // A page cut by Limit reports where it stopped even when nothing follows, as
        // DynamoDB does; a page cut by size always has more to read.
        let cut_by_limit = page.limit.is_some_and(|l| out.scanned_count >= l);
        if stopped_early || cut_by_limit {
            out.last_evaluated_key = last_read.map(|item| {
                schema
                    .attributes()
                    .filter_map(|k| item.get(&k.name).map(|v| (k.name.clone(), v.clone())))
                    .collect()
            });
        }
        if let Output::Items(_) = page.output {
            out.items = Some(items);
        }
        let units = read_units(bytes_read, page.consistent);
        out.consumed_capacity = ConsumedCapacity::report(page.capacity, table_name, units, false);
        Ok(out)
    }
}

/// The key range of one parallel-scan segment: an equal share of the partition-hash space.
fn segment_range(table_id: u64, segment: u64, total: u64) -> KeyRange {
    let space = 1u64 << 32;
    let bound = |s: u64| -> Vec<u8> {
        let mut key = keys::table_prefix(table_id).to_vec();
        key.extend_from_slice(&((s * space / total) as u32).to_be_bytes());
        key
    };
    let start = Bound::Included(bound(segment));
    let end = if segment + 1 == total {
        KeyRange::prefix(&keys::table_prefix(table_id)).end
    } else {
        Bound::Excluded(bound(segment + 1))
    };
    KeyRange { start, end }
}

/// The keys of one partition that a sort-key condition can match: the encoding preserves
/// order, and a string or binary prefix is a prefix of the escaped bytes, terminator
/// aside. Items are still checked one by one with [`sort_matches`].
fn sort_range(partition: &[u8], condition: &SortCondition) -> Result<KeyRange> {
    let key = |value: &AttributeValue| -> Result<Vec<u8>> {
        let mut out = partition.to_vec();
        kura_model::keycode::encode_key_value(value, &mut out)
            .map_err(|e| EngineError::validation(e.to_string()))?;
        Ok(out)
    };
    let whole = KeyRange::prefix(partition);
    Ok(match condition {
        SortCondition::Compare(op, v) => {
            let k = key(v)?;
            match op {
                Comparator::Eq => KeyRange {
                    start: Bound::Included(k.clone()),
                    end: Bound::Included(k),
                },
                Comparator::Gt => KeyRange {
                    start: Bound::Excluded(k),
                    ..whole
                },
                Comparator::Ge => KeyRange {
                    start: Bound::Included(k),
                    ..whole
                },
                Comparator::Lt => KeyRange {
                    end: Bound::Excluded(k),
                    ..whole
                },
                Comparator::Le => KeyRange {
                    end: Bound::Included(k),
                    ..whole
                },
                Comparator::Ne => whole,
            }
        }
        SortCondition::Between(lo, hi) => KeyRange {
            start: Bound::Included(key(lo)?),
            end: Bound::Included(key(hi)?),
        },
        SortCondition::BeginsWith(p) => {
            let mut k = key(p)?;
            // Drop the two-byte terminator of the string or binary encoding.
            k.truncate(k.len().saturating_sub(2).max(partition.len()));
            KeyRange::prefix(&k)
        }
    })
}

fn sort_matches(condition: &SortCondition, value: &AttributeValue) -> bool {
    use kura_expr::eval::compare::order;
    use std::cmp::Ordering::*;
    match condition {
        SortCondition::Compare(op, bound) => order(value, bound).is_some_and(|o| match op {
            Comparator::Eq => o == Equal,
            Comparator::Lt => o == Less,
            Comparator::Le => o != Greater,
            Comparator::Gt => o == Greater,
            Comparator::Ge => o != Less,
            Comparator::Ne => o != Equal,
        }),
        SortCondition::Between(lo, hi) => {
            order(value, lo).is_some_and(|o| o != Less)
                && order(value, hi).is_some_and(|o| o != Greater)
        }
        SortCondition::BeginsWith(prefix) => match (value, prefix) {
            (AttributeValue::S(v), AttributeValue::S(p)) => v.starts_with(p.as_str()),
            (AttributeValue::B(v), AttributeValue::B(p)) => v.starts_with(p),
            _ => false,
        },
    }
}

fn check_key_value_type(value: &AttributeValue, ty: ScalarType) -> Result<()> {
    if value.value_type() == ty.value_type() {
        Ok(())
    } else {
        Err(EngineError::validation(
            messages::KEY_CONDITION_TYPE_MISMATCH,
        ))
    }
}

fn check_sort_condition_types(condition: &SortCondition, ty: ScalarType) -> Result<()> {
    match condition {
        SortCondition::Compare(_, v) => check_key_value_type(v, ty),
        SortCondition::Between(lo, hi) => {
            check_key_value_type(lo, ty)?;
            check_key_value_type(hi, ty)
        }
        SortCondition::BeginsWith(v) => {
            if ty == ScalarType::N {
                return Err(EngineError::validation(messages::invalid_expression(
                    "KeyConditionExpression",
                    &messages::function_operand_type("begins_with", "N"),
                )));
            }
            check_key_value_type(v, ty)
        }
    }
}
