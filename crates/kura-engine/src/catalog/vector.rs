//! A vector index as the catalog keeps it: its definition, the distance function's
//! scores, and which attributes its answers carry. The checks that make one are
//! `vectors::definition`'s.

use kura_model::keycode::ScalarType;
use serde::{Deserialize, Serialize};

use super::{IndexProjection, TableRecord};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Distance {
    Cosine,
    DotProduct,
    Euclidean,
}

impl Distance {
    pub(crate) fn parse(wire: &str) -> Option<Distance> {
        match wire {
            "COSINE" => Some(Distance::Cosine),
            "DOT_PRODUCT" => Some(Distance::DotProduct),
            "EUCLIDEAN" => Some(Distance::Euclidean),
            _ => None,
        }
    }

    pub fn wire(self) -> &'static str {
        match self {
            Distance::Cosine => "COSINE",
            Distance::DotProduct => "DOT_PRODUCT",
            Distance::Euclidean => "EUCLIDEAN",
        }
    }

    /// The score DynamoDB reports, computed in f32 as the index stores vectors: COSINE
    /// 1 − cos (0 identical, 2 opposite), EUCLIDEAN the L2 distance, DOT_PRODUCT the dot
    /// product. A zero vector has no direction: its COSINE score is 1.
    pub(crate) fn score(self, query: &[f32], query_norm: f32, vector: &[f32], norm: f32) -> f64 {
        let score = match self {
            Distance::DotProduct => dot(query, vector),
            Distance::Cosine => {
                let denominator = query_norm * norm;
                if denominator == 0.0 {
                    1.0
                } else {
                    1.0 - dot(query, vector) / denominator
                }
            }
            Distance::Euclidean => query
                .iter()
                .zip(vector)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f32>()
                .sqrt(),
        };
        f64::from(score)
    }

    /// How far a score is from the best: smaller is more similar.
    pub(crate) fn badness(self, score: f64) -> f64 {
        match self {
            Distance::DotProduct => -score,
            Distance::Cosine | Distance::Euclidean => score,
        }
    }
}

/// The dot product, in eight lanes so the compiler vectorises it.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let chunks = a.len() / 8 * 8;
    for (ca, cb) in a[..chunks].chunks_exact(8).zip(b[..chunks].chunks_exact(8)) {
        for i in 0..8 {
            lanes[i] += ca[i] * cb[i];
        }
    }
    let tail: f32 = a[chunks..]
        .iter()
        .zip(&b[chunks..])
        .map(|(x, y)| x * y)
        .sum();
    lanes.iter().sum::<f32>() + tail
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SearchRole {
    Hash,
    InlineFilter,
}

impl SearchRole {
    pub fn wire(self) -> &'static str {
        match self {
            SearchRole::Hash => "HASH",
            SearchRole::InlineFilter => "INLINE_FILTER",
        }
    }
}

/// One vector index of a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorIndexRecord {
    pub name: String,
    /// The attribute holding the vector: a list of numbers.
    pub attribute: String,
    pub dimensions: u32,
    pub distance: Distance,
    /// The search schema as defined, with each attribute's type (from the attribute
    /// definitions); empty when none was given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub search_schema: Vec<(String, SearchRole, ScalarType)>,
    pub projection: IndexProjection,
    /// True while an index added by UpdateTable is filled from the table's items.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub backfilling: bool,
}

impl VectorIndexRecord {
    /// The search schema's HASH attribute and its type.
    pub fn partition_key(&self) -> Option<(&str, ScalarType)> {
        self.search_schema
            .iter()
            .find(|(_, role, _)| *role == SearchRole::Hash)
            .map(|(name, _, ty)| (name.as_str(), *ty))
    }

    /// The INLINE_FILTER attributes, in search schema order.
    pub fn inline_filters(&self) -> impl Iterator<Item = &str> {
        self.search_schema
            .iter()
            .filter(|(_, role, _)| *role == SearchRole::InlineFilter)
            .map(|(name, _, _)| name.as_str())
    }

    /// Whether SearchVectors results carry attribute `name`: table keys and the search
    /// schema always, the rest as the projection says. The vector itself only when the
    /// request's ProjectionExpression names it (`asked`), as in DynamoDB.
    pub fn projects(&self, table: &TableRecord, name: &str, asked: bool) -> bool {
        if name == self.attribute {
            return asked;
        }
        let key = table.key_schema.attributes().any(|k| k.name == name)
            || self.search_schema.iter().any(|(n, _, _)| n == name);
        key || match &self.projection {
            IndexProjection::All => true,
            IndexProjection::KeysOnly => false,
            IndexProjection::Include(names) => names.iter().any(|n| n == name),
        }
    }
}
