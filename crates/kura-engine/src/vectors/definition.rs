//! A vector index's definition: the catalog record, the CreateTable and UpdateTable checks
//! that make it, and its DescribeTable form.

use std::collections::BTreeSet;

use kura_model::constraint::Constraints;
use kura_model::keycode::ScalarType;
use kura_model::messages::{self, vectors as msg};

use crate::api::*;
use kura_model::KeySchema;

use super::live::VectorStats;
use crate::catalog::vector::{Distance, SearchRole, VectorIndexRecord};
use crate::catalog::{BillingMode, IndexRecord, TableRecord};
use crate::error::{EngineError, Result};
use crate::indexes::definition::{projection, projection_constraints, projection_out};

/// Vector indexes per table (adjustable in AWS through support; fixed here).
pub const MAX_VECTOR_INDEXES: usize = 5;
pub const MAX_DIMENSIONS: i64 = 4096;
pub const MAX_INLINE_FILTERS: usize = 18;
const DISTANCE_FUNCTIONS: [&str; 3] = ["DOT_PRODUCT", "COSINE", "EUCLIDEAN"];
const SEARCH_SCHEMA_TYPES: [&str; 2] = ["HASH", "INLINE_FILTER"];

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
    projection_constraints(c, path, input.projection.as_ref());
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

/// What UpdateTable's GSI creations may not do beside vector indexes: share a name with
/// one, start while one is being filled, or come with a vector index change (one online
/// index change per request, as in DynamoDB).
pub(crate) fn check_gsi_updates(
    table: &TableRecord,
    gsi_updates: Option<&[GlobalSecondaryIndexUpdateInput]>,
    vector_updates: Option<&[VectorIndexUpdateInput]>,
) -> Result<()> {
    let creates: Vec<&str> = gsi_updates
        .into_iter()
        .flatten()
        .filter_map(|u| u.create.as_ref()?.index_name.as_deref())
        .collect();
    let changes_gsis = gsi_updates
        .into_iter()
        .flatten()
        .any(|u| u.create.is_some() || u.delete.is_some());
    if changes_gsis && vector_updates.is_some_and(|v| !v.is_empty()) {
        return Err(EngineError::LimitExceeded(msg::ONE_ONLINE_INDEX.into()));
    }
    if !creates.is_empty() && table.vector_indexes.iter().any(|v| v.backfilling) {
        return Err(EngineError::LimitExceeded(msg::ONE_ONLINE_INDEX.into()));
    }
    if let Some(name) = creates.iter().find(|n| table.vector_index(n).is_some()) {
        return Err(EngineError::validation(msg::duplicate_index_name(name)));
    }
    Ok(())
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
