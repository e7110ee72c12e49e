//! Whole request bodies for the item and table operations: decoding and the engine's
//! validation must return errors, never panic.
#![no_main]
use kura_engine::api::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = serde_json::from_slice::<PutItemInput>(data);
    let _ = serde_json::from_slice::<GetItemInput>(data);
    let _ = serde_json::from_slice::<UpdateItemInput>(data);
    let _ = serde_json::from_slice::<CreateTableInput>(data);
    let _ = serde_json::from_slice::<UpdateTableInput>(data);
    let _ = serde_json::from_slice::<ListTablesInput>(data);
    if let Ok(input) = serde_json::from_slice::<PutItemInput>(data)
        && let Some(item) = input.item
    {
        let _ = kura_model::wire::item_from_json(item);
    }
});
