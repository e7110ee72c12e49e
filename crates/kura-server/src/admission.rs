//! Admission: at most `max_in_flight` API requests run at once; a request that finds
//! every place taken waits for one in arrival order, at most `queue_wait`, and past that
//! is answered HTTP 503 `ServiceUnavailable` at once, which the AWS SDKs retry with
//! backoff. So under overload a request that is served waited at most `queue_wait` plus
//! its share of `max_in_flight` requests running, and what cannot be served in time costs
//! the server a body read and a short answer (no signature check, no parsing, no engine
//! work), not a place in an unbounded queue (ADR 0025).

use std::time::Duration;

use tokio::sync::{Semaphore, SemaphorePermit};

use kura_api::error::ApiError;

/// How many API requests run at once and how long one may wait for a place
/// (`kura serve --max-in-flight`, `--max-queue-wait-ms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdmissionLimits {
    pub max_in_flight: usize,
    /// Zero: refuse at once when every place is taken.
    pub queue_wait: Duration,
}

impl AdmissionLimits {
    /// 512 requests at once, the durable writer's largest commit group (fewer places
    /// made smaller groups: 128 served 15–20% fewer durable PutItems at 1,000 clients,
    /// ADR 0025); 250 ms of waiting, so only a sustained overload is refused.
    pub const DEFAULT: AdmissionLimits = AdmissionLimits {
        max_in_flight: 512,
        queue_wait: Duration::from_millis(250),
    };
}

impl Default for AdmissionLimits {
    fn default() -> Self {
        AdmissionLimits::DEFAULT
    }
}

/// The places of one server.
pub(crate) struct Admission {
    places: Semaphore,
    queue_wait: Duration,
}

impl Admission {
    pub(crate) fn new(limits: AdmissionLimits) -> Admission {
        Admission {
            places: Semaphore::new(limits.max_in_flight.clamp(1, Semaphore::MAX_PERMITS)),
            queue_wait: limits.queue_wait,
        }
    }

    /// A place for one request, held until the permit drops; or the 503 to answer.
    pub(crate) async fn enter(&self) -> Result<SemaphorePermit<'_>, ApiError> {
        // The usual case, a free place: no timer, no queue.
        if let Ok(place) = self.places.try_acquire() {
            return Ok(place);
        }
        match tokio::time::timeout(self.queue_wait, self.places.acquire()).await {
            Ok(Ok(place)) => Ok(place),
            // Timed out, or closed (never: the semaphore is not closed).
            _ => Err(ApiError::unavailable()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_waits_for_a_place_then_is_refused() {
        let admission = Admission::new(AdmissionLimits {
            max_in_flight: 1,
            queue_wait: Duration::from_millis(20),
        });
        let first = admission.enter().await.expect("a free place");
        let refused = admission
            .enter()
            .await
            .expect_err("no place within the wait");
        assert_eq!(refused.status, 503);
        assert_eq!(refused.name(), "ServiceUnavailable");
        drop(first);
        let _again = admission.enter().await.expect("the place is free again");
    }

    #[tokio::test]
    async fn a_waiting_request_gets_the_place_that_frees() {
        let admission = std::sync::Arc::new(Admission::new(AdmissionLimits {
            max_in_flight: 1,
            queue_wait: Duration::from_secs(5),
        }));
        let first = admission.enter().await.expect("a free place");
        let waiting = tokio::spawn({
            let admission = admission.clone();
            async move { admission.enter().await.map(drop).is_ok() }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(first);
        assert!(
            waiting.await.expect("joined"),
            "admitted once the place freed"
        );
    }
}
