//! Signature Version 4 as AWS builds it: the canonical request, the string to sign, the
//! signing key, and the parser of the `Authorization` header.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// The one algorithm SigV4 has.
pub const ALGORITHM: &str = "AWS4-HMAC-SHA256";
/// The payload hash a client may send instead of hashing the body.
pub const UNSIGNED_PAYLOAD: &str = "UNSIGNED-PAYLOAD";

type HmacSha256 = Hmac<Sha256>;

fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    // HMAC takes keys of any length; `new_from_slice` cannot fail for it.
    let mut mac = match HmacSha256::new_from_slice(key) {
        Ok(mac) => mac,
        Err(_) => return [0; 32],
    };
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// Lower-case hex SHA-256.
pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// `kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request")`.
pub fn signing_key(secret: &str, date: &str, region: &str, service: &str) -> [u8; 32] {
    let k_date = hmac(format!("AWS4{secret}").as_bytes(), date.as_bytes());
    let k_region = hmac(&k_date, region.as_bytes());
    let k_service = hmac(&k_region, service.as_bytes());
    hmac(&k_service, b"aws4_request")
}

/// The hex signature of a string to sign.
pub fn signature(signing_key: &[u8; 32], string_to_sign: &str) -> String {
    hex::encode(hmac(signing_key, string_to_sign.as_bytes()))
}

/// `AWS4-HMAC-SHA256\n<date>\n<scope>\n<hex sha256 of the canonical request>`.
pub fn string_to_sign(amz_date: &str, scope: &str, canonical_request: &str) -> String {
    format!(
        "{ALGORITHM}\n{amz_date}\n{scope}\n{}",
        sha256_hex(canonical_request.as_bytes())
    )
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 percent-encoding of everything but the unreserved characters, upper-case hex.
pub fn uri_encode(bytes: &[u8], out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in bytes {
        if is_unreserved(b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
}

/// Percent-decoding; a `%` not followed by two hex digits stays as it is.
pub fn uri_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).and_then(|c| (*c as char).to_digit(16)),
                bytes.get(i + 2).and_then(|c| (*c as char).to_digit(16)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b);
        i += 1;
    }
    out
}

/// The canonical URI of every service but S3: the path normalised as RFC 3986 says
/// (empty and `.` segments dropped, `..` removes its parent, a trailing slash kept), then
/// each segment percent-encoded once more, as sent (the SDKs encode twice).
pub fn canonical_uri(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    let mut out = String::with_capacity(path.len() + 8);
    for segment in &segments {
        out.push('/');
        uri_encode(segment.as_bytes(), &mut out);
    }
    let trailing = path.ends_with('/') || path.ends_with("/.") || path.ends_with("/..");
    if segments.is_empty() || trailing {
        out.push('/');
    }
    out
}

/// The canonical query string: each name and value decoded and re-encoded strictly, sorted
/// by name then value, `name=value` joined by `&` (a name without `=` gets an empty
/// value). `skip` names a parameter left out (a presigned URL's `X-Amz-Signature`).
pub fn canonical_query(query: &str, skip: Option<&str>) -> String {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for part in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = part.split_once('=').unwrap_or((part, ""));
        let name = uri_decode(name);
        if skip.is_some_and(|s| s.as_bytes() == name.as_slice()) {
            continue;
        }
        let mut n = String::new();
        uri_encode(&name, &mut n);
        let mut v = String::new();
        uri_encode(&uri_decode(value), &mut v);
        pairs.push((n, v));
    }
    pairs.sort();
    let mut out = String::new();
    for (i, (n, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(n);
        out.push('=');
        out.push_str(v);
    }
    out
}

/// A header value as SigV4 signs it: trimmed, runs of spaces collapsed to one.
fn push_trimmed(value: &str, out: &mut String) {
    let mut space = false;
    for c in value.trim().chars() {
        if c == ' ' || c == '\t' {
            space = true;
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
}

/// The canonical request. `headers` are the request's (any case, repeated names allowed,
/// joined with `,` in order); `signed_headers` the lower-case `;`-separated list the client
/// signed, used as given.
pub fn canonical_request(
    method: &str,
    path: &str,
    query: &str,
    headers: &[(&str, &str)],
    signed_headers: &str,
    payload_hash: &str,
    skip_query: Option<&str>,
) -> String {
    let mut out = String::with_capacity(256);
    out.push_str(method);
    out.push('\n');
    out.push_str(&canonical_uri(path));
    out.push('\n');
    out.push_str(&canonical_query(query, skip_query));
    out.push('\n');
    for name in signed_headers.split(';') {
        out.push_str(name);
        out.push(':');
        let mut first = true;
        for (_, value) in headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)) {
            if !first {
                out.push(',');
            }
            first = false;
            push_trimmed(value, &mut out);
        }
        out.push('\n');
    }
    out.push('\n');
    out.push_str(signed_headers);
    out.push('\n');
    out.push_str(payload_hash);
    out
}

/// The parts of an `Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
/// Signature=...` header; absent parts are `None`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct AuthorizationHeader<'a> {
    pub algorithm: &'a str,
    pub credential: Option<&'a str>,
    pub signed_headers: Option<&'a str>,
    pub signature: Option<&'a str>,
    /// The first comma-separated part without `=`, if any (AWS refuses the header).
    pub malformed_pair: Option<&'a str>,
}

/// Splits an `Authorization` header. Never fails: what is missing is left `None` for the
/// caller to report in DynamoDB's words.
pub fn parse_authorization(header: &str) -> AuthorizationHeader<'_> {
    let header = header.trim();
    let (algorithm, rest) = header.split_once([' ', '\t']).unwrap_or((header, ""));
    let mut parsed = AuthorizationHeader {
        algorithm,
        ..AuthorizationHeader::default()
    };
    for part in rest.split(',') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let Some((key, value)) = part.split_once('=') else {
            parsed.malformed_pair.get_or_insert(part);
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "Credential" => parsed.credential = Some(value),
            "SignedHeaders" => parsed.signed_headers = Some(value),
            "Signature" => parsed.signature = Some(value),
            _ => {}
        }
    }
    parsed
}

#[cfg(test)]
mod tests;
