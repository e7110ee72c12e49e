//! What a cancelled TransactWriteItems means, decided from its `CancellationReasons` (one
//! per action, in the request's order), pure.
//!
//! AWS cancels a transaction for many reasons, and only one of them is a version
//! conflict. Every condition the framework puts in a transaction is a version condition
//! (a command version or history row that must not exist yet, a data row that must still
//! be at, or below, a version), so `ConditionalCheckFailed` on any action means the
//! version is taken or superseded. Contention (`TransactionConflict`) and throttling
//! (`ThrottlingError`, `ProvisionedThroughputExceeded`, `RequestLimitExceeded`) say
//! nothing about versions: the same transaction may succeed later. `ValidationError` and
//! `ItemCollectionSizeLimitExceeded` are refusals of the request itself: retrying cannot
//! help.

use aws_sdk_dynamodb::types::CancellationReason;

use crate::error::CqrsError;

/// The meaning of a cancelled transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cancellation {
    /// A version condition failed: the version is taken, or the item moved past it.
    VersionConflict,
    /// Contention or throttling (or no reason given): the same transaction may succeed
    /// later. Carries the reasons, for the error message.
    Retry(String),
    /// DynamoDB refuses the request itself: retrying cannot help. Carries the reasons.
    Invalid(String),
}

impl Cancellation {
    /// The error a cancellation is, unless it is a version conflict (None), whose meaning
    /// depends on the writer: a taken version for a command, nothing left to do for the
    /// projector.
    pub fn failure(self) -> Option<CqrsError> {
        let (reasons, retryable) = match self {
            Cancellation::VersionConflict => return None,
            Cancellation::Retry(reasons) => (reasons, true),
            Cancellation::Invalid(reasons) => (reasons, false),
        };
        Some(CqrsError::TransactionCanceled { reasons, retryable })
    }
}

/// Codes that refuse the request itself.
const INVALID: &[&str] = &["ValidationError", "ItemCollectionSizeLimitExceeded"];

/// Classifies a cancellation by the reasons of its actions. A version conflict wins (the
/// write is moot whatever else failed), then a refusal, then anything else is retryable:
/// contention, throttling, a code this version does not know, or no reasons at all (a
/// retry reads the state again, so it decides correctly then).
pub fn classify(reasons: &[CancellationReason]) -> Cancellation {
    let code = |r: &CancellationReason| r.code().unwrap_or("None").to_owned();
    if reasons.iter().any(|r| code(r) == "ConditionalCheckFailed") {
        return Cancellation::VersionConflict;
    }
    let summary = describe(reasons);
    if reasons.iter().any(|r| INVALID.contains(&code(r).as_str())) {
        return Cancellation::Invalid(summary);
    }
    Cancellation::Retry(summary)
}

/// `TransactionConflict on action 2: message; ...` for the actions that failed.
fn describe(reasons: &[CancellationReason]) -> String {
    let failed: Vec<String> = reasons
        .iter()
        .enumerate()
        .filter(|(_, r)| r.code().is_some_and(|c| c != "None"))
        .map(|(i, r)| {
            let code = r.code().unwrap_or("None");
            match r.message() {
                Some(message) => format!("{code} on action {}: {message}", i + 1),
                None => format!("{code} on action {}", i + 1),
            }
        })
        .collect();
    if failed.is_empty() {
        "no reason given".to_owned()
    } else {
        failed.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reasons(codes: &[&str]) -> Vec<CancellationReason> {
        codes
            .iter()
            .map(|c| CancellationReason::builder().code(*c).build())
            .collect()
    }

    // Given a transaction of command, history and data puts, when one action fails with a
    // code, then the cancellation means what the code says.
    #[test]
    fn each_code() {
        for (code, expected) in [
            ("ConditionalCheckFailed", "conflict"),
            ("TransactionConflict", "retry"),
            ("ThrottlingError", "retry"),
            ("ProvisionedThroughputExceeded", "retry"),
            ("RequestLimitExceeded", "retry"),
            ("ValidationError", "invalid"),
            ("ItemCollectionSizeLimitExceeded", "invalid"),
            ("SomethingNew", "retry"),
        ] {
            for position in 0..3 {
                let mut codes = ["None"; 3];
                codes[position] = code;
                let got = classify(&reasons(&codes));
                let kind = match &got {
                    Cancellation::VersionConflict => "conflict",
                    Cancellation::Retry(why) | Cancellation::Invalid(why) => {
                        assert_eq!(why, &format!("{code} on action {}", position + 1));
                        if matches!(got, Cancellation::Retry(_)) {
                            "retry"
                        } else {
                            "invalid"
                        }
                    }
                };
                assert_eq!(kind, expected, "{code} on action {position}");
            }
        }
    }

    // All "None", or no reasons at all: nothing says it is a conflict, so it is retried.
    #[test]
    fn no_reason() {
        assert_eq!(
            classify(&reasons(&["None", "None"])),
            Cancellation::Retry("no reason given".into())
        );
        assert_eq!(classify(&[]), Cancellation::Retry("no reason given".into()));
    }

    // Several failures: a version conflict wins over contention and refusal; a refusal
    // wins over contention.
    #[test]
    fn mixed() {
        assert_eq!(
            classify(&reasons(&[
                "TransactionConflict",
                "ValidationError",
                "ConditionalCheckFailed"
            ])),
            Cancellation::VersionConflict
        );
        let with_message = vec![
            CancellationReason::builder()
                .code("ThrottlingError")
                .message("slow down")
                .build(),
            CancellationReason::builder()
                .code("ValidationError")
                .message("Item size has exceeded the maximum allowed size")
                .build(),
        ];
        assert_eq!(
            classify(&with_message),
            Cancellation::Invalid(
                "ThrottlingError on action 1: slow down; ValidationError on action 2: Item size \
                 has exceeded the maximum allowed size"
                    .into()
            )
        );
    }
}
