//! The SigV4 `Authorization` header parser and the verifier from arbitrary text: they
//! return DynamoDB's errors, never panic. The first line is the `Authorization` header,
//! the second the `X-Amz-Date` header, the third the query string (a presigned URL's),
//! the rest the body.
#![no_main]
use kura_auth::{Authenticator, Credentials, HttpRequest, sigv4};
use libfuzzer_sys::fuzz_target;

const FILE: &str = r#"{"Credentials": [
  {"AccessKeyId": "AKIDALICE", "SecretAccessKey": "alice-secret", "User": "alice"},
  {"AccessKeyId": "ASIAROLE", "SecretAccessKey": "role-secret", "SessionToken": "tok",
   "Expiration": "2026-01-01T12:00:00Z", "Role": "deployer"}]}"#;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.splitn(4, '\n');
    let header = lines.next().unwrap_or_default();
    let date = lines.next().unwrap_or_default();
    let query = lines.next().unwrap_or_default();
    let body = lines.next().unwrap_or_default();
    let parsed = sigv4::parse_authorization(header);
    let _ = (parsed.credential, parsed.signature, parsed.signed_headers);
    let _ = sigv4::canonical_query(query, Some("X-Amz-Signature"));
    let _ = sigv4::canonical_uri(query);
    let Ok(credentials) = Credentials::from_json(FILE) else {
        return;
    };
    let auth = Authenticator::new(credentials);
    let request = HttpRequest {
        method: "POST",
        path: "/",
        query,
        headers: vec![
            ("host", "localhost:8000"),
            ("authorization", header),
            ("x-amz-date", date),
            ("x-amz-security-token", "tok"),
        ],
        body: body.as_bytes(),
    };
    let now = time::macros::datetime!(2026-01-01 10:00:00 UTC);
    if let Err(error) = auth.verify_at(&request, now) {
        assert!(!error.message().is_empty());
    }
});
