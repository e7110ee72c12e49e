//! Which attributes an index entry carries besides the keys.

use serde::{Deserialize, Serialize};

/// Which attributes an index entry carries besides the table and index keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum IndexProjection {
    All,
    KeysOnly,
    Include(Vec<String>),
}

impl IndexProjection {
    pub fn wire(&self) -> &'static str {
        match self {
            IndexProjection::All => "ALL",
            IndexProjection::KeysOnly => "KEYS_ONLY",
            IndexProjection::Include(_) => "INCLUDE",
        }
    }
}
