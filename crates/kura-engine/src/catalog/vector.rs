//! A vector index as the catalog keeps it: its definition, the distance function's
//! scores, and which attributes its answers carry. The checks that make one are
//! `vectors::definition`'s.

use kura_model::keycode::ScalarType;
use serde::{Deserialize, Serialize};

use super::projection::IndexProjection;

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

    /// The score DynamoDB reports: COSINE 1 − cos (0 identical, 2 opposite), EUCLIDEAN
    /// the L2 distance, DOT_PRODUCT the dot product. Sums run in f64 (f32 elements near
    /// its limit would overflow an f32 sum); the result is rounded to f32 as DynamoDB's
    /// are, unless it does not fit one. A zero vector has no direction: COSINE scores 1.
    pub(crate) fn score(self, query: &[f32], query_norm: f64, vector: &[f32], norm: f64) -> f64 {
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
            Distance::Euclidean => laned(query, vector, |a, b| (a - b) * (a - b)).sqrt(),
        };
        let rounded = score as f32;
        if rounded.is_finite() {
            f64::from(rounded)
        } else {
            score
        }
    }

    /// How far a score is from the best: smaller is more similar.
    pub(crate) fn badness(self, score: f64) -> f64 {
        match self {
            Distance::DotProduct => -score,
            Distance::Cosine | Distance::Euclidean => score,
        }
    }
}

/// The dot product in f64.
fn dot(a: &[f32], b: &[f32]) -> f64 {
    laned(a, b, |x, y| x * y)
}

/// Lanes of the sums below: independent additions the compiler keeps in vector registers
/// (a single f64 sum waits on each addition; eight lanes run about four times faster).
const LANES: usize = 8;

/// The sum of `term` over the elements' pairs, in f64, in `LANES` lanes added up in a
/// fixed order, so a score is the same on every machine.
#[inline(always)]
fn laned(a: &[f32], b: &[f32], term: impl Fn(f64, f64) -> f64) -> f64 {
    let (whole_a, tail_a) = a.as_chunks::<LANES>();
    let (whole_b, tail_b) = b.as_chunks::<LANES>();
    let mut lanes = [0.0f64; LANES];
    // Arrays, not slices: no bounds checks, so the loop is vectorised.
    for (ca, cb) in whole_a.iter().zip(whole_b) {
        for i in 0..LANES {
            lanes[i] += term(f64::from(ca[i]), f64::from(cb[i]));
        }
    }
    let tail: f64 = tail_a
        .iter()
        .zip(tail_b)
        .map(|(x, y)| term(f64::from(*x), f64::from(*y)))
        .sum();
    lanes.iter().sum::<f64>() + tail
}

/// A vector's length, in f64.
pub(crate) fn norm(v: &[f32]) -> f64 {
    laned(v, v, |x, _| x * x).sqrt()
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
}
