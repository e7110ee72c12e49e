//! The checks on how items are written (docs/advisor.md): PutItems that drop attributes,
//! creates without a guard, writes refused for an index key value, history appended to
//! collections, items deleted by hand where TTL would, writes a stream switch lost, and
//! writes two regions of a global table made to one item at once.

use kura_engine::counters::TrafficSnapshot;

use super::Check;

/// Writes of one kind below this many are too few to say a habit (Kura's threshold, as
/// for `api.read-modify-write`).
const HABIT: u64 = 10;

impl Check<'_> {
    pub(super) fn writes(&mut self, t: &TrafficSnapshot) {
        // Every one is a write some client was told succeeded and no replica kept.
        if t.replica_conflicts > 0 {
            self.found(
                "availability.global-write-conflicts",
                None,
                format!(
                    "{} writes replicated to this replica were dropped because the same item had been written here later, before they arrived (last writer wins), e.g. {}",
                    t.replica_conflicts,
                    t.replica_conflict_example.as_deref().unwrap_or_default()
                ),
            );
        }
        // PutItem used for a partial update: the attributes it left out are gone.
        if t.dropping_puts >= HABIT && t.dropping_puts * 10 >= t.replacing_puts {
            self.found(
                "api.put-drops-attributes",
                None,
                format!(
                    "{} of {} PutItems that replaced an item left out attributes it had (e.g. {:?})",
                    t.dropping_puts,
                    t.replacing_puts,
                    t.dropped_example.as_deref().unwrap_or_default()
                ),
            );
        }
        // Creates with no guard, as a habit: at least a tenth of the creates. One guarded
        // PutItem does not excuse a thousand unguarded ones.
        if t.unguarded_creates >= HABIT && t.unguarded_creates * 10 >= t.creating_puts {
            self.found(
                "api.create-without-condition",
                None,
                format!(
                    "{} of {} PutItems that created an item had no ConditionExpression ({} PutItems on the table had one)",
                    t.unguarded_creates, t.creating_puts, t.conditional_puts
                ),
            );
        }
        if t.appending_updates >= HABIT && t.appending_updates * 10 >= t.updates {
            self.found(
                "types.collection-append",
                None,
                format!(
                    "{} of {} UpdateItems appended to a list (list_append) or added to a set",
                    t.appending_updates, t.updates
                ),
            );
        }
        if t.deletes >= 100 && self.table.ttl_attribute.is_none() {
            self.found(
                "ttl.deletes-instead-of-ttl",
                None,
                format!(
                    "{} deletes (DeleteItem and BatchWriteItem's DeleteRequest) on a table without TTL",
                    t.deletes
                ),
            );
        }
        if t.unchanged_puts >= HABIT {
            self.found(
                "streams.noop-put",
                None,
                format!(
                    "{} PutItems replaced an item by an equal one: the stream has no record of them",
                    t.unchanged_puts
                ),
            );
        }
        if t.switch_gaps > 0 {
            self.found(
                "streams.switch-gap-writes",
                None,
                format!(
                    "{} write(s) while the stream was off between turning it off and on again ({} switch(es)): no stream record has them",
                    t.switch_gap_writes, t.switch_gaps
                ),
            );
        }
        if t.index_key_refusals > 0 {
            self.found(
                "index.key-value-refused",
                None,
                format!(
                    "{} write(s) refused for an index key value, e.g. {:?}",
                    t.index_key_refusals,
                    t.index_key_example.as_deref().unwrap_or_default()
                ),
            );
        }
    }
}
