//! Verifying one request: the checks in the order DynamoDB makes them (dynalite's
//! `index.js` records the order against the real service), then the signature.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use kura_model::messages::auth as msg;
use parking_lot::{Mutex, RwLock};
use subtle::ConstantTimeEq;
use time::macros::format_description;
use time::{Duration, OffsetDateTime, PrimitiveDateTime};

use crate::service::SERVICE;
use crate::sigv4::{self, ALGORITHM, UNSIGNED_PAYLOAD};
use crate::{AuthError, Credentials, Principal};

/// How far a request's date may be from the server's clock, either way.
pub const MAX_SKEW: Duration = Duration::minutes(15);
/// The longest `X-Amz-Expires` SigV4 allows (seven days).
pub const MAX_PRESIGNED_EXPIRES: i64 = 604_800;
/// Signing keys kept before the cache is emptied (one per key, day and region).
const CACHE_LIMIT: usize = 4096;

/// A request as plain data: no HTTP framework types.
#[derive(Debug, Clone)]
pub struct HttpRequest<'a> {
    pub method: &'a str,
    /// The path as sent (still percent-encoded).
    pub path: &'a str,
    /// The query string as sent, without `?`.
    pub query: &'a str,
    /// Every header, names in any case, repeats allowed.
    pub headers: Vec<(&'a str, &'a str)>,
    pub body: &'a [u8],
}

impl<'a> HttpRequest<'a> {
    fn header(&self, name: &str) -> Option<&'a str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }
}

/// A request that passed: who signed it, and the region of its credential scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub principal: Principal,
    pub access_key_id: String,
    pub region: String,
}

/// One credentials file with its signing-key cache; replaced whole on reload, so a
/// changed secret never meets a key derived from the old one.
struct State {
    credentials: Credentials,
    keys: Mutex<HashMap<String, [u8; 32]>>,
}

/// Verifies SigV4 requests against the current credentials.
pub struct Authenticator {
    state: RwLock<Arc<State>>,
    service: String,
}

/// The signature's parts, from the header or from a presigned query string.
struct Parts<'a> {
    algorithm: Cow<'a, str>,
    credential: Cow<'a, str>,
    signed_headers: Cow<'a, str>,
    signature: Cow<'a, str>,
    date: Cow<'a, str>,
    token: Option<Cow<'a, str>>,
    /// `X-Amz-Expires` of a presigned URL.
    expires: Option<i64>,
    presigned: bool,
}

