//! Kura's DynamoDB expression language.
//!
//! - [`request::compile`] takes the expression members of one request (expressions,
//!   `ExpressionAttributeNames`/`Values`, and the legacy parameters), validates them in
//!   DynamoDB's order with DynamoDB's messages, and returns the expression trees of
//!   [`ast`]. Legacy parameters translate into the same trees ([`legacy`]).
//! - [`eval`] evaluates conditions, applies updates and projects items.
//! - [`key_condition`] turns a key condition into the key range a Query reads.
//!
//! ```
//! use kura_expr::request::{compile, ExpressionParams, Operation};
//! use kura_expr::eval::condition::evaluate;
//! use kura_model::{AttributeValue, Item, Number};
//!
//! let params: ExpressionParams = serde_json::from_str(r##"{
//!     "ConditionExpression": "#v = :expected",
//!     "ExpressionAttributeNames": {"#v": "version"},
//!     "ExpressionAttributeValues": {":expected": {"N": "3"}}
//! }"##).unwrap();
//! let compiled = compile(Operation::PutItem, params).unwrap();
//! let mut item = Item::new();
//! item.insert("version".into(), AttributeValue::N(Number::from_i64(3)));
//! assert!(evaluate(compiled.condition.as_ref().unwrap(), &item));
//! ```

pub mod ast;
pub mod bindings;
pub mod error;
pub mod eval;
pub mod key_condition;
pub mod legacy;
mod lexer;
pub mod parse;
pub mod partiql;
pub mod print;
pub mod request;
pub mod reserved;

pub use ast::{Comparator, Condition, Operand, Path, PathElement, Projection, Update};
pub use error::ExprError;
pub use reserved::is_reserved;
