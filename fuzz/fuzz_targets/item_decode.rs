//! Stored item decoding from arbitrary bytes: never panics; canonical bytes round-trip.
#![no_main]
use kura_model::{decode_item, encode_item};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(item) = decode_item(data) {
        assert_eq!(encode_item(&item), data);
    }
});
