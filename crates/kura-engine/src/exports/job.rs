//! The export thread: writes one export's objects, then commits its outcome.
//!
//! Objects, in the order DynamoDB writes them: `_started` (which proves the bucket can be
//! written), the gzip'd data files, `manifest-files.json` and its `.md5`,
//! `manifest-summary.json` and its `.md5`. Everything is read from one store snapshot.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use kura_model::Item;

use super::format::{self, Change, DataFile, Format, ManifestFile, ManifestSummary};
use super::{ExportRecord, RECORDS};
use crate::background::{Worker, stopping};
use crate::backups::history::{Reconstruction, split_entry_key};
use crate::backups::records as holds;
use crate::clock::Clock;
use crate::error::{EngineError, Result};
use crate::items::decode_stored;
use crate::keys;
use crate::objects::{ObjectError, Objects};
pub use crate::workers::Exporter;
use crate::writer::Writer;
use kura_store::{Direction, KeyRange, Snapshot, Space, Store};

/// Records per data file, and uncompressed bytes: DynamoDB splits by partition, Kura by
/// size, so a file stays a few MiB compressed.
const FILE_ITEMS: u64 = 100_000;
const FILE_BYTES: u64 = 64 << 20;
/// DynamoDB bills an incremental export at least 10 MB.
const MIN_INCREMENTAL_BILL: u64 = 10_000_000;

pub fn start(
    store: Arc<dyn Store>,
    writer: Arc<Writer>,
    objects: Arc<dyn Objects>,
    clock: Arc<dyn Clock>,
) -> Exporter {
    Worker::start(
        "kura-export",
        "exports stay IN_PROGRESS until restart",
        move |id: &String, stop| {
            run(
                store.as_ref(),
                &writer,
                objects.as_ref(),
                clock.as_ref(),
                id,
                stop,
            )
        },
    )
}

/// What the data files came to.
struct Written {
    files: Vec<ManifestFile>,
    items: u64,
    bytes: u64,
}

/// Gathers lines into data files and writes each when full.
struct Files<'a> {
    objects: &'a dyn Objects,
    record: &'a ExportRecord,
    dir: String,
    format: Format,
    current: DataFile,
    written: Written,
}

impl Files<'_> {
    fn push(&mut self, line: &str) -> Result<(), ObjectError> {
        self.current.push(line);
        if self.current.items >= FILE_ITEMS || self.current.bytes >= FILE_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ObjectError> {
        let file = std::mem::take(&mut self.current);
        let (items, bytes) = (file.items, file.bytes);
        let body = file.finish();
        let name = format::data_file_name(&self.record.id, self.written.files.len());
        let key = format!("{}{name}.{}", self.dir, self.format.extension());
        self.objects.put(&self.record.s3_bucket, &key, &body)?;
        self.written.files.push(ManifestFile {
            item_count: items,
            md5_checksum: format::md5_base64(&body),
            etag: format::etag(&body),
            data_file_s3_key: key,
        });
        self.written.items += items;
        self.written.bytes += bytes;
        Ok(())
    }
}

fn run(
    store: &dyn Store,
    writer: &Writer,
    objects: &dyn Objects,
    clock: &dyn Clock,
    id: &str,
    stop: &AtomicBool,
) -> Result<()> {
    let snapshot = store.snapshot()?;
    let Some(record) = RECORDS.read(snapshot.as_ref(), id)? else {
        return Ok(());
    };
    if record.status != "IN_PROGRESS" {
        return Ok(());
    }
    let outcome = write_objects(snapshot.as_ref(), objects, clock, &record, stop);
    drop(snapshot);
    if stopping(stop) {
        return Ok(()); // re-run from the start after restart
    }
    let end = clock.now_ms();
    let id = id.to_owned();
    writer.submit_blocking(false, move |w| {
        let Some(mut record) = RECORDS.read_in(w, &id)? else {
            return Ok(());
        };
        if record.status != "IN_PROGRESS" {
            return Ok(());
        }
        record.end_ms = Some(end);
        match outcome {
            Ok((manifest, items, billed)) => {
                record.status = "COMPLETED".into();
                record.manifest = Some(manifest);
                record.item_count = Some(items);
                record.billed_size_bytes = Some(billed);
            }
            Err(e) => {
                tracing::warn!(export = %id, error = %e, "export failed");
                record.status = "FAILED".into();
                record.failure_code = Some(e.code);
                record.failure_message = Some(e.message);
            }
        }
        RECORDS.write(w, &id, &record)?;
        holds::add_holds(w, record.table_id, -1)
    })?;
    Ok(())
}

