//! An answer's JSON body: serde_json for every answer, sonic-rs for the item pages.

use serde::Serialize;

use crate::error::ApiError;

/// An answer's JSON body.
pub fn json<T: Serialize>(output: &T) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(output)
        .map_err(|e| ApiError::from(kura_engine::EngineError::Internal(e.to_string())))
}

/// Answers made of items and capacity figures only, with no `serde_json` value inside.
/// Only these go through [`item_json`]: kura-cqrs turns on serde_json's
/// `arbitrary_precision` in the build, and sonic-rs would write a `serde_json::Number` as
/// the private struct serde_json carries it in.
pub trait ItemAnswer: Serialize {}

impl ItemAnswer for kura_engine::api::GetItemOutput {}

impl ItemAnswer for kura_engine::api::PageOutput {}

/// The JSON body of GetItem, Query and Scan, written with sonic-rs: its string escaping is
/// vectorised, and a page of 25 items of 1 KB spent a fifth of the server's CPU in
/// serde_json's byte-at-a-time loop (Query 97 → 76 µs per request). The bytes are
/// serde_json's; the tests in ops/mod.rs compare the two on random pages.
pub fn item_json<T: ItemAnswer>(output: &T) -> Result<Vec<u8>, ApiError> {
    sonic_rs::to_vec(output)
        .map_err(|e| ApiError::from(kura_engine::EngineError::Internal(e.to_string())))
}
