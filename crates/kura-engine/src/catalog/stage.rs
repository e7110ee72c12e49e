//! How a table record changes: staged into a write and published after its commit. Apart
//! from the records themselves, so the catalog stays below the writer that persists it.

use std::sync::Arc;

use super::{Catalog, TableRecord};
use crate::error::EngineError;
use crate::writer::WriteContext;
use kura_store::Space;

impl Catalog {
    /// Stages `record` as its table's entry in this write and publishes it once the write
    /// commits. This is the one way a table record changes, so the published view never
    /// runs ahead of the disk and never misses a committed change.
    pub fn stage(
        self: &Arc<Self>,
        w: &mut WriteContext<'_>,
        record: Arc<TableRecord>,
    ) -> Result<(), EngineError> {
        w.put(
            Space::Catalog,
            record.name.clone().into_bytes(),
            record.encode()?,
        );
        let catalog = self.clone();
        w.after_commit(move || catalog.publish(&record.name.clone(), Some(record)));
        Ok(())
    }

    /// Stages the removal of table `name`'s entry and unpublishes it once the write commits.
    pub fn stage_removal(self: &Arc<Self>, w: &mut WriteContext<'_>, name: &str) {
        w.delete(Space::Catalog, name.as_bytes().to_vec());
        let catalog = self.clone();
        let name = name.to_owned();
        w.after_commit(move || catalog.publish(&name, None));
    }
}
