//! The storage seam: a few ordered key spaces, atomic synced batches, snapshot reads.
//!
//! Everything DynamoDB-specific lives above this trait; an implementation only has to keep
//! bytes in order, apply a batch atomically, and make it durable before `commit` returns.
//! `conformance` holds the one test suite every implementation passes.

pub mod fjall_store;
mod kv;
pub mod memory;

#[cfg(test)]
pub(crate) mod conformance;

pub use fjall_store::{FjallStore, StoreOptions};
pub use kv::*;
pub use memory::MemoryStore;
