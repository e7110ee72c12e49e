//! Evaluating expressions against items.

pub mod compare;
pub mod condition;
pub mod path;
pub mod projection;
pub mod update;
