//! Filling vector indexes: every index when the engine opens, and an index UpdateTable
//! adds (which then leaves its CREATING state through the writer, like a GSI's backfill).

use std::sync::Arc;

use super::live::{Vectors, fill_in_background};
use crate::Engine;
use crate::catalog::{Catalog, TableRecord};
use crate::writer::Writer;

impl Engine {
    /// Registers every table's vector indexes and fills them from the items in the
    /// background. An index that was ACTIVE stays so (its searches wait for the fill);
    /// one an UpdateTable was still adding ends its backfill when the fill does.
    pub(crate) fn fill_vector_indexes(&self) {
        for table in self.catalog.all().values() {
            for index in &table.vector_indexes {
                self.start_fill(table, &index.name);
            }
        }
    }

    /// Fills index `name` of `table` (registered now, empty) in the background.
    pub(crate) fn start_fill(&self, table: &TableRecord, name: &str) {
        start_fill(
            &self.vectors,
            self.store.clone(),
            self.writer.clone(),
            self.catalog.clone(),
            table,
            name,
        );
    }
}

/// [`Engine::start_fill`] for an after-commit step, which holds the parts, not the engine.
pub(crate) fn start_fill(
    vectors: &Vectors,
    store: Arc<dyn kura_store::Store>,
    writer: Arc<Writer>,
    catalog: Arc<Catalog>,
    table: &TableRecord,
    name: &str,
) {
    let Some(record) = table.vector_index(name) else {
        return;
    };
    let live = vectors.add(table.id, record, true);
    let (table_name, table_id, index) = (table.name.clone(), table.id, name.to_owned());
    let backfilling = record.backfilling;
    fill_in_background(store, table_id, live, move || {
        if backfilling {
            end_backfill(&writer, &catalog, &table_name, table_id, &index);
        }
    });
}

/// Marks index `index` of the table (if it is still the same table) as filled.
fn end_backfill(writer: &Writer, catalog: &Arc<Catalog>, table: &str, table_id: u64, index: &str) {
    let catalog = catalog.clone();
    let (table, index) = (table.to_owned(), index.to_owned());
    let ended = writer.submit_blocking(true, move |w| {
        let Some(current) = catalog.get(&table).filter(|t| t.id == table_id) else {
            return Ok(());
        };
        let mut next = current.as_ref().clone();
        let Some(record) = next.vector_indexes.iter_mut().find(|v| v.name == index) else {
            return Ok(());
        };
        record.backfilling = false;
        catalog.stage(w, Arc::new(next))
    });
    if let Err(e) = ended {
        tracing::error!(error = %e, "could not end a vector index backfill");
    }
}
