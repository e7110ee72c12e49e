//! Reading an import's objects: decompression, then the records of each format, each
//! with its line number, as DynamoDB JSON items not yet validated.
//!
//! - DYNAMODB_JSON: one `{"Item":{...}}` per line (what a full export writes);
//! - ION: one `{Item:{...}}` per line, `$ion_1_0` markers allowed (see `ion`);
//! - CSV: a header row (or `HeaderList`), then one item per row; the key attributes of
//!   the table and of its indexes take the type of their AttributeDefinitions, every
//!   other column is a string, as DynamoDB's import does. An empty cell is no attribute.

use std::collections::BTreeMap;
use std::io::Read;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use kura_model::keycode::ScalarType;
use kura_model::wire::{AttributeValueJson, ItemJson};

use super::ion;

/// Decompressed objects bigger than this are refused (the whole object is held in
/// memory; DynamoDB's own limit per object is far larger, but Kura imports on one
/// machine).
pub const MAX_OBJECT_BYTES: u64 = 1 << 30;

/// The bytes of an object as stored, decompressed; at most [`MAX_OBJECT_BYTES`] either way.
pub fn decompress(kind: &str, body: Vec<u8>) -> Result<Vec<u8>, String> {
    if body.len() as u64 > MAX_OBJECT_BYTES {
        return Err(too_large());
    }
    let mut out = Vec::new();
    let read = match kind {
        "GZIP" => flate2::read::MultiGzDecoder::new(body.as_slice())
            .take(MAX_OBJECT_BYTES + 1)
            .read_to_end(&mut out),
        "ZSTD" => zstd_frames(&body, &mut out),
        _ => return Ok(body),
    };
    read.map_err(|e| format!("the object is not valid {kind} data: {e}"))?;
    if out.len() as u64 > MAX_OBJECT_BYTES {
        return Err(too_large());
    }
    Ok(out)
}

pub fn too_large() -> String {
    format!("the object is larger than {MAX_OBJECT_BYTES} bytes (decompressed)")
}

/// Every zstd frame of `body`, one after another (a compressor may write several), into
/// `out`, stopping past [`MAX_OBJECT_BYTES`]. Skippable frames (metadata) are stepped over
/// and content checksums are checked, as the zstd tool does. ruzstd decodes in pure Rust:
/// the C library cost a clean build a minute of CPU for this one call.
fn zstd_frames(body: &[u8], out: &mut Vec<u8>) -> std::io::Result<usize> {
    use ruzstd::decoding::StreamingDecoder;
    use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
    let invalid = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidData, why);
    let mut rest = body;
    while !rest.is_empty() && (out.len() as u64) <= MAX_OBJECT_BYTES {
        let mut frame = match StreamingDecoder::new(&mut rest) {
            Ok(frame) => frame,
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                length,
                ..
            })) => {
                rest = rest
                    .get(length as usize..)
                    .ok_or_else(|| invalid("a skippable frame is cut short".into()))?;
                continue;
            }
            Err(e) => return Err(invalid(e.to_string())),
        };
        let room = MAX_OBJECT_BYTES + 1 - out.len() as u64;
        (&mut frame).take(room).read_to_end(out)?;
        let frame = frame.into_frame_decoder();
        let checksums = (
            frame.get_checksum_from_data(),
            frame.get_calculated_checksum(),
        );
        if let (Some(stored), Some(computed)) = checksums
            && stored != computed
            && (out.len() as u64) <= MAX_OBJECT_BYTES
        {
            return Err(invalid("a frame's content checksum does not match".into()));
        }
    }
    Ok(out.len())
}

/// One record of an object: its line number (1-based), then the item or why it is not one.
pub type Record = (u64, Result<ItemJson, String>);

/// The records of a DYNAMODB_JSON or ION object.
pub fn lines(format: &str, text: &str) -> Vec<Record> {
    let mut out = Vec::new();
    let _never = each_line::<()>(format, text, |r| {
        out.push(r);
        Ok(())
    });
    out
}

/// Each record of a DYNAMODB_JSON or ION object handed to `each` as it is read, so an
/// object's records are never all held at once; stops at `each`'s first error.
pub fn each_line<E>(
    format: &str,
    text: &str,
    mut each: impl FnMut(Record) -> Result<(), E>,
) -> Result<(), E> {
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let number = i as u64 + 1;
        let item = match format {
            "ION" => {
                ion::item_of_line(line).and_then(|i| i.ok_or_else(|| "an empty line".to_owned()))
            }
            _ => json_item(line),
        };
        each((number, item))?;
    }
    Ok(())
}

fn json_item(line: &str) -> Result<ItemJson, String> {
    #[derive(serde::Deserialize)]
    struct Line {
        #[serde(rename = "Item")]
        item: Option<ItemJson>,
    }
    let parsed: Line =
        serde_json::from_str(line).map_err(|e| format!("not a DynamoDB JSON line: {e}"))?;
    parsed
        .item
        .ok_or_else(|| "a line without an Item".to_owned())
}

/// How CSV columns are read.
pub struct CsvSpec<'a> {
    pub delimiter: u8,
    pub header: Option<&'a [String]>,
    /// Key attributes of the table and its indexes, with their types.
    pub typed: &'a BTreeMap<String, ScalarType>,
}

