//! Console sessions: a random token in an `HttpOnly`, `SameSite=Strict` cookie names a
//! session that holds who signed in (with `--auth`) and the CSRF token every form carries.
//! Sessions live in memory only: a restart signs everyone out.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// The cookie's name.
pub(crate) const COOKIE: &str = "kura_console";
/// A session unused this long is forgotten.
const IDLE: Duration = Duration::from_secs(12 * 3600);
/// Sessions kept at most: a client that never sends the cookie back cannot grow the map.
const MAX_SESSIONS: usize = 10_000;

/// One visitor's session.
#[derive(Clone)]
pub(crate) struct Session {
    pub token: String,
    /// The CSRF token every form posts back.
    pub csrf: String,
    /// Who signed in (always None without `--auth`).
    pub principal: Option<kura_auth::Principal>,
    /// The access key signed in with, shown in the header.
    pub access_key_id: Option<String>,
    last_used: Instant,
}

/// Every session of one server.
#[derive(Default)]
pub(crate) struct Sessions {
    by_token: Mutex<HashMap<String, Session>>,
}

/// 128 random bits as hex (fastrand's generator is seeded from the OS per thread).
fn random_token() -> String {
    format!("{:032x}", fastrand::u128(..))
}

impl Sessions {
    /// The session the cookie names, when it exists and is not idle too long.
    pub fn find(&self, token: &str) -> Option<Session> {
        let mut sessions = self.by_token.lock();
        let session = sessions.get_mut(token)?;
        if session.last_used.elapsed() > IDLE {
            sessions.remove(token);
            return None;
        }
        session.last_used = Instant::now();
        Some(session.clone())
    }

    /// A new session with no one signed in.
    pub fn start(&self) -> Session {
        let session = Session {
            token: random_token(),
            csrf: random_token(),
            principal: None,
            access_key_id: None,
            last_used: Instant::now(),
        };
        let mut sessions = self.by_token.lock();
        if sessions.len() >= MAX_SESSIONS {
            sessions.retain(|_, s| s.last_used.elapsed() < IDLE);
            if sessions.len() >= MAX_SESSIONS
                && let Some(oldest) = sessions
                    .iter()
                    .min_by_key(|(_, s)| s.last_used)
                    .map(|(t, _)| t.clone())
            {
                sessions.remove(&oldest);
            }
        }
        sessions.insert(session.token.clone(), session.clone());
        session
    }

    /// Signs `principal` in: a new token and CSRF token (no session fixation), the old
    /// session gone.
    pub fn sign_in(&self, old: &str, verified: kura_auth::Verified) -> Session {
        self.by_token.lock().remove(old);
        let mut session = self.start();
        session.principal = Some(verified.principal);
        session.access_key_id = Some(verified.access_key_id);
        self.by_token
            .lock()
            .insert(session.token.clone(), session.clone());
        session
    }

    pub fn sign_out(&self, token: &str) {
        self.by_token.lock().remove(token);
    }
}

/// The `Cookie` header's value for `name`.
pub(crate) fn cookie<'a>(headers: &'a axum::http::HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// The `Set-Cookie` value for a session.
pub(crate) fn set_cookie(token: &str) -> String {
    format!("{COOKIE}={token}; Path=/console; HttpOnly; SameSite=Strict")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_found_by_their_token_and_forgotten_on_sign_out() {
        let sessions = Sessions::default();
        let s = sessions.start();
        assert_eq!(s.token.len(), 32);
        assert_ne!(s.token, s.csrf);
        assert!(sessions.find(&s.token).is_some());
        assert!(sessions.find("nope").is_none());
        sessions.sign_out(&s.token);
        assert!(sessions.find(&s.token).is_none());
    }

    #[test]
    fn the_cookie_is_read_among_others() {
        let mut h = axum::http::HeaderMap::new();
        h.insert(
            axum::http::header::COOKIE,
            "a=1; kura_console=abc; b=2".parse().expect("header"),
        );
        assert_eq!(cookie(&h, COOKIE), Some("abc"));
        assert_eq!(cookie(&h, "c"), None);
    }
}
