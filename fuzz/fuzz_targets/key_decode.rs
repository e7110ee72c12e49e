//! Key decoding from arbitrary bytes: never panics; what decodes re-encodes to the same bytes.
#![no_main]
use kura_model::keycode::{ScalarType, decode_key_value, encode_key_value};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for ty in [ScalarType::S, ScalarType::N, ScalarType::B] {
        let mut input = data;
        if let Ok(value) = decode_key_value(ty, &mut input) {
            let consumed = data.len() - input.len();
            let mut out = Vec::new();
            encode_key_value(&value, &mut out).expect("decoded keys are scalars");
            assert_eq!(out.as_slice(), &data[..consumed]);
        }
    }
});
