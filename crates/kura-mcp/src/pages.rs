//! Bounded pages: an assistant reads a page of at most [`MAX_ITEMS`] items and
//! [`MAX_PAGE_BYTES`] of JSON, and is handed the key to ask for the next one.

use serde_json::Value;

use crate::McpError;
use kura_client::Endpoint;

/// Items per page when the assistant names no limit.
pub const DEFAULT_ITEMS: u32 = 25;
/// The most items a page holds.
pub const MAX_ITEMS: u32 = 100;
/// The most JSON a page's answer may be: a page that would be larger is asked again with
/// half the limit, down to one item (DynamoDB's own page bound is 1 MB).
pub const MAX_PAGE_BYTES: usize = 256 * 1024;

/// The limit to ask for: the assistant's, clamped to `1..=MAX_ITEMS`.
pub fn limit(asked: Option<u32>) -> u32 {
    asked.unwrap_or(DEFAULT_ITEMS).clamp(1, MAX_ITEMS)
}

/// Calls `operation` with `body` (whose `Limit` is set here) until the answer fits
/// [`MAX_PAGE_BYTES`], halving the limit each time it does not.
pub async fn bounded(
    endpoint: &Endpoint,
    operation: &str,
    mut body: Value,
    asked: Option<u32>,
) -> Result<Value, McpError> {
    let mut limit = limit(asked);
    loop {
        body["Limit"] = limit.into();
        let answer = endpoint.call(operation, &body).await?;
        if limit == 1 || answer.to_string().len() <= MAX_PAGE_BYTES {
            return Ok(answer);
        }
        limit /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_clamped() {
        assert_eq!(limit(None), DEFAULT_ITEMS);
        assert_eq!(limit(Some(0)), 1);
        assert_eq!(limit(Some(7)), 7);
        assert_eq!(limit(Some(100_000)), MAX_ITEMS);
    }
}
