//! DynamoDB JSON for one attribute value: parse, validate, and if valid round-trip.
#![no_main]
use kura_model::wire::AttributeValueJson;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = serde_json::from_slice::<AttributeValueJson>(data) else { return };
    let Ok(value) = raw.into_value() else { return };
    let text = serde_json::to_vec(&value).expect("a valid value serialises");
    let again: AttributeValueJson = serde_json::from_slice(&text).expect("output parses");
    assert_eq!(again.into_value().expect("output validates"), value);
});
