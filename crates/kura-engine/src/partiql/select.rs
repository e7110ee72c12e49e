//! SELECT: a Query of each partition its WHERE clause fixes (by `=` or `IN` on the
//! partition key, narrowed by one sort-key condition when there is one), otherwise a Scan.
//! The Query or Scan reads the items (so Limit, the 1 MB page, ConsistentRead and capacity
//! are theirs); the whole WHERE clause then filters them and the projection shapes them,
//! through the same evaluator as FilterExpression and ProjectionExpression.

use kura_expr::ast::{Comparator, Condition, Operand, Path};
use kura_expr::eval::compare::{equal, order};
use kura_expr::eval::condition::evaluate;
use kura_expr::partiql::lower::{LoweredSelect, conjuncts, equality};
use kura_expr::partiql::projection::select_item;
use kura_expr::print::Joint;
use kura_model::messages::partiql as msg;
use kura_model::size::item_size;
use kura_model::wire::AttributeValueJson;
use kura_model::{AttributeValue, KeyAttribute, KeySchema};

use super::convert::{consumed_of, values_json};
use super::next_token;
use crate::Engine;
use crate::api::*;
use crate::catalog::IndexKind;
use crate::error::{EngineError, Result};
use crate::transactions::tokens::Fingerprint;

/// Data one page reads at most, as a Query or Scan page.
const PAGE_BYTES: usize = 1024 * 1024;

/// How the caller pages through a SELECT.
pub(crate) struct Paging {
    pub fingerprint: u64,
    pub consistent: bool,
    pub limit: Option<usize>,
    pub next_token: Option<String>,
}

/// The fingerprint a NextToken carries: the statement and its parameters.
pub(crate) fn fingerprint(statement: &str, parameters: &Option<Vec<AttributeValueJson>>) -> u64 {
    Fingerprint::of(&format!("{statement}|{parameters:?}")).0
}

/// Whether `value` can be a value of key attribute `key`.
fn fits(key: &KeyAttribute, value: &AttributeValue) -> bool {
    value.value_type() == key.ty.value_type()
}

/// The partition key values the WHERE clause fixes: one `=`, or an `IN` of values.
fn partitions(filter: &Condition, hash: &KeyAttribute) -> Option<Vec<AttributeValue>> {
    for c in conjuncts(filter) {
        if let Some((name, value)) = equality(c)
            && name == hash.name
            && fits(hash, value)
        {
            return Some(vec![value.clone()]);
        }
        if let Condition::In(Operand::Path(p), list) = c
            && p.0.len() == 1
            && p.top() == hash.name
        {
            let mut values: Vec<AttributeValue> = Vec::new();
            for o in list {
                match o {
                    Operand::Value(v) if fits(hash, v) => {
                        if !values.iter().any(|x| equal(x, v)) {
                            values.push(v.clone());
                        }
                    }
                    Operand::Value(_) => {}
                    _ => return None,
                }
            }
            return Some(values);
        }
    }
    None
}

/// One condition on the sort key that a key condition can carry, if the WHERE clause has
/// one among its top-level conjuncts.
fn sort_condition(filter: &Condition, range: &KeyAttribute) -> Option<Condition> {
    let on_range =
        |o: &Operand| matches!(o, Operand::Path(p) if p.0.len() == 1 && p.top() == range.name);
    let value = |o: &Operand| matches!(o, Operand::Value(v) if fits(range, v));
    conjuncts(filter).into_iter().find_map(|c| match c {
        Condition::Compare(op, a, b) if *op != Comparator::Ne && on_range(a) && value(b) => {
            Some(c.clone())
        }
        Condition::Compare(op, a, b) if *op != Comparator::Ne && value(a) && on_range(b) => {
            let flipped = match op {
                Comparator::Lt => Comparator::Gt,
                Comparator::Le => Comparator::Ge,
                Comparator::Gt => Comparator::Lt,
                Comparator::Ge => Comparator::Le,
                other => *other,
            };
            Some(Condition::Compare(flipped, b.clone(), a.clone()))
        }
        Condition::Between(a, lo, hi) if on_range(a) && value(lo) && value(hi) => Some(c.clone()),
        Condition::BeginsWith(a, b)
            if on_range(a) && value(b) && range.ty != kura_model::ScalarType::N =>
        {
            Some(c.clone())
        }
        _ => None,
    })
}

/// What a SELECT reads.
struct Plan {
    /// `None`: a Scan.
    partitions: Option<Vec<AttributeValue>>,
    sort: Option<Condition>,
    forward: bool,
}

