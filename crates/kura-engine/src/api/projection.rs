//! Index projections and index names as sent and as answered, shared by tables and vector
//! indexes.

use serde::{Deserialize, Serialize};

/// `Projection` as sent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ProjectionInput {
    pub projection_type: Option<String>,
    pub non_key_attributes: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct IndexNameInput {
    pub index_name: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ProjectionOut {
    pub projection_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_key_attributes: Option<Vec<String>>,
}
