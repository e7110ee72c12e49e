//! The one place that knows DynamoDB's wire errors: `__type`, HTTP status, body.

use http::StatusCode;
use kura_engine::EngineError;
use kura_model::Item;
use serde::Serialize;

/// An error as the client will see it.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    /// The full `__type`, e.g. `com.amazon.coral.validate#ValidationException`.
    pub type_name: String,
    pub message: Option<String>,
    /// ConditionalCheckFailedException's item, when asked for.
    pub item: Option<Item>,
    /// TransactionCanceledException's reasons, one per action.
    pub cancellation_reasons: Option<Vec<kura_engine::api::CancellationReason>>,
    /// Why a throttled request was throttled (the one entry of `ThrottlingReasons`).
    pub throttling_reason: Option<Box<kura_engine::throttle::ThrottlingReason>>,
}

const DYNAMODB: &str = "com.amazonaws.dynamodb.v20120810";
const CORAL_SERVICE: &str = "com.amazon.coral.service";
const CORAL_VALIDATE: &str = "com.amazon.coral.validate";

impl ApiError {
    fn new(status: StatusCode, namespace: &str, name: &str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            type_name: format!("{namespace}#{name}"),
            message: Some(message.into()),
            item: None,
            cancellation_reasons: None,
            throttling_reason: None,
        }
    }

    /// `SerializationException`: the body is not the JSON the operation takes.
    pub fn serialization(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            CORAL_SERVICE,
            "SerializationException",
            message,
        )
    }

    /// `UnknownOperationException`: DynamoDB sends it without a message.
    pub fn unknown_operation() -> Self {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            type_name: format!("{CORAL_SERVICE}#UnknownOperationException"),
            message: None,
            item: None,
            cancellation_reasons: None,
            throttling_reason: None,
        }
    }

    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            CORAL_VALIDATE,
            "ValidationException",
            message,
        )
    }

    /// A request body over 16 MB, as declared, as sent or once inflated. DynamoDB answers
    /// HTTP 413 with no body.
    pub fn too_large() -> Self {
        ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            type_name: format!("{CORAL_SERVICE}#RequestEntityTooLarge"),
            message: None,
            item: None,
            cancellation_reasons: None,
            throttling_reason: None,
        }
    }

    /// A request body that did not arrive within `--request-read-timeout`: HTTP 408
    /// `RequestTimeoutException`, which the AWS SDKs retry as a transient error.
    pub fn body_timeout() -> Self {
        ApiError {
            status: StatusCode::REQUEST_TIMEOUT,
            type_name: format!("{CORAL_SERVICE}#RequestTimeoutException"),
            message: Some(kura_model::messages::BODY_TIMED_OUT.to_owned()),
            item: None,
            cancellation_reasons: None,
            throttling_reason: None,
        }
    }

    /// HTTP 503 `ServiceUnavailable`: too many requests at once (admission), which the AWS
    /// SDKs retry with backoff.
    pub fn unavailable() -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            DYNAMODB,
            "ServiceUnavailable",
            kura_model::messages::SERVICE_UNAVAILABLE,
        )
    }

    /// `AccessDeniedException` (HTTP 400): the principal's policies refuse the request.
    pub fn access_denied(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            CORAL_SERVICE,
            "AccessDeniedException",
            message,
        )
    }

    /// `InternalServerError` (HTTP 500): the request could not be completed.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            DYNAMODB,
            "InternalServerError",
            message,
        )
    }

    /// An error a fault injection rule answers with: its full `__type`, as given.
    pub fn injected(status: StatusCode, type_name: &str, message: &str) -> Self {
        ApiError {
            status,
            type_name: type_name.to_owned(),
            message: Some(message.to_owned()),
            item: None,
            cancellation_reasons: None,
            throttling_reason: None,
        }
    }

    /// A fresh copy of a limit's answer (a body's deadline or the budget), which has no
    /// item or reasons to carry.
    pub fn same(&self) -> ApiError {
        ApiError {
            status: self.status,
            type_name: self.type_name.clone(),
            message: self.message.clone(),
            item: None,
            cancellation_reasons: None,
            throttling_reason: None,
        }
    }

    /// The short name after `#`.
    pub fn name(&self) -> &str {
        self.type_name.rsplit('#').next().unwrap_or(&self.type_name)
    }

    pub fn body(&self) -> Vec<u8> {
        if self.status == StatusCode::PAYLOAD_TOO_LARGE {
            return Vec::new();
        }
        #[derive(Serialize)]
        struct Body<'a> {
            #[serde(rename = "__type")]
            type_name: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<&'a str>,
            #[serde(rename = "Item", skip_serializing_if = "Option::is_none")]
            item: Option<&'a Item>,
            #[serde(
                rename = "CancellationReasons",
                skip_serializing_if = "Option::is_none"
            )]
            cancellation_reasons: Option<&'a Vec<kura_engine::api::CancellationReason>>,
            #[serde(rename = "ThrottlingReasons", skip_serializing_if = "Option::is_none")]
            throttling_reasons: Option<[&'a kura_engine::throttle::ThrottlingReason; 1]>,
        }
        serde_json::to_vec(&Body {
            type_name: &self.type_name,
            message: self.message.as_deref(),
            item: self.item.as_ref(),
            cancellation_reasons: self.cancellation_reasons.as_ref(),
            throttling_reasons: self.throttling_reason.as_deref().map(|r| [r]),
        })
        .unwrap_or_default()
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.message {
            Some(message) => write!(f, "{}: {message}", self.name()),
            None => f.write_str(self.name()),
        }
    }
}

