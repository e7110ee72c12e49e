//! Index definitions: validating the GSIs and LSIs of CreateTable and the GSI changes of
//! UpdateTable, in DynamoDB's order and with its messages, and describing indexes.

use std::collections::{BTreeMap, BTreeSet};

use kura_model::constraint::Constraints;
use kura_model::keycode::ScalarType;
use kura_model::{KeyAttribute, KeySchema, limits, messages};

use crate::RequestContext;
use crate::api::*;
use crate::catalog::{
    BillingMode, IndexKind, IndexProjection, IndexRecord, TableRecord, Throughput,
};
use crate::error::{EngineError, Result};
use crate::keys::TableStats;

const PROJECTION_TYPES: [&str; 3] = ["ALL", "INCLUDE", "KEYS_ONLY"];

fn invalid(message: impl Into<String>) -> EngineError {
    EngineError::validation(message)
}

/// The framework constraints of one index definition (`path` is e.g.
/// `globalSecondaryIndexes.1.member`).
fn definition_constraints(
    c: &mut Constraints,
    path: &str,
    kind: IndexKind,
    name: Option<&str>,
    key_schema: Option<&Vec<KeySchemaElementInput>>,
    projection: Option<&ProjectionInput>,
) {
    // A GSI's KeySchema has no upper bound in the API model since multi-attribute keys:
    // their counts are checked with the definition.
    let max_elements = match kind {
        IndexKind::Global => usize::MAX,
        IndexKind::Local => 2,
    };
    match key_schema {
        None => c.not_null::<()>(&format!("{path}.keySchema"), None),
        Some(ks) => c.length(
            &format!("{path}.keySchema"),
            "[...]",
            ks.len(),
            1,
            max_elements,
        ),
    }
    for (j, el) in key_schema.into_iter().flatten().enumerate() {
        key_name_length(
            c,
            &format!("{path}.keySchema.{}.member.attributeName", j + 1),
            el.attribute_name.as_deref(),
        );
    }
    projection_constraints(c, path, projection);
    c.name(&format!("{path}.indexName"), name);
}

/// The framework constraints of an index's `projection` member at `path` (GSIs, LSIs and
/// vector indexes share them).
pub(crate) fn projection_constraints(
    c: &mut Constraints,
    path: &str,
    projection: Option<&ProjectionInput>,
) {
    match projection {
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
                    limits::MAX_NON_KEY_ATTRIBUTES_PER_INDEX,
                );
                for (j, attr) in attrs.iter().enumerate() {
                    key_name_length(
                        c,
                        &format!("{path}.projection.nonKeyAttributes.{}.member", j + 1),
                        Some(attr),
                    );
                }
            }
        }
    }
}

/// A key attribute name (of a table, an index, an AttributeDefinition) or a projected
/// non-key attribute: 1 to 255 bytes, a framework constraint, so reported before any
/// check that the names agree (scylladb `test/alternator/test_limits.py`, against AWS).
pub(crate) fn key_name_length(c: &mut Constraints, path: &str, name: Option<&str>) {
    if let Some(name) = name {
        c.length(
            path,
            name,
            name.len(),
            1,
            limits::MAX_KEY_ATTRIBUTE_NAME_BYTES,
        );
    }
}

/// Framework constraints of CreateTable's index lists.
pub(crate) fn create_table_constraints(c: &mut Constraints, input: &CreateTableInput) {
    for (i, gsi) in input.global_secondary_indexes.iter().flatten().enumerate() {
        let path = format!("globalSecondaryIndexes.{}.member", i + 1);
        definition_constraints(
            c,
            &path,
            IndexKind::Global,
            gsi.index_name.as_deref(),
            gsi.key_schema.as_ref(),
            gsi.projection.as_ref(),
        );
        throughput_constraints(
            c,
            &format!("{path}.provisionedThroughput"),
            gsi.provisioned_throughput.as_ref(),
        );
    }
    for (i, lsi) in input.local_secondary_indexes.iter().flatten().enumerate() {
        let path = format!("localSecondaryIndexes.{}.member", i + 1);
        definition_constraints(
            c,
            &path,
            IndexKind::Local,
            lsi.index_name.as_deref(),
            lsi.key_schema.as_ref(),
            lsi.projection.as_ref(),
        );
    }
}

