//! The import thread: reads an import's objects and fills its table.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use kura_model::keycode::ScalarType;
use kura_model::messages::exports as msg;
use kura_model::size::item_size;
use kura_model::wire::item_from_json;
use kura_model::{Item, limits, messages};

use super::parse::{self, CsvSpec};
use super::{ImportRecord, MAX_IMPORT_OBJECTS, RECORDS};
use crate::background::{Worker, stopping};
use crate::catalog::{Catalog, TableRecord};
use crate::clock::Clock;
use crate::error::{EngineError, Result};
use crate::indexes::entries::check_index_keys;
use crate::items::{apply_item_change, read_current};
use crate::keys;
use crate::objects::{ObjectError, Objects};
use crate::purge::{PurgeTarget, Purger};
use crate::streams::record::Origin;
pub use crate::workers::Importer;
use crate::writer::Writer;
use kura_store::{Space, Store};

/// Items per writer job.
const CHUNK: usize = 512;

/// What the import thread needs.
pub struct Parts {
    pub store: Arc<dyn Store>,
    pub writer: Arc<Writer>,
    pub catalog: Arc<Catalog>,
    pub objects: Arc<dyn Objects>,
    pub purger: Arc<Purger>,
    pub clock: Arc<dyn Clock>,
}

pub fn start(parts: Parts) -> Importer {
    Worker::start(
        "kura-import",
        "imports stay IN_PROGRESS until restart",
        move |id: &String, stop| run(&parts, id, stop),
    )
}

/// The table an import fills, while it does.
fn target(catalog: &Catalog, record: &ImportRecord) -> Option<Arc<TableRecord>> {
    catalog
        .get(&record.table_name)
        .filter(|t| t.id == record.table_id && t.importing.as_deref() == Some(record.id.as_str()))
}

/// Counts of one run.
#[derive(Default)]
struct Tally {
    processed: u64,
    imported: u64,
    bytes: u64,
    errors: u64,
}

impl Tally {
    fn refuse(&mut self, import: &str, object: &str, line: u64, message: &str) {
        self.errors += 1;
        tracing::warn!(import, object, line, "item not imported: {message}");
    }
}

/// An item as the import writes it, or DynamoDB's reason to refuse it.
fn checked(
    table: &TableRecord,
    json: kura_model::wire::ItemJson,
) -> std::result::Result<Item, String> {
    let item = item_from_json(json).map_err(|e| e.to_string())?;
    for key in table.key_schema.attributes() {
        if !item.contains_key(&key.name) {
            return Err(msg::missing_key(&key.name));
        }
    }
    table
        .key_schema
        .key_of_item(&item)
        .map_err(|e| e.to_string())?;
    if item_size(&item) > limits::MAX_ITEM_SIZE {
        return Err(messages::ITEM_TOO_LARGE.to_owned());
    }
    check_index_keys(table, &item).map_err(|e| e.to_string())?;
    Ok(item)
}

fn run(parts: &Parts, id: &str, stop: &AtomicBool) -> Result<()> {
    let snapshot = parts.store.snapshot()?;
    let Some(record) = RECORDS.read(snapshot.as_ref(), id)? else {
        return Ok(());
    };
    drop(snapshot);
    if record.status != "IN_PROGRESS" {
        return Ok(());
    }
    let Some(table) = target(&parts.catalog, &record) else {
        return finish(
            parts,
            record,
            Tally::default(),
            Some(ObjectError::new("TableNotFound", "the table was deleted")),
        );
    };
    let bucket = record.source.s3_bucket.clone().unwrap_or_default();
    let prefix = record.source.s3_key_prefix.clone().unwrap_or_default();
    let keys = match parts.objects.list(&bucket, &prefix, MAX_IMPORT_OBJECTS) {
        Ok(keys) => keys,
        Err(e) => return finish(parts, record, Tally::default(), Some(e)),
    };
    // CSV: the key attributes of the table and its indexes keep their types.
    let definitions: BTreeMap<String, ScalarType> =
        table.attribute_definitions.iter().cloned().collect();
    let csv = record
        .input_format_options
        .as_ref()
        .and_then(|o| o.csv.clone())
        .unwrap_or_default();
    let delimiter = csv
        .delimiter
        .as_deref()
        .and_then(|d| d.bytes().next())
        .unwrap_or(b',');
    let spec = CsvSpec {
        delimiter,
        header: csv.header_list.as_deref(),
        typed: &definitions,
    };
    let mut tally = Tally::default();
    let mut pending: Vec<Item> = Vec::new();
    for key in &keys {
        if stopping(stop) {
            return Ok(()); // re-run from the start after restart
        }
        let body = match parts.objects.get(&bucket, key, parse::MAX_OBJECT_BYTES) {
            Ok(body) => body,
            // Refused unread, as a compressed object that inflates past the bound is.
            Err(e) if e.code == crate::objects::OBJECT_TOO_LARGE => {
                tally.processed += 1;
                tally.refuse(id, key, 0, &parse::too_large());
                continue;
            }
            Err(e) => return finish(parts, record, tally, Some(e)),
        };
        let text = match parse::decompress(&record.compression, body).and_then(|b| {
            String::from_utf8(b).map_err(|_| "the object is not UTF-8 text".to_owned())
        }) {
            Ok(text) => text,
            Err(e) => {
                tally.processed += 1;
                tally.refuse(id, key, 0, &e);
                continue;
            }
        };
        tally.bytes += text.len() as u64;
        // Records are checked and written in chunks as they are read.
        let each = |(line, item): parse::Record| -> Result<()> {
            tally.processed += 1;
            match item.and_then(|json| checked(&table, json)) {
                Ok(item) => pending.push(item),
                Err(e) => tally.refuse(id, key, line, &e),
            }
            if pending.len() >= CHUNK {
                tally.imported += write(parts, &record, std::mem::take(&mut pending), &tally)?;
            }
            Ok(())
        };
        match record.input_format.as_str() {
            "CSV" => parse::each_csv_record(&spec, &text, each)?,
            format => parse::each_line(format, &text, each)?,
        }
    }
    tally.imported += write(parts, &record, pending, &tally)?;
    finish(parts, record, tally, None)
}

