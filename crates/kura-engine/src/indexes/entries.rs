//! Index entries: what an item puts into each secondary index, and keeping every index in
//! step with its table inside the item write's own batch.
//!
//! An item is in an index exactly when it has all of the index's key attributes (sparse
//! indexes). The entry is keyed by the index key and then the table key, and carries the
//! projected attributes: the table and index keys always, plus everything (ALL) or the
//! listed attributes (INCLUDE).

use kura_model::item_codec::encode_item;
use kura_model::keycode::{self, ScalarType};
use kura_model::limits::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
use kura_model::size::{item_size, value_size};
use kura_model::{AttributeValue, Item, KeyAttribute, PrimaryKey, messages};

use crate::api::{Consumed, write_units};
use crate::catalog::{IndexKind, IndexProjection, IndexRecord, TableRecord, check_index_key_value};
use crate::error::{EngineError, Result};
use crate::keys::{self, TableStats};
use crate::writer::WriteContext;
use kura_store::Space;

/// One item's entry in one index.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IndexEntry {
    pub key: Vec<u8>,
    pub item: Item,
}

impl IndexEntry {
    pub fn size(&self) -> usize {
        item_size(&self.item)
    }
}

/// The value of one index key attribute of `item`: `None` when absent (the item is not in
/// the index), an error when present with the wrong type, empty or too large.
fn index_key_value<'i>(
    index: &IndexRecord,
    attr: &KeyAttribute,
    item: &'i Item,
    max_bytes: usize,
    too_large: &str,
) -> Result<Option<&'i AttributeValue>> {
    let Some(value) = item.get(&attr.name) else {
        return Ok(None);
    };
    check_index_key_value(&index.name, &attr.name, attr.ty, value)?;
    if value_size(value) > max_bytes {
        return Err(EngineError::validation(too_large));
    }
    Ok(Some(value))
}

/// The key of one item in one index: the values of the partition key attributes, then
/// of the sort key attributes, each in KeySchema order (one partition value and at most
/// one sort value, except for a multi-attribute GSI key).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IndexKey {
    pub hash: Vec<AttributeValue>,
    pub range: Vec<AttributeValue>,
}

/// The concatenated order-preserving encodings of `values`. Each encoding is
/// self-delimiting, so the bytes sort as the tuple of values, left to right.
pub(crate) fn encode_values<'v>(
    values: impl IntoIterator<Item = &'v AttributeValue>,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for value in values {
        keycode::encode_key_value(value, &mut out)
            .map_err(|e| EngineError::Internal(e.to_string()))?;
    }
    Ok(out)
}

impl IndexKey {
    /// The `Indexes` key of the entry of the table item `table_key` under this key.
    pub fn entry_key(
        &self,
        table_id: u64,
        index: &IndexRecord,
        table_key: &PrimaryKey,
    ) -> Result<Vec<u8>> {
        Ok(keys::index_entry_key(
            table_id,
            index.number,
            &encode_values(&self.hash)?,
            &encode_values(&self.range)?,
            table_key,
        )?)
    }
}

/// The index key of `item`, or `None` when the item lacks an index key attribute. A key
/// attribute that is there with the wrong type, empty or too large is an error even when
/// another one is missing.
pub(crate) fn index_key(index: &IndexRecord, item: &Item) -> Result<Option<IndexKey>> {
    let mut hash = Vec::new();
    let mut complete = true;
    for attr in index.hash_attributes() {
        match index_key_value(
            index,
            attr,
            item,
            MAX_PARTITION_KEY_BYTES,
            messages::PARTITION_KEY_TOO_LARGE,
        )? {
            Some(value) => hash.push(value.clone()),
            None => complete = false,
        }
    }
    let mut range = Vec::new();
    for attr in index.range_attributes() {
        match index_key_value(
            index,
            attr,
            item,
            MAX_SORT_KEY_BYTES,
            messages::SORT_KEY_TOO_LARGE,
        )? {
            Some(value) => range.push(value.clone()),
            None => complete = false,
        }
    }
    Ok(complete.then_some(IndexKey { hash, range }))
}

/// Whether `name` is a key attribute of the table or of the index.
pub(crate) fn is_key_attribute(table: &TableRecord, index: &IndexRecord, name: &str) -> bool {
    table
        .key_schema
        .attributes()
        .chain(index.key_attributes())
        .any(|k| k.name == name)
}

/// Whether the index's entries carry attribute `name`.
pub(crate) fn projects(table: &TableRecord, index: &IndexRecord, name: &str) -> bool {
    match &index.projection {
        IndexProjection::All => true,
        IndexProjection::KeysOnly => is_key_attribute(table, index, name),
        IndexProjection::Include(names) => {
            is_key_attribute(table, index, name) || names.iter().any(|n| n == name)
        }
    }
}

