//! Stream triggers: what AWS Lambda's event source mapping does for a DynamoDB stream, run
//! by Kura in process (issue 20): a trigger's definition with Lambda's ranges and defaults
//! ([`config`]), Lambda's event filtering ([`filter`]), the event, batches and partial batch
//! responses in Lambda's shapes ([`event`]), invoking a function over HTTP or as a command
//! ([`deliver`]), the stream as a trigger reads it ([`source`]), the readers with batching,
//! retries, bisecting and failure destinations ([`runner`], [`failure`]), durable
//! checkpoints ([`state`]), and a server's set of triggers ([`manager`]).

pub mod config;
pub mod deliver;
pub mod error;
pub mod event;
pub mod failure;
pub mod filter;
pub mod manager;
pub mod runner;
pub mod source;
pub mod state;

pub use config::{Trigger, TriggerInput, parse_file};
pub use error::TriggerError;
pub use filter::{FilterCriteria, Pattern};
pub use manager::{TriggerStatus, Triggers};
pub use runner::RunnerOptions;
pub use state::StateStore;
