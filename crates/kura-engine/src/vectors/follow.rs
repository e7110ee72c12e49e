//! The write path's part: every item change on a table with vector indexes passes here.

use std::collections::BTreeMap;

use super::live::entry_of;
use crate::catalog::{TableRecord, VectorIndexRecord};
use crate::error::Result;
use crate::writer::WriteContext;
use kura_model::size::value_size;
use kura_model::{AttributeValue, Item};

/// Checks the vector indexes' attributes of a written item (DynamoDB rejects a vector of
/// the wrong shape or a partition value of the wrong type) and, once the write is
/// committed, puts the item's entries into the indexes (or takes them out). Returns the
/// `VectorWriteRequestBytes` of each index whose view of the item changed.
pub(crate) fn follow_write(
    w: &mut WriteContext<'_>,
    table: &TableRecord,
    storage_key: &[u8],
    old: Option<&Item>,
    new: Option<&Item>,
) -> Result<BTreeMap<String, f64>> {
    let mut changes = Vec::with_capacity(table.vector_indexes.len());
    let mut written = BTreeMap::new();
    for index in &table.vector_indexes {
        let entry = match new {
            Some(item) => entry_of(index, item)?,
            None => None,
        };
        // An old item that never fitted the index (written before it existed) is not in it.
        let old_entry = old.and_then(|item| entry_of(index, item).ok().flatten());
        // The item as the index holds it, before and after (None: not in the index).
        let old_in = old.filter(|_| old_entry.is_some());
        let new_in = new.filter(|_| entry.is_some());
        let changed = match (old_in, new_in) {
            (Some(before), Some(after)) => {
                !view(table, index, before).eq(view(table, index, after))
            }
            (before, after) => before.is_some() || after.is_some(),
        };
        if changed && let Some(item) = new_in.or(old_in) {
            written.insert(index.name.clone(), write_bytes(table, index, item));
        }
        if old_entry != entry {
            changes.push((index.clone(), entry));
        }
    }
    if !changes.is_empty() {
        let vectors = w.vectors().clone();
        let (table_id, key) = (table.id, storage_key.to_vec());
        w.after_commit(move || {
            for (index, entry) in changes {
                vectors.get_or_add(table_id, &index).apply(&key, entry);
            }
        });
    }
    Ok(written)
}

/// What the index holds of an item: the attributes it projects, the vector included, in
/// name order (borrowed: a write compares two of them without copying a vector).
fn view<'a>(
    table: &'a TableRecord,
    index: &'a VectorIndexRecord,
    item: &'a Item,
) -> impl Iterator<Item = (&'a String, &'a AttributeValue)> {
    item.iter()
        .filter(move |(name, _)| index.projects(table, name, true))
}

/// `VectorWriteRequestBytes` of replicating `item` to the index, by Kura's model (AWS
/// documents only that it scales with the data replicated): the vector as f32s
/// (`dimensions × 4`) plus the other projected attributes by DynamoDB's item size rules.
fn write_bytes(table: &TableRecord, index: &VectorIndexRecord, item: &Item) -> f64 {
    let rest: usize = view(table, index, item)
        .filter(|(name, _)| **name != index.attribute)
        .map(|(name, value)| name.len() + value_size(value))
        .sum();
    (index.dimensions as usize * 4 + rest) as f64
}
