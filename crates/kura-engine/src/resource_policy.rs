//! A resource-based policy as stored with a table or a stream, beneath both records.

use serde::{Deserialize, Serialize};

/// A resource-based policy as PutResourcePolicy stored it: the document as sent (already
/// checked by the server) and its revision id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourcePolicyRecord {
    pub policy: String,
    pub revision_id: String,
}
