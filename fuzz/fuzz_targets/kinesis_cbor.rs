//! Kinesis's CBOR bodies (`application/x-amz-cbor-1.1`): any bytes are read as JSON or
//! refused, never a panic, and with memory bounded by the input (a declared length is not
//! an allocation); any JSON answer can be written back in CBOR.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(json) = kura_server::cbor::request_to_json(data) {
        let cbor = kura_server::cbor::response_to_cbor(&json);
        // What was written reads back.
        assert!(kura_server::cbor::request_to_json(&cbor).is_ok());
    }
    let _ = kura_server::cbor::response_to_cbor(data);
});
