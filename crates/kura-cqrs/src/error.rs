//! The framework's one error type.

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

/// Non-exhaustive: a new failure kind is not a breaking change, so a `match` needs a
/// `_` arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CqrsError {
    /// A key breaks the key design (a base sort key with `@`, an empty one, ...).
    #[error("invalid key: {0}")]
    InvalidKey(String),
    /// Optimistic locking lost: the command was based on `expected`, the entity is at
    /// `actual` (0 when it does not exist).
    #[error("version conflict: the command expected version {expected}, the entity is at {actual}")]
    VersionConflict {
        expected: crate::Version,
        actual: crate::Version,
    },
    /// A version or row that was asked for does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// An existing table does not have the shape the framework needs.
    #[error("table {table}: {problem}")]
    TableMismatch { table: String, problem: String },
    /// A sync handler failed on a command published in sync (the command and data rows
    /// are written; the command is marked `finish:FAILED`).
    #[error("sync handler {handler}: {source}")]
    Handler {
        handler: String,
        #[source]
        source: BoxError,
    },
    /// DynamoDB cancelled a transaction for a reason other than a version conflict:
    /// `retryable` for contention or throttling (`TransactionConflict`, `ThrottlingError`,
    /// `ProvisionedThroughputExceeded`, ...: the same call may succeed later), not for a
    /// request DynamoDB refuses (`ValidationError`, ...). `reasons` names the actions.
    #[error("transaction cancelled ({}): {reasons}", if *retryable { "retryable" } else { "refused" })]
    TransactionCanceled { reasons: String, retryable: bool },
    /// A stored row the framework cannot read back.
    #[error("malformed row: {0}")]
    Malformed(String),
    /// DynamoDB (or Kura) refused or failed a call; `source` is the SDK's error (absent
    /// for errors the framework reads from a response, such as a cancellation reason).
    #[error("DynamoDB {code}: {message}")]
    Dynamo {
        code: String,
        message: String,
        #[source]
        source: Option<BoxError>,
    },
    /// Replaying a failed command failed again (it stays failed, and parked if it was).
    #[error("replaying {command}: {message}")]
    Replay { command: String, message: String },
    /// A wait ran out of time (the command may still finish later).
    #[error("timed out: {0}")]
    Timeout(String),
    /// An object store (large attributes) refused or failed a call, or cannot be read
    /// without one; `location` is `s3://bucket/key`.
    #[error("object {location}: {message}")]
    Object { location: String, message: String },
    /// An entity that does not map to or from the stored attributes (serde).
    #[error("entity {what}: {source}")]
    Entity {
        what: String,
        #[source]
        source: serde_json::Error,
    },
}

/// Any error a caller hands the framework (a sync handler's failure, an SDK error).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

pub type Result<T, E = CqrsError> = std::result::Result<T, E>;

impl CqrsError {
    /// Wraps an SDK error, keeping DynamoDB's error code.
    pub fn dynamo<E, R>(error: SdkError<E, R>) -> CqrsError
    where
        E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
        R: std::fmt::Debug + Send + Sync + 'static,
    {
        let code = error.code().unwrap_or("Unknown").to_owned();
        let message = match error.message() {
            Some(m) => m.to_owned(),
            None => format!("{error:?}"),
        };
        CqrsError::Dynamo {
            code,
            message,
            source: Some(Box::new(error)),
        }
    }

    /// Whether the same call may succeed later: a transaction cancelled by contention or
    /// throttling, or DynamoDB throttling, a server error or an unavailable service.
    pub fn is_retryable(&self) -> bool {
        match self {
            CqrsError::TransactionCanceled { retryable, .. } => *retryable,
            CqrsError::Dynamo { code, .. } => matches!(
                code.as_str(),
                "ThrottlingException"
                    | "ProvisionedThroughputExceededException"
                    | "RequestLimitExceeded"
                    | "LimitExceededException"
                    | "TransactionInProgressException"
                    | "InternalServerError"
                    | "ServiceUnavailable"
            ),
            _ => false,
        }
    }

    /// The DynamoDB error code, for DynamoDB errors.
    pub fn code(&self) -> Option<&str> {
        match self {
            CqrsError::Dynamo { code, .. } => Some(code),
            _ => None,
        }
    }
}