const BASIC: &[time::format_description::BorrowedFormatItem<'static>] =
    format_description!("[year][month][day]T[hour][minute][second]Z");

fn basic(t: OffsetDateTime) -> String {
    t.format(BASIC).unwrap_or_default()
}

fn valid_region(region: &str) -> bool {
    !region.is_empty()
        && region.len() < 64
        && region
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl Authenticator {
    /// An authenticator for DynamoDB (service `dynamodb`).
    pub fn new(credentials: Credentials) -> Authenticator {
        Authenticator::for_service(credentials, SERVICE)
    }

    /// An authenticator for another service name (the AWS test suite signs `service`).
    pub fn for_service(credentials: Credentials, service: &str) -> Authenticator {
        Authenticator {
            state: RwLock::new(Arc::new(State::new(credentials))),
            service: service.to_owned(),
        }
    }

    /// Swaps in a reloaded credentials file; requests in flight finish with the old one.
    pub fn replace(&self, credentials: Credentials) {
        *self.state.write() = Arc::new(State::new(credentials));
    }

    /// The number of access keys in force.
    pub fn key_count(&self) -> usize {
        self.state.read().credentials.len()
    }

    /// Verifies a request against the clock.
    pub fn verify(&self, request: &HttpRequest<'_>) -> Result<Verified, AuthError> {
        self.verify_at(request, OffsetDateTime::now_utc())
    }

    /// Verifies a request signed for another service of the same port (Kinesis's
    /// `kinesis`), against the clock.
    pub fn verify_for_service(
        &self,
        request: &HttpRequest<'_>,
        service: &str,
    ) -> Result<Verified, AuthError> {
        self.verify_as(request, service, OffsetDateTime::now_utc())
    }

    /// Verifies a request as if the clock read `now`.
    pub fn verify_at(
        &self,
        request: &HttpRequest<'_>,
        now: OffsetDateTime,
    ) -> Result<Verified, AuthError> {
        self.verify_as(request, &self.service, now)
    }

    fn verify_as(
        &self,
        request: &HttpRequest<'_>,
        service: &str,
        now: OffsetDateTime,
    ) -> Result<Verified, AuthError> {
        let state = self.state.read().clone();
        let header = request
            .header("authorization")
            .filter(|h| h.trim_start().starts_with("AWS4-"));
        let parts = match header {
            Some(header) => header_parts(request, header)?,
            None => query_parts(request)?,
        };
        self.check(&state, request, &parts, service, now)
    }

    fn check(
        &self,
        state: &State,
        request: &HttpRequest<'_>,
        parts: &Parts<'_>,
        service_signed_for: &str,
        now: OffsetDateTime,
    ) -> Result<Verified, AuthError> {
        // Long: SigV4's steps in the order AWS documents them, each with its own error.
        let date = PrimitiveDateTime::parse(&parts.date, BASIC)
            .map_err(|_| AuthError::IncompleteSignature(msg::date_format(&parts.date)))?
            .assume_utc();
        let now = now.replace_nanosecond(0).unwrap_or(now);
        if date > now + MAX_SKEW {
            return Err(AuthError::InvalidSignature(msg::signature_not_yet_current(
                &parts.date,
                &basic(now + MAX_SKEW),
                &basic(now),
            )));
        }
        match parts.expires {
            Some(expires) if parts.presigned => {
                let expiry = date + Duration::seconds(expires);
                if now > expiry {
                    return Err(AuthError::InvalidSignature(msg::presigned_expired(
                        &basic(expiry),
                        &basic(now),
                    )));
                }
            }
            _ => {
                if date < now - MAX_SKEW {
                    return Err(AuthError::InvalidSignature(msg::signature_expired(
                        &parts.date,
                        &basic(now - MAX_SKEW),
                        &basic(now),
                    )));
                }
            }
        }
        if !parts
            .signed_headers
            .split(';')
            .any(|h| h.eq_ignore_ascii_case("host"))
        {
            return Err(AuthError::InvalidSignature(msg::HOST_NOT_SIGNED.to_owned()));
        }
        if parts.algorithm != ALGORITHM {
            return Err(AuthError::IncompleteSignature(msg::unsupported_algorithm(
                &parts.algorithm,
            )));
        }
        let credential = parts.credential.trim_end_matches('/');
        let scope: Vec<&str> = credential.split('/').collect();
        let [key_id, scope_date, region, service, terminator] = scope[..] else {
            return Err(AuthError::IncompleteSignature(msg::credential_shape(
                credential,
            )));
        };
        let mut problems = String::new();
        if !valid_region(region) {
            problems.push_str(&msg::scope_region(region));
        }
        if service != service_signed_for {
            problems.push_str(&msg::scope_service(service_signed_for));
        }
        if terminator != "aws4_request" {
            problems.push_str(&msg::scope_terminator(terminator));
        }
        let day = parts.date.get(..8).unwrap_or(&parts.date);
        if scope_date != day {
            problems.push_str(&msg::scope_date(scope_date, day, &parts.date));
        }
        if !problems.is_empty() {
            return Err(AuthError::InvalidSignature(problems.trim_end().to_owned()));
        }
        let Some(known) = state.credentials.get(key_id) else {
            return Err(AuthError::UnrecognizedClient(
                msg::SECURITY_TOKEN_INVALID.to_owned(),
            ));
        };

        let body_hash;
        let payload_hash = match request.header("x-amz-content-sha256").map(str::trim) {
            Some(UNSIGNED_PAYLOAD) => UNSIGNED_PAYLOAD,
            Some(sent) => {
                body_hash = sigv4::sha256_hex(request.body);
                if !sent.eq_ignore_ascii_case(&body_hash) {
                    return Err(mismatch());
                }
                sent
            }
            None => {
                body_hash = sigv4::sha256_hex(request.body);
                &body_hash
            }
        };
        let canonical = sigv4::canonical_request(
            request.method,
            request.path,
            request.query,
            &request.headers,
            &parts.signed_headers,
            payload_hash,
            parts.presigned.then_some("X-Amz-Signature"),
        );
        let scope = format!("{scope_date}/{region}/{service}/{terminator}");
        let to_sign = sigv4::string_to_sign(&parts.date, &scope, &canonical);
        let key = state.signing_key(
            &known.secret_access_key,
            key_id,
            scope_date,
            region,
            service,
        );
        let expected = sigv4::signature(&key, &to_sign);
        if !bool::from(expected.as_bytes().ct_eq(parts.signature.as_bytes())) {
            return Err(mismatch());
        }

        let token_ok = match (&known.session_token, &parts.token) {
            (None, None) => true,
            (Some(want), Some(got)) => bool::from(want.as_bytes().ct_eq(got.as_bytes())),
            _ => false,
        };
        if !token_ok {
            return Err(AuthError::UnrecognizedClient(
                msg::SECURITY_TOKEN_INVALID.to_owned(),
            ));
        }
        if known.expiration.is_some_and(|e| now >= e) {
            return Err(AuthError::ExpiredToken(
                msg::SECURITY_TOKEN_EXPIRED.to_owned(),
            ));
        }
        Ok(Verified {
            principal: known.principal.clone(),
            access_key_id: known.access_key_id.clone(),
            region: region.to_owned(),
        })
    }
}

/// What a console session keeps of the secret (and token) it signed in with: a digest, so
/// that each request can check the key still exists with the same secret.
pub fn fingerprint(secret_access_key: &str, session_token: Option<&str>) -> String {
    // Each part hashed on its own: no secret and token can run together into another pair.
    let parts = format!(
        "{}:{}",
        sigv4::sha256_hex(secret_access_key.as_bytes()),
        session_token.map_or_else(|| "-".to_owned(), |t| sigv4::sha256_hex(t.as_bytes()))
    );
    sigv4::sha256_hex(parts.as_bytes())
}

impl Authenticator {
    /// Signs a person in with an access key and its secret (the console's sign-in form):
    /// the same key, token and expiry checks as a signed request, the secret compared in
    /// constant time. A wrong secret answers as an unknown key does, so the form does not
    /// tell which keys exist.
    pub fn sign_in(
        &self,
        access_key_id: &str,
        secret_access_key: &str,
        session_token: Option<&str>,
        region: &str,
    ) -> Result<Verified, AuthError> {
        self.recheck(
            access_key_id,
            &fingerprint(secret_access_key, session_token),
            region,
        )
    }

    /// Checks a signed-in session again (every console request): the key must still be in
    /// the credentials file in force, with the secret and token it signed in with, and
    /// not expired. The principal, and so its policies, are the file's now.
    pub fn recheck(
        &self,
        access_key_id: &str,
        fingerprint: &str,
        region: &str,
    ) -> Result<Verified, AuthError> {
        let state = self.state.read().clone();
        let invalid = || AuthError::UnrecognizedClient(msg::SECURITY_TOKEN_INVALID.to_owned());
        let known = state.credentials.get(access_key_id).ok_or_else(invalid)?;
        let expected = self::fingerprint(&known.secret_access_key, known.session_token.as_deref());
        if !bool::from(expected.as_bytes().ct_eq(fingerprint.as_bytes())) {
            return Err(invalid());
        }
        if known
            .expiration
            .is_some_and(|e| OffsetDateTime::now_utc() >= e)
        {
            return Err(AuthError::ExpiredToken(
                msg::SECURITY_TOKEN_EXPIRED.to_owned(),
            ));
        }
        if !valid_region(region) {
            return Err(AuthError::InvalidSignature(msg::scope_region(region)));
        }
        Ok(Verified {
            principal: known.principal.clone(),
            access_key_id: known.access_key_id.clone(),
            region: region.to_owned(),
        })
    }
}

fn mismatch() -> AuthError {
    AuthError::InvalidSignature(msg::SIGNATURE_MISMATCH.to_owned())
}

impl State {
    fn new(credentials: Credentials) -> State {
        State {
            credentials,
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// The signing key for (key, day, region, service), derived once and cached.
    fn signing_key(
        &self,
        secret: &str,
        key_id: &str,
        date: &str,
        region: &str,
        service: &str,
    ) -> [u8; 32] {
        let cache_key = format!("{key_id}/{date}/{region}/{service}");
        if let Some(key) = self.keys.lock().get(&cache_key) {
            return *key;
        }
        let key = sigv4::signing_key(secret, date, region, service);
        let mut keys = self.keys.lock();
        if keys.len() >= CACHE_LIMIT {
            keys.clear();
        }
        keys.insert(cache_key, key);
        key
    }
}

/// The parts of an `Authorization` header, or DynamoDB's IncompleteSignatureException.
fn header_parts<'a>(request: &HttpRequest<'a>, header: &'a str) -> Result<Parts<'a>, AuthError> {
    let parsed = sigv4::parse_authorization(header);
    if let Some(pair) = parsed.malformed_pair {
        return Err(AuthError::IncompleteSignature(msg::not_a_key_value_pair(
            pair, header,
        )));
    }
    let mut missing = String::new();
    for (name, value) in [
        ("Credential", parsed.credential),
        ("Signature", parsed.signature),
        ("SignedHeaders", parsed.signed_headers),
    ] {
        if value.is_none_or(str::is_empty) {
            missing.push_str(&msg::authorization_requires(name));
        }
    }
    let date = request
        .header("x-amz-date")
        .or_else(|| request.header("date"));
    if date.is_none() {
        missing.push_str(msg::AUTHORIZATION_REQUIRES_DATE);
    }
    if !missing.is_empty() {
        missing.push_str(&msg::authorization_echo(header));
        return Err(AuthError::IncompleteSignature(missing));
    }
    Ok(Parts {
        algorithm: Cow::Borrowed(parsed.algorithm),
        credential: Cow::Borrowed(parsed.credential.unwrap_or_default()),
        signed_headers: Cow::Borrowed(parsed.signed_headers.unwrap_or_default()),
        signature: Cow::Borrowed(parsed.signature.unwrap_or_default()),
        date: Cow::Borrowed(date.unwrap_or_default().trim()),
        token: request
            .header("x-amz-security-token")
            .map(|t| Cow::Borrowed(t.trim())),
        expires: None,
        presigned: false,
    })
}

/// The parts of a presigned query string, percent-decoded.
fn query_parts<'a>(request: &HttpRequest<'a>) -> Result<Parts<'a>, AuthError> {
    let param = |name: &str| -> Option<Cow<'a, str>> {
        request.query.split('&').find_map(|pair| {
            let (n, v) = pair.split_once('=').unwrap_or((pair, ""));
            (n == name).then(|| {
                if v.contains('%') {
                    Cow::Owned(String::from_utf8_lossy(&sigv4::uri_decode(v)).into_owned())
                } else {
                    Cow::Borrowed(v)
                }
            })
        })
    };
    if param("X-Amz-Algorithm").is_none() && param("X-Amz-Credential").is_none() {
        return Err(AuthError::MissingAuthenticationToken(
            msg::MISSING_AUTHENTICATION_TOKEN.to_owned(),
        ));
    }
    let (Some(algorithm), Some(credential), Some(signature), Some(date), Some(signed_headers)) = (
        param("X-Amz-Algorithm"),
        param("X-Amz-Credential"),
        param("X-Amz-Signature"),
        param("X-Amz-Date"),
        param("X-Amz-SignedHeaders"),
    ) else {
        return Err(AuthError::IncompleteSignature(
            msg::QUERY_PARAMETERS_REQUIRED.to_owned(),
        ));
    };
    let expires = match param("X-Amz-Expires") {
        None => None,
        Some(text) => match text.trim().parse::<i64>() {
            Ok(s) if (1..=MAX_PRESIGNED_EXPIRES).contains(&s) => Some(s),
            _ => {
                return Err(AuthError::IncompleteSignature(
                    msg::QUERY_EXPIRES.to_owned(),
                ));
            }
        },
    };
    Ok(Parts {
        algorithm,
        credential,
        signed_headers,
        signature,
        date,
        token: param("X-Amz-Security-Token"),
        expires,
        presigned: true,
    })
}

#[cfg(test)]
mod tests;