impl Engine {
    fn plan(&self, s: &LoweredSelect, consistent: bool) -> Result<Plan> {
        let table = self.table_for_items(&s.source.table)?;
        if let Some(name) = &s.source.index
            && table.vector_index(name).is_some()
        {
            return Err(EngineError::validation(
                kura_model::messages::vectors::SCAN_NOT_SUPPORTED,
            ));
        }
        let schema: KeySchema = match &s.source.index {
            None => table.key_schema.clone(),
            Some(name) => match table.index(name) {
                Some(index) => {
                    if index.kind == IndexKind::Global && consistent {
                        return Err(EngineError::validation(msg::GSI_CONSISTENT_READ));
                    }
                    if !index.more_hash.is_empty() {
                        // A multi-attribute partition key: the index is scanned and the
                        // WHERE clause filters it.
                        return Ok(Plan {
                            partitions: None,
                            sort: None,
                            forward: true,
                        });
                    }
                    index.key_schema.clone()
                }
                // The Scan reports the missing index.
                None => {
                    return Ok(Plan {
                        partitions: None,
                        sort: None,
                        forward: true,
                    });
                }
            },
        };
        let partitions = s.filter.as_ref().and_then(|f| partitions(f, &schema.hash));
        let mut forward = true;
        if !s.order_by.is_empty() {
            if s.filter.is_none() {
                return Err(EngineError::validation(msg::ORDER_BY_NEEDS_WHERE));
            }
            let Some(values) = &partitions else {
                return Err(EngineError::validation(msg::ORDER_BY_NEEDS_HASH));
            };
            for (name, _) in &s.order_by {
                if !schema.attributes().any(|k| &k.name == name) {
                    return Err(EngineError::validation(msg::order_by_not_key(name)));
                }
            }
            if values.len() > 1 && !s.order_by.iter().any(|(n, _)| *n == schema.hash.name) {
                return Err(EngineError::validation(msg::ORDER_BY_NEEDS_HASH_WITH_IN));
            }
            if let Some(range) = &schema.range
                && let Some((_, descending)) = s.order_by.iter().find(|(n, _)| *n == range.name)
            {
                forward = !descending;
            }
        }
        let mut partitions = partitions;
        if let (Some(values), Some((_, descending))) = (
            partitions.as_mut(),
            s.order_by.iter().find(|(n, _)| *n == schema.hash.name),
        ) {
            values.sort_by(|a, b| order(a, b).unwrap_or(std::cmp::Ordering::Equal));
            if *descending {
                values.reverse();
            }
        }
        let sort = match (&partitions, &schema.range, &s.filter) {
            (Some(_), Some(range), Some(filter)) => sort_condition(filter, range),
            _ => None,
        };
        Ok(Plan {
            partitions,
            sort,
            forward,
        })
    }

    /// One page of a SELECT's results.
    pub(crate) fn partiql_select(
        &self,
        s: LoweredSelect,
        paging: Paging,
        mode: ReturnConsumedCapacity,
    ) -> Result<ExecuteStatementOutput> {
        let plan = self.plan(&s, paging.consistent)?;
        let (mut partition, mut start) = match &paging.next_token {
            Some(token) => {
                let p = next_token::decode(token, paging.fingerprint)?;
                (p.partition, p.start)
            }
            None => (0, None),
        };
        let mut remaining = paging.limit;
        let mut bytes = 0usize;
        let mut consumed = Consumed::default();
        let mut items = Vec::new();
        let mut stop: Option<(usize, Option<kura_model::Item>)> = None;
        let capacity = Some("INDEXES".to_owned());
        loop {
            let page = match &plan.partitions {
                None => self.scan(ScanInput {
                    table_name: Some(s.source.table.clone()),
                    index_name: s.source.index.clone(),
                    limit: remaining.map(|r| r as i64),
                    consistent_read: Some(paging.consistent),
                    exclusive_start_key: start.take(),
                    return_consumed_capacity: capacity.clone(),
                    ..ScanInput::default()
                })?,
                Some(values) => {
                    let Some(value) = values.get(partition) else {
                        break;
                    };
                    let expressions = self.key_condition(&s, value, plan.sort.as_ref())?;
                    self.query(QueryInput {
                        table_name: Some(s.source.table.clone()),
                        index_name: s.source.index.clone(),
                        limit: remaining.map(|r| r as i64),
                        consistent_read: Some(paging.consistent),
                        scan_index_forward: Some(plan.forward),
                        exclusive_start_key: start.take(),
                        return_consumed_capacity: capacity.clone(),
                        expressions,
                        ..QueryInput::default()
                    })?
                }
            };
            consumed.add(&consumed_of(page.consumed_capacity.as_ref()));
            if let Some(r) = remaining.as_mut() {
                *r = r.saturating_sub(page.scanned_count);
            }
            for item in page.items.unwrap_or_default() {
                bytes += item_size(&item);
                if s.filter.as_ref().is_none_or(|f| evaluate(f, &item)) {
                    items.push(select_item(item, s.projection.as_ref()));
                }
            }
            if let Some(last) = page.last_evaluated_key {
                stop = Some((partition, Some(last)));
                break;
            }
            partition += 1;
            let more = plan
                .partitions
                .as_ref()
                .is_some_and(|values| partition < values.len());
            if !more {
                break;
            }
            if remaining == Some(0) || bytes >= PAGE_BYTES {
                stop = Some((partition, None));
                break;
            }
        }
        let (next_token, last_evaluated_key) = match stop {
            Some((p, last)) => (
                Some(next_token::encode(paging.fingerprint, p, last.as_ref())?),
                last,
            ),
            None => (None, None),
        };
        Ok(ExecuteStatementOutput {
            items,
            next_token,
            consumed_capacity: ConsumedCapacity::report(mode, &s.source.table, &consumed, false),
            last_evaluated_key,
        })
    }

    /// The KeyConditionExpression of one partition's Query.
    fn key_condition(
        &self,
        s: &LoweredSelect,
        value: &AttributeValue,
        sort: Option<&Condition>,
    ) -> Result<ExpressionParams> {
        let table = self.table_for_items(&s.source.table)?;
        let hash = match &s.source.index {
            None => table.key_schema.hash.name.clone(),
            Some(name) => table
                .index(name)
                .map(|i| i.key_schema.hash.name.clone())
                .unwrap_or_default(),
        };
        let eq = Condition::Compare(
            Comparator::Eq,
            Operand::Path(Path::attribute(hash)),
            Operand::Value(value.clone()),
        );
        let condition = match sort {
            Some(sort) => Condition::And(Box::new(eq), Box::new(sort.clone())),
            None => eq,
        };
        let mut joint = Joint::new();
        let text = joint.condition(&condition);
        let printed = joint.finish();
        Ok(ExpressionParams {
            key_condition_expression: Some(text),
            expression_attribute_names: Some(printed.names),
            expression_attribute_values: Some(values_json(printed.values)?),
            ..ExpressionParams::default()
        })
    }
}
