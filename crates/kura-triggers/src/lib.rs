//! Stream triggers: what AWS Lambda's event source mapping does for a DynamoDB stream, run
//! by Kura locally (issue 20). This crate starts with the part every trigger needs and that
//! has a specification of its own: Lambda's event filtering ([`filter`]), the
//! `FilterCriteria` patterns that decide which stream records reach the function.

// Library code reports failures as errors; tests may unwrap.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod error;
pub mod filter;

pub use error::TriggerError;
pub use filter::{FilterCriteria, Pattern};
