//! AWS's Signature Version 4 test suite (AWS General Reference, "Signature Version 4 test
//! suite", `aws-sig-v4-test-suite`): every case signs with the same key, date and scope.

use super::*;

const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const DATE: &str = "20150830T123600Z";
const SCOPE: &str = "20150830/us-east-1/service/aws4_request";

/// Signs a suite request whose headers are `Host` and `X-Amz-Date` plus `extra`.
fn suite_signature(
    method: &str,
    path: &str,
    query: &str,
    extra: &[(&str, &str)],
    body: &[u8],
) -> (String, String) {
    let mut headers = vec![("Host", "example.amazonaws.com"), ("X-Amz-Date", DATE)];
    headers.extend_from_slice(extra);
    let mut names: Vec<String> = headers
        .iter()
        .map(|(n, _)| n.to_ascii_lowercase())
        .collect();
    names.sort();
    names.dedup();
    let signed = names.join(";");
    let creq = canonical_request(
        method,
        path,
        query,
        &headers,
        &signed,
        &sha256_hex(body),
        None,
    );
    let sts = string_to_sign(DATE, SCOPE, &creq);
    let key = signing_key(SECRET, "20150830", "us-east-1", "service");
    (creq, signature(&key, &sts))
}

#[test]
fn get_vanilla() {
    let (creq, sig) = suite_signature("GET", "/", "", &[], b"");
    assert_eq!(
        creq,
        "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\
         e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        string_to_sign(DATE, SCOPE, &creq),
        "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n\
         bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63"
    );
    assert_eq!(
        sig,
        "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
    );
}

#[test]
fn get_vanilla_query_order_key_case() {
    let (creq, sig) = suite_signature("GET", "/", "Param2=value2&Param1=value1", &[], b"");
    assert!(creq.starts_with("GET\n/\nParam1=value1&Param2=value2\n"));
    assert_eq!(
        sig,
        "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
    );
}

#[test]
fn get_vanilla_empty_query_key() {
    let (_, sig) = suite_signature("GET", "/", "Param1=value1", &[], b"");
    assert_eq!(
        sig,
        "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"
    );
}

#[test]
fn get_vanilla_query_unreserved() {
    let q = "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let (_, sig) = suite_signature("GET", "/", q, &[], b"");
    assert_eq!(
        sig,
        "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"
    );
}

#[test]
fn get_vanilla_utf8_query() {
    let (creq, sig) = suite_signature("GET", "/", "ሴ=bar", &[], b"");
    assert!(creq.starts_with("GET\n/\n%E1%88%B4=bar\n"));
    assert_eq!(
        sig,
        "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"
    );
}

#[test]
fn normalize_path_cases() {
    let vanilla = "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31";
    for path in ["//", "/example/..", "/example1/example2/../..", "/./"] {
        assert_eq!(
            suite_signature("GET", path, "", &[], b"").1,
            vanilla,
            "{path}"
        );
    }
    let (creq, sig) = suite_signature("GET", "/./example", "", &[], b"");
    assert!(creq.starts_with("GET\n/example\n"));
    assert_eq!(
        sig,
        "ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5"
    );
    assert_eq!(canonical_uri("//example//"), "/example/");
}

#[test]
fn get_utf8_and_space() {
    let (creq, sig) = suite_signature("GET", "/ሴ", "", &[], b"");
    assert!(creq.starts_with("GET\n/%E1%88%B4\n"));
    assert_eq!(
        sig,
        "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"
    );
    let (creq, sig) = suite_signature("GET", "/example space/", "", &[], b"");
    assert!(creq.starts_with("GET\n/example%20space/\n"));
    assert_eq!(
        sig,
        "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"
    );
}

#[test]
fn post_vanilla() {
    let (_, sig) = suite_signature("POST", "/", "", &[], b"");
    assert_eq!(
        sig,
        "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
    );
}

#[test]
fn post_x_www_form_urlencoded() {
    let (creq, sig) = suite_signature(
        "POST",
        "/",
        "",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        b"Param1=value1",
    );
    assert!(creq.contains("content-type:application/x-www-form-urlencoded\n"));
    assert!(creq.ends_with("9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e"));
    assert_eq!(
        sig,
        "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"
    );
}

#[test]
fn header_values_are_trimmed_and_collapsed_and_repeats_joined() {
    let creq = canonical_request(
        "GET",
        "/",
        "",
        &[
            ("Host", "h"),
            ("My-Header1", "  value1  with   spaces "),
            ("my-header1", "second"),
        ],
        "host;my-header1",
        "UNSIGNED-PAYLOAD",
        None,
    );
    assert_eq!(
        creq,
        "GET\n/\n\nhost:h\nmy-header1:value1 with spaces,second\n\nhost;my-header1\nUNSIGNED-PAYLOAD"
    );
}

#[test]
fn query_encoding_is_normalised_and_signature_skipped() {
    assert_eq!(
        canonical_query(
            "b=%7e&a=x%2Fy&X-Amz-Signature=abc&c",
            Some("X-Amz-Signature")
        ),
        "a=x%2Fy&b=~&c="
    );
    assert_eq!(canonical_query("a=b%20c+d", None), "a=b%20c%2Bd");
}

#[test]
fn parses_the_authorization_header() {
    let h = parse_authorization(
        "AWS4-HMAC-SHA256 Credential=AKID/20150830/us-east-1/dynamodb/aws4_request,  SignedHeaders=host;x-amz-date, Signature=abcd",
    );
    assert_eq!(h.algorithm, "AWS4-HMAC-SHA256");
    assert_eq!(
        h.credential,
        Some("AKID/20150830/us-east-1/dynamodb/aws4_request")
    );
    assert_eq!(h.signed_headers, Some("host;x-amz-date"));
    assert_eq!(h.signature, Some("abcd"));
    assert_eq!(h.malformed_pair, None);
    let h = parse_authorization("AWS4-HMAC-SHA256 Signature=b,    Credential,    SignedHeaders");
    assert_eq!(h.malformed_pair, Some("Credential"));
    assert_eq!(parse_authorization(""), AuthorizationHeader::default());
}
