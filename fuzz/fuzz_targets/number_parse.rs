//! Number parsing: never panics; a parsed number prints a form that parses to itself.
#![no_main]
use kura_model::Number;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(n) = Number::parse(text) {
        let printed = n.to_string();
        assert_eq!(Number::parse(&printed).expect("printed form parses"), n);
        let _ = n.checked_add(&n);
        let _ = n.checked_sub(&Number::from(1i64));
    }
});
