//! A vector index's definition: the catalog record, the CreateTable and UpdateTable checks
//! that make it, and its DescribeTable form.

use std::collections::BTreeSet;

use kura_model::constraint::Constraints;
use kura_model::keycode::ScalarType;
use kura_model::messages::{self, vectors as msg};
use serde::{Deserialize, Serialize};

use crate::api::*;
use kura_model::KeySchema;

use crate::catalog::{BillingMode, IndexProjection, IndexRecord, TableRecord};
use crate::error::{EngineError, Result};
use crate::indexes::definition::{PROJECTION_TYPES, projection, projection_out};

/// Vector indexes per table (adjustable in AWS through support; fixed here).
pub const MAX_VECTOR_INDEXES: usize = 5;
pub const MAX_DIMENSIONS: i64 = 4096;
pub const MAX_INLINE_FILTERS: usize = 18;
const DISTANCE_FUNCTIONS: [&str; 3] = ["DOT_PRODUCT", "COSINE", "EUCLIDEAN"];
const SEARCH_SCHEMA_TYPES: [&str; 2] = ["HASH", "INLINE_FILTER"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Distance {
    Cosine,
    DotProduct,
    Euclidean,
}

impl Distance {
    fn parse(wire: &str) -> Option<Distance> {
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
    fn wire(self) -> &'static str {
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

/// The framework constraints of one vector index definition at `path`.
pub(crate) fn constraints(c: &mut Constraints, path: &str, input: &VectorIndexInput) {
    c.not_null(
        &format!("{path}.vectorAttribute"),
        input.vector_attribute.as_ref(),
    );
    if let Some(attribute) = &input.vector_attribute {
        let at = format!("{path}.vectorAttribute.attributeName");
        c.not_null(&at, attribute.attribute_name.as_ref());
        if let Some(name) = &attribute.attribute_name {
            c.length(&at, name, name.len(), 1, 255);
        }
    }
    if let Some(schema) = &input.search_schema {
        c.length(
            &format!("{path}.searchSchema"),
            "[]",
            schema.len(),
            1,
            usize::MAX,
        );
        for (i, element) in schema.iter().enumerate() {
            let at = format!("{path}.searchSchema.{}.member", i + 1);
            c.not_null(
                &format!("{at}.attributeName"),
                element.attribute_name.as_ref(),
            );
            c.not_null(
                &format!("{at}.searchSchemaElementType"),
                element.search_schema_element_type.as_ref(),
            );
            c.one_of(
                &format!("{at}.searchSchemaElementType"),
                element.search_schema_element_type.as_deref(),
                &SEARCH_SCHEMA_TYPES,
            );
        }
    }
    match &input.projection {
        None => c.not_null::<()>(&format!("{path}.projection"), None),
        Some(p) => {
            c.one_of(
                &format!("{path}.projection.projectionType"),
                p.projection_type.as_deref(),
                &PROJECTION_TYPES,
            );
            if let Some(attrs) = &p.non_key_attributes {
                c.length(
                    &format!("{path}.projection.nonKeyAttributes"),
                    &format!("[{}]", attrs.join(", ")),
                    attrs.len(),
                    1,
                    20,
                );
            }
        }
    }
    c.not_null(&format!("{path}.dimensions"), input.dimensions.as_ref());
    c.at_least(&format!("{path}.dimensions"), input.dimensions, 1);
    c.not_null(
        &format!("{path}.distanceFunction"),
        input.distance_function.as_ref(),
    );
    c.one_of(
        &format!("{path}.distanceFunction"),
        input.distance_function.as_deref(),
        &DISTANCE_FUNCTIONS,
    );
    c.name(&format!("{path}.indexName"), input.index_name.as_deref());
}

/// CreateTable's framework constraints of `VectorIndexes`.
pub(crate) fn create_table_constraints(c: &mut Constraints, input: &CreateTableInput) {
    for (i, index) in input.vector_indexes.iter().flatten().enumerate() {
        constraints(c, &format!("vectorIndexes.{}.member", i + 1), index);
    }
}

/// UpdateTable's framework constraints of `VectorIndexUpdates`.
pub(crate) fn update_constraints(c: &mut Constraints, updates: &[VectorIndexUpdateInput]) {
    for (i, update) in updates.iter().enumerate() {
        let path = format!("vectorIndexUpdates.{}.member", i + 1);
        if let Some(create) = &update.create {
            constraints(c, &format!("{path}.create"), create);
        }
        if let Some(delete) = &update.delete {
            c.name(
                &format!("{path}.delete.indexName"),
                delete.index_name.as_deref(),
            );
        }
    }
}

/// The search schema attribute names a CreateTable request's vector indexes use (they
/// count as used attribute definitions).
pub(crate) fn schema_names(indexes: &[VectorIndexInput]) -> Vec<&str> {
    indexes
        .iter()
        .flat_map(|i| i.search_schema.iter().flatten())
        .filter_map(|e| e.attribute_name.as_deref())
        .collect()
}

/// One checked definition, against the table's keys, attribute definitions and existing
/// indexes (`taken`: the index names in use, `vectors`: the vector indexes already there).
pub(crate) fn define(
    input: &VectorIndexInput,
    table_keys: &[&str],
    definitions: &[(String, ScalarType)],
    taken: &BTreeSet<String>,
    vectors: &[VectorIndexRecord],
) -> Result<VectorIndexRecord> {
    let name = input.index_name.clone().unwrap_or_default();
    if taken.contains(&name) || vectors.iter().any(|v| v.name == name) {
        return Err(EngineError::validation(msg::duplicate_index_name(&name)));
    }
    let dimensions = input.dimensions.unwrap_or(0);
    if !(1..=MAX_DIMENSIONS).contains(&dimensions) {
        return Err(EngineError::validation(msg::DIMENSIONS_RANGE));
    }
    let dimensions = dimensions as u32;
    let attribute = input
        .vector_attribute
        .as_ref()
        .and_then(|a| a.attribute_name.clone())
        .unwrap_or_default();
    if vectors
        .iter()
        .any(|v| v.attribute == attribute && v.dimensions != dimensions)
    {
        return Err(EngineError::validation(msg::conflicting_dimensions(
            &attribute,
        )));
    }
    let mut search_schema = Vec::new();
    let mut seen = BTreeSet::new();
    for element in input.search_schema.iter().flatten() {
        let attr = element.attribute_name.clone().unwrap_or_default();
        let role = match element.search_schema_element_type.as_deref() {
            Some("HASH") => SearchRole::Hash,
            _ => SearchRole::InlineFilter,
        };
        let ty = definitions
            .iter()
            .find(|(n, _)| *n == attr)
            .map(|(_, ty)| *ty)
            .ok_or_else(|| EngineError::validation(msg::SCHEMA_NOT_DEFINED))?;
        if !seen.insert(attr.clone()) {
            return Err(EngineError::validation(msg::duplicate_schema_attribute(
                &attr,
            )));
        }
        search_schema.push((attr, role, ty));
    }
    if search_schema
        .iter()
        .filter(|(_, r, _)| *r == SearchRole::Hash)
        .count()
        > 1
    {
        return Err(EngineError::validation(msg::MORE_THAN_ONE_HASH));
    }
    if search_schema
        .iter()
        .filter(|(_, r, _)| *r == SearchRole::InlineFilter)
        .count()
        > MAX_INLINE_FILTERS
    {
        return Err(EngineError::validation(msg::TOO_MANY_INLINE_FILTERS));
    }
    if table_keys.contains(&attribute.as_str()) || seen.contains(&attribute) {
        return Err(EngineError::validation(msg::vector_attribute_is_key(
            &attribute,
        )));
    }
    Ok(VectorIndexRecord {
        name,
        attribute,
        dimensions,
        distance: input
            .distance_function
            .as_deref()
            .and_then(Distance::parse)
            .unwrap_or(Distance::Cosine),
        search_schema,
        projection: projection(input.projection.as_ref())?,
        backfilling: false,
    })
}

/// CreateTable's vector indexes, checked (after the key schema and the other indexes).
pub(crate) fn create_table_vector_indexes(
    input: &CreateTableInput,
    key_schema: &KeySchema,
    definitions: &[(String, ScalarType)],
    indexes: &[IndexRecord],
    billing_mode: BillingMode,
) -> Result<Vec<VectorIndexRecord>> {
    let Some(inputs) = &input.vector_indexes else {
        return Ok(Vec::new());
    };
    if inputs.len() > MAX_VECTOR_INDEXES {
        return Err(EngineError::validation(msg::TOO_MANY_INDEXES));
    }
    if billing_mode != BillingMode::PayPerRequest {
        return Err(EngineError::validation(msg::PAY_PER_REQUEST_ONLY));
    }
    let keys: Vec<&str> = key_schema.attributes().map(|k| k.name.as_str()).collect();
    let taken: BTreeSet<String> = indexes.iter().map(|i| i.name.clone()).collect();
    let mut out = Vec::new();
    for index in inputs {
        let record = define(index, &keys, definitions, &taken, &out)?;
        out.push(record);
    }
    Ok(out)
}

/// What UpdateTable's `VectorIndexUpdates` asks for.
pub(crate) enum VectorChange {
    /// The new index and the table's attribute definitions with it.
    Create(VectorIndexRecord, Vec<(String, ScalarType)>),
    Delete(String),
}

/// The attribute names some key or search schema uses: the only definitions a table keeps.
pub(crate) fn used_attributes(table: &TableRecord) -> BTreeSet<&str> {
    table
        .key_schema
        .attributes()
        .chain(table.indexes.iter().flat_map(IndexRecord::key_attributes))
        .map(|a| a.name.as_str())
        .chain(
            table
                .vector_indexes
                .iter()
                .flat_map(|v| v.search_schema.iter().map(|(n, _, _)| n.as_str())),
        )
        .collect()
}

/// UpdateTable's vector index change, checked against the table (`billing`: its billing
/// mode after the update; `definitions`: its attribute definitions after the update).
pub(crate) fn plan_update(
    table: &TableRecord,
    updates: &[VectorIndexUpdateInput],
    billing: BillingMode,
    requested: Option<&[AttributeDefinitionInput]>,
) -> Result<Option<VectorChange>> {
    let Some(update) = updates.first() else {
        return Ok(None);
    };
    if updates.len() > 1
        || table.vector_indexes.iter().any(|v| v.backfilling)
        || table.indexes.iter().any(|i| i.backfilling)
    {
        return Err(EngineError::LimitExceeded(msg::ONE_ONLINE_INDEX.into()));
    }
    match (&update.create, &update.delete) {
        (Some(create), None) => {
            if table.vector_indexes.len() >= MAX_VECTOR_INDEXES {
                return Err(EngineError::validation(msg::TOO_MANY_INDEXES));
            }
            if billing != BillingMode::PayPerRequest {
                return Err(EngineError::validation(msg::PAY_PER_REQUEST_ONLY));
            }
            let keys: Vec<&str> = table
                .key_schema
                .attributes()
                .map(|k| k.name.as_str())
                .collect();
            let taken: BTreeSet<String> = table.indexes.iter().map(|i| i.name.clone()).collect();
            // The table's definitions win over the request's, as for a GSI's keys.
            let mut definitions = table.attribute_definitions.clone();
            for d in requested.into_iter().flatten() {
                let (name, ty) = d.definition();
                if !definitions.iter().any(|(n, _)| *n == name) {
                    definitions.push((name, ty));
                }
            }
            let mut record = define(create, &keys, &definitions, &taken, &table.vector_indexes)?;
            record.backfilling = true;
            let mut with = table.clone();
            with.vector_indexes.push(record.clone());
            let used = used_attributes(&with);
            definitions.retain(|(n, _)| used.contains(n.as_str()));
            Ok(Some(VectorChange::Create(record, definitions)))
        }
        (None, Some(delete)) => {
            let name = delete.index_name.clone().unwrap_or_default();
            if !table.vector_indexes.iter().any(|v| v.name == name) {
                return Err(EngineError::ResourceNotFound(messages::index_not_found(
                    &name,
                    &table.name,
                )));
            }
            Ok(Some(VectorChange::Delete(name)))
        }
        _ => Err(EngineError::validation(
            messages::PARAMETER_VALUES_INVALID.to_owned()
                + "One of Create or Delete must be given in a VectorIndexUpdate",
        )),
    }
}

/// Live figures of one vector index, from its in-memory state.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct VectorStats {
    pub item_count: u64,
    pub size_bytes: u64,
}

/// DescribeTable's `VectorIndexes`.
pub(crate) fn describe(
    ctx: &crate::RequestContext,
    table: &TableRecord,
    stats: &dyn Fn(&str) -> VectorStats,
) -> Option<Vec<VectorIndexDescription>> {
    if table.vector_indexes.is_empty() {
        return None;
    }
    Some(
        table
            .vector_indexes
            .iter()
            .map(|v| {
                let s = stats(&v.name);
                VectorIndexDescription {
                    index_name: v.name.clone(),
                    search_schema: (!v.search_schema.is_empty()).then(|| {
                        v.search_schema
                            .iter()
                            .map(|(name, role, _)| SearchSchemaElementOut {
                                attribute_name: name.clone(),
                                search_schema_element_type: role.wire(),
                            })
                            .collect()
                    }),
                    projection: projection_out(&v.projection),
                    vector_attribute: VectorAttributeOut {
                        attribute_name: v.attribute.clone(),
                    },
                    dimensions: v.dimensions,
                    distance_function: v.distance.wire(),
                    index_status: if v.backfilling { "CREATING" } else { "ACTIVE" },
                    backfilling: v.backfilling.then_some(true),
                    index_size_bytes: s.size_bytes,
                    item_count: s.item_count,
                    index_arn: crate::arn::index(&ctx.region, &table.name, &v.name),
                }
            })
            .collect(),
    )
}
