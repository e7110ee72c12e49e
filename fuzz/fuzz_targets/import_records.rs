//! The import readers: an object in each input format (DynamoDB JSON lines, Ion text,
//! CSV), plain, gzip'd or zstd'd, goes through decompression, the format's parser and
//! the item checks. Every input gives records or an error, never a panic or a hang (the
//! Ion reader bounds its nesting).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let format = ["DYNAMODB_JSON", "ION", "CSV"][usize::from(selector % 3)];
    let compression = ["NONE", "GZIP", "ZSTD"][usize::from((selector / 3) % 3)];
    if let Ok(records) = kura_engine::imports::object_records(format, compression, body.to_vec()) {
        if compression == "NONE" {
            for (line, _) in records {
                assert!(line <= body.len() as u64 + 1, "a line number past the input");
            }
        }
    }
});
