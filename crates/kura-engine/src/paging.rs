//! The pages of ListExports and ListImports: newest first (ids begin with the start
//! time), the next page named by an opaque token, the hex of the last id listed.

use kura_model::messages::exports as msg;

use crate::error::{EngineError, Result};

/// A list token: the hex of the last id of the page, padded with zeros to a multiple of
/// 16 digits and at least 112 (ListImports' NextToken constraint, which SDKs check).
pub(crate) fn encode_token(id: &str) -> String {
    let mut hex: String = id.bytes().map(|b| format!("{b:02x}")).collect();
    let len = hex.len().max(112).next_multiple_of(16);
    while hex.len() < len {
        hex.push('0');
    }
    hex
}

pub(crate) fn decode_token(token: &str) -> Option<String> {
    if !token.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(token.get(i..i + 2)?, 16).ok())
        .collect();
    let mut bytes = bytes?;
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    String::from_utf8(bytes).ok().filter(|id| !id.is_empty())
}

/// The id a request's NextToken continues after; a token Kura did not make is DynamoDB's
/// ValidationException.
pub(crate) fn after(token: Option<&str>) -> Result<Option<String>> {
    token
        .map(|t| decode_token(t).ok_or_else(|| EngineError::validation(msg::invalid_next_token(t))))
        .transpose()
}

/// One page of `records` (oldest id first, as stored) that `keep`: newest first, after
/// the id `after`, at most `limit`; with the token of the next page when there is one.
pub(crate) fn newest_first<'a, R>(
    records: &'a [R],
    id: impl Fn(&R) -> &str,
    after: Option<&str>,
    limit: i64,
    keep: impl Fn(&R) -> bool,
) -> (Vec<&'a R>, Option<String>) {
    let limit = usize::try_from(limit).unwrap_or(1);
    let mut matching = records
        .iter()
        .rev()
        .filter(|r| after.is_none_or(|a| id(r) < a) && keep(r));
    let page: Vec<&R> = matching.by_ref().take(limit).collect();
    let next = match (matching.next(), page.last()) {
        (Some(_), Some(last)) => Some(encode_token(id(last))),
        _ => None,
    };
    (page, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_meet_the_api_minimum() {
        let token = encode_token("01800000000000-0120f1ab");
        assert!(token.len() >= 112 && token.len().is_multiple_of(16));
        assert_eq!(
            decode_token(&token).as_deref(),
            Some("01800000000000-0120f1ab")
        );
        assert!(after(Some("zz")).is_err());
    }

    #[test]
    fn pages_go_newest_first() {
        let ids = ["a", "b", "c", "d", "e"];
        let (page, next) = newest_first(&ids, |s| s, None, 2, |_| true);
        assert_eq!(page, [&"e", &"d"]);
        let after = decode_token(&next.expect("more"));
        let (page, next) = newest_first(&ids, |s| s, after.as_deref(), 5, |s| *s != "b");
        assert_eq!((page, next), (vec![&"c", &"a"], None));
    }
}
