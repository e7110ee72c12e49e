//! The bytes of an export, as DynamoDB writes them under
//! `<prefix>/AWSDynamoDB/<ExportId>/` (Developer Guide, "DynamoDB table export output
//! format"; checked against real exports): data lines in DynamoDB JSON or Ion text, each
//! file gzip'd, the manifests with their MD5 files, object names and times.

use std::io::Write;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use flate2::Compression;
use flate2::write::GzEncoder;
use kura_model::{AttributeValue, Item};
use md5::{Digest, Md5};
use serde::Serialize;

/// `2026-01-14T10:18:50.622Z`: the manifests' times, UTC with milliseconds.
pub fn iso_millis(ms: i64) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| ms.to_string())
}

/// Base64 of the MD5 of `bytes`: the manifests' `md5Checksum` and the `.md5` files.
pub fn md5_base64(bytes: &[u8]) -> String {
    BASE64.encode(Md5::digest(bytes))
}

/// The ETag S3 gives an object uploaded in one part of a multipart upload, as the
/// manifests quote it: hex MD5 and `-1`.
pub fn etag(bytes: &[u8]) -> String {
    let hex: String = Md5::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{hex}-1")
}

/// A data file's name: 26 characters of lowercase base32 (`[a-z2-7]`), like DynamoDB's,
/// derived from the export id and the file's number so that a resumed export writes the
/// same objects again.
pub fn data_file_name(export_id: &str, number: usize) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let digest = Md5::digest(format!("{export_id}/{number}").as_bytes());
    let mut bits: u128 = u128::from_be_bytes(digest.into());
    let mut out = Vec::with_capacity(26);
    // 26 characters carry 130 bits; the first takes the top 3 of the 128.
    out.push(ALPHABET[((bits >> 125) & 0x07) as usize]);
    bits <<= 3;
    for _ in 0..25 {
        out.push(ALPHABET[((bits >> 123) & 0x1f) as usize]);
        bits <<= 5;
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The output format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    DynamoDbJson,
    Ion,
}

impl Format {
    pub fn parse(wire: Option<&str>) -> Format {
        match wire {
            Some("ION") => Format::Ion,
            _ => Format::DynamoDbJson,
        }
    }

    pub fn wire(self) -> &'static str {
        match self {
            Format::DynamoDbJson => "DYNAMODB_JSON",
            Format::Ion => "ION",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::DynamoDbJson => "json.gz",
            Format::Ion => "ion.gz",
        }
    }
}

/// One line of a full export: `{"Item":{...}}`, or `$ion_1_0 {Item:{...}}`.
pub fn item_line(format: Format, item: &Item) -> String {
    match format {
        Format::DynamoDbJson => {
            #[derive(Serialize)]
            #[serde(rename_all = "PascalCase")]
            struct Line<'a> {
                item: &'a Item,
            }
            let mut line = serde_json::to_string(&Line { item }).unwrap_or_default();
            line.push('\n');
            line
        }
        Format::Ion => {
            let mut line = String::from("$ion_1_0 {Item:");
            ion_struct(&mut line, item);
            line.push_str("}\n");
            line
        }
    }
}

/// One record of an incremental export.
pub struct Change<'a> {
    pub write_micros: u64,
    pub keys: &'a Item,
    pub new_image: Option<&'a Item>,
    pub old_image: Option<&'a Item>,
}

/// `{"Metadata":{"WriteTimestampMicros":{"N":"..."}},"Keys":{...},"NewImage":{...},
/// "OldImage":{...}}` (images as the view type and the change allow), or its Ion twin.
pub fn change_line(format: Format, change: &Change<'_>) -> String {
    match format {
        Format::DynamoDbJson => {
            #[derive(Serialize)]
            struct Micros {
                #[serde(rename = "N")]
                n: String,
            }
            #[derive(Serialize)]
            #[serde(rename_all = "PascalCase")]
            struct Metadata {
                write_timestamp_micros: Micros,
            }
            #[derive(Serialize)]
            #[serde(rename_all = "PascalCase")]
            struct Line<'a> {
                metadata: Metadata,
                keys: &'a Item,
                #[serde(skip_serializing_if = "Option::is_none")]
                new_image: Option<&'a Item>,
                #[serde(skip_serializing_if = "Option::is_none")]
                old_image: Option<&'a Item>,
            }
            let line = Line {
                metadata: Metadata {
                    write_timestamp_micros: Micros {
                        n: change.write_micros.to_string(),
                    },
                },
                keys: change.keys,
                new_image: change.new_image,
                old_image: change.old_image,
            };
            let mut out = serde_json::to_string(&line).unwrap_or_default();
            out.push('\n');
            out
        }
        Format::Ion => {
            let mut out = format!(
                "$ion_1_0 {{Metadata:{{WriteTimestampMicros:{}.}},Keys:",
                change.write_micros
            );
            ion_struct(&mut out, change.keys);
            if let Some(image) = change.new_image {
                out.push_str(",NewImage:");
                ion_struct(&mut out, image);
            }
            if let Some(image) = change.old_image {
                out.push_str(",OldImage:");
                ion_struct(&mut out, image);
            }
            out.push_str("}\n");
            out
        }
    }
}

/// Ion text of an item: a struct, attribute names as symbols.
fn ion_struct(out: &mut String, item: &Item) {
    out.push('{');
    for (i, (name, value)) in item.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        ion_symbol(out, name);
        out.push(':');
        ion_value(out, value);
    }
    out.push('}');
}

