//! ImportTable, DescribeImport and ListImports (ADR 0012).
//!
//! ImportTable validates the new table as CreateTable would, then commits, in one batch,
//! the table (CREATING: data operations do not find it) and an import record
//! (IN_PROGRESS). The import thread ([`job`]) reads every object under the key prefix,
//! writes the valid items through the write path (indexes and statistics follow) and
//! counts the rest, then makes the table ACTIVE and the import COMPLETED, or FAILED with
//! `ItemValidationError` when any item was refused (the table keeps the valid ones, as
//! on DynamoDB). A bucket that cannot be read fails the import and removes the table.
//! After a restart an import still IN_PROGRESS runs again from the start: items are put,
//! so a second run writes the same table.

pub(crate) mod ion;
pub(crate) mod job;
pub mod parse;

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::messages::{self, exports as msg};
use serde::{Deserialize, Serialize};

use crate::api::*;
use crate::error::{EngineError, Result};
use crate::jobs::JobRecords;
use crate::tables::allocate_table_id;
use crate::{Engine, RequestContext, arn, paging};

/// Objects one import takes: DynamoDB's quota (Developer Guide, "Import format quotas
/// and validation"). More fails the import (FailureCode `TooManyObjects`) before any is
/// read, and bounds what the listing holds.
pub const MAX_IMPORT_OBJECTS: usize = 50_000;

const IMPORT: &[u8] = b"import/";
/// The import records, under `import/` ‖ id in `Meta`.
pub(crate) const RECORDS: JobRecords<ImportRecord> = JobRecords::new(IMPORT, "import");
const RECORD_VERSION: u32 = 1;
const LIST_DEFAULT: i64 = 10;
const LIST_MAX: i64 = 25;

/// One import, as stored under `import/` ‖ id in `Meta`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImportRecord {
    pub v: u32,
    pub id: String,
    pub table_name: String,
    pub table_id: u64,
    pub table_uuid: String,
    pub region: String,
    pub status: String,
    pub start_ms: i64,
    #[serde(default)]
    pub end_ms: Option<i64>,
    #[serde(default)]
    pub client_token: Option<String>,
    pub source: S3BucketSource,
    pub input_format: String,
    #[serde(default)]
    pub input_format_options: Option<InputFormatOptions>,
    pub compression: String,
    pub creation: TableCreationParameters,
    #[serde(default)]
    pub processed_bytes: u64,
    #[serde(default)]
    pub processed: u64,
    #[serde(default)]
    pub imported: u64,
    #[serde(default)]
    pub errors: u64,
    #[serde(default)]
    pub failure_code: Option<String>,
    #[serde(default)]
    pub failure_message: Option<String>,
}

/// A record of an object: its line, and the item or why it is not one.
pub type CheckedRecord = (u64, std::result::Result<kura_model::Item, String>);

/// The records an import would read from one object: decompressed, parsed in `format`
/// (CSV with a header row and `,`, every column a string but `pk`), each checked as an
/// item. For fuzzing and tools; the import itself also checks keys against its table.
pub fn object_records(
    format: &str,
    compression: &str,
    body: Vec<u8>,
) -> std::result::Result<Vec<CheckedRecord>, String> {
    let text = String::from_utf8(parse::decompress(compression, body)?)
        .map_err(|_| "the object is not UTF-8 text".to_owned())?;
    let typed = std::collections::BTreeMap::new();
    let records = match format {
        "CSV" => parse::csv_records(
            &parse::CsvSpec {
                delimiter: b',',
                header: None,
                typed: &typed,
            },
            &text,
        ),
        format => parse::lines(format, &text),
    };
    Ok(records
        .into_iter()
        .map(|(line, item)| {
            (
                line,
                item.and_then(|json| {
                    kura_model::wire::item_from_json(json).map_err(|e| e.to_string())
                }),
            )
        })
        .collect())
}

