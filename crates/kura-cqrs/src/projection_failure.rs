//! Why applying a command version failed, as the projector decides what to do next:
//! retry it (contention, throttling, an unavailable table, a sync handler's error), or
//! park it at once (a request DynamoDB refuses).

use crate::error::CqrsError;

/// Why applying a record failed: worth retrying (and, when a sync handler failed, which
/// one), or never going to work.
#[derive(Debug, PartialEq)]
pub(crate) enum Failure {
    Retry(String),
    Handler { handler: String, error: String },
    Poison(String),
}

impl Failure {
    pub(crate) fn message(&self) -> String {
        match self {
            Failure::Retry(error) | Failure::Poison(error) => error.clone(),
            Failure::Handler { handler, error } => format!("handler {handler}: {error}"),
        }
    }
}

/// A failed data-table write as a failure: a request DynamoDB refuses (a cancellation
/// for `ValidationError` or the like, a `ValidationException`) is poison, parked at once;
/// anything else (contention, throttling, an unavailable service) is retried.
pub(crate) fn failure(error: CqrsError) -> Failure {
    let refused = match &error {
        CqrsError::TransactionCanceled { retryable, .. } => !retryable,
        CqrsError::Dynamo { code, .. } => code == "ValidationException",
        _ => false,
    };
    if refused {
        Failure::Poison(error.to_string())
    } else {
        Failure::Retry(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cancelled(retryable: bool) -> CqrsError {
        CqrsError::TransactionCanceled {
            reasons: "X on action 2".into(),
            retryable,
        }
    }

    fn dynamo(code: &str) -> CqrsError {
        CqrsError::Dynamo {
            code: code.into(),
            message: "m".into(),
            source: None,
        }
    }

    // Contention and throttling are retried; a request DynamoDB refuses is parked at once.
    #[test]
    fn failures() {
        assert!(matches!(failure(cancelled(true)), Failure::Retry(_)));
        assert!(matches!(failure(cancelled(false)), Failure::Poison(_)));
        assert!(matches!(
            failure(dynamo("ValidationException")),
            Failure::Poison(_)
        ));
        for code in [
            "ThrottlingException",
            "ProvisionedThroughputExceededException",
            "InternalServerError",
            "ResourceNotFoundException",
        ] {
            assert!(matches!(failure(dynamo(code)), Failure::Retry(_)), "{code}");
        }
    }
}
