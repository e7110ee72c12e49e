//! CloudFormation and SAM templates in YAML (`kura advise --template`) from arbitrary
//! text: the reader answers with a JSON value or an error, never a panic (deep nesting,
//! aliases, tags on any node, broken documents), and what it answers serializes to at most
//! a small multiple of the input (aliases are counted: the billion-laughs family in the
//! seeds is refused, not expanded).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(value) = kura_advisor::template_yaml::to_json(text) {
        let json = serde_json::to_string(&value).expect("a JSON value serializes");
        assert!(
            json.len() <= 32 * text.len() + (2 << 20),
            "{} bytes of YAML read as {} bytes of JSON",
            text.len(),
            json.len()
        );
    }
});
