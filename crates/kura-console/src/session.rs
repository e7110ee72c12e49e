//! Console sessions. A visitor's browser holds a random token in an `HttpOnly`,
//! `SameSite=Lax` cookie; the CSRF token its forms carry is an HMAC of that token under a
//! key made when the server starts, so a visitor who has not signed in costs the server no
//! memory (and a flood of cookie-less requests cannot push anyone out). With `--auth`, a
//! sign-in stores the token with the access key, a digest of its secret and the region:
//! every request checks them again against the credentials in force, so a key removed
//! from the file, or expired, ends its sessions at once. A restart signs everyone out.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// The cookie's name.
pub(crate) const COOKIE: &str = "kura_console";
/// A signed-in session unused this long is forgotten.
const IDLE: Duration = Duration::from_secs(12 * 3600);
/// Signed-in sessions kept at most (only a valid key can make one); past it, the one
/// unused longest goes.
const MAX_SIGNED_IN: usize = 10_000;

/// One request's session.
#[derive(Clone)]
pub(crate) struct Session {
    pub token: String,
    /// The CSRF token every form posts back.
    pub csrf: String,
    /// Who signed in, as checked for this request (always None without `--auth`).
    pub signed_in: Option<kura_auth::Verified>,
}

/// A sign-in as kept between requests.
struct SignedIn {
    access_key_id: String,
    fingerprint: String,
    region: String,
    last_used: Instant,
}

/// The signed-in sessions of one server, and the key CSRF tokens are made with.
pub(crate) struct Sessions {
    csrf_key: [u8; 32],
    signed_in: Mutex<HashMap<String, SignedIn>>,
}

impl Default for Sessions {
    fn default() -> Self {
        let mut csrf_key = [0u8; 32];
        csrf_key[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        csrf_key[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        Sessions {
            csrf_key,
            signed_in: Mutex::new(HashMap::new()),
        }
    }
}

/// 122 random bits from the operating system (a version 4 UUID), as 32 hex digits.
fn random_token() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// A token as the cookie must carry it: 32 lowercase hex digits.
fn well_formed(token: &str) -> bool {
    token.len() == 32
        && token
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl Sessions {
    fn csrf_for(&self, token: &str) -> String {
        kura_auth::sigv4::signature(&self.csrf_key, token)
    }

    /// The session of the cookie's token (a new token when there is none), with the
    /// sign-in checked again by `auth` when it has one.
    pub fn open(
        &self,
        cookie: Option<&str>,
        auth: Option<&kura_auth::Authenticator>,
    ) -> (Session, bool) {
        let (token, new) = match cookie.filter(|t| well_formed(t)) {
            Some(t) => (t.to_owned(), false),
            None => (random_token(), true),
        };
        let signed_in = auth.and_then(|auth| {
            let mut sessions = self.signed_in.lock();
            let kept = sessions.get_mut(&token)?;
            let fresh = kept.last_used.elapsed() <= IDLE;
            match auth.recheck(&kept.access_key_id, &kept.fingerprint, &kept.region) {
                Ok(verified) if fresh => {
                    kept.last_used = Instant::now();
                    Some(verified)
                }
                _ => {
                    sessions.remove(&token);
                    None
                }
            }
        });
        let session = Session {
            csrf: self.csrf_for(&token),
            token,
            signed_in,
        };
        (session, new)
    }

    /// Signs `verified` in under a new token (no session fixation); the old one is gone.
    pub fn sign_in(
        &self,
        old: &str,
        verified: kura_auth::Verified,
        fingerprint: String,
    ) -> Session {
        let token = random_token();
        let mut sessions = self.signed_in.lock();
        sessions.remove(old);
        if sessions.len() >= MAX_SIGNED_IN {
            sessions.retain(|_, s| s.last_used.elapsed() <= IDLE);
            if sessions.len() >= MAX_SIGNED_IN
                && let Some(oldest) = sessions
                    .iter()
                    .min_by_key(|(_, s)| s.last_used)
                    .map(|(t, _)| t.clone())
            {
                sessions.remove(&oldest);
            }
        }
        sessions.insert(
            token.clone(),
            SignedIn {
                access_key_id: verified.access_key_id.clone(),
                fingerprint,
                region: verified.region.clone(),
                last_used: Instant::now(),
            },
        );
        Session {
            csrf: self.csrf_for(&token),
            token,
            signed_in: Some(verified),
        }
    }

    pub fn sign_out(&self, token: &str) {
        self.signed_in.lock().remove(token);
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

/// The `Set-Cookie` value for a session (`Secure` when the server speaks HTTPS).
pub(crate) fn set_cookie(token: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    // Lax, not Strict: a link from another site (a bookmark page, a chat) must not arrive
    // without the cookie and replace it; a POST from another site still carries none, and
    // the Origin check and the CSRF token refuse it anyway.
    format!("{COOKIE}={token}; Path=/console; HttpOnly; SameSite=Lax{secure}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth() -> kura_auth::Authenticator {
        kura_auth::Authenticator::new(
            kura_auth::Credentials::from_json(
                r#"{"Credentials": [{"AccessKeyId": "AKID", "SecretAccessKey": "s", "User": "u"}]}"#,
            )
            .expect("credentials"),
        )
    }

    #[test]
    fn anonymous_sessions_cost_nothing_and_their_csrf_token_follows_the_cookie() {
        let sessions = Sessions::default();
        let (first, new) = sessions.open(None, None);
        assert!(new && well_formed(&first.token));
        let (again, new) = sessions.open(Some(&first.token), None);
        assert!(!new);
        assert_eq!(again.csrf, first.csrf);
        assert_ne!(first.csrf, sessions.open(None, None).0.csrf);
        assert!(sessions.open(Some("not-a-token"), None).1);
        assert!(sessions.signed_in.lock().is_empty());
    }

    #[test]
    fn a_sign_in_is_checked_again_on_every_request() {
        let auth = auth();
        let sessions = Sessions::default();
        let (anonymous, _) = sessions.open(None, Some(&auth));
        let print = kura_auth::fingerprint("s", None);
        let verified = auth
            .sign_in("AKID", "s", None, "eu-west-1")
            .expect("signed in");
        let session = sessions.sign_in(&anonymous.token, verified, print);
        assert_ne!(session.token, anonymous.token);
        let (again, _) = sessions.open(Some(&session.token), Some(&auth));
        assert_eq!(again.signed_in.expect("signed in").region, "eu-west-1");
        // The key leaves the credentials file: the session ends with it.
        auth.replace(kura_auth::Credentials::default());
        assert!(
            sessions
                .open(Some(&session.token), Some(&auth))
                .0
                .signed_in
                .is_none()
        );
        assert!(sessions.signed_in.lock().is_empty());
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