/// Writes every object; returns the summary's key, the record count and the billed size.
fn write_objects(
    snapshot: &dyn Snapshot,
    objects: &dyn Objects,
    clock: &dyn Clock,
    record: &ExportRecord,
    stop: &AtomicBool,
) -> Result<(String, u64, u64), ObjectError> {
    // Long: one pass over the snapshot writes the data files, the manifest and the summary, with running totals.
    let internal = |e: EngineError| ObjectError::new("UNKNOWN", e.to_string());
    let base = super::object_prefix(record.s3_prefix.as_deref());
    let export_dir = format!("{base}{}/", record.id);
    let bucket = record.s3_bucket.as_str();
    objects.put(bucket, &format!("{export_dir}_started"), b"")?;
    let format = Format::parse(Some(&record.format));
    let incremental = record.from.is_some();
    let mut files = Files {
        objects,
        record,
        // Incremental exports share one data folder under the prefix, as on DynamoDB.
        dir: if incremental {
            format!("{base}data/")
        } else {
            format!("{export_dir}data/")
        },
        format,
        current: DataFile::default(),
        written: Written {
            files: Vec::new(),
            items: 0,
            bytes: 0,
        },
    };
    match record.from {
        None => {
            for row in Reconstruction::new(snapshot, record.table_id, record.at, None) {
                if stopping(stop) {
                    return Err(ObjectError::new("UNKNOWN", "stopped"));
                }
                let (_, value) = row.map_err(internal)?;
                let item = decode_stored(&value).map_err(internal)?;
                files.push(&format::item_line(format, &item))?;
            }
        }
        Some(from) => {
            let new_only = record.view_type.as_deref() == Some("NEW_IMAGE");
            for change in changes(snapshot, record.table_id, from, record.at) {
                if stopping(stop) {
                    return Err(ObjectError::new("UNKNOWN", "stopped"));
                }
                let change = change.map_err(internal)?;
                let Some(any) = change.new.as_ref().or(change.old.as_ref()) else {
                    continue; // created and deleted inside the window: no record
                };
                let keys: Item = record
                    .key_names
                    .iter()
                    .filter_map(|k| any.get(k).map(|v| (k.clone(), v.clone())))
                    .collect();
                let line = format::change_line(
                    format,
                    &Change {
                        write_micros: change.last_stamp,
                        keys: &keys,
                        new_image: change.new.as_ref(),
                        old_image: if new_only { None } else { change.old.as_ref() },
                    },
                );
                files.push(&line)?;
            }
        }
    }
    // Every export has at least one data file, an empty one for an empty table.
    if files.current.items > 0 || files.written.files.is_empty() {
        files.flush()?;
    }
    let Written {
        files: manifest_files,
        items,
        bytes,
    } = files.written;
    let mut listing = String::new();
    for file in &manifest_files {
        listing.push_str(&serde_json::to_string(file).unwrap_or_default());
        listing.push('\n');
    }
    let files_key = format!("{export_dir}manifest-files.json");
    objects.put(bucket, &files_key, listing.as_bytes())?;
    objects.put(
        bucket,
        &format!("{export_dir}manifest-files.md5"),
        format::md5_base64(listing.as_bytes()).as_bytes(),
    )?;
    let billed = if incremental {
        bytes.max(MIN_INCREMENTAL_BILL)
    } else {
        bytes
    };
    let summary = ManifestSummary {
        version: if incremental {
            "2023-08-01"
        } else {
            "2020-06-30"
        },
        export_arn: crate::arn::export(&record.region, &record.table_name, &record.id),
        start_time: format::iso_millis(record.start_ms),
        end_time: format::iso_millis(clock.now_ms()),
        table_arn: crate::arn::table(&record.region, &record.table_name),
        table_id: record.table_uuid.clone(),
        export_time: record.export_time_ms.map(format::iso_millis),
        export_from_time: record.from_ms.map(format::iso_millis),
        export_to_time: record.to_ms.map(format::iso_millis),
        s3_bucket: record.s3_bucket.clone(),
        s3_prefix: record.s3_prefix.clone(),
        s3_sse_algorithm: record.s3_sse_algorithm.clone(),
        s3_sse_kms_key_id: record.s3_sse_kms_key_id.clone(),
        manifest_files_s3_key: files_key,
        billed_size_bytes: billed,
        item_count: items,
        output_format: format.wire(),
        output_view: record.view_type.clone().filter(|_| incremental),
        export_type: incremental.then_some("INCREMENTAL_EXPORT"),
    };
    let summary = serde_json::to_vec(&summary).unwrap_or_default();
    let summary_key = format!("{export_dir}manifest-summary.json");
    objects.put(bucket, &summary_key, &summary)?;
    objects.put(
        bucket,
        &format!("{export_dir}manifest-summary.md5"),
        format::md5_base64(&summary).as_bytes(),
    )?;
    Ok((summary_key, items, billed))
}

