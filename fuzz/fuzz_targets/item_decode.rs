//! Stored item decoding from arbitrary bytes: never panics; canonical bytes round-trip;
//! a partial decode of a valid item is the full decode filtered.
#![no_main]
use kura_model::item_codec::top_level_list_len;
use kura_model::{AttributeValue, decode_item, decode_item_where, encode_item};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let wanted = |name: &str| name.len() % 2 == 0;
    let partial = decode_item_where(data, wanted);
    let list_len = top_level_list_len(data, "v");
    if let Ok(item) = decode_item(data) {
        assert_eq!(encode_item(&item), data);
        let mut filtered = item.clone();
        filtered.retain(|name, _| wanted(name));
        assert_eq!(partial, Ok(filtered));
        let expected = match item.get("v") {
            Some(AttributeValue::L(list)) => Some(list.len()),
            _ => None,
        };
        assert_eq!(list_len, Ok(expected));
    }
});
