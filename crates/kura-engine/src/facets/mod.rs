//! The engine's doors for the tools beside the DynamoDB API (issue 51). The DynamoDB
//! operations are methods of [`Engine`]; what else a tool reads or switches goes through
//! one of these borrowed views, named after who uses it:
//!
//! - [`Design`](crate::design::Design): what the advisor, the audit log and authorization
//!   read about tables (key names, designs, samples);
//! - [`Capacity`]: capacity emulation's switch and its check at the door;
//! - [`Counters`]: what the engine counted (Prometheus metrics, the console's charts, the
//!   advisor's traffic evidence, Contributor Insights), through [`Engine::telemetry`];
//! - [`Internals`]: counts and passes run now, for tests, benchmarks and diagnostics.

mod capacity;
mod internals;

pub use capacity::Capacity;
pub use internals::Internals;

use crate::counters::Counters;
use crate::design::Design;
use crate::engine::Engine;

impl Engine {
    /// What tools read about the tables' design.
    pub fn design(&self) -> Design<'_> {
        Design { engine: self }
    }

    /// Capacity emulation (`--enforce-capacity`).
    pub fn capacity(&self) -> Capacity<'_> {
        Capacity { engine: self }
    }

    /// What the engine counted so far: every table's traffic, the writer's groups and
    /// syncs, Kinesis reads (the server's `/metrics`, the console, the advisor).
    pub fn telemetry(&self) -> &Counters {
        &self.counters
    }

    /// Counts and passes for tests, benchmarks and diagnostics.
    pub fn internals(&self) -> Internals<'_> {
        Internals { engine: self }
    }
}
