//! The house rules of the workspace, checked by each crate's own `tests/house.rs`:
//!
//! - **No knots.** No two files of a crate import each other, directly or round a loop
//!   (ADR 0008, ADR 0031). The source is parsed as Rust: every `use`, every path in code
//!   and in macro bodies, unit tests included; a re-exported name is followed to the file
//!   that defines it, and a name defined in `lib.rs` or a `mod.rs` counts like any other.
//! - **Files read in one sitting**: none over 800 lines.
//! - **Long functions are counted**: a crate states how many non-test functions over 100
//!   lines it has, and the number may only fall.

mod error;
mod knots;
mod length;
mod resolve;
mod rules;
mod scan;
mod tree;
mod uses;

pub use error::HouseError;
pub use knots::{Knot, knots, module_name};
pub use length::{LongFunction, long_files, long_functions};
pub use resolve::{FileGraph, file_graph, why};
pub use rules::{Allowances, assert_house_rules};
pub use tree::{Crate, ModulePath};
