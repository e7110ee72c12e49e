//! What the design advisor learns from an item write that only the write job can see. The
//! item a write replaces is read inside the group commit and gone once the job returns, so
//! the job looks ([`PutEvidence::of`]) and hands what it saw back to the request, which
//! counts it ([`PutEvidence::count`]) on its own task. Counting in the job would be wrong:
//! the console's requests are counted apart by a task-local (`counters::counted_apart`),
//! and a durable write job runs on the writer thread, where that task-local is not set.

use kura_expr::eval::compare::items_equal;
use kura_model::Item;

use crate::catalog::TableRecord;
use crate::counters::traffic::Traffic;

/// A PutItem's evidence: what a replacement dropped, and whether it changed anything.
#[derive(Debug, Default)]
pub(crate) struct PutEvidence {
    /// An attribute the old item had and the new one lacks (`api.put-drops-attributes`:
    /// a partial update written as a whole item).
    dropped: Option<String>,
    /// The new item equals the old one on a table with a stream, where it writes no
    /// stream record (`streams.noop-put`); compared only there.
    unchanged: bool,
}

impl PutEvidence {
    /// Looks at the replacement of `old` (if there is one) by `new` on `table`, before the
    /// write moves `new` away.
    pub(crate) fn of(table: &TableRecord, old: Option<&Item>, new: &Item) -> PutEvidence {
        let streamed = table.stream.as_ref().is_some_and(|s| s.enabled);
        PutEvidence::on(streamed, old, new)
    }

    /// [`PutEvidence::of`] on a table whose stream is on or not.
    fn on(streamed: bool, old: Option<&Item>, new: &Item) -> PutEvidence {
        let Some(old) = old else {
            return PutEvidence::default();
        };
        PutEvidence {
            dropped: old.keys().find(|name| !new.contains_key(*name)).cloned(),
            unchanged: streamed && items_equal(old, new),
        }
    }

    /// Counts what was seen on the table's traffic figures.
    pub(crate) fn count(self, traffic: &Traffic) {
        if let Some(name) = self.dropped {
            traffic.dropped(|| name);
        }
        if self.unchanged {
            traffic.unchanged_put();
        }
    }
}

#[cfg(test)]
mod tests {
    use kura_model::AttributeValue;

    use super::*;

    fn item(pairs: &[(&str, &str)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned())))
            .collect()
    }

    #[test]
    fn a_replacement_shows_what_it_dropped_and_whether_it_changed_anything() {
        let old = item(&[("pk", "a"), ("v", "1")]);
        let bare = item(&[("pk", "a")]);
        let created = PutEvidence::on(true, None, &old);
        assert_eq!((created.dropped, created.unchanged), (None, false));
        let same = PutEvidence::on(true, Some(&old), &old);
        assert_eq!((same.dropped, same.unchanged), (None, true));
        let no_stream = PutEvidence::on(false, Some(&old), &old);
        assert!(!no_stream.unchanged, "compared only where a stream is on");
        let dropping = PutEvidence::on(true, Some(&old), &bare);
        assert_eq!(
            (dropping.dropped.as_deref(), dropping.unchanged),
            (Some("v"), false)
        );
    }
}