/// One item changed in an incremental window: its state at the start (`old`) and at the
/// end (`new`), and the stamp of its last change in the window.
pub(crate) struct WindowChange {
    pub old: Option<Item>,
    pub new: Option<Item>,
    pub last_stamp: u64,
}

/// The items of table `table_id` changed after stamp `from` and up to `to`, in key order.
pub(crate) fn changes<'a>(
    snapshot: &'a dyn Snapshot,
    table_id: u64,
    from: u64,
    to: u64,
) -> impl Iterator<Item = Result<WindowChange>> + 'a {
    let mut history = snapshot
        .range(
            Space::History,
            KeyRange::prefix(&keys::table_prefix(table_id)),
            Direction::Forward,
        )
        .peekable();
    std::iter::from_fn(move || {
        loop {
            let (key, value) = match history.next()? {
                Ok(kv) => kv,
                Err(e) => return Some(Err(e.into())),
            };
            let Some((item_key, stamp)) = split_entry_key(&key) else {
                return Some(Err(EngineError::Internal("corrupt history key".into())));
            };
            let item_key = item_key.to_vec();
            // This item's entries, in stamp order.
            let mut entries = vec![(stamp, value)];
            while let Some(Ok((next, _))) = history.peek() {
                if split_entry_key(next).is_none_or(|(k, _)| k != item_key.as_slice()) {
                    break;
                }
                if let Some(Ok((next, value))) = history.next()
                    && let Some((_, stamp)) = split_entry_key(&next)
                {
                    entries.push((stamp, value));
                }
            }
            let in_window: Vec<&(u64, Vec<u8>)> = entries
                .iter()
                .filter(|(s, _)| *s > from && *s <= to)
                .collect();
            let (Some(first), Some(last)) = (in_window.first(), in_window.last()) else {
                continue;
            };
            let image = |bytes: &[u8]| -> Result<Option<Item>> {
                crate::backups::history::pre_image(bytes)?
                    .map(|stored| decode_stored(&stored))
                    .transpose()
            };
            let old = match image(&first.1) {
                Ok(old) => old,
                Err(e) => return Some(Err(e)),
            };
            let new = match entries.iter().find(|(s, _)| *s > to) {
                Some((_, later)) => image(later),
                None => snapshot
                    .get(Space::Items, &item_key)
                    .map_err(EngineError::from)
                    .and_then(|v| v.map(|b| decode_stored(&b)).transpose()),
            };
            let new = match new {
                Ok(new) => new,
                Err(e) => return Some(Err(e)),
            };
            return Some(Ok(WindowChange {
                old,
                new,
                last_stamp: last.0,
            }));
        }
    })
}
