//! Kura's DynamoDB data model.
//!
//! Owns the types every other crate speaks: [`AttributeValue`] and [`Item`], the exact
//! 38-digit [`Number`], key schemas, the order-preserving key encoding, the item encoding
//! stored on disk, DynamoDB's size rules and limits, and the catalogue of validation
//! messages.
//!
//! ```
//! use kura_model::wire::AttributeValueJson;
//! let raw: AttributeValueJson = serde_json::from_str(r#"{"N": "001.50"}"#).unwrap();
//! let value = raw.into_value().unwrap();
//! assert_eq!(serde_json::to_string(&value).unwrap(), r#"{"N":"1.5"}"#);
//! ```

pub mod constraint;
pub mod error;
pub mod item_codec;
pub mod keycode;
pub mod limits;
pub mod messages;
pub mod number;
pub mod schema;
pub mod size;
pub mod value;
pub mod wire;

pub use error::ModelError;
pub use item_codec::{CodecError, ITEM_CODEC_VERSION, decode_item, decode_item_where, encode_item};
pub use keycode::{KeyCodeError, ScalarType, decode_key_value, encode_key_value};
pub use number::{Number, NumberError};
pub use schema::{KeyAttribute, KeySchema, PrimaryKey};
pub use size::{item_size, value_size};
pub use value::{AttributeValue, Item, ValueType};
