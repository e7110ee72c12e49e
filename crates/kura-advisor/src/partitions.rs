//! How a table's items spread over its partitions (docs/advisor.md):
//! `keys.low-cardinality-partition-key`, a table or GSI partition key with few distinct
//! values or one value holding half the items, in a table large enough for it to matter
//! (read from the sample, so it needs no traffic and no Contributor Insights;
//! `keys.hot-partition` is its traffic-side twin); and `index.lsi-collection-size`, an
//! LSI table's item collection approaching its 10 GB limit.

use std::collections::BTreeMap;

use kura_engine::design::IndexKind;
use kura_model::Item;

use crate::check::Check;

/// Tables with fewer items than this have too few to spread (Kura's threshold).
const LARGE_TABLE: u64 = 1000;
/// Sampled items that must carry the key for its values to say anything: half a full
/// sample, so a sample the 16 MB cap cut short (a few runs of large items) says nothing.
const CARRYING: usize = 500;
/// At most this many distinct values in the sample is low cardinality.
const FEW_VALUES: usize = 5;
/// Distinct partition values counted exactly (one seek each) up to this many.
pub(super) const COUNTED: usize = 1024;
/// At most this many partition values, counted exactly, is low cardinality for a table of
/// [`LARGE_TABLE`] items or more: DynamoDB cannot spread its traffic wider than that
/// (Kura's threshold).
const FEW_PARTITIONS: usize = 16;

/// Distinct partition values by index (None for the table): the count, and whether it is
/// exact (false past [`COUNTED`]).
pub(super) type Distinct = std::collections::HashMap<Option<String>, (usize, bool)>;

/// Among the sampled items that carry `attribute`: its distinct values, the share of the
/// commonest in thousandths, and that value; None when too few items carry it.
fn spread(sample: &[Item], attribute: &str) -> Option<(usize, usize, String)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for item in sample {
        if let Some(value) = item.get(attribute) {
            *counts
                .entry(kura_engine::counters::key_text(value))
                .or_default() += 1;
        }
    }
    let carrying: usize = counts.values().sum();
    if carrying < CARRYING {
        return None;
    }
    let (top, n) = counts.iter().max_by_key(|(_, n)| **n)?;
    Some((counts.len(), n * 1000 / carrying, top.clone()))
}

impl Check<'_> {
    pub(super) fn cardinality(&mut self, sample: &[Item], distinct: &Distinct) {
        let table = self.table;
        let items = table.size.as_ref().map_or(0, |s| s.item_count);
        if items < LARGE_TABLE {
            return;
        }
        let gsis = table
            .indexes
            .iter()
            .filter(|i| i.kind == IndexKind::Global)
            .map(|i| (Some(i.name.as_str()), &i.key_schema.hash.name));
        let keys: Vec<_> = std::iter::once((None, &table.key_schema.hash.name))
            .chain(gsis)
            .collect();
        for (index, attribute) in keys {
            let counted = distinct
                .get(&index.map(str::to_owned))
                .copied()
                .filter(|(_, exact)| *exact);
            if let Some((values, _)) = counted
                && values <= FEW_PARTITIONS
            {
                let on = items / values.max(1) as u64;
                self.found(
                    "keys.low-cardinality-partition-key",
                    index,
                    format!(
                        "partition key {attribute:?} has {values} distinct value(s) for {items} items (counted, not sampled): {on} items a value on average"
                    ),
                );
                continue;
            }
            let Some((sampled, permille, top)) = spread(sample, attribute) else {
                continue;
            };
            if sampled <= FEW_VALUES || permille >= 500 {
                self.found(
                    "keys.low-cardinality-partition-key",
                    index,
                    format!(
                        "partition key {attribute:?} has {sampled} distinct value(s) in a sample of {} of {items} items; {top:?} is on {}.{}% of those that carry it",
                        sample.len(),
                        permille / 10,
                        permille % 10
                    ),
                );
            }
        }
    }

    /// `largest`: the table's largest item collection and the limit, when it has LSIs.
    pub(super) fn collections(&mut self, largest: Option<(u64, u64)>) {
        let Some((bytes, limit)) = largest else {
            return;
        };
        if limit > 0 && bytes * 10 >= limit * 8 {
            self.found(
                "index.lsi-collection-size",
                None,
                format!(
                    "the largest item collection holds {bytes} bytes, {}% of the {limit}-byte limit on a table with LSIs",
                    bytes * 100 / limit
                ),
            );
        }
    }
}
