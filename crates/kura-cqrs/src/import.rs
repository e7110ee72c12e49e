//! Importing CSV and JSON lines through commands: each record becomes a command on top of
//! the entity's latest version (so a record that changes nothing writes nothing, and an
//! import can run again), published in sync or async, with progress as it goes and a
//! report of the records that were rejected and why. A rejected record never stops the
//! import; a failure of the database does.
//!
//! [`Import::new`] takes records as they are (CSV cells as strings); [`Import::typed`]
//! reads each record as the caller's type `T` (CSV cells converted as `T`'s fields ask:
//! `"3"` for a `u32` is 3), rejects a record that does not fit with serde's reason, and
//! stores `T` as it serializes, so the data table holds what the application's own type
//! says.

use std::io::BufRead;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::command::{CommandInput, Invoker};
use crate::error::{CqrsError, Result};
use crate::keys::{Key, VERSION_LATEST};
use crate::service::CommandService;

/// The format of an import's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A header row, then one record per row; every cell a string, an empty cell absent;
    /// a row with more or fewer cells than the header is rejected.
    Csv,
    /// One JSON object per line; blank lines are skipped.
    JsonLines,
}

/// How a record becomes a command: the key `PREFIX#tenant` / the record's `id_field`, the
/// code the id, the name `name_field` when given, the attributes the whole record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub prefix: String,
    pub tenant_code: String,
    pub id_field: String,
    pub name_field: Option<String>,
}

impl Mapping {
    pub fn new(prefix: &str, tenant_code: &str, id_field: &str) -> Mapping {
        Mapping {
            prefix: prefix.to_owned(),
            tenant_code: tenant_code.to_owned(),
            id_field: id_field.to_owned(),
            name_field: None,
        }
    }

    pub fn with_name_field(mut self, field: &str) -> Mapping {
        self.name_field = Some(field.to_owned());
        self
    }

    /// The command for one record, or why there is none.
    pub fn command(&self, record: Map<String, Value>) -> std::result::Result<CommandInput, String> {
        let id = match record.get(&self.id_field) {
            Some(Value::String(id)) if !id.is_empty() => id.clone(),
            Some(Value::Number(n)) => n.to_string(),
            Some(_) => return Err(format!("{} is not a string or a number", self.id_field)),
            None => return Err(format!("no {}", self.id_field)),
        };
        let key =
            Key::new(&self.prefix, &self.tenant_code, id.clone()).map_err(|e| e.to_string())?;
        let mut input = CommandInput::for_key(&key, VERSION_LATEST).with_code(id);
        if let Some(field) = &self.name_field {
            match record.get(field) {
                Some(Value::String(name)) => input = input.with_name(name.clone()),
                Some(other) => input = input.with_name(other.to_string()),
                None => {}
            }
        }
        Ok(input.with_attributes(record))
    }
}

/// One record that was not imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The record's line (CSV: its row, the header being line 1).
    pub line: u64,
    pub reason: String,
}

/// What an import did so far (passed to the progress callback) or in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    pub records: u64,
    /// New versions written.
    pub published: u64,
    /// Records equal to their entity's latest version (nothing written).
    pub unchanged: u64,
    pub rejected: Vec<Rejected>,
}

/// Whether an error is the record's fault (reported, the import goes on) rather than the
/// database's (the import stops).
fn is_the_records(error: &CqrsError) -> bool {
    match error {
        CqrsError::InvalidKey(_)
        | CqrsError::VersionConflict { .. }
        | CqrsError::Entity { .. }
        | CqrsError::Handler { .. } => true,
        CqrsError::TransactionCanceled { retryable, .. } => !retryable,
        CqrsError::Dynamo { code, .. } => code == "ValidationException",
        _ => false,
    }
}

/// Told how an import goes.
type Progress<'a> = Box<dyn FnMut(&ImportReport) + Send + 'a>;

