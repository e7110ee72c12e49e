//! Failed console sign-ins, counted per source address: after five failures within a
//! minute, further attempts from that address are refused for the rest of that minute
//! without the key being checked, so guessing a secret costs a minute per five tries.
//! Every failure is logged with its address and access key ID (never the secret).

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// Failures allowed within one window.
pub(crate) const MAX_FAILURES: u32 = 5;
/// The window, from the first failure.
pub(crate) const WINDOW: Duration = Duration::from_secs(60);
/// Addresses remembered at once; past it, windows that are over are dropped first, then
/// the oldest.
const MAX_TRACKED: usize = 10_000;

#[derive(Default)]
pub(crate) struct SignInLimiter {
    /// Per address (none for a request made in process): when its window began, and its
    /// failures in it.
    failures: Mutex<HashMap<Option<IpAddr>, (Instant, u32)>>,
}

impl SignInLimiter {
    /// How long `from` must wait before its next attempt, if it must.
    pub(crate) fn wait(&self, from: Option<IpAddr>, now: Instant) -> Option<Duration> {
        let failures = self.failures.lock();
        let (began, count) = failures.get(&from)?;
        let ends = *began + WINDOW;
        (*count >= MAX_FAILURES && now < ends).then(|| ends - now)
    }

    /// Counts a failed attempt from `from`.
    pub(crate) fn failed(&self, from: Option<IpAddr>, now: Instant) {
        let mut failures = self.failures.lock();
        if failures.len() >= MAX_TRACKED && !failures.contains_key(&from) {
            failures.retain(|_, (began, _)| now < *began + WINDOW);
            if failures.len() >= MAX_TRACKED
                && let Some(oldest) = failures
                    .iter()
                    .min_by_key(|(_, (b, _))| *b)
                    .map(|(k, _)| *k)
            {
                failures.remove(&oldest);
            }
        }
        let entry = failures.entry(from).or_insert((now, 0));
        if now >= entry.0 + WINDOW {
            *entry = (now, 0);
        }
        entry.1 += 1;
    }

    /// A successful sign-in clears the address's failures.
    pub(crate) fn succeeded(&self, from: Option<IpAddr>) {
        self.failures.lock().remove(&from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_failures_lock_an_address_out_until_the_window_ends() {
        let limiter = SignInLimiter::default();
        let (a, b) = (
            Some("10.0.0.1".parse().unwrap()),
            Some("10.0.0.2".parse().unwrap()),
        );
        let t0 = Instant::now();
        for i in 0..MAX_FAILURES {
            assert_eq!(limiter.wait(a, t0), None, "attempt {i} is checked");
            limiter.failed(a, t0);
        }
        assert_eq!(limiter.wait(a, t0), Some(WINDOW));
        assert_eq!(
            limiter.wait(b, t0),
            None,
            "another address is not held back"
        );
        let later = t0 + Duration::from_secs(59);
        assert_eq!(limiter.wait(a, later), Some(Duration::from_secs(1)));
        assert_eq!(limiter.wait(a, t0 + WINDOW), None, "the window is over");
        limiter.failed(a, t0 + WINDOW);
        assert_eq!(
            limiter.wait(a, t0 + WINDOW),
            None,
            "a new window counts from one"
        );
        limiter.succeeded(a);
        assert!(limiter.failures.lock().get(&a).is_none());
    }

    #[test]
    fn the_table_of_addresses_is_bounded() {
        let limiter = SignInLimiter::default();
        let t0 = Instant::now();
        for i in 0..(MAX_TRACKED as u32 + 50) {
            let ip = IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            limiter.failed(Some(ip), t0 + Duration::from_millis(u64::from(i)));
        }
        assert!(limiter.failures.lock().len() <= MAX_TRACKED);
    }
}
