//! The crate's one error type.

/// Why a trigger's definition cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TriggerError {
    /// A FilterCriteria pattern that Lambda would refuse (InvalidParameterValueException on
    /// CreateEventSourceMapping); the text says what is wrong and where.
    #[error("invalid filter pattern: {0}")]
    InvalidPattern(String),
    /// A trigger definition Lambda's CreateEventSourceMapping would refuse, or a triggers
    /// file that cannot be read as one.
    #[error("invalid trigger: {0}")]
    InvalidConfig(String),
    /// The function ran and failed: an HTTP status other than 2xx, Lambda's
    /// `X-Amz-Function-Error` header, or a command's non-zero exit.
    #[error("the function failed: {0}")]
    FunctionFailed(String),
    /// The function could not be reached or did not answer in time.
    #[error("the function could not be invoked: {0}")]
    Unreachable(String),
    /// The trigger's stream could not be read (the table or its stream is gone, or the
    /// engine failed).
    #[error("cannot read the stream: {0}")]
    Stream(String),
    /// A trigger's checkpoints could not be read or written.
    #[error("trigger state: {0}")]
    State(String),
    /// A failure destination could not take a record of failed records.
    #[error("failure destination: {0}")]
    Destination(String),
    /// No trigger has this name, or one already has.
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Exists(String),
}
