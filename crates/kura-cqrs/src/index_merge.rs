//! Read-your-writes on an index page, pure: a user's own recent versions merged into a
//! page of [`crate::DataService::query_index`]. A newer version of a row on the page
//! replaces it when it still matches the query, and takes it off the page when it no
//! longer does (its status moved on, say); a version the page's range covers and the
//! data table does not have yet is inserted in the index's sort order.
//!
//! Matching is DynamoDB's: key attributes equal by type and value, the sort condition
//! on strings by bytes and on numbers by value (exactly, not through floating point).

use std::cmp::Ordering;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::attributes::canonical_number;
use crate::command::CommandModel;
use crate::condition::SkCondition;
use crate::rows::Item;

/// What an index query asks of a row's key attributes.
#[derive(Debug, Clone, Default)]
pub struct IndexMatch {
    /// Attributes that must equal a value: the partition key's, and leading sort keys'.
    pub equal: Vec<(String, AttributeValue)>,
    /// The condition on the next sort key attribute, with its operands typed.
    pub range: Option<(String, SkCondition, Vec<AttributeValue>)>,
    /// The index's sort key attributes in order (the page's order).
    pub sort: Vec<String>,
    pub descending: bool,
    pub exclude_deleted: bool,
}

/// The page's range: after the cursor it started from, up to its own cursor.
#[derive(Debug, Clone, Copy, Default)]
pub struct IndexBounds<'a> {
    pub after: Option<&'a Item>,
    pub until: Option<&'a Item>,
}

impl IndexMatch {
    /// Whether a row (as its item) is in the query's result: in the index at all (every
    /// key attribute present), in the partition, and meeting the sort condition.
    pub fn matches(&self, item: &Item) -> bool {
        let indexed = self.sort.iter().all(|name| item.contains_key(name));
        let equal = indexed
            && self
                .equal
                .iter()
                .all(|(name, value)| item.get(name).is_some_and(|v| same(v, value)));
        equal
            && self
                .range
                .as_ref()
                .is_none_or(|(name, condition, operands)| {
                    item.get(name)
                        .is_some_and(|value| satisfies(value, condition, operands))
                })
    }

    /// The row's place in the index: its sort key values in order.
    fn place<'a>(&self, item: &'a Item) -> Vec<Option<&'a AttributeValue>> {
        self.sort.iter().map(|name| item.get(name)).collect()
    }

    fn order(&self, a: &Item, b: &Item) -> Ordering {
        let order = compare_places(&self.place(a), &self.place(b));
        if self.descending {
            order.reverse()
        } else {
            order
        }
    }

    /// Whether a row falls in the page's range (strictly after where it started, up to
    /// where it ended). An index without a sort key has no order to place a row by: a
    /// new row goes on the first page only.
    fn covers(&self, bounds: &IndexBounds<'_>, item: &Item) -> bool {
        let after = bounds
            .after
            .is_none_or(|after| self.order(after, item) == Ordering::Less);
        let until = bounds
            .until
            .is_none_or(|until| self.order(item, until) != Ordering::Greater);
        after && until
    }
}

/// `page` with the user's `recent` versions merged in. `unapplied(row)` says whether a
/// recent version is newer than the data table's row of that entity (the caller reads
/// it): one the table has moved past must not come back through the index, nor replace
/// a row an index that lags still shows.
pub fn merge_index_page(
    recent: &[CommandModel],
    query: &IndexMatch,
    bounds: &IndexBounds<'_>,
    page: Vec<CommandModel>,
    unapplied: impl Fn(&CommandModel) -> bool,
) -> Vec<CommandModel> {
    let mut rows: Vec<(Item, CommandModel)> = page.into_iter().map(|r| (r.to_item(), r)).collect();
    for mine in recent {
        let item = mine.to_item();
        let fits = query.matches(&item);
        match rows
            .iter()
            .position(|(_, r)| r.pk == mine.pk && r.sk == mine.sk)
        {
            Some(at) if rows[at].1.version < mine.version && unapplied(mine) => {
                // Replaced where it still belongs; otherwise it leaves this page (for
                // another page of this query, or for another query).
                if fits && query.covers(bounds, &item) {
                    rows[at] = (item, mine.clone());
                } else {
                    rows.remove(at);
                }
            }
            Some(_) => {}
            None if fits && query.covers(bounds, &item) && unapplied(mine) => {
                rows.push((item, mine.clone()));
            }
            None => {}
        }
    }
    if query.exclude_deleted {
        rows.retain(|(_, r)| !r.is_deleted);
    }
    // Stable: rows with equal sort keys keep the order the index gave them.
    rows.sort_by(|(a, _), (b, _)| query.order(a, b));
    rows.into_iter().map(|(_, r)| r).collect()
}