/// So an answer can travel as a body's error (`body_limits`) and be found again.
impl std::error::Error for ApiError {}

impl From<kura_auth::AuthError> for ApiError {
    /// Authentication errors are the coral framework's, HTTP 400 (DynamoDB API Reference,
    /// "Common Errors"); a credentials-file problem never reaches a request.
    fn from(e: kura_auth::AuthError) -> Self {
        let status = match e {
            kura_auth::AuthError::CredentialsFile(_) => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        Self::new(status, CORAL_SERVICE, e.type_name(), e.message())
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        // Long: one arm per engine error, each with its wire name, status and message.
        use StatusCode as S;
        let message = e.to_string();
        match e {
            EngineError::Validation(_) => Self::validation(message),
            EngineError::Serialization(_) => Self::serialization(message),
            EngineError::ResourceNotFound(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "ResourceNotFoundException",
                message,
            ),
            EngineError::TableNotFound(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "TableNotFoundException", message)
            }
            EngineError::GlobalTableNotFound(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "GlobalTableNotFoundException",
                message,
            ),
            EngineError::GlobalTableAlreadyExists(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "GlobalTableAlreadyExistsException",
                message,
            ),
            EngineError::ReplicaAlreadyExists(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "ReplicaAlreadyExistsException",
                message,
            ),
            EngineError::ReplicaNotFound(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "ReplicaNotFoundException",
                message,
            ),
            EngineError::ReplicatedWriteConflict(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "ReplicatedWriteConflictException",
                message,
            ),
            EngineError::Unavailable(_) => Self::new(
                S::SERVICE_UNAVAILABLE,
                DYNAMODB,
                "ServiceUnavailable",
                message,
            ),
            EngineError::ResourceInUse(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "ResourceInUseException", message)
            }
            EngineError::InvalidExportTime(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "InvalidExportTimeException",
                message,
            ),
            EngineError::ExportConflict(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "ExportConflictException", message)
            }
            EngineError::ExportNotFound(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "ExportNotFoundException", message)
            }
            EngineError::ImportConflict(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "ImportConflictException", message)
            }
            EngineError::ImportNotFound(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "ImportNotFoundException", message)
            }
            EngineError::BackupNotFound(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "BackupNotFoundException", message)
            }
            EngineError::BackupInUse(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "BackupInUseException", message)
            }
            EngineError::TableAlreadyExists(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "TableAlreadyExistsException",
                message,
            ),
            EngineError::TableInUse(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "TableInUseException", message)
            }
            EngineError::PointInTimeRecoveryUnavailable(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "PointInTimeRecoveryUnavailableException",
                message,
            ),
            EngineError::InvalidRestoreTime(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "InvalidRestoreTimeException",
                message,
            ),
            EngineError::ConditionalCheckFailed { item } => ApiError {
                item,
                ..Self::new(
                    S::BAD_REQUEST,
                    DYNAMODB,
                    "ConditionalCheckFailedException",
                    message,
                )
            },
            EngineError::DuplicateItem(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "DuplicateItemException", message)
            }
            EngineError::TransactionCanceled { reasons } => ApiError {
                cancellation_reasons: Some(reasons),
                ..Self::new(
                    S::BAD_REQUEST,
                    DYNAMODB,
                    "TransactionCanceledException",
                    message,
                )
            },
            EngineError::TransactionInProgress(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "TransactionInProgressException",
                message,
            ),
            EngineError::IdempotentParameterMismatch(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "IdempotentParameterMismatchException",
                message,
            ),
            EngineError::LimitExceeded(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "LimitExceededException", message)
            }
            EngineError::PolicyNotFound(_) => {
                Self::new(S::BAD_REQUEST, DYNAMODB, "PolicyNotFoundException", message)
            }
            EngineError::ItemCollectionSizeLimitExceeded(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "ItemCollectionSizeLimitExceededException",
                message,
            ),
            EngineError::ExpiredIterator(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "ExpiredIteratorException",
                message,
            ),
            EngineError::InvalidArgument(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "InvalidArgumentException",
                message,
            ),
            EngineError::TrimmedDataAccess(_) => Self::new(
                S::BAD_REQUEST,
                DYNAMODB,
                "TrimmedDataAccessException",
                message,
            ),
            EngineError::Throttled(refused) => ApiError {
                throttling_reason: Some(Box::new(refused.reason)),
                ..Self::new(
                    S::BAD_REQUEST,
                    DYNAMODB,
                    "ProvisionedThroughputExceededException",
                    refused.message,
                )
            },
            EngineError::Poisoned | EngineError::ShuttingDown | EngineError::Internal(_) => {
                Self::new(
                    S::INTERNAL_SERVER_ERROR,
                    DYNAMODB,
                    "InternalServerError",
                    message,
                )
            }
        }
    }
}