/// Framework constraints of a provisioned throughput member at `path`.
pub(crate) fn throughput_constraints(
    c: &mut Constraints,
    path: &str,
    pt: Option<&ProvisionedThroughputInput>,
) {
    if let Some(pt) = pt {
        for (member, value) in [
            ("writeCapacityUnits", pt.write_capacity_units),
            ("readCapacityUnits", pt.read_capacity_units),
        ] {
            let path = format!("{path}.{member}");
            c.not_null(&path, value.as_ref());
            c.at_least(&path, value, 1);
        }
    }
}

/// The key attribute names an index definition names, for the "not used" check.
fn key_names(key_schema: Option<&Vec<KeySchemaElementInput>>) -> Vec<&str> {
    key_schema
        .into_iter()
        .flatten()
        .filter_map(|k| k.attribute_name.as_deref())
        .collect()
}

/// Every key attribute CreateTable's index lists name, in definition order.
pub(crate) fn index_key_names(input: &CreateTableInput) -> Vec<&str> {
    let lsis = input
        .local_secondary_indexes
        .iter()
        .flatten()
        .flat_map(|i| key_names(i.key_schema.as_ref()));
    let gsis = input
        .global_secondary_indexes
        .iter()
        .flatten()
        .flat_map(|i| key_names(i.key_schema.as_ref()));
    lsis.chain(gsis).collect()
}

/// An index's key as its definition gives it: the KeySchema of its first HASH and RANGE
/// attributes, and the further ones of a multi-attribute GSI key.
struct DefinedKey {
    schema: KeySchema,
    more_hash: Vec<KeyAttribute>,
    more_range: Vec<KeyAttribute>,
}

