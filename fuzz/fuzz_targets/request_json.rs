//! Whole request bodies for the item, table and global table operations: decoding and the
//! engine's validation must return errors, never panic; a region name that may name a
//! directory never leaves it.
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
    // Global tables: ReplicaUpdates and the legacy operations, and the region names that
    // become directories.
    let _ = serde_json::from_slice::<CreateGlobalTableInput>(data);
    let _ = serde_json::from_slice::<UpdateGlobalTableInput>(data);
    let _ = serde_json::from_slice::<ListGlobalTablesInput>(data);
    let _ = serde_json::from_slice::<UpdateGlobalTableSettingsInput>(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let valid = kura_engine::replication::valid_region(text);
        assert!(!valid || !(text.contains('/') || text.contains("..") || text.is_empty()));
    }
    if let Ok(input) = serde_json::from_slice::<PutItemInput>(data)
        && let Some(item) = input.item
    {
        let _ = kura_model::wire::item_from_json(item);
    }
});
