//! DeleteTable.

use std::collections::BTreeMap;

use kura_model::constraint::Constraints;
use kura_model::messages;

use super::describe_deleting;
use super::stats::Stats;
use crate::api::*;
use crate::error::{EngineError, Result};
use crate::keys::{self, TableStats};
use crate::purge::PurgeTarget;
use crate::streams::specification as stream_spec;
use crate::{Engine, RequestContext};
use kura_store::Space;

impl Engine {
    pub async fn delete_table(
        &self,
        ctx: &RequestContext,
        input: DeleteTableInput,
    ) -> Result<DeleteTableOutput> {
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        c.finish()?;
        let name = input.table_name.unwrap_or_default();
        let catalog = self.catalog.clone();
        let purger = self.purger.clone();
        let (record, stats) = self
            .writer
            .submit(true, move |w| {
                let record = catalog.get(&name).ok_or_else(|| {
                    EngineError::ResourceNotFound(messages::table_not_found(&name))
                })?;
                if record.deletion_protection {
                    return Err(EngineError::validation(messages::DELETION_PROTECTED));
                }
                // An MRSC table's replicas are deleted together, by UpdateTable.
                if crate::replication::status::strong(&record).is_some() {
                    return Err(EngineError::validation(
                        messages::replicas::STRONG_DELETE_ONE,
                    ));
                }
                if record.creating() {
                    return Err(EngineError::ResourceInUse(
                        messages::backups::table_restoring(&name),
                    ));
                }
                let stats = Stats {
                    table: TableStats::read(w.get(Space::Meta, &keys::stats_key(record.id))?)?,
                    indexes: BTreeMap::new(),
                    vectors: BTreeMap::new(),
                };
                // The stream outlives its table: readable, as DISABLED, for 24 hours.
                stream_spec::disable(w, &mut record.as_ref().clone())?;
                catalog.stage_removal(w, &name);
                w.delete(Space::Meta, keys::stats_key(record.id));
                for index in &record.indexes {
                    w.delete(Space::Meta, keys::index_stats_key(record.id, index.number));
                }
                if record.history_from.is_some() {
                    // Backups or point-in-time recovery still read the table's items and
                    // history: keep them until nothing does (`backups::retention`).
                    crate::backups::retire(w, &catalog, &record)?;
                    return Ok((record, stats));
                }
                // Items go in the background: the table id is never reused, so leftovers
                // are invisible until the purge finishes.
                w.put(Space::Meta, keys::purge_key(record.id), Vec::new());
                let id = record.id;
                w.after_commit(move || purger.submit(PurgeTarget::Table(id)));
                Ok((record, stats))
            })
            .await?;
        tracing::info!(table = %record.name, id = record.id, "deleted table");
        self.vectors.remove(record.id, None);
        self.counters.forget(&record.name);
        Ok(CreateTableOutput {
            table_description: describe_deleting(ctx, &record, &stats),
        })
    }
}