/// An index's key schema checked against the attribute definitions. An LSI's is one HASH
/// and one RANGE element, as a table's; a GSI's is one to four HASH elements, then up to
/// four RANGE elements (multi-attribute keys).
fn index_key_schema(
    index: &str,
    kind: IndexKind,
    schema: &[KeySchemaElementInput],
    defs: &[(String, ScalarType)],
) -> Result<DefinedKey> {
    let names: Vec<&str> = schema
        .iter()
        .map(|k| k.attribute_name.as_deref().unwrap_or(""))
        .collect();
    let ty = |name: &str| defs.iter().find(|(n, _)| n == name).map(|(_, t)| *t);
    if names.iter().any(|n| ty(n).is_none()) {
        let def_names: Vec<&str> = defs.iter().map(|(n, _)| n.as_str()).collect();
        return Err(invalid(messages::keys_not_defined(&names, &def_names)));
    }
    let key_type = |i: usize| schema.get(i).and_then(|k| k.key_type.as_deref());
    let attr = |name: &str| KeyAttribute {
        name: name.to_owned(),
        ty: ty(name).unwrap_or(ScalarType::S),
    };
    if kind == IndexKind::Local || names.len() < 2 {
        if names.len() == 2 && names.first() == names.get(1) {
            return Err(invalid(messages::SAME_HASH_AND_RANGE));
        }
        if key_type(0) != Some("HASH") {
            return Err(invalid(messages::FIRST_KEY_NOT_HASH));
        }
        if schema.len() > 1 && key_type(1) != Some("RANGE") {
            return Err(invalid(messages::SECOND_KEY_NOT_RANGE));
        }
        return Ok(DefinedKey {
            schema: KeySchema {
                hash: attr(names.first().copied().unwrap_or_default()),
                range: names.get(1).map(|n| attr(n)),
            },
            more_hash: Vec::new(),
            more_range: Vec::new(),
        });
    }
    for (i, name) in names.iter().enumerate() {
        if names.iter().take(i).any(|n| n == name) {
            // Two elements of one name read as before multi-attribute keys, unless both
            // are HASH elements (which only a multi-attribute key can have).
            let pair =
                names.len() == 2 && (key_type(0), key_type(1)) != (Some("HASH"), Some("HASH"));
            return Err(invalid(if pair {
                messages::SAME_HASH_AND_RANGE.to_owned()
            } else {
                messages::duplicate_index_key_attribute(name, index)
            }));
        }
    }
    if key_type(0) != Some("HASH") {
        return Err(invalid(messages::FIRST_KEY_NOT_HASH));
    }
    let mut hash: Vec<KeyAttribute> = Vec::new();
    let mut range: Vec<KeyAttribute> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        match key_type(i) {
            Some("HASH") if range.is_empty() => hash.push(attr(name)),
            Some("HASH") => return Err(invalid(messages::HASH_AFTER_RANGE)),
            Some("RANGE") => range.push(attr(name)),
            _ if i == 1 => return Err(invalid(messages::SECOND_KEY_NOT_RANGE)),
            _ => return Err(invalid(messages::key_element_not_hash_or_range(i + 1))),
        }
    }
    if hash.len() > limits::MAX_INDEX_HASH_ATTRIBUTES {
        return Err(invalid(messages::too_many_index_key_attributes(
            "HASH",
            limits::MAX_INDEX_HASH_ATTRIBUTES,
            index,
        )));
    }
    if range.len() > limits::MAX_INDEX_RANGE_ATTRIBUTES {
        return Err(invalid(messages::too_many_index_key_attributes(
            "RANGE",
            limits::MAX_INDEX_RANGE_ATTRIBUTES,
            index,
        )));
    }
    let mut hash = hash.into_iter();
    let mut range = range.into_iter();
    let first_hash = hash
        .next()
        .ok_or_else(|| invalid(messages::FIRST_KEY_NOT_HASH))?;
    Ok(DefinedKey {
        schema: KeySchema {
            hash: first_hash,
            range: range.next(),
        },
        more_hash: hash.collect(),
        more_range: range.collect(),
    })
}

pub(crate) fn projection(input: Option<&ProjectionInput>) -> Result<IndexProjection> {
    let ty = input.and_then(|p| p.projection_type.as_deref());
    let non_key = input.and_then(|p| p.non_key_attributes.as_ref());
    match (ty, non_key) {
        (Some(ty @ ("ALL" | "KEYS_ONLY")), Some(_)) => {
            Err(invalid(messages::non_key_attributes_not_allowed(ty)))
        }
        (Some("ALL"), None) => Ok(IndexProjection::All),
        (Some("KEYS_ONLY"), None) => Ok(IndexProjection::KeysOnly),
        (Some("INCLUDE"), None) => Err(invalid(messages::INCLUDE_WITHOUT_NON_KEY)),
        (Some("INCLUDE"), Some(names)) => {
            let mut seen = BTreeSet::new();
            if let Some(dup) = names.iter().find(|n| !seen.insert(n.as_str())) {
                return Err(invalid(messages::duplicate_non_key_attribute(dup)));
            }
            Ok(IndexProjection::Include(names.clone()))
        }
        (other, _) => Err(invalid(messages::unknown_projection_type(other))),
    }
}

/// A GSI's throughput under the table's billing mode.
fn gsi_throughput(
    name: &str,
    billing: BillingMode,
    pt: Option<&ProvisionedThroughputInput>,
) -> Result<Option<Throughput>> {
    match (billing, pt) {
        (BillingMode::PayPerRequest, Some(_)) => {
            Err(invalid(messages::index_throughput_with_ppr(name)))
        }
        (BillingMode::PayPerRequest, None) => Ok(None),
        (BillingMode::Provisioned, None) => Err(invalid(messages::index_throughput_missing(name))),
        (BillingMode::Provisioned, Some(pt)) => provisioned(name, pt).map(Some),
    }
}

