//! The write path's part: every item change on a table with vector indexes passes here.

use super::live::entry_of;
use crate::catalog::TableRecord;
use crate::error::Result;
use crate::writer::WriteContext;
use kura_model::Item;

/// Checks the vector indexes' attributes of a written item (DynamoDB rejects a vector of
/// the wrong shape or a partition value of the wrong type) and, once the write is
/// committed, puts the item's entries into the indexes (or takes them out).
pub(crate) fn follow_write(
    w: &mut WriteContext<'_>,
    table: &TableRecord,
    storage_key: &[u8],
    new: Option<&Item>,
) -> Result<()> {
    let mut changes = Vec::with_capacity(table.vector_indexes.len());
    for index in &table.vector_indexes {
        let entry = match new {
            Some(item) => entry_of(index, item)?,
            None => None,
        };
        changes.push((index.clone(), entry));
    }
    let vectors = w.vectors().clone();
    let (table_id, key) = (table.id, storage_key.to_vec());
    w.after_commit(move || {
        for (index, entry) in changes {
            vectors.get_or_add(table_id, &index).apply(&key, entry);
        }
    });
    Ok(())
}
