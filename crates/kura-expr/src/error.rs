//! The expression crate's one error type.

/// A request DynamoDB would refuse because of its expressions; always a
/// `ValidationException` on the wire, with DynamoDB's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    #[error("{0}")]
    Validation(String),
}

impl ExprError {
    pub fn validation(message: impl Into<String>) -> Self {
        ExprError::Validation(message.into())
    }

    /// The message, for callers that wrap it into their own error type.
    pub fn message(&self) -> &str {
        match self {
            ExprError::Validation(m) => m,
        }
    }
}

impl From<kura_model::ModelError> for ExprError {
    fn from(e: kura_model::ModelError) -> Self {
        match e {
            kura_model::ModelError::Validation(m) | kura_model::ModelError::Serialization(m) => {
                ExprError::Validation(m)
            }
        }
    }
}

impl From<kura_model::NumberError> for ExprError {
    fn from(e: kura_model::NumberError) -> Self {
        ExprError::Validation(e.to_string())
    }
}

pub type Result<T, E = ExprError> = std::result::Result<T, E>;