fn provisioned(name: &str, pt: &ProvisionedThroughputInput) -> Result<Throughput> {
    let (Some(read), Some(write)) = (pt.read_capacity_units, pt.write_capacity_units) else {
        return Err(invalid(messages::index_throughput_incomplete(name)));
    };
    for (value, which) in [(read, "ReadCapacityUnits"), (write, "WriteCapacityUnits")] {
        if value > limits::MAX_PROVISIONED_UNITS {
            return Err(invalid(messages::index_throughput_out_of_bounds(
                value, which, name,
            )));
        }
    }
    Ok(Throughput {
        read,
        write,
        ..Throughput::default()
    })
}

/// The secondary indexes of a CreateTable request, validated in DynamoDB's order: LSIs,
/// then GSIs, then the limits across all of them.
pub(crate) fn create_table_indexes(
    input: &CreateTableInput,
    table_key: &KeySchema,
    defs: &[(String, ScalarType)],
    billing: BillingMode,
) -> Result<Vec<IndexRecord>> {
    let mut records: Vec<IndexRecord> = Vec::new();
    let mut names = BTreeSet::new();
    if let Some(lsis) = &input.local_secondary_indexes {
        if lsis.is_empty() {
            return Err(invalid(messages::index_list_empty("LocalSecondaryIndexes")));
        }
        if table_key.range.is_none() {
            return Err(invalid(messages::LSI_WITHOUT_TABLE_RANGE));
        }
        for lsi in lsis {
            let name = lsi.index_name.clone().unwrap_or_default();
            let DefinedKey {
                schema: key_schema, ..
            } = index_key_schema(
                &name,
                IndexKind::Local,
                lsi.key_schema.as_deref().unwrap_or_default(),
                defs,
            )?;
            if key_schema.range.is_none() {
                return Err(invalid(messages::index_without_range(&name)));
            }
            if key_schema.hash.name != table_key.hash.name {
                return Err(invalid(messages::lsi_hash_differs(
                    &name,
                    &key_schema.hash.name,
                    &table_key.hash.name,
                )));
            }
            let projection = projection(lsi.projection.as_ref())?;
            if !names.insert(name.clone()) {
                return Err(invalid(messages::duplicate_index_name(&name)));
            }
            records.push(IndexRecord {
                name,
                kind: IndexKind::Local,
                number: records.len() as u32,
                key_schema,
                projection,
                throughput: None,
                backfilling: false,
                more_hash: Vec::new(),
                more_range: Vec::new(),
            });
        }
        if lsis.len() > limits::MAX_LOCAL_INDEXES {
            return Err(invalid(messages::TOO_MANY_LSIS));
        }
    }
    if let Some(gsis) = &input.global_secondary_indexes {
        if gsis.is_empty() {
            return Err(invalid(messages::index_list_empty(
                "GlobalSecondaryIndexes",
            )));
        }
        for gsi in gsis {
            let record = global_index(gsi, defs, billing, records.len() as u32)?;
            if !names.insert(record.name.clone()) {
                return Err(invalid(messages::duplicate_index_name(&record.name)));
            }
            records.push(record);
        }
        if gsis.len() > limits::MAX_GLOBAL_INDEXES {
            return Err(invalid(messages::TOO_MANY_GSIS));
        }
    }
    check_projected_total(&records)?;
    Ok(records)
}