/// The records of a CSV object.
pub fn csv_records(spec: &CsvSpec<'_>, text: &str) -> Vec<Record> {
    let mut out = Vec::new();
    let _never = each_csv_record::<()>(spec, text, |r| {
        out.push(r);
        Ok(())
    });
    out
}

/// Each row of a CSV object handed to `each` as it is read (see [`each_line`]).
pub fn each_csv_record<E>(
    spec: &CsvSpec<'_>,
    text: &str,
    mut each: impl FnMut(Record) -> Result<(), E>,
) -> Result<(), E> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(spec.delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut header: Option<Vec<String>> = spec.header.map(<[String]>::to_vec);
    for row in reader.records() {
        let row = match row {
            Ok(row) => row,
            Err(e) => {
                let line = e.position().map_or(0, csv::Position::line);
                each((line, Err(format!("not a CSV row: {e}"))))?;
                continue;
            }
        };
        let line = row.position().map_or(0, csv::Position::line);
        let Some(names) = &header else {
            header = Some(row.iter().map(str::to_owned).collect());
            continue;
        };
        if row.len() > names.len() {
            each((
                line,
                Err(format!(
                    "a row of {} fields under a header of {}",
                    row.len(),
                    names.len()
                )),
            ))?;
            continue;
        }
        let mut item = ItemJson::new();
        let mut failed = None;
        for (name, cell) in names.iter().zip(row.iter()) {
            if cell.is_empty() {
                continue;
            }
            let value = match spec.typed.get(name) {
                Some(ScalarType::N) => serde_json::json!({ "N": cell }),
                Some(ScalarType::B) => {
                    if BASE64.decode(cell).is_err() {
                        failed = Some(format!("the binary key {name} is not base64"));
                        break;
                    }
                    serde_json::json!({ "B": cell })
                }
                _ => serde_json::json!({ "S": cell }),
            };
            match serde_json::from_value::<AttributeValueJson>(value) {
                Ok(v) => {
                    item.insert(name.clone(), v);
                }
                Err(e) => {
                    failed = Some(e.to_string());
                    break;
                }
            }
        }
        each((line, failed.map_or(Ok(item), Err)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_types_keys_and_keeps_the_rest_strings() {
        let typed = BTreeMap::from([
            ("pk".to_owned(), ScalarType::S),
            ("n".to_owned(), ScalarType::N),
        ]);
        let spec = CsvSpec {
            delimiter: b';',
            header: None,
            typed: &typed,
        };
        let records = csv_records(&spec, "pk;n;note\na;1;\"x;y\"\nb;2;\n");
        assert_eq!(records.len(), 2);
        let first = records[0].1.clone().expect("item");
        let item = kura_model::wire::item_from_json(first).expect("valid");
        let json = serde_json::to_value(&item).expect("json");
        assert_eq!(
            json,
            serde_json::json!({"pk": {"S": "a"}, "n": {"N": "1"}, "note": {"S": "x;y"}})
        );
        assert_eq!(records[1].0, 3);
    }

    #[test]
    fn json_lines_report_their_line_numbers() {
        let records = lines(
            "DYNAMODB_JSON",
            "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n\nnot json\n{\"Other\":1}\n",
        );
        assert_eq!(
            records
                .iter()
                .map(|r| (r.0, r.1.is_ok()))
                .collect::<Vec<_>>(),
            [(1, true), (3, false), (4, false)]
        );
    }

    #[test]
    fn decompression_refuses_garbage() {
        assert!(decompress("GZIP", b"not gzip".to_vec()).is_err());
        assert!(decompress("ZSTD", b"not zstd".to_vec()).is_err());
        assert_eq!(decompress("NONE", b"x".to_vec()).expect("plain"), b"x");
    }

    #[test]
    fn zstd_skippable_frames_are_stepped_over_and_checksums_checked() {
        use ruzstd::encoding::{CompressionLevel, compress_to_vec};
        let frame = compress_to_vec(&b"data\n"[..], CompressionLevel::Fastest);
        // A skippable frame: magic 0x184D2A50, a little-endian length, that many bytes.
        let mut body = 0x184D_2A50_u32.to_le_bytes().to_vec();
        body.extend(3_u32.to_le_bytes());
        body.extend(b"abc");
        body.extend(&frame);
        assert_eq!(decompress("ZSTD", body).expect("skipped"), b"data\n");

        let mut corrupt = frame.clone();
        let last = corrupt.len() - 1;
        corrupt[last] ^= 0xFF;
        let error = decompress("ZSTD", corrupt).expect_err("checksum");
        assert!(error.contains("checksum"), "{error}");
    }

    #[test]
    fn zstd_objects_of_several_frames_decode_whole() {
        use ruzstd::encoding::{CompressionLevel, compress_to_vec};
        let mut body = compress_to_vec(&b"first line\n"[..], CompressionLevel::Fastest);
        body.extend(compress_to_vec(
            &b"second line\n"[..],
            CompressionLevel::Fastest,
        ));
        assert_eq!(
            decompress("ZSTD", body).expect("two frames"),
            b"first line\nsecond line\n"
        );
    }
}