/// A field name: bare when it is an Ion identifier that is not a keyword or a symbol id,
/// otherwise quoted.
fn ion_symbol(out: &mut String, name: &str) {
    let identifier = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let keyword = matches!(name, "null" | "true" | "false" | "nan");
    if identifier && !keyword {
        out.push_str(name);
    } else {
        out.push('\'');
        ion_escape(out, name, '\'');
        out.push('\'');
    }
}

fn ion_escape(out: &mut String, text: &str, quote: char) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
}

fn ion_string(out: &mut String, text: &str) {
    out.push('"');
    ion_escape(out, text, '"');
    out.push('"');
}

/// A DynamoDB number as an Ion decimal: a point where it has none (`103.`), as the
/// Developer Guide's example shows.
fn ion_decimal(out: &mut String, number: &kura_model::Number) {
    let text = number.to_string();
    out.push_str(&text);
    if !text.contains('.') {
        out.push('.');
    }
}

fn ion_blob(out: &mut String, bytes: &[u8]) {
    out.push_str("{{");
    out.push_str(&BASE64.encode(bytes));
    out.push_str("}}");
}

fn ion_value(out: &mut String, value: &AttributeValue) {
    match value {
        AttributeValue::S(s) => ion_string(out, s),
        AttributeValue::N(n) => ion_decimal(out, n),
        AttributeValue::B(b) => ion_blob(out, b),
        AttributeValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        AttributeValue::Null => out.push_str("null"),
        AttributeValue::L(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ion_value(out, v);
            }
            out.push(']');
        }
        AttributeValue::M(map) => ion_struct(out, map),
        AttributeValue::Ss(set) => {
            out.push_str("$dynamodb_SS::[");
            for (i, s) in set.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ion_string(out, s);
            }
            out.push(']');
        }
        AttributeValue::Ns(set) => {
            out.push_str("$dynamodb_NS::[");
            for (i, n) in set.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ion_decimal(out, n);
            }
            out.push(']');
        }
        AttributeValue::Bs(set) => {
            out.push_str("$dynamodb_BS::[");
            for (i, b) in set.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ion_blob(out, b);
            }
            out.push(']');
        }
    }
}

/// Lines gathered into one gzip'd data file.
pub struct DataFile {
    encoder: GzEncoder<Vec<u8>>,
    pub items: u64,
    pub bytes: u64,
}

impl Default for DataFile {
    fn default() -> Self {
        DataFile {
            encoder: GzEncoder::new(Vec::new(), Compression::default()),
            items: 0,
            bytes: 0,
        }
    }
}

impl DataFile {
    pub fn push(&mut self, line: &str) {
        // Writing to a Vec cannot fail.
        let _infallible = self.encoder.write_all(line.as_bytes());
        self.items += 1;
        self.bytes += line.len() as u64;
    }

    pub fn finish(self) -> Vec<u8> {
        self.encoder.finish().unwrap_or_default()
    }
}

/// One line of `manifest-files.json`, its keys in DynamoDB's order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestFile {
    pub item_count: u64,
    pub md5_checksum: String,
    pub etag: String,
    pub data_file_s3_key: String,
}

/// `manifest-summary.json`, its keys in DynamoDB's order; absent values are `null`. A
/// full export has `exportTime`; an incremental one `exportFromTime`, `exportToTime`,
/// `outputView` and `exportType` (version 2023-08-01).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestSummary {
    pub version: &'static str,
    pub export_arn: String,
    pub start_time: String,
    pub end_time: String,
    pub table_arn: String,
    pub table_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_from_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_to_time: Option<String>,
    pub s3_bucket: String,
    pub s3_prefix: Option<String>,
    pub s3_sse_algorithm: String,
    pub s3_sse_kms_key_id: Option<String>,
    pub manifest_files_s3_key: String,
    pub billed_size_bytes: u64,
    pub item_count: u64,
    pub output_format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_view: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_type: Option<&'static str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_checksums_have_dynamodbs_shape() {
        let name = data_file_name("01768385930622-efd1a093", 0);
        assert_eq!(name.len(), 26);
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b))
        );
        assert_eq!(name, data_file_name("01768385930622-efd1a093", 0));
        assert_ne!(name, data_file_name("01768385930622-efd1a093", 1));
        // An empty gzip member's checksum is the one AWS's manifests show for empty files
        // only when the gzip header matches; the MD5 helpers are checked on known bytes.
        assert_eq!(md5_base64(b""), "1B2M2Y8AsgTpgAmY7PhCfg==");
        assert_eq!(etag(b""), "d41d8cd98f00b204e9800998ecf8427e-1");
        assert_eq!(iso_millis(1_768_385_930_622), "2026-01-14T10:18:50.622Z");
    }

    #[test]
    fn ion_lines_follow_the_developer_guide() {
        let item: Item = kura_model::wire::item_from_json(
            serde_json::from_str(
                r#"{"Authors":{"SS":["Author1","Author2"]},"Id":{"N":"103"},"InPublication":{"BOOL":false},
                    "Price":{"N":"2.5"},"Title":{"S":"Book \"103\""},"null":{"NULL":true},"b":{"B":"AAE="},
                    "l":{"L":[{"N":"1"},{"M":{"x y":{"S":"z"}}}]}}"#,
            )
            .expect("json"),
        )
        .expect("item");
        assert_eq!(
            item_line(Format::Ion, &item),
            "$ion_1_0 {Item:{Authors:$dynamodb_SS::[\"Author1\",\"Author2\"],Id:103.,InPublication:false,Price:2.5,Title:\"Book \\\"103\\\"\",b:{{AAE=}},l:[1.,{'x y':\"z\"}],'null':null}}\n"
        );
        assert!(
            item_line(Format::DynamoDbJson, &item).starts_with("{\"Item\":{\"Authors\":{\"SS\":")
        );
    }
}