/// One GSI definition (CreateTable's or UpdateTable's Create) as the record it becomes.
fn global_index(
    gsi: &GlobalSecondaryIndexInput,
    defs: &[(String, ScalarType)],
    billing: BillingMode,
    number: u32,
) -> Result<IndexRecord> {
    let name = gsi.index_name.clone().unwrap_or_default();
    let key = index_key_schema(
        &name,
        IndexKind::Global,
        gsi.key_schema.as_deref().unwrap_or_default(),
        defs,
    )?;
    let projection = projection(gsi.projection.as_ref())?;
    let throughput = gsi_throughput(&name, billing, gsi.provisioned_throughput.as_ref())?;
    Ok(IndexRecord {
        name,
        kind: IndexKind::Global,
        number,
        key_schema: key.schema,
        projection,
        throughput,
        backfilling: false,
        more_hash: key.more_hash,
        more_range: key.more_range,
    })
}

/// At most 100 NonKeyAttributes summed over all indexes of a table.
fn check_projected_total(indexes: &[IndexRecord]) -> Result<()> {
    let total: usize = indexes
        .iter()
        .map(|i| match &i.projection {
            IndexProjection::Include(names) => names.len(),
            _ => 0,
        })
        .sum();
    if total > limits::MAX_PROJECTED_ATTRIBUTES {
        return Err(invalid(messages::TOO_MANY_PROJECTED_ATTRIBUTES));
    }
    Ok(())
}

/// What one UpdateTable call does to a table's GSIs: at most one index created or
/// deleted, and any number of throughput changes.
#[derive(Default)]
pub(crate) struct GsiPlan {
    pub online: Option<OnlineChange>,
    /// New throughput per index name.
    pub throughput: Vec<(String, Throughput)>,
}

// One value per UpdateTable call: the size of the index record is of no account.
#[allow(clippy::large_enum_variant)]
pub(crate) enum OnlineChange {
    /// A new GSI to fill from the table's items, with the definitions its keys need.
    Create {
        index: IndexRecord,
        definitions: Vec<(String, ScalarType)>,
    },
    Delete(String),
}

/// Framework constraints of UpdateTable's GlobalSecondaryIndexUpdates.
pub(crate) fn update_constraints(c: &mut Constraints, updates: &[GlobalSecondaryIndexUpdateInput]) {
    for (i, u) in updates.iter().enumerate() {
        let path = format!("globalSecondaryIndexUpdates.{}.member", i + 1);
        if let Some(create) = &u.create {
            let path = format!("{path}.create");
            definition_constraints(
                c,
                &path,
                IndexKind::Global,
                create.index_name.as_deref(),
                create.key_schema.as_ref(),
                create.projection.as_ref(),
            );
            throughput_constraints(
                c,
                &format!("{path}.provisionedThroughput"),
                create.provisioned_throughput.as_ref(),
            );
        }
        if let Some(update) = &u.update {
            let path = format!("{path}.update");
            c.name(&format!("{path}.indexName"), update.index_name.as_deref());
            throughput_constraints(
                c,
                &format!("{path}.provisionedThroughput"),
                update.provisioned_throughput.as_ref(),
            );
        }
        if let Some(delete) = &u.delete {
            c.name(
                &format!("{path}.delete.indexName"),
                delete.index_name.as_deref(),
            );
        }
    }
}