/// A record's attributes, or why it has none.
type Read = std::result::Result<Map<String, Value>, String>;

/// How records are read: as they are, or as a type.
#[derive(Clone, Copy)]
struct Reader {
    json: fn(Map<String, Value>) -> Read,
    csv: fn(&csv::StringRecord, &csv::StringRecord) -> Read,
}

/// A JSON record as it is.
fn json_as_is(record: Map<String, Value>) -> Read {
    Ok(record)
}

/// A CSV row as it is: every cell a string, an empty cell absent.
fn csv_as_is(header: &csv::StringRecord, row: &csv::StringRecord) -> Read {
    Ok(header
        .iter()
        .zip(row.iter())
        .filter(|(_, cell)| !cell.is_empty())
        .map(|(name, cell)| (name.to_owned(), Value::String(cell.to_owned())))
        .collect())
}

/// `T` as the attributes it stores.
fn stored_as<T: Serialize>(value: &T, what: &str) -> Read {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(format!("a {what} is not a map")),
        Err(e) => Err(format!("a {what} does not serialize: {e}")),
    }
}

fn json_as<T: Serialize + DeserializeOwned>(record: Map<String, Value>) -> Read {
    let what = std::any::type_name::<T>();
    let value: T =
        serde_json::from_value(Value::Object(record)).map_err(|e| format!("not a {what}: {e}"))?;
    stored_as(&value, what)
}

fn csv_as<T: Serialize + DeserializeOwned>(
    header: &csv::StringRecord,
    row: &csv::StringRecord,
) -> Read {
    let what = std::any::type_name::<T>();
    let value: T = row
        .deserialize(Some(header))
        .map_err(|e| format!("not a {what}: {e}"))?;
    stored_as(&value, what)
}

/// An import of one input into one module, its records read as `T` ([`Import::typed`])
/// or as they are (`T` = JSON, [`Import::new`]).
pub struct Import<'a, T = Value> {
    service: &'a CommandService,
    mapping: Mapping,
    invoker: Invoker,
    sync: bool,
    every: u64,
    progress: Option<Progress<'a>>,
    reader: Reader,
    of: std::marker::PhantomData<fn() -> T>,
}

impl<'a> Import<'a> {
    /// Publishes asynchronously (the projector applies them) unless [`Import::sync`];
    /// records as they are.
    pub fn new(service: &'a CommandService, mapping: Mapping) -> Import<'a> {
        Import::with_reader(
            service,
            mapping,
            Reader {
                json: json_as_is,
                csv: csv_as_is,
            },
        )
    }
}

impl<'a, T: Serialize + DeserializeOwned> Import<'a, T> {
    /// [`Import::new`] reading each record as a `T` (see the module):
    /// `Import::<Product>::typed(&service, mapping)`.
    pub fn typed(service: &'a CommandService, mapping: Mapping) -> Import<'a, T> {
        Import::with_reader(
            service,
            mapping,
            Reader {
                json: json_as::<T>,
                csv: csv_as::<T>,
            },
        )
    }
}

impl<'a, T> Import<'a, T> {
    fn with_reader(service: &'a CommandService, mapping: Mapping, reader: Reader) -> Import<'a, T> {
        Import {
            service,
            mapping,
            invoker: Invoker {
                source: "import".into(),
                ..Invoker::default()
            },
            sync: false,
            every: 1000,
            progress: None,
            reader,
            of: std::marker::PhantomData,
        }
    }

    pub fn invoker(mut self, invoker: Invoker) -> Import<'a, T> {
        self.invoker = invoker;
        self
    }

    /// Publishes each record in sync (data table and sync handlers before the next).
    pub fn sync(mut self) -> Import<'a, T> {
        self.sync = true;
        self
    }

    /// Calls `progress` after every `every` records and at the end.
    pub fn progress(
        mut self,
        every: u64,
        progress: impl FnMut(&ImportReport) + Send + 'a,
    ) -> Import<'a, T> {
        self.every = every.max(1);
        self.progress = Some(Box::new(progress));
        self
    }

