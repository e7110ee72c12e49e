//! What every request body on a connection is held to, whatever route reads it (the API,
//! the console, `/kura/`): a deadline from the request's start to its body's last byte,
//! and a share of one budget of request bytes that all connections draw from while they
//! read a body and until the request is answered. So a client that trickles a body cannot
//! hold a connection past the deadline, and many clients sending large bodies at once
//! cannot hold more memory than the budget, however many connections they open.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;

use kura_api::error::ApiError;

/// Request bytes all connections may read and hold at once (`kura serve
/// --request-memory-mb`).
#[derive(Clone, Debug)]
pub struct BodyBudget {
    bytes: Arc<Semaphore>,
}

impl BodyBudget {
    pub fn new(limit_bytes: usize) -> BodyBudget {
        let limit = limit_bytes.clamp(1, Semaphore::MAX_PERMITS);
        BodyBudget {
            bytes: Arc::new(Semaphore::new(limit)),
        }
    }

    #[cfg(test)]
    fn available(&self) -> usize {
        self.bytes.available_permits()
    }

    /// A request's account against this budget.
    pub fn account(&self) -> HeldBytes {
        HeldBytes {
            budget: self.clone(),
            taken: Arc::default(),
        }
    }
}

/// The budget one request has taken; given back when every clone is gone (the body's,
/// and the request's extensions', so not before the request is answered).
#[derive(Clone, Debug)]
pub struct HeldBytes {
    budget: BodyBudget,
    taken: Arc<Mutex<Option<OwnedSemaphorePermit>>>,
}

impl HeldBytes {
    /// `n` bytes more, at once or not at all; past the budget `ServiceUnavailable` (503),
    /// which the SDKs retry.
    pub fn take(&self, n: usize) -> Result<(), ApiError> {
        if n == 0 {
            return Ok(());
        }
        let n = u32::try_from(n).map_err(|_| ApiError::unavailable())?;
        let permit = self
            .budget
            .bytes
            .clone()
            .try_acquire_many_owned(n)
            .map_err(|_| ApiError::unavailable())?;
        let mut slot = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        match slot.as_mut() {
            Some(taken) => taken.merge(permit),
            None => *slot = Some(permit),
        }
        Ok(())
    }

    /// Gives back `n` of the bytes taken (a copy that is gone).
    pub fn give_back(&self, n: usize) {
        let mut slot = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(taken) = slot.as_mut() {
            drop(taken.split(n.min(taken.num_permits())));
        }
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        let slot = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        slot.as_ref().map_or(0, OwnedSemaphorePermit::num_permits)
    }
}

/// A request body held to a deadline and to the budget.
pub struct LimitedBody<B> {
    inner: B,
    deadline: Pin<Box<Sleep>>,
    held: HeldBytes,
}

impl<B> LimitedBody<B> {
    pub fn new(inner: B, deadline: Duration, held: HeldBytes) -> Self {
        LimitedBody {
            inner,
            deadline: Box::pin(tokio::time::sleep(deadline)),
            held,
        }
    }
}

impl<B> Body for LimitedBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<axum::BoxError>,
{
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        let frame = match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => frame,
            Poll::Pending => {
                ready!(this.deadline.as_mut().poll(cx));
                return Poll::Ready(Some(Err(ApiError::body_timeout().into())));
            }
        };
        let frame = match frame {
            None => return Poll::Ready(None),
            Some(Err(e)) => return Poll::Ready(Some(Err(e.into()))),
            Some(Ok(frame)) => frame,
        };
        if let Some(data) = frame.data_ref()
            && let Err(e) = this.held.take(data.len())
        {
            return Poll::Ready(Some(Err(e.into())));
        }
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The answer for a limit that stopped a body, if one did (axum wraps body errors once
/// or twice).
pub fn limit_error<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a ApiError> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(limit) = e.downcast_ref::<ApiError>() {
            return Some(limit);
        }
        current = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use http_body_util::{BodyExt, StreamBody};

    use super::*;

    type Frames = std::vec::IntoIter<Result<Frame<Bytes>, std::io::Error>>;

    fn chunks(parts: Vec<&'static [u8]>) -> StreamBody<futures_util::stream::Iter<Frames>> {
        let frames: Vec<Result<Frame<Bytes>, std::io::Error>> = parts
            .into_iter()
            .map(|p| Ok(Frame::data(Bytes::from_static(p))))
            .collect();
        StreamBody::new(futures_util::stream::iter(frames))
    }

    #[tokio::test]
    async fn bytes_are_held_until_the_request_is_gone() {
        let budget = BodyBudget::new(10);
        let held = budget.account();
        let body = LimitedBody::new(
            chunks(vec![b"abc", b"defg"]),
            Duration::from_secs(5),
            held.clone(),
        );
        let bytes = body.collect().await.expect("within budget").to_bytes();
        assert_eq!(&bytes[..], b"abcdefg");
        assert_eq!((held.bytes(), budget.available()), (7, 3));
        let over = LimitedBody::new(
            chunks(vec![b"abcd"]),
            Duration::from_secs(5),
            budget.account(),
        );
        let error = over.collect().await.expect_err("over the budget");
        let answer = limit_error(&*error).expect("a limit");
        assert_eq!(answer.name(), "ServiceUnavailable");
        drop(held);
        assert_eq!(budget.available(), 10, "given back with the request");
    }

    #[tokio::test]
    async fn a_body_that_does_not_finish_in_time_is_cut() {
        use futures_util::StreamExt;
        let first: Result<Frame<Bytes>, std::io::Error> = Ok(Frame::data(Bytes::from_static(b"{")));
        let never = futures_util::stream::iter([first]).chain(futures_util::stream::pending());
        let limited = LimitedBody::new(
            StreamBody::new(never),
            Duration::from_millis(50),
            BodyBudget::new(1 << 20).account(),
        );
        let started = std::time::Instant::now();
        let error = limited.collect().await.expect_err("cut");
        let answer = limit_error(&*error).expect("a limit");
        assert_eq!(answer.name(), "RequestTimeoutException");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
