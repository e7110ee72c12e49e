//! Signing a request as an AWS SDK signs it: Kura's own clients (`kura mcp`) reach any
//! DynamoDB endpoint — Kura with `--auth`, DynamoDB Local, AWS — with the same SigV4 the
//! server verifies.

use time::OffsetDateTime;
use time::macros::format_description;

use crate::sigv4;

/// The key a request is signed with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningKey {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

/// What a request is: the parts the signature covers.
#[derive(Debug, Clone, Copy)]
pub struct Unsigned<'a> {
    pub method: &'a str,
    /// The host header's value (`host[:port]`).
    pub host: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    /// Headers besides `host` and the ones signing adds, lower-case names.
    pub headers: &'a [(&'a str, &'a str)],
    pub body: &'a [u8],
}

/// The headers to add to `request` (`x-amz-date`, `x-amz-content-sha256`, the session
/// token when there is one, and `authorization`), signed at `now` for `region` and
/// `service` (`dynamodb`, `streams.dynamodb`).
pub fn sign(
    request: &Unsigned<'_>,
    key: &SigningKey,
    region: &str,
    service: &str,
    now: OffsetDateTime,
) -> Vec<(&'static str, String)> {
    let amz_date = now
        .format(format_description!(
            "[year][month][day]T[hour][minute][second]Z"
        ))
        .unwrap_or_default();
    let date = &amz_date[..amz_date.len().min(8)];
    let payload_hash = sigv4::sha256_hex(request.body);
    let mut added: Vec<(&'static str, String)> = vec![
        ("x-amz-date", amz_date.clone()),
        ("x-amz-content-sha256", payload_hash.clone()),
    ];
    if let Some(token) = &key.session_token {
        added.push(("x-amz-security-token", token.clone()));
    }
    let mut all: Vec<(&str, &str)> = vec![("host", request.host)];
    all.extend(request.headers.iter().copied());
    all.extend(added.iter().map(|(n, v)| (*n, v.as_str())));
    let mut names: Vec<String> = all.iter().map(|(n, _)| n.to_ascii_lowercase()).collect();
    names.sort();
    names.dedup();
    let signed_headers = names.join(";");
    let canonical = sigv4::canonical_request(
        request.method,
        request.path,
        request.query,
        &all,
        &signed_headers,
        &payload_hash,
        None,
    );
    let scope = format!("{date}/{region}/{service}/aws4_request");
    let string_to_sign = sigv4::string_to_sign(&amz_date, &scope, &canonical);
    let signing_key = sigv4::signing_key(&key.secret_access_key, date, region, service);
    let signature = sigv4::signature(&signing_key, &string_to_sign);
    added.push((
        "authorization",
        format!(
            "{} Credential={}/{scope}, SignedHeaders={signed_headers}, Signature={signature}",
            sigv4::ALGORITHM,
            key.access_key_id
        ),
    ));
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Authenticator, Credentials, HttpRequest};

    const FILE: &str = r#"{"Credentials": [{"AccessKeyId": "AKIDEXAMPLE",
        "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        "User": "alice", "Account": "123456789012"}]}"#;

    fn key(secret: &str) -> SigningKey {
        SigningKey {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: secret.into(),
            session_token: None,
        }
    }

    fn verify(key: &SigningKey, body: &[u8], sent_body: &[u8]) -> Result<String, String> {
        let auth = Authenticator::new(Credentials::from_json(FILE).expect("file"));
        let headers = [
            ("content-type", "application/x-amz-json-1.0"),
            ("x-amz-target", "DynamoDB_20120810.ListTables"),
        ];
        let unsigned = Unsigned {
            method: "POST",
            host: "localhost:8000",
            path: "/",
            query: "",
            headers: &headers,
            body,
        };
        let now = OffsetDateTime::now_utc();
        let added = sign(&unsigned, key, "us-east-1", "dynamodb", now);
        let mut all: Vec<(&str, &str)> = vec![("host", "localhost:8000")];
        all.extend(headers);
        all.extend(added.iter().map(|(n, v)| (*n, v.as_str())));
        let request = HttpRequest {
            method: "POST",
            path: "/",
            query: "",
            headers: all,
            body: sent_body,
        };
        auth.verify_at(&request, now)
            .map(|v| v.principal.name)
            .map_err(|e| e.type_name().to_owned())
    }

    #[test]
    fn the_server_accepts_what_the_signer_signs() {
        let key = key("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
        assert_eq!(verify(&key, b"{}", b"{}"), Ok("alice".to_owned()));
    }

    #[test]
    fn a_wrong_secret_or_a_changed_body_is_refused() {
        let wrong = key("not-the-secret");
        assert_eq!(
            verify(&wrong, b"{}", b"{}"),
            Err("InvalidSignatureException".to_owned())
        );
        let right = key("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
        assert!(verify(&right, b"{}", b"{\"Limit\":1}").is_err());
    }
}
