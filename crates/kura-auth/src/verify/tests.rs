use time::macros::datetime;

use super::*;
use crate::sigv4::{canonical_request, sha256_hex, signature, signing_key, string_to_sign};

const FILE: &str = r#"{"Credentials": [
  {"AccessKeyId": "AKIDALICE", "SecretAccessKey": "alice-secret", "User": "alice", "Account": "123456789012"},
  {"AccessKeyId": "ASIAROLE", "SecretAccessKey": "role-secret", "SessionToken": "the-token",
   "Expiration": "2026-01-01T12:00:00Z", "Role": "deployer", "Account": "123456789012"}]}"#;

const NOW: OffsetDateTime = datetime!(2026-01-01 10:00:00 UTC);
const BODY: &[u8] = br#"{"TableName":"t","Key":{"pk":{"S":"a"}}}"#;

fn auth() -> Authenticator {
    Authenticator::new(Credentials::from_json(FILE).unwrap())
}

/// A GetItem request signed as the SDKs sign it.
struct Signed {
    headers: Vec<(String, String)>,
}

fn sign(key: &str, secret: &str, at: OffsetDateTime, token: Option<&str>) -> Signed {
    let date = basic(at);
    let mut headers = vec![
        ("host".to_owned(), "localhost:8000".to_owned()),
        (
            "content-type".to_owned(),
            "application/x-amz-json-1.0".to_owned(),
        ),
        ("x-amz-date".to_owned(), date.clone()),
        (
            "x-amz-target".to_owned(),
            "DynamoDB_20120810.GetItem".to_owned(),
        ),
    ];
    if let Some(t) = token {
        headers.push(("x-amz-security-token".to_owned(), t.to_owned()));
    }
    let signed: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
    let signed = signed.join(";");
    let borrowed: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let creq = canonical_request("POST", "/", "", &borrowed, &signed, &sha256_hex(BODY), None);
    let scope = format!("{}/us-east-1/dynamodb/aws4_request", &date[..8]);
    let sts = string_to_sign(&date, &scope, &creq);
    let sig = signature(
        &signing_key(secret, &date[..8], "us-east-1", "dynamodb"),
        &sts,
    );
    headers.push((
        "Authorization".to_owned(),
        format!(
            "AWS4-HMAC-SHA256 Credential={key}/{scope}, SignedHeaders={signed}, Signature={sig}"
        ),
    ));
    Signed { headers }
}

impl Signed {
    fn request(&self) -> HttpRequest<'_> {
        HttpRequest {
            method: "POST",
            path: "/",
            query: "",
            headers: self
                .headers
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect(),
            body: BODY,
        }
    }

    fn set(&mut self, name: &str, value: &str) {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.to_owned()));
    }
}

fn err(signed: &Signed, now: OffsetDateTime) -> AuthError {
    auth().verify_at(&signed.request(), now).unwrap_err()
}

#[test]
fn a_signed_request_names_its_principal() {
    let signed = sign("AKIDALICE", "alice-secret", NOW, None);
    let v = auth().verify_at(&signed.request(), NOW).unwrap();
    assert_eq!(v.principal.name, "alice");
    assert_eq!(v.access_key_id, "AKIDALICE");
    assert_eq!(v.region, "us-east-1");
}

#[test]
fn the_signing_key_is_cached_and_reused() {
    let a = auth();
    let signed = sign("AKIDALICE", "alice-secret", NOW, None);
    a.verify_at(&signed.request(), NOW).unwrap();
    a.verify_at(&signed.request(), NOW).unwrap();
    assert_eq!(a.state.read().keys.lock().len(), 1);
}

#[test]
fn wrong_secret_and_tampered_body_do_not_match() {
    let e = err(&sign("AKIDALICE", "nope", NOW, None), NOW);
    assert_eq!(
        e,
        AuthError::InvalidSignature(msg::SIGNATURE_MISMATCH.into())
    );
    let signed = sign("AKIDALICE", "alice-secret", NOW, None);
    let mut request = signed.request();
    request.body = b"{}";
    assert_eq!(
        auth().verify_at(&request, NOW).unwrap_err().type_name(),
        "InvalidSignatureException"
    );
}

#[test]
fn unknown_key_is_an_unrecognized_client() {
    let e = err(&sign("AKIDNOBODY", "x", NOW, None), NOW);
    assert_eq!(
        e,
        AuthError::UnrecognizedClient(
            "The security token included in the request is invalid.".into()
        )
    );
}

