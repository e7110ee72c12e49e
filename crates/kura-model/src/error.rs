//! The model crate's one error type. Both variants carry DynamoDB's message text; the
//! server maps them to `ValidationException` and `SerializationException`.

/// A request value DynamoDB would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// Well-formed JSON that breaks a DynamoDB rule (`ValidationException`).
    #[error("{0}")]
    Validation(String),
    /// JSON whose shape or types do not match the API (`SerializationException`).
    #[error("{0}")]
    Serialization(String),
}

impl ModelError {
    pub fn validation(message: impl Into<String>) -> Self {
        ModelError::Validation(message.into())
    }
}

impl From<crate::number::NumberError> for ModelError {
    fn from(e: crate::number::NumberError) -> Self {
        ModelError::Validation(e.to_string())
    }
}