/// `item`'s entry in `index`, or `None` when the item is not in the index.
pub(crate) fn entry(
    table: &TableRecord,
    index: &IndexRecord,
    table_key: &PrimaryKey,
    item: &Item,
) -> Result<Option<IndexEntry>> {
    let Some(index_key) = index_key(index, item)? else {
        return Ok(None);
    };
    let key = index_key.entry_key(table.id, index, table_key)?;
    let item = match &index.projection {
        IndexProjection::All => item.clone(),
        _ => item
            .iter()
            .filter(|(name, _)| projects(table, index, name))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect(),
    };
    Ok(Some(IndexEntry { key, item }))
}

/// Refuses an item that cannot go into one of the table's indexes (a mistyped, empty or
/// oversized index key), before anything is written.
pub(crate) fn check_index_keys(table: &TableRecord, item: &Item) -> Result<()> {
    for index in &table.indexes {
        index_key(index, item)?;
    }
    Ok(())
}

/// What one item change did to the table's indexes.
#[derive(Debug, Default)]
pub(crate) struct IndexChanges {
    /// Write units per index.
    pub consumed: Consumed,
    /// Growth (or shrinkage) of the item's LSI entries, in bytes.
    pub local_bytes: i64,
}

/// UpdateItem's check of an updated item: as [`check_index_keys`], except that an index
/// key the update emptied gets DynamoDB's update wording.
pub(crate) fn check_updated_index_keys(table: &TableRecord, item: &Item) -> Result<()> {
    for index in &table.indexes {
        for attr in index.key_attributes() {
            let kind = match item.get(&attr.name) {
                Some(AttributeValue::S(s)) if s.is_empty() && attr.ty == ScalarType::S => "string",
                Some(AttributeValue::B(b)) if b.is_empty() && attr.ty == ScalarType::B => "binary",
                _ => continue,
            };
            return Err(EngineError::validation(messages::empty_index_key_update(
                kind,
            )));
        }
        index_key(index, item)?;
    }
    Ok(())
}

/// Brings every index of `table` in step with one item change. Runs in the item write's
/// job, so entries commit with the item.
pub(crate) fn update_indexes(
    w: &mut WriteContext<'_>,
    table: &TableRecord,
    table_key: &PrimaryKey,
    old: Option<&Item>,
    new: Option<&Item>,
) -> Result<IndexChanges> {
    let mut changes = IndexChanges::default();
    for index in &table.indexes {
        // An old item that never fitted the index (written before it existed) has no
        // entry; only the new item must fit.
        let old_entry = match old {
            Some(item) => entry(table, index, table_key, item).ok().flatten(),
            None => None,
        };
        let new_entry = match new {
            Some(item) => entry(table, index, table_key, item)?,
            None => None,
        };
        let (units, bytes) = apply_entry_change(w, table.id, index, old_entry, new_entry)?;
        if units > 0.0 {
            changes.consumed.add_index(index.kind, &index.name, units);
        }
        if index.kind == IndexKind::Local {
            changes.local_bytes += bytes;
        }
    }
    Ok(changes)
}

/// Replaces `old` by `new` in one index, keeping its statistics exact; returns the write
/// units (one write per entry put or deleted, per KB of the entry) and the change in the
/// index's size in bytes.
pub(crate) fn apply_entry_change(
    w: &mut WriteContext<'_>,
    table_id: u64,
    index: &IndexRecord,
    old: Option<IndexEntry>,
    new: Option<IndexEntry>,
) -> Result<(f64, i64)> {
    if old == new {
        return Ok((0.0, 0));
    }
    let stats_key = keys::index_stats_key(table_id, index.number);
    let mut stats = TableStats::read(w.get(Space::Meta, &stats_key)?)?;
    let mut units = 0.0;
    // While an index is being filled, an old item may not have its entry yet.
    let old = match old {
        Some(entry) if index.backfilling => w.get(Space::Indexes, &entry.key)?.map(|_| entry),
        old => old,
    };
    let replaced = match (&old, &new) {
        (Some(o), Some(n)) => o.key == n.key,
        _ => false,
    };
    let mut bytes = 0i64;
    if let Some(o) = &old {
        stats.apply(Some(o.size()), None);
        bytes -= o.size() as i64;
        if !replaced {
            w.delete(Space::Indexes, o.key.clone());
            units += write_units(o.size());
        }
    }
    if let Some(n) = new {
        let size = n.size();
        stats.apply(None, Some(size));
        bytes += size as i64;
        units += write_units(match (&old, replaced) {
            (Some(o), true) => o.size().max(size),
            _ => size,
        });
        w.put(Space::Indexes, n.key, encode_item(&n.item));
    }
    w.put(Space::Meta, stats_key, stats.encode());
    Ok((units, bytes))
}