    /// Reads `input` to its end, publishing a command per record.
    pub async fn run(mut self, format: Format, input: impl BufRead) -> Result<ImportReport> {
        let mut report = ImportReport::default();
        match format {
            Format::JsonLines => {
                for (at, line) in input.lines().enumerate() {
                    let line_no = at as u64 + 1;
                    let line = line.map_err(|e| {
                        CqrsError::Malformed(format!("reading line {line_no}: {e}"))
                    })?;
                    if line.trim().is_empty() {
                        continue;
                    }
                    let record = match serde_json::from_str::<Value>(&line) {
                        Ok(Value::Object(map)) => (self.reader.json)(map),
                        Ok(_) => Err("not a JSON object".to_owned()),
                        Err(e) => Err(format!("not JSON: {e}")),
                    };
                    self.one(&mut report, line_no, record).await?;
                }
            }
            Format::Csv => {
                let mut reader = csv::ReaderBuilder::new().from_reader(input);
                let header = reader
                    .headers()
                    .map_err(|e| CqrsError::Malformed(format!("the CSV header: {e}")))?
                    .clone();
                for row in reader.records() {
                    let (line_no, record) = match row {
                        Ok(row) => {
                            let line = row.position().map_or(0, |p| p.line());
                            (line, (self.reader.csv)(&header, &row))
                        }
                        Err(e) => (
                            e.position().map_or(0, |p| p.line()),
                            Err(format!("not a CSV row: {e}")),
                        ),
                    };
                    self.one(&mut report, line_no, record).await?;
                }
            }
        }
        if let Some(progress) = &mut self.progress {
            progress(&report);
        }
        Ok(report)
    }

    async fn one(
        &mut self,
        report: &mut ImportReport,
        line: u64,
        record: std::result::Result<Map<String, Value>, String>,
    ) -> Result<()> {
        report.records += 1;
        let command = record.and_then(|r| self.mapping.command(r));
        let outcome = match command {
            Err(reason) => Err(reason),
            Ok(input) => {
                let published = if self.sync {
                    self.service.publish_sync(&input, &self.invoker).await
                } else {
                    self.service.publish_async(&input, &self.invoker).await
                };
                match published {
                    Ok(Some(_)) => Ok(true),
                    Ok(None) => Ok(false),
                    Err(e) if is_the_records(&e) => Err(e.to_string()),
                    Err(e) => return Err(e),
                }
            }
        };
        match outcome {
            Ok(true) => report.published += 1,
            Ok(false) => report.unchanged += 1,
            Err(reason) => {
                tracing::warn!(line, reason, "import: record rejected");
                report.rejected.push(Rejected { line, reason });
            }
        }
        if report.records.is_multiple_of(self.every)
            && let Some(progress) = &mut self.progress
        {
            progress(report);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_record_maps_to_a_command_or_says_why_not() {
        let mapping = Mapping::new("PRODUCT", "Tenant001", "sku").with_name_field("title");
        let record = json!({"sku": "A-1", "title": "Tea", "price": "3"});
        let input = mapping
            .command(record.as_object().cloned().unwrap_or_default())
            .expect("a command");
        assert_eq!(
            (
                input.pk.as_str(),
                input.sk.as_str(),
                input.code.as_str(),
                input.name.as_str()
            ),
            ("PRODUCT#tenant001", "A-1", "A-1", "Tea")
        );
        assert_eq!(input.version, VERSION_LATEST);
        assert_eq!(input.attributes["price"], json!("3"));
        let missing = mapping.command(serde_json::Map::new());
        assert_eq!(missing, Err("no sku".into()));
        let versioned = json!({"sku": "A@2"});
        assert!(
            mapping
                .command(versioned.as_object().cloned().unwrap_or_default())
                .is_err()
        );
    }
}