#[test]
fn fifteen_minutes_of_skew_either_way() {
    let signed = sign("AKIDALICE", "alice-secret", NOW, None);
    assert!(
        auth()
            .verify_at(&signed.request(), NOW + Duration::minutes(15))
            .is_ok()
    );
    assert!(
        auth()
            .verify_at(&signed.request(), NOW - Duration::minutes(15))
            .is_ok()
    );
    assert_eq!(
        err(&signed, NOW + Duration::minutes(16)).message(),
        "Signature expired: 20260101T100000Z is now earlier than 20260101T100100Z (20260101T101600Z - 15 min.)"
    );
    assert_eq!(
        err(&signed, NOW - Duration::minutes(16)).message(),
        "Signature not yet current: 20260101T100000Z is still later than 20260101T095900Z (20260101T094400Z + 15 min.)"
    );
}

#[test]
fn incomplete_signatures() {
    let mut signed = sign("AKIDALICE", "alice-secret", NOW, None);
    signed.set("Authorization", "AWS4-HMAC-SHA256 Signature=abc");
    assert_eq!(
        err(&signed, NOW),
        AuthError::IncompleteSignature(
            "Authorization header requires 'Credential' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization=AWS4-HMAC-SHA256 Signature=abc".into()
        )
    );
    signed.headers.retain(|(n, _)| n != "x-amz-date");
    assert!(err(&signed, NOW).message().contains(
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
    ));
    let mut signed = sign("AKIDALICE", "alice-secret", NOW, None);
    signed.set("x-amz-date", "201");
    assert_eq!(
        err(&signed, NOW).message(),
        "Date must be in ISO-8601 'basic format'. Got '201'. See http://en.wikipedia.org/wiki/ISO_8601"
    );
}

fn with_authorization(value: &str) -> AuthError {
    let mut signed = sign("AKIDALICE", "alice-secret", NOW, None);
    signed.set("Authorization", value);
    err(&signed, NOW)
}

#[test]
fn host_algorithm_credential_and_scope() {
    assert_eq!(
        with_authorization(
            "AWS4-HMAC-SHA256 Credential=AKIDALICE/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=x-amz-date, Signature=ab"
        ),
        AuthError::InvalidSignature(
            "'Host' must be a 'SignedHeader' in the AWS Authorization.".into()
        )
    );
    assert_eq!(
        with_authorization("AWS4-HMAC-SHA25 Credential=a/b/c/d, SignedHeaders=host, Signature=ab"),
        AuthError::IncompleteSignature(
            "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA25' (only AWS4-HMAC-SHA256 for now). "
                .into()
        )
    );
    assert_eq!(
        with_authorization("AWS4-HMAC-SHA256 Credential=a/b/c/d, SignedHeaders=host, Signature=ab"),
        AuthError::IncompleteSignature(
            "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'a/b/c/d'".into()
        )
    );
    assert_eq!(
        with_authorization("AWS4-HMAC-SHA256 Credential=a/b/C/d/e, SignedHeaders=host, Signature=ab"),
        AuthError::InvalidSignature(
            "Credential should be scoped to a valid region, not 'C'. Credential should be scoped to correct service: 'dynamodb'. Credential should be scoped with a valid terminator: 'aws4_request', not 'e'. Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: 'b' != '20260101', from '20260101T100000Z'.".into()
        )
    );
    assert_eq!(
        with_authorization("Basic abc"),
        AuthError::MissingAuthenticationToken("Request is missing Authentication Token".into())
    );
}

#[test]
fn session_tokens() {
    let ok = sign("ASIAROLE", "role-secret", NOW, Some("the-token"));
    assert_eq!(
        auth().verify_at(&ok.request(), NOW).unwrap().principal.name,
        "deployer"
    );
    for token in [None, Some("other")] {
        let e = err(&sign("ASIAROLE", "role-secret", NOW, token), NOW);
        assert_eq!(e.type_name(), "UnrecognizedClientException");
    }
    let e = err(&sign("AKIDALICE", "alice-secret", NOW, Some("stray")), NOW);
    assert_eq!(e.type_name(), "UnrecognizedClientException");
    let late = NOW + Duration::hours(3);
    let e = err(
        &sign("ASIAROLE", "role-secret", late, Some("the-token")),
        late,
    );
    assert_eq!(
        e,
        AuthError::ExpiredToken("The security token included in the request is expired".into())
    );
}

