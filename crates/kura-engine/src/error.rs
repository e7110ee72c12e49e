//! The engine's one error type: DynamoDB's error kinds, without any wire detail.
//! `kura-server`'s `error.rs` is the only place that maps them to `__type` and status.

use kura_model::{Item, ModelError};
use serde::Serialize;

use kura_store::StoreError;

#[derive(Debug, Clone, thiserror::Error)]
pub enum EngineError {
    /// `ValidationException`: the request breaks a DynamoDB rule.
    #[error("{0}")]
    Validation(String),
    /// `SerializationException`: a value has the wrong JSON shape.
    #[error("{0}")]
    Serialization(String),
    /// `ResourceNotFoundException`.
    #[error("{0}")]
    ResourceNotFound(String),
    /// `TableNotFoundException`: the backup operations' name for a missing table.
    #[error("{0}")]
    TableNotFound(String),
    /// `GlobalTableNotFoundException`: no legacy (2017.11.29) global table of that name.
    #[error("{0}")]
    GlobalTableNotFound(String),
    /// `GlobalTableAlreadyExistsException`.
    #[error("{0}")]
    GlobalTableAlreadyExists(String),
    /// `ReplicaAlreadyExistsException` (UpdateGlobalTable).
    #[error("{0}")]
    ReplicaAlreadyExists(String),
    /// `ReplicaNotFoundException` (UpdateGlobalTable).
    #[error("{0}")]
    ReplicaNotFound(String),
    /// `ReplicatedWriteConflictException`: an MRSC table's item is being written in
    /// another region.
    #[error("{0}")]
    ReplicatedWriteConflict(String),
    /// `ServiceUnavailable` (HTTP 503): an MRSC replica without a majority of its regions.
    #[error("{0}")]
    Unavailable(String),
    /// `BackupNotFoundException`.
    #[error("{0}")]
    BackupNotFound(String),
    /// `BackupInUseException`: the backup is being created or restored from.
    #[error("{0}")]
    BackupInUse(String),
    /// `TableAlreadyExistsException`: a restore's target table exists.
    #[error("{0}")]
    TableAlreadyExists(String),
    /// `TableInUseException`: the table is being created, restored or deleted.
    #[error("{0}")]
    TableInUse(String),
    /// `PointInTimeRecoveryUnavailableException`: the source table has it off.
    #[error("{0}")]
    PointInTimeRecoveryUnavailable(String),
    /// `InvalidRestoreTimeException`: outside the table's recovery window.
    #[error("{0}")]
    InvalidRestoreTime(String),
    /// `InvalidExportTimeException`.
    #[error("{0}")]
    InvalidExportTime(String),
    /// `ExportConflictException`: a ClientToken reused with other parameters.
    #[error("{0}")]
    ExportConflict(String),
    /// `ExportNotFoundException`.
    #[error("{0}")]
    ExportNotFound(String),
    /// `ImportConflictException`.
    #[error("{0}")]
    ImportConflict(String),
    /// `ImportNotFoundException`.
    #[error("{0}")]
    ImportNotFound(String),
    /// `ResourceInUseException`.
    #[error("{0}")]
    ResourceInUse(String),
    /// `ConditionalCheckFailedException`, with the item when ALL_OLD was asked for.
    #[error("The conditional request failed")]
    ConditionalCheckFailed { item: Option<Item> },
    /// `DuplicateItemException`: a PartiQL INSERT of a key that exists.
    #[error("{0}")]
    DuplicateItem(String),
    /// `TransactionCanceledException`: one reason per action, in request order.
    #[error("Transaction cancelled, please refer cancellation reasons for specific reasons [{}]", .reasons.iter().map(|r| r.code.as_str()).collect::<Vec<_>>().join(", "))]
    TransactionCanceled { reasons: Vec<CancellationReason> },
    /// `TransactionInProgressException`: the same token's transaction is still running.
    #[error("{0}")]
    TransactionInProgress(String),
    /// `IdempotentParameterMismatchException`.
    #[error("{0}")]
    IdempotentParameterMismatch(String),
    /// `LimitExceededException`.
    #[error("{0}")]
    LimitExceeded(String),
    /// `PolicyNotFoundException`: no resource-based policy, or not the expected revision.
    #[error("{0}")]
    PolicyNotFound(String),
    /// `ItemCollectionSizeLimitExceededException`: an LSI table's partition outgrew 10 GB.
    #[error("{0}")]
    ItemCollectionSizeLimitExceeded(String),
    /// `ExpiredIteratorException`: a shard iterator older than 15 minutes.
    #[error("{0}")]
    ExpiredIterator(String),
    /// `InvalidArgumentException` (Kinesis): a request that is well formed but cannot be
    /// served as asked.
    #[error("{0}")]
    InvalidArgument(String),
    /// `TrimmedDataAccessException`: the records asked for are past the 24-hour retention.
    #[error("{0}")]
    TrimmedDataAccess(String),
    /// `ProvisionedThroughputExceededException`: capacity emulation refused the request.
    #[error("{}", .0.message)]
    Throttled(Box<Throttled>),
    /// A sync failed earlier: the durable state is unknown, so no more writes are taken.
    #[error("the storage engine is poisoned by an earlier failed sync and refuses writes")]
    Poisoned,
    /// The engine is shutting down.
    #[error("the engine is shutting down")]
    ShuttingDown,
    /// A storage or internal failure (`InternalServerError`).
    #[error("{0}")]
    Internal(String),
}

impl EngineError {
    pub fn validation(message: impl Into<String>) -> Self {
        EngineError::Validation(message.into())
    }
}

impl From<ModelError> for EngineError {
    fn from(e: ModelError) -> Self {
        match e {
            ModelError::Validation(m) => EngineError::Validation(m),
            ModelError::Serialization(m) => EngineError::Serialization(m),
        }
    }
}

impl From<kura_expr::ExprError> for EngineError {
    fn from(e: kura_expr::ExprError) -> Self {
        EngineError::Validation(e.message().to_owned())
    }
}

impl From<StoreError> for EngineError {
    fn from(e: StoreError) -> Self {
        EngineError::Internal(e.to_string())
    }
}

/// Why one action of a cancelled transaction failed (`None` when it did not).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct CancellationReason {
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
}

impl CancellationReason {
    /// The reason of an action that did not fail.
    pub fn none() -> Self {
        CancellationReason {
            code: "None".into(),
            message: None,
            item: None,
        }
    }
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;

/// Why a request was throttled: DynamoDB's `ThrottlingReason`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ThrottlingReason {
    /// `ResourceType + OperationType + LimitType`, e.g.
    /// `TableWriteProvisionedThroughputExceeded`.
    pub reason: String,
    /// The ARN of the table or index.
    pub resource: String,
}

/// A refused request: DynamoDB's message and its throttling reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Throttled {
    pub message: &'static str,
    pub reason: ThrottlingReason,
}
