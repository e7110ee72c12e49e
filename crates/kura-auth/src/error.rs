//! The one error enum of the crate; each variant is a DynamoDB error type.

/// Why a request was not authenticated. The message is DynamoDB's text
/// (`kura_model::messages::auth`); the server maps the variant to the wire type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No `Authorization` header and no presigned query string.
    #[error("{0}")]
    MissingAuthenticationToken(String),
    /// The signature's parts are missing or malformed.
    #[error("{0}")]
    IncompleteSignature(String),
    /// The signature does not match, or the request is outside the clock-skew window.
    #[error("{0}")]
    InvalidSignature(String),
    /// Unknown access key, or a session token that does not belong to it.
    #[error("{0}")]
    UnrecognizedClient(String),
    /// A temporary credential past its expiration.
    #[error("{0}")]
    ExpiredToken(String),
    /// The credentials file cannot be read or breaks its rules (never a request's error).
    #[error("credentials file: {0}")]
    CredentialsFile(String),
}

impl AuthError {
    /// The short DynamoDB error type (`__type` after `#`).
    pub fn type_name(&self) -> &'static str {
        match self {
            AuthError::MissingAuthenticationToken(_) => "MissingAuthenticationTokenException",
            AuthError::IncompleteSignature(_) => "IncompleteSignatureException",
            AuthError::InvalidSignature(_) => "InvalidSignatureException",
            AuthError::UnrecognizedClient(_) => "UnrecognizedClientException",
            AuthError::ExpiredToken(_) => "ExpiredTokenException",
            AuthError::CredentialsFile(_) => "InternalServerError",
        }
    }

    /// The message DynamoDB sends.
    pub fn message(&self) -> &str {
        match self {
            AuthError::MissingAuthenticationToken(m)
            | AuthError::IncompleteSignature(m)
            | AuthError::InvalidSignature(m)
            | AuthError::UnrecognizedClient(m)
            | AuthError::ExpiredToken(m)
            | AuthError::CredentialsFile(m) => m,
        }
    }
}
