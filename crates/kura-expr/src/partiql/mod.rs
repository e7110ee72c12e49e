//! PartiQL for DynamoDB: the statements of ExecuteStatement, BatchExecuteStatement and
//! ExecuteTransaction.
//!
//! [`parse`] turns statement text into [`ast::Statement`]; [`lower::lower`] binds the `?`
//! parameters and lowers it to the condition, update and projection trees of
//! [`crate::ast`], so PartiQL runs on the same evaluator as every expression. What a
//! statement means for a table (which key it names, Query or Scan) is the engine's.
//!
//! ```
//! use kura_expr::partiql::{lower::{lower, Lowered}, parse};
//! use kura_model::AttributeValue;
//!
//! let statement = parse(r#"UPDATE "Music" SET plays = plays + 1 WHERE artist = ?"#).unwrap();
//! let Lowered::Update { update, .. } = lower(&statement, &[AttributeValue::s("Acme")]).unwrap()
//! else { unreachable!() };
//! assert_eq!(update.set.len(), 1);
//! ```

pub mod ast;
mod lexer;
pub mod lower;
mod parser;
pub mod projection;

pub use parser::{MAX_STATEMENT_LENGTH, parameter_count, parse};
