//! Stream triggers: what AWS Lambda's event source mapping does for a DynamoDB stream, run
//! by Kura locally (issue 20). So far: a trigger's definition with Lambda's ranges and
//! defaults ([`config`]), Lambda's event filtering ([`filter`]), the `FilterCriteria`
//! patterns that decide which stream records reach the function, and the event, batches and
//! partial batch responses in Lambda's shapes ([`event`]), and invoking a function over HTTP
//! or as a command ([`deliver`]). The runner that reads streams, checkpoints and retries
//! comes next.

// Library code reports failures as errors; tests may unwrap.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod config;
pub mod deliver;
pub mod error;
pub mod event;
pub mod filter;

pub use config::{Trigger, TriggerInput, parse_file};
pub use error::TriggerError;
pub use filter::{FilterCriteria, Pattern};