/// Puts `items` into the import's table and records the progress so far in the same
/// batch (DescribeImport shows it while the import runs); returns how many were put.
fn write(parts: &Parts, record: &ImportRecord, items: Vec<Item>, tally: &Tally) -> Result<u64> {
    if items.is_empty() {
        return Ok(0);
    }
    let catalog = parts.catalog.clone();
    let record = record.clone();
    let (processed, imported, bytes, errors) =
        (tally.processed, tally.imported, tally.bytes, tally.errors);
    parts.writer.submit_blocking(false, move |w| {
        let Some(table) = target(&catalog, &record) else {
            return Ok(0);
        };
        let mut written = 0;
        for item in items {
            let key = table.key_schema.key_of_item(&item)?;
            let storage_key = keys::item_key(table.id, &key)?;
            let current = read_current(w, &storage_key)?;
            match apply_item_change(
                w,
                &table,
                storage_key,
                current.as_ref(),
                Some(item),
                Origin::Request,
            ) {
                Ok(_) => written += 1,
                // An item collection over its limit refuses this item only.
                Err(EngineError::ItemCollectionSizeLimitExceeded(_)) => {}
                Err(e) => return Err(e),
            }
        }
        if let Some(mut progress) = RECORDS.read_in(w, &record.id)? {
            progress.processed = processed;
            progress.imported = imported + written;
            progress.processed_bytes = bytes;
            progress.errors = errors;
            RECORDS.write(w, &record.id, &progress)?;
        }
        Ok(written)
    })
}

/// Ends the import: COMPLETED, FAILED with ItemValidationError (the table stays, with
/// the items that were valid), or FAILED with `failure` (the table goes).
fn finish(
    parts: &Parts,
    record: ImportRecord,
    tally: Tally,
    failure: Option<ObjectError>,
) -> Result<()> {
    let end = parts.clock.now_ms();
    let catalog = parts.catalog.clone();
    let purger = parts.purger.clone();
    let id = record.id.clone();
    parts.writer.submit_blocking(true, move |w| {
        let Some(mut current) = RECORDS.read_in(w, &id)? else {
            return Ok(());
        };
        current.end_ms = Some(end);
        current.processed = tally.processed;
        current.imported = tally.imported;
        current.processed_bytes = tally.bytes;
        current.errors = tally.errors;
        let table = target(&catalog, &current);
        match failure {
            Some(e) => {
                current.status = "FAILED".into();
                current.failure_code = Some(e.code);
                current.failure_message = Some(e.message);
                if let Some(table) = table {
                    catalog.stage_removal(w, &table.name);
                    w.delete(Space::Meta, keys::stats_key(table.id));
                    w.put(Space::Meta, keys::purge_key(table.id), Vec::new());
                    let table_id = table.id;
                    w.after_commit(move || purger.submit(PurgeTarget::Table(table_id)));
                }
            }
            None => {
                if current.errors > 0 {
                    current.status = "FAILED".into();
                    current.failure_code = Some("ItemValidationError".into());
                    current.failure_message = Some(msg::ITEM_VALIDATION_FAILED.into());
                } else {
                    current.status = "COMPLETED".into();
                }
                if let Some(table) = table {
                    let mut next = table.as_ref().clone();
                    next.importing = None;
                    catalog.stage(w, Arc::new(next))?;
                }
            }
        }
        tracing::info!(import = %current.id, status = %current.status, imported = current.imported, errors = current.errors, "import finished");
        RECORDS.write(w, &id, &current)?;
        Ok(())
    })
}
