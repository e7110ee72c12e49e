//! The condition keys of one request, and the `${...}` policy variables read from them.

use std::collections::HashMap;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The condition keys of one request, by lower-cased name; a key holds one or more values
/// (`dynamodb:LeadingKeys` and `dynamodb:Attributes` are multi-valued). A key that is
/// absent is absent: no entry, which is not the same as an empty set for `Null`.
#[derive(Debug, Clone, Default)]
pub struct RequestContext {
    keys: HashMap<String, Vec<String>>,
}

impl RequestContext {
    pub fn new() -> RequestContext {
        RequestContext::default()
    }

    /// Sets a single-valued key.
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        self.keys.insert(key.to_lowercase(), vec![value.into()]);
    }

    /// Sets a multi-valued key. An empty list removes the key: AWS leaves out a
    /// multi-valued key with no values (a Scan has no `dynamodb:LeadingKeys`).
    pub fn set_all(&mut self, key: &str, values: Vec<String>) {
        if values.is_empty() {
            self.keys.remove(&key.to_lowercase());
        } else {
            self.keys.insert(key.to_lowercase(), values);
        }
    }

    /// Sets `aws:CurrentTime` (RFC 3339) and `aws:EpochTime` (seconds) to `now`.
    pub fn set_current_time(&mut self, now: std::time::SystemTime) {
        let now = OffsetDateTime::from(now);
        if let Ok(text) = now.format(&Rfc3339) {
            self.set("aws:CurrentTime", text);
        }
        self.set("aws:EpochTime", now.unix_timestamp().to_string());
    }

    pub fn get(&self, key: &str) -> Option<&[String]> {
        self.keys.get(&key.to_lowercase()).map(Vec::as_slice)
    }
}

/// Replaces `${...}` policy variables; None when one names a key the request lacks.
pub(crate) fn substitute(text: &str, ctx: &RequestContext) -> Option<String> {
    if !text.contains("${") {
        return Some(text.to_owned());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Some(out);
        };
        let name = &after[..end];
        match name {
            "*" => out.push('*'),
            "?" => out.push('?'),
            "$" => out.push('$'),
            key => {
                // `${key, 'default'}`
                let (key, default) = match key.split_once(',') {
                    Some((k, d)) => (k.trim(), Some(d.trim().trim_matches('\'').to_owned())),
                    None => (key.trim(), None),
                };
                match ctx.get(key) {
                    Some([value]) => out.push_str(value),
                    _ => out.push_str(&default?),
                }
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}
