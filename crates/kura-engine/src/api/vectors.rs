//! Vector indexes (DynamoDB, 2026): their members of CreateTable, UpdateTable and
//! DescribeTable, and SearchVectors.

use kura_expr::request::SearchParams;
use kura_model::Item;
use serde::{Deserialize, Serialize};

use super::ProjectionInput;
pub use super::search_vector::SearchVector;

/// `VectorIndex` (CreateTable) and `CreateVectorIndexAction` (UpdateTable): one shape.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct VectorIndexInput {
    pub index_name: Option<String>,
    pub vector_attribute: Option<VectorAttributeInput>,
    pub search_schema: Option<Vec<SearchSchemaElementInput>>,
    pub projection: Option<ProjectionInput>,
    pub dimensions: Option<i64>,
    pub distance_function: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct VectorAttributeInput {
    pub attribute_name: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct SearchSchemaElementInput {
    pub attribute_name: Option<String>,
    pub search_schema_element_type: Option<String>,
}

/// One of UpdateTable's `VectorIndexUpdates`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct VectorIndexUpdateInput {
    pub create: Option<VectorIndexInput>,
    pub delete: Option<super::IndexNameInput>,
}

/// `VectorIndexDescription`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct VectorIndexDescription {
    pub index_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_schema: Option<Vec<SearchSchemaElementOut>>,
    pub projection: super::ProjectionOut,
    pub vector_attribute: VectorAttributeOut,
    pub dimensions: u32,
    pub distance_function: &'static str,
    pub index_status: &'static str,
    /// Reported only while the index is backfilling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backfilling: Option<bool>,
    pub index_size_bytes: u64,
    pub item_count: u64,
    pub index_arn: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SearchSchemaElementOut {
    pub attribute_name: String,
    pub search_schema_element_type: &'static str,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct VectorAttributeOut {
    pub attribute_name: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct SearchVectorsInput {
    #[serde(deserialize_with = "super::table_name_or_arn")]
    pub table_name: Option<String>,
    pub index_name: Option<String>,
    /// Read as it arrives, element by element: the shapes are the engine's to judge, with
    /// DynamoDB's words.
    pub search_vector: Option<SearchVector>,
    pub top_k: Option<i64>,
    pub return_consumed_capacity: Option<String>,
    #[serde(flatten)]
    pub expressions: SearchParams,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SearchVectorsOutput {
    pub search_results: Vec<SearchResultItem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<VectorCapacity>,
}

/// One answer: the item (projected as the index and the request say) and its score.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SearchResultItem {
    pub item: Item,
    pub score: f64,
}

pub use crate::capacity::VectorCapacity;

#[cfg(test)]
mod tests {
    use super::*;

    /// SearchVector's own reader works inside the request, which serde flattens.
    #[test]
    fn reads_inside_a_flattened_request() {
        let input: SearchVectorsInput = serde_json::from_str(
            r#"{"TableName": "t", "SearchVector": [{"N": "2"}], "ProjectionExpression": "a"}"#,
        )
        .expect("request");
        assert_eq!(
            input.search_vector,
            Some(SearchVector::List(vec![Some(2.0)]))
        );
    }
}