#[test]
fn payload_hash_header() {
    let mut signed = sign("AKIDALICE", "alice-secret", NOW, None);
    signed.set("x-amz-content-sha256", "00");
    assert_eq!(err(&signed, NOW).type_name(), "InvalidSignatureException");
    // UNSIGNED-PAYLOAD (when signed as such) skips the body hash.
    let date = basic(NOW);
    let headers = [
        ("host", "h"),
        ("x-amz-date", date.as_str()),
        ("x-amz-content-sha256", "UNSIGNED-PAYLOAD"),
    ];
    let creq = canonical_request(
        "POST",
        "/",
        "",
        &headers,
        "host;x-amz-content-sha256;x-amz-date",
        "UNSIGNED-PAYLOAD",
        None,
    );
    let scope = "20260101/eu-west-1/dynamodb/aws4_request";
    let sig = signature(
        &signing_key("alice-secret", "20260101", "eu-west-1", "dynamodb"),
        &string_to_sign(&date, scope, &creq),
    );
    let authz = format!(
        "AWS4-HMAC-SHA256 Credential=AKIDALICE/{scope}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={sig}"
    );
    let mut all = headers.to_vec();
    all.push(("authorization", &authz));
    let request = HttpRequest {
        method: "POST",
        path: "/",
        query: "",
        headers: all,
        body: b"anything",
    };
    assert_eq!(auth().verify_at(&request, NOW).unwrap().region, "eu-west-1");
}

/// A presigned URL: the signature in the query string, the payload hashed.
fn presigned(expires: &str) -> (String, String) {
    let date = basic(NOW);
    let scope = "20260101/us-east-1/dynamodb/aws4_request";
    let query = format!(
        "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDALICE%2F20260101%2Fus-east-1%2Fdynamodb%2Faws4_request&X-Amz-Date={date}&X-Amz-Expires={expires}&X-Amz-SignedHeaders=host"
    );
    let creq = canonical_request(
        "POST",
        "/",
        &query,
        &[("host", "h")],
        "host",
        &sha256_hex(BODY),
        None,
    );
    let sig = signature(
        &signing_key("alice-secret", "20260101", "us-east-1", "dynamodb"),
        &string_to_sign(&date, scope, &creq),
    );
    (format!("{query}&X-Amz-Signature={sig}"), sig)
}

#[test]
fn presigned_urls() {
    let (query, _) = presigned("300");
    let request = |q: &'static str| HttpRequest {
        method: "POST",
        path: "/",
        query: q,
        headers: vec![("host", "h")],
        body: BODY,
    };
    let q: &'static str = Box::leak(query.into_boxed_str());
    assert_eq!(
        auth().verify_at(&request(q), NOW).unwrap().principal.name,
        "alice"
    );
    let e = auth()
        .verify_at(&request(q), NOW + Duration::minutes(6))
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Signature expired: 20260101T100500Z is now earlier than 20260101T100600Z"
    );
    let e = auth()
        .verify_at(&request("X-Amz-Algorithm=AWS4-HMAC-SHA256"), NOW)
        .unwrap_err();
    assert_eq!(e.type_name(), "IncompleteSignatureException");
    let (bad, _) = presigned("0");
    let bad: &'static str = Box::leak(bad.into_boxed_str());
    assert_eq!(
        auth()
            .verify_at(&request(bad), NOW)
            .unwrap_err()
            .type_name(),
        "IncompleteSignatureException"
    );
    let e = auth().verify_at(&request(""), NOW).unwrap_err();
    assert_eq!(e.type_name(), "MissingAuthenticationTokenException");
}

#[test]
fn reload_replaces_keys() {
    let a = auth();
    let signed = sign("AKIDALICE", "alice-secret", NOW, None);
    a.verify_at(&signed.request(), NOW).unwrap();
    a.replace(
        Credentials::from_json(
            r#"{"Credentials": [{"AccessKeyId": "AKIDALICE", "SecretAccessKey": "rotated", "User": "alice"}]}"#,
        )
        .unwrap(),
    );
    assert_eq!(a.key_count(), 1);
    assert_eq!(
        a.verify_at(&signed.request(), NOW).unwrap_err().type_name(),
        "InvalidSignatureException"
    );
    let rotated = sign("AKIDALICE", "rotated", NOW, None);
    assert!(a.verify_at(&rotated.request(), NOW).is_ok());
}