/// Validates UpdateTable's GlobalSecondaryIndexUpdates against the table as it is now.
/// `billing` is the table's billing mode once this UpdateTable applies.
pub(crate) fn plan_gsi_updates(
    table: &TableRecord,
    billing: BillingMode,
    updates: &[GlobalSecondaryIndexUpdateInput],
    definitions: Option<&[AttributeDefinitionInput]>,
    updating_throughput: bool,
) -> Result<GsiPlan> {
    if updates.is_empty() {
        return Err(invalid(messages::GSI_UPDATES_EMPTY));
    }
    let mut seen = BTreeSet::new();
    for u in updates {
        let actions = [u.create.is_some(), u.update.is_some(), u.delete.is_some()];
        match actions.iter().filter(|a| **a).count() {
            0 => return Err(invalid(messages::GSI_UPDATE_NO_ACTION)),
            1 => {}
            _ => return Err(invalid(messages::GSI_UPDATE_MANY_ACTIONS)),
        }
        let name = u
            .create
            .as_ref()
            .and_then(|c| c.index_name.clone())
            .or_else(|| u.update.as_ref().and_then(|c| c.index_name.clone()))
            .or_else(|| u.delete.as_ref().and_then(|c| c.index_name.clone()))
            .unwrap_or_default();
        if !seen.insert(name.clone()) {
            return Err(invalid(messages::gsi_update_same_index(&name)));
        }
    }
    let online = updates
        .iter()
        .filter(|u| u.create.is_some() || u.delete.is_some())
        .count();
    if online > 1 {
        return Err(EngineError::LimitExceeded(
            messages::ONE_ONLINE_INDEX.into(),
        ));
    }
    if online == 1 && updating_throughput {
        return Err(invalid(messages::INDEX_CHANGE_WITH_THROUGHPUT));
    }
    if online == 1 && table.indexes.iter().any(|i| i.backfilling) {
        return Err(EngineError::LimitExceeded(
            messages::ONE_ONLINE_INDEX.into(),
        ));
    }
    let mut plan = GsiPlan::default();
    if let Some(create) = updates.iter().find_map(|u| u.create.as_ref()) {
        plan.online = Some(plan_create(
            table,
            billing,
            create,
            definitions.unwrap_or_default(),
        )?);
    }
    if let Some(delete) = updates.iter().find_map(|u| u.delete.as_ref()) {
        let name = delete.index_name.clone().unwrap_or_default();
        existing_gsi(table, &name, "delete")?;
        plan.online = Some(OnlineChange::Delete(name));
    }
    for update in updates.iter().filter_map(|u| u.update.as_ref()) {
        let name = update.index_name.clone().unwrap_or_default();
        let index = existing_gsi(table, &name, "update")?;
        if billing == BillingMode::PayPerRequest {
            return Err(invalid(messages::index_update_on_demand(&name)));
        }
        let Some(pt) = &update.provisioned_throughput else {
            return Err(invalid(messages::index_throughput_incomplete(&name)));
        };
        let wanted = provisioned(&name, pt)?;
        let old = index.throughput.clone().unwrap_or_default();
        if wanted.read == old.read && wanted.write == old.write {
            return Err(invalid(messages::index_throughput_unchanged(
                &name,
                old.read,
                old.write,
                wanted.read,
                wanted.write,
            )));
        }
        plan.throughput.push((name, wanted));
    }
    Ok(plan)
}

fn existing_gsi<'t>(table: &'t TableRecord, name: &str, action: &str) -> Result<&'t IndexRecord> {
    match table.index(name) {
        None => Err(EngineError::ResourceNotFound(messages::index_not_found(
            name,
            &table.name,
        ))),
        Some(index) if index.kind == IndexKind::Local => {
            Err(invalid(messages::not_a_gsi(action, name)))
        }
        Some(index) => Ok(index),
    }
}