fn seconds(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

fn log_group(region: &str) -> String {
    format!(
        "arn:aws:logs:{region}:{}:log-group:/aws-dynamodb/imports:*",
        crate::ACCOUNT_ID
    )
}

pub(crate) fn describe(record: &ImportRecord) -> ImportTableDescription {
    ImportTableDescription {
        import_arn: arn::import(&record.region, &record.table_name, &record.id),
        import_status: record.status.clone(),
        table_arn: arn::table(&record.region, &record.table_name),
        table_id: record.table_uuid.clone(),
        client_token: record.client_token.clone(),
        s3_bucket_source: record.source.clone(),
        error_count: record.errors,
        cloud_watch_log_group_arn: log_group(&record.region),
        input_format: record.input_format.clone(),
        input_format_options: record.input_format_options.clone(),
        input_compression_type: record.compression.clone(),
        table_creation_parameters: record.creation.clone(),
        start_time: seconds(record.start_ms),
        end_time: record.end_ms.map(seconds),
        processed_size_bytes: record.processed_bytes,
        processed_item_count: record.processed,
        imported_item_count: record.imported,
        failure_code: record.failure_code.clone(),
        failure_message: record.failure_message.clone(),
    }
}

fn constraints(input: &ImportTableInput) -> Result<()> {
    let mut c = Constraints::new();
    if let Some(token) = input.client_token.as_deref()
        && (token.is_empty() || token.contains('$'))
    {
        c.fail(
            Some(token),
            "clientToken",
            "Member must satisfy regular expression pattern: ^[^\\$]+$",
        );
    }
    match &input.s3_bucket_source {
        None => c.not_null::<()>("s3BucketSource", None),
        Some(source) => {
            match source.s3_bucket.as_deref() {
                None => c.not_null::<()>("s3BucketSource.s3Bucket", None),
                Some(b) => c.length("s3BucketSource.s3Bucket", b, b.chars().count(), 0, 255),
            }
            if let Some(owner) = source.s3_bucket_owner.as_deref()
                && !(owner.len() == 12 && owner.bytes().all(|b| b.is_ascii_digit()))
            {
                c.fail(
                    Some(owner),
                    "s3BucketSource.s3BucketOwner",
                    "Member must satisfy regular expression pattern: [0-9]{12}",
                );
            }
            if let Some(prefix) = source.s3_key_prefix.as_deref() {
                c.length(
                    "s3BucketSource.s3KeyPrefix",
                    prefix,
                    prefix.chars().count(),
                    0,
                    1024,
                );
            }
        }
    }
    c.not_null("inputFormat", input.input_format.as_ref());
    c.one_of(
        "inputFormat",
        input.input_format.as_deref(),
        &["DYNAMODB_JSON", "ION", "CSV"],
    );
    if let Some(csv) = input
        .input_format_options
        .as_ref()
        .and_then(|o| o.csv.as_ref())
    {
        if let Some(d) = csv.delimiter.as_deref() {
            if !matches!(d, "," | ";" | ":" | "|" | "\t" | " ") {
                c.fail(
                    Some(d),
                    "inputFormatOptions.csv.delimiter",
                    "Member must satisfy regular expression pattern: [,;:|\\t ]",
                );
            }
            c.length(
                "inputFormatOptions.csv.delimiter",
                d,
                d.chars().count(),
                1,
                1,
            );
        }
        if let Some(headers) = &csv.header_list {
            c.length(
                "inputFormatOptions.csv.headerList",
                "[...]",
                headers.len(),
                1,
                255,
            );
        }
    }
    c.one_of(
        "inputCompressionType",
        input.input_compression_type.as_deref(),
        &["ZSTD", "NONE", "GZIP"],
    );
    c.not_null(
        "tableCreationParameters",
        input.table_creation_parameters.as_ref(),
    );
    c.finish()?;
    Ok(())
}

impl Engine {
    pub async fn import_table(
        &self,
        ctx: &RequestContext,
        input: ImportTableInput,
    ) -> Result<ImportTableOutput> {
        constraints(&input)?;
        let format = input.input_format.clone().unwrap_or_default();
        if input
            .input_format_options
            .as_ref()
            .is_some_and(|o| o.csv.is_some())
            && format != "CSV"
        {
            return Err(EngineError::validation(msg::csv_options_for(&format)));
        }
        let creation = input.table_creation_parameters.clone().unwrap_or_default();
        let as_create: CreateTableInput = serde_json::to_value(&creation)
            .and_then(serde_json::from_value)
            .map_err(|e| EngineError::Serialization(messages::body_wrong_shape(&e.to_string())))?;
        let (mut table, _) = crate::tables::new_table_record(ctx, as_create)?;
        let snapshot = self.store.snapshot()?;
        let earlier = match input.client_token.as_deref() {
            None => None,
            Some(token) => RECORDS
                .all(snapshot.as_ref())?
                .into_iter()
                .find(|r| r.client_token.as_deref() == Some(token)),
        };
        drop(snapshot);
        if self.catalog.get(&table.name).is_some() {
            return Err(EngineError::ResourceInUse(messages::table_already_exists(
                &table.name,
            )));
        }
        if let Some(earlier) = earlier {
            if earlier.table_name == table.name {
                return Ok(ImportTableOutput {
                    import_table_description: describe(&earlier),
                });
            }
            return Err(EngineError::ImportConflict(msg::IMPORT_CONFLICT.into()));
        }
        let now = self.clock.now_ms();
        let hex = uuid::Uuid::new_v4().simple().to_string();
        let id = format!("{now:014}-{}", hex.get(..8).unwrap_or("00000000"));
        let mut source = input.s3_bucket_source.clone().unwrap_or_default();
        source
            .s3_bucket_owner
            .get_or_insert_with(|| crate::ACCOUNT_ID.to_owned());
        table.importing = Some(id.clone());
        let mut record = ImportRecord {
            v: RECORD_VERSION,
            id,
            table_name: table.name.clone(),
            table_id: 0,
            table_uuid: table.uuid.clone(),
            region: ctx.region.clone(),
            status: "IN_PROGRESS".into(),
            start_ms: now,
            end_ms: None,
            client_token: input.client_token.clone(),
            source,
            input_format: format,
            input_format_options: input.input_format_options.clone(),
            compression: input
                .input_compression_type
                .clone()
                .unwrap_or_else(|| "NONE".into()),
            creation,
            processed_bytes: 0,
            processed: 0,
            imported: 0,
            errors: 0,
            failure_code: None,
            failure_message: None,
        };
        let catalog = self.catalog.clone();
        let importer = self.importer.clone();
        let record = self
            .writer
            .submit(true, move |w| {
                if catalog.get(&table.name).is_some() {
                    return Err(EngineError::ResourceInUse(messages::table_already_exists(
                        &table.name,
                    )));
                }
                table.id = allocate_table_id(w, &catalog)?;
                record.table_id = table.id;
                RECORDS.write(w, &record.id, &record)?;
                catalog.stage(w, Arc::new(table))?;
                let id = record.id.clone();
                w.after_commit(move || importer.submit(id));
                Ok(record)
            })
            .await?;
        tracing::info!(table = %record.table_name, import = %record.id, "import started");
        Ok(ImportTableOutput {
            import_table_description: describe(&record),
        })
    }

    pub fn describe_import(&self, input: DescribeImportInput) -> Result<DescribeImportOutput> {
        let mut c = Constraints::new();
        c.required_text("importArn", input.import_arn.as_deref(), 37, 1024);
        c.finish()?;
        let import_arn = input.import_arn.unwrap_or_default();
        let (table, id) = arn::parse_import(&import_arn)
            .ok_or_else(|| EngineError::validation(msg::INVALID_IMPORT_ARN))?;
        let snapshot = self.store.snapshot()?;
        let record = RECORDS
            .read(snapshot.as_ref(), id)?
            .filter(|r| r.table_name == table)
            .ok_or_else(|| EngineError::ImportNotFound(msg::import_not_found(&import_arn)))?;
        Ok(DescribeImportOutput {
            import_table_description: describe(&record),
        })
    }

    pub fn list_imports(&self, input: ListImportsInput) -> Result<ListImportsOutput> {
        let mut c = Constraints::new();
        c.text("tableArn", input.table_arn.as_deref(), 1, 1024);
        c.at_least("pageSize", input.page_size, 1);
        c.at_most("pageSize", input.page_size, LIST_MAX);
        c.finish()?;
        let after = paging::after(input.next_token.as_deref())?;
        let table = input
            .table_arn
            .as_deref()
            .map(|a| arn::parse_table(a).unwrap_or(a).to_owned());
        let records = RECORDS.all(self.store.snapshot()?.as_ref())?;
        // Imports outlive their tables: listed by the name in the ARN.
        let (page, next_token) = paging::newest_first(
            &records,
            |r| &r.id,
            after.as_deref(),
            input.page_size.unwrap_or(LIST_DEFAULT),
            |r| table.as_ref().is_none_or(|t| *t == r.table_name),
        );
        Ok(ListImportsOutput {
            import_summary_list: page
                .iter()
                .map(|r| ImportSummary {
                    import_arn: arn::import(&r.region, &r.table_name, &r.id),
                    import_status: r.status.clone(),
                    table_arn: arn::table(&r.region, &r.table_name),
                    s3_bucket_source: r.source.clone(),
                    cloud_watch_log_group_arn: log_group(&r.region),
                    input_format: r.input_format.clone(),
                    start_time: seconds(r.start_ms),
                    end_time: r.end_ms.map(seconds),
                })
                .collect(),
            next_token,
        })
    }
}
