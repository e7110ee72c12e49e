//! Who is asking: the region a request was signed for, which ARNs in answers are built from.

use crate::arn;

/// Who is asking: what ARNs in responses are built from.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The region the client signed for (any region is accepted; all share one namespace).
    pub region: String,
}

impl Default for RequestContext {
    fn default() -> Self {
        RequestContext {
            region: "us-east-1".into(),
        }
    }
}

impl RequestContext {
    pub fn table_arn(&self, table: &str) -> String {
        arn::table(&self.region, table)
    }
}