#[cfg(test)]
mod tests {
    use kura_model::{KeySchema, Number};

    use super::*;
    use crate::catalog::IndexKind;

    fn attr(name: &str, ty: ScalarType) -> KeyAttribute {
        KeyAttribute {
            name: name.into(),
            ty,
        }
    }

    fn index(more_hash: Vec<KeyAttribute>, more_range: Vec<KeyAttribute>) -> IndexRecord {
        IndexRecord {
            name: "byKey".into(),
            kind: IndexKind::Global,
            number: 3,
            key_schema: KeySchema {
                hash: attr("h1", ScalarType::S),
                range: Some(attr("r1", ScalarType::N)),
            },
            projection: IndexProjection::KeysOnly,
            throughput: None,
            backfilling: false,
            more_hash,
            more_range,
        }
    }

    fn n(v: i64) -> AttributeValue {
        AttributeValue::N(Number::from(v))
    }

    fn enc(v: &AttributeValue) -> Vec<u8> {
        let mut out = Vec::new();
        keycode::encode_key_value(v, &mut out).expect("encode");
        out
    }

    #[test]
    fn single_attribute_records_keep_their_bytes() {
        let json = serde_json::to_string(&index(Vec::new(), Vec::new())).expect("json");
        assert_eq!(
            json,
            r#"{"name":"byKey","kind":"Global","number":3,"key_schema":{"hash":{"name":"h1","ty":"S"},"range":{"name":"r1","ty":"N"}},"projection":"KeysOnly","throughput":null,"backfilling":false}"#
        );
        let multi = index(
            vec![attr("h2", ScalarType::B)],
            vec![attr("r2", ScalarType::S)],
        );
        let json = serde_json::to_string(&multi).expect("json");
        assert!(json.ends_with(
            r#","more_hash":[{"name":"h2","ty":"B"}],"more_range":[{"name":"r2","ty":"S"}]}"#
        ));
        let back: IndexRecord = serde_json::from_str(&json).expect("decode");
        assert_eq!(back, multi);
        let names: Vec<&str> = back.key_attributes().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["h1", "h2", "r1", "r2"]);
    }

    #[test]
    fn entry_keys_concatenate_the_values_in_key_order() {
        let table_key = PrimaryKey {
            hash: AttributeValue::s("t"),
            range: None,
        };
        // A single-attribute key has the item key layout.
        let single = index(Vec::new(), Vec::new());
        let item: Item = [("h1", AttributeValue::s("a")), ("r1", n(7)), ("x", n(1))]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        let key = index_key(&single, &item)
            .expect("valid")
            .expect("in the index");
        let want = [
            keys::partition_prefix(&keys::index_prefix(9, 3), &enc(&AttributeValue::s("a"))),
            enc(&n(7)),
            enc(&AttributeValue::s("t")),
        ]
        .concat();
        assert_eq!(key.entry_key(9, &single, &table_key).expect("key"), want);

        let multi = index(
            vec![attr("h2", ScalarType::N)],
            vec![attr("r2", ScalarType::S)],
        );
        let mut item = item;
        assert_eq!(index_key(&multi, &item).expect("valid"), None, "sparse");
        item.insert("h2".into(), n(-5));
        item.insert("r2".into(), AttributeValue::s("zz"));
        let key = index_key(&multi, &item)
            .expect("valid")
            .expect("in the index");
        let pk = [enc(&AttributeValue::s("a")), enc(&n(-5))].concat();
        let want = [
            keys::partition_prefix(&keys::index_prefix(9, 3), &pk),
            enc(&n(7)),
            enc(&AttributeValue::s("zz")),
            enc(&AttributeValue::s("t")),
        ]
        .concat();
        assert_eq!(key.entry_key(9, &multi, &table_key).expect("key"), want);
        // A mistyped attribute is an error even when another one is missing.
        item.remove("h1");
        item.insert("r2".into(), n(1));
        assert!(index_key(&multi, &item).is_err());
    }

    #[test]
    fn sort_tuples_order_left_to_right_each_by_type() {
        let multi = index(Vec::new(), vec![attr("r2", ScalarType::S)]);
        let sk = |r1: i64, r2: &str| {
            let item: Item = [
                ("h1", AttributeValue::s("a")),
                ("r1", n(r1)),
                ("r2", AttributeValue::s(r2)),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
            let key = index_key(&multi, &item).expect("valid").expect("in");
            encode_values(&key.range).expect("encode")
        };
        let ordered = [
            sk(-10, "b"),
            sk(9, "a"),
            sk(9, "a\u{0}"),
            sk(9, "ab"),
            sk(10, "0"),
            sk(10, "a"),
            sk(100, "a"),
        ];
        assert!(ordered.windows(2).all(|w| w[0] < w[1]));
    }
}