fn plan_create(
    table: &TableRecord,
    billing: BillingMode,
    create: &GlobalSecondaryIndexInput,
    definitions: &[AttributeDefinitionInput],
) -> Result<OnlineChange> {
    let name = create.index_name.clone().unwrap_or_default();
    if table.index(&name).is_some() {
        return Err(invalid(messages::INDEX_EXISTS));
    }
    let globals = table
        .indexes
        .iter()
        .filter(|i| i.kind == IndexKind::Global)
        .count();
    if globals >= limits::MAX_GLOBAL_INDEXES {
        return Err(EngineError::LimitExceeded(
            messages::TOO_MANY_GSIS_ONLINE.into(),
        ));
    }
    super::new_gsi::check_definitions(table, &name, create, definitions)?;
    // The new keys' types come from the table's definitions, else from this request's.
    let mut defs: Vec<(String, ScalarType)> = table.attribute_definitions.clone();
    for d in definitions {
        let (name, ty) = d.definition();
        if !defs.iter().any(|(n, _)| *n == name) {
            defs.push((name, ty));
        }
    }
    let index = global_index(create, &defs, billing, table.next_index_number)?;
    let mut all = table.indexes.clone();
    all.push(index.clone());
    check_projected_total(&all)?;
    // The table keeps only the definitions some key uses.
    let used: BTreeSet<&str> = table
        .key_schema
        .attributes()
        .chain(all.iter().flat_map(IndexRecord::key_attributes))
        .map(|a| a.name.as_str())
        .chain(
            table
                .vector_indexes
                .iter()
                .flat_map(|v| v.search_schema.iter().map(|(n, _, _)| n.as_str())),
        )
        .collect();
    let definitions = defs
        .iter()
        .filter(|(n, _)| used.contains(n.as_str()))
        .cloned()
        .collect();
    Ok(OnlineChange::Create {
        index: IndexRecord {
            backfilling: true,
            ..index
        },
        definitions,
    })
}

/// The key schema as DescribeTable lists it.
pub(crate) fn key_schema_out(schema: &KeySchema) -> Vec<KeySchemaElementOut> {
    schema
        .attributes()
        .zip(["HASH", "RANGE"])
        .map(|(a, key_type)| KeySchemaElementOut {
            attribute_name: a.name.clone(),
            key_type,
        })
        .collect()
}

/// An index's key schema as DescribeTable lists it: every HASH element, then every RANGE
/// element, in the order they were defined.
fn index_key_schema_out(index: &IndexRecord) -> Vec<KeySchemaElementOut> {
    let element = |key_type| {
        move |a: &KeyAttribute| KeySchemaElementOut {
            attribute_name: a.name.clone(),
            key_type,
        }
    };
    index
        .hash_attributes()
        .map(element("HASH"))
        .chain(index.range_attributes().map(element("RANGE")))
        .collect()
}

pub(crate) fn projection_out(projection: &IndexProjection) -> ProjectionOut {
    ProjectionOut {
        projection_type: projection.wire(),
        non_key_attributes: match projection {
            IndexProjection::Include(names) => {
                let mut names = names.clone();
                names.sort();
                Some(names)
            }
            _ => None,
        },
    }
}

/// The GSI and LSI descriptions of DescribeTable (absent lists are omitted).
pub(crate) fn describe_indexes(
    ctx: &RequestContext,
    table: &TableRecord,
    stats: &BTreeMap<u32, TableStats>,
    throughput: impl Fn(&Throughput) -> ProvisionedThroughputDescription,
) -> (
    Option<Vec<GlobalSecondaryIndexDescription>>,
    Option<Vec<LocalSecondaryIndexDescription>>,
) {
    let mut globals = Vec::new();
    let mut locals = Vec::new();
    for index in &table.indexes {
        let s = stats.get(&index.number).copied().unwrap_or_default();
        let index_arn = crate::arn::index(&ctx.region, &table.name, &index.name);
        match index.kind {
            IndexKind::Global => globals.push(GlobalSecondaryIndexDescription {
                index_name: index.name.clone(),
                key_schema: index_key_schema_out(index),
                projection: projection_out(&index.projection),
                index_status: index.status(),
                backfilling: index.backfilling.then_some(true),
                provisioned_throughput: throughput(&index.throughput.clone().unwrap_or_default()),
                index_size_bytes: s.size_bytes,
                item_count: s.item_count,
                index_arn,
            }),
            IndexKind::Local => locals.push(LocalSecondaryIndexDescription {
                index_name: index.name.clone(),
                key_schema: index_key_schema_out(index),
                projection: projection_out(&index.projection),
                index_size_bytes: s.size_bytes,
                item_count: s.item_count,
                index_arn,
            }),
        }
    }
    (
        (!globals.is_empty()).then_some(globals),
        (!locals.is_empty()).then_some(locals),
    )
}