fn compare_places(a: &[Option<&AttributeValue>], b: &[Option<&AttributeValue>]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let order = match (x, y) {
            (Some(x), Some(y)) => compare(x, y),
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

fn same(a: &AttributeValue, b: &AttributeValue) -> bool {
    compare(a, b) == Ordering::Equal && std::mem::discriminant(a) == std::mem::discriminant(b)
}

fn satisfies(value: &AttributeValue, condition: &SkCondition, operands: &[AttributeValue]) -> bool {
    let at = |i: usize| operands.get(i).map(|o| compare(value, o));
    match condition {
        SkCondition::BeginsWith(prefix) => {
            matches!(value, AttributeValue::S(s) if s.starts_with(prefix.as_str()))
        }
        SkCondition::Between(..) => {
            at(0).is_some_and(Ordering::is_ge) && at(1).is_some_and(Ordering::is_le)
        }
        SkCondition::Eq(_) => at(0) == Some(Ordering::Equal),
        SkCondition::Lt(_) => at(0) == Some(Ordering::Less),
        SkCondition::Le(_) => at(0).is_some_and(Ordering::is_le),
        SkCondition::Gt(_) => at(0) == Some(Ordering::Greater),
        SkCondition::Ge(_) => at(0).is_some_and(Ordering::is_ge),
    }
}

/// DynamoDB's order of two key values: strings and binary by bytes, numbers by value.
/// Values of different types do not meet in one key attribute; they order by type.
pub fn compare(a: &AttributeValue, b: &AttributeValue) -> Ordering {
    match (a, b) {
        (AttributeValue::S(x), AttributeValue::S(y)) => x.as_bytes().cmp(y.as_bytes()),
        (AttributeValue::N(x), AttributeValue::N(y)) => compare_numbers(x, y),
        (AttributeValue::B(x), AttributeValue::B(y)) => x.as_ref().cmp(y.as_ref()),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn rank(value: &AttributeValue) -> u8 {
    match value {
        AttributeValue::S(_) => 0,
        AttributeValue::N(_) => 1,
        AttributeValue::B(_) => 2,
        _ => 3,
    }
}

/// Two DynamoDB numbers by value, exactly (their canonical texts compared digit by
/// digit); a text that is no number orders as text.
pub fn compare_numbers(a: &str, b: &str) -> Ordering {
    let (Some(x), Some(y)) = (canonical_number(a), canonical_number(b)) else {
        return a.cmp(b);
    };
    let sign = |t: &str| match t {
        "0" => 0,
        t if t.starts_with('-') => -1,
        _ => 1,
    };
    let (sx, sy) = (sign(&x), sign(&y));
    if sx != sy {
        return sx.cmp(&sy);
    }
    let magnitude = |t: &str| {
        let t = t.trim_start_matches('-');
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        (int.len(), int.to_owned(), frac.to_owned())
    };
    let order = magnitude(&x).cmp(&magnitude(&y));
    if sx < 0 { order.reverse() } else { order }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{CommandInput, Invoker};

    #[test]
    fn numbers_compare_by_value_exactly() {
        let cases = [
            ("2", "10", Ordering::Less),
            ("-2", "-10", Ordering::Greater),
            ("0.5", "0.45", Ordering::Greater),
            ("1e2", "100", Ordering::Equal),
            ("-0", "0", Ordering::Equal),
            ("-1", "0", Ordering::Less),
            (
                "12345678901234567890123456789012345678",
                "12345678901234567890123456789012345679",
                Ordering::Less,
            ),
            ("10.01", "10.1", Ordering::Less),
        ];
        for (a, b, expected) in cases {
            assert_eq!(compare_numbers(a, b), expected, "{a} vs {b}");
            assert_eq!(compare_numbers(b, a), expected.reverse(), "{b} vs {a}");
        }
    }

    /// A row of the orders-by-status index: `gsiStatus` = status, `gsiDate` = date.
    fn row(id: &str, version: i64, status: &str, date: &str) -> CommandModel {
        let input = CommandInput::new("ORDER#t1", id, version);
        let mut row = CommandModel::from_input(&input, version, &Invoker::default(), None, "t");
        row.sk = id.to_owned();
        row.index_keys
            .insert("gsiStatus".into(), AttributeValue::S(status.into()));
        row.index_keys
            .insert("gsiDate".into(), AttributeValue::S(date.into()));
        row
    }

    fn shipped() -> IndexMatch {
        IndexMatch {
            equal: vec![("gsiStatus".into(), AttributeValue::S("shipped".into()))],
            range: Some((
                "gsiDate".into(),
                SkCondition::Ge("2026-03".into()),
                vec![AttributeValue::S("2026-03".into())],
            )),
            sort: vec!["gsiDate".into()],
            ..IndexMatch::default()
        }
    }

    fn ids(rows: &[CommandModel]) -> Vec<(String, i64)> {
        rows.iter()
            .map(|r| (r.sk.clone(), r.version.get()))
            .collect()
    }

    #[test]
    fn newer_versions_replace_leave_or_enter_in_index_order() {
        let page = vec![
            row("a", 1, "shipped", "2026-03-01"),
            row("b", 1, "shipped", "2026-03-05"),
            row("c", 2, "shipped", "2026-03-09"),
        ];
        let recent = [
            row("a", 2, "shipped", "2026-03-07"), // newer, still shipped: moves
            row("b", 2, "cancelled", "2026-03-05"), // newer, no longer shipped: leaves
            row("c", 1, "shipped", "2026-03-02"), // older than the index's: ignored
            row("d", 1, "shipped", "2026-03-03"), // new: enters in order
            row("e", 1, "shipped", "2026-02-01"), // outside the condition
            row("f", 1, "open", "2026-03-04"),    // another partition
        ];
        let merged = merge_index_page(&recent, &shipped(), &IndexBounds::default(), page, |_| true);
        assert_eq!(
            ids(&merged),
            [("d".into(), 1), ("a".into(), 2), ("c".into(), 2)]
        );
    }

    #[test]
    fn a_row_whose_sort_key_moved_leaves_for_its_own_page() {
        let until = row("b", 1, "shipped", "2026-03-02").to_item();
        let first = IndexBounds {
            after: None,
            until: Some(&until),
        };
        let page = vec![
            row("a", 1, "shipped", "2026-03-01"),
            row("b", 1, "shipped", "2026-03-02"),
        ];
        let recent = [row("a", 2, "shipped", "2026-03-09")];
        let merged = merge_index_page(&recent, &shipped(), &first, page.clone(), |_| true);
        assert_eq!(
            ids(&merged),
            [("b".into(), 1)],
            "not on the first page any more"
        );
        let last = IndexBounds {
            after: Some(&until),
            until: None,
        };
        let merged = merge_index_page(&recent, &shipped(), &last, Vec::new(), |_| true);
        assert_eq!(
            ids(&merged),
            [("a".into(), 2)],
            "on the page its date puts it"
        );
        // The data table is past the recorded version: the page stays as the index has it.
        let merged = merge_index_page(&recent, &shipped(), &first, page, |_| false);
        assert_eq!(ids(&merged), [("a".into(), 1), ("b".into(), 1)]);
    }

    #[test]
    fn only_the_pages_range_and_unapplied_versions_enter() {
        let after = row("x", 1, "shipped", "2026-03-02").to_item();
        let until = row("y", 1, "shipped", "2026-03-06").to_item();
        let bounds = IndexBounds {
            after: Some(&after),
            until: Some(&until),
        };
        let recent = [
            row("a", 1, "shipped", "2026-03-01"), // on an earlier page
            row("b", 1, "shipped", "2026-03-04"), // this page's range
            row("c", 1, "shipped", "2026-03-08"), // a later page
            row("d", 3, "shipped", "2026-03-05"), // applied already (the table is newer)
        ];
        let merged = merge_index_page(&recent, &shipped(), &bounds, Vec::new(), |r| r.sk != "d");
        assert_eq!(ids(&merged), [("b".into(), 1)]);
        let mut descending = shipped();
        descending.descending = true;
        let rows = vec![
            row("z", 1, "shipped", "2026-03-09"),
            row("y", 1, "shipped", "2026-03-01"),
        ];
        let merged = merge_index_page(&recent, &descending, &IndexBounds::default(), rows, |_| {
            true
        });
        assert_eq!(
            ids(&merged)
                .iter()
                .map(|(id, _)| id.as_str())
                .collect::<Vec<_>>(),
            ["z", "c", "d", "b", "y", "a"]
        );
    }
}
