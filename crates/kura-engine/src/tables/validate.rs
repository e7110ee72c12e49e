//! The request checks CreateTable and UpdateTable share.

use kura_model::constraint::Constraints;
use kura_model::keycode::ScalarType;
use kura_model::{KeyAttribute, KeySchema, limits, messages};

use crate::api::*;
use crate::catalog::{BillingMode, Throughput};
use crate::error::{EngineError, Result};

pub(super) const KEY_TYPES: [&str; 2] = ["HASH", "RANGE"];
pub(super) const ATTRIBUTE_TYPES: [&str; 3] = ["B", "N", "S"];
pub(super) const BILLING_MODES: [&str; 2] = ["PROVISIONED", "PAY_PER_REQUEST"];
pub(super) const TABLE_CLASSES: [&str; 2] = ["STANDARD", "STANDARD_INFREQUENT_ACCESS"];

pub(super) fn refuse_unsupported(members: &[(bool, &str)]) -> Result<()> {
    match members.iter().find(|(present, _)| *present) {
        Some((_, name)) => Err(EngineError::validation(messages::not_supported_yet(name))),
        None => Ok(()),
    }
}

/// Framework constraints of AttributeDefinitions (CreateTable and UpdateTable).
pub(super) fn definitions_constraints(
    c: &mut Constraints,
    definitions: Option<&[AttributeDefinitionInput]>,
) {
    for (i, def) in definitions.into_iter().flatten().enumerate() {
        let path = format!("attributeDefinitions.{}.member", i + 1);
        c.not_null(
            &format!("{path}.attributeName"),
            def.attribute_name.as_ref(),
        );
        crate::indexes::definition::key_name_length(
            c,
            &format!("{path}.attributeName"),
            def.attribute_name.as_deref(),
        );
        c.not_null(
            &format!("{path}.attributeType"),
            def.attribute_type.as_ref(),
        );
        c.one_of(
            &format!("{path}.attributeType"),
            def.attribute_type.as_deref(),
            &ATTRIBUTE_TYPES,
        );
    }
}

pub(super) fn check_billing(
    mode: BillingMode,
    pt: Option<&ProvisionedThroughputInput>,
) -> Result<Throughput> {
    match (mode, pt) {
        (BillingMode::PayPerRequest, Some(_)) => {
            Err(EngineError::validation(messages::PPR_WITH_THROUGHPUT))
        }
        (BillingMode::PayPerRequest, None) => Ok(Throughput::default()),
        (BillingMode::Provisioned, None) => Err(EngineError::validation(
            messages::PROVISIONED_WITHOUT_THROUGHPUT,
        )),
        (BillingMode::Provisioned, Some(pt)) => {
            let (Some(read), Some(write)) = (pt.read_capacity_units, pt.write_capacity_units)
            else {
                return Err(EngineError::validation(
                    messages::PROVISIONED_WITHOUT_THROUGHPUT,
                ));
            };
            if read > limits::MAX_PROVISIONED_UNITS {
                return Err(EngineError::validation(messages::throughput_out_of_bounds(
                    read,
                    "ReadCapacityUnits",
                )));
            }
            if write > limits::MAX_PROVISIONED_UNITS {
                return Err(EngineError::validation(messages::throughput_out_of_bounds(
                    write,
                    "WriteCapacityUnits",
                )));
            }
            Ok(Throughput {
                read,
                write,
                ..Throughput::default()
            })
        }
    }
}

/// The table's key schema and the attribute definitions. `index_keys` are the key names
/// of the request's indexes, when it has index lists: every definition must then be used
/// by some key.
pub(super) fn check_key_schema(
    schema: &[KeySchemaElementInput],
    definitions: &[AttributeDefinitionInput],
    index_keys: Option<Vec<&str>>,
) -> Result<(KeySchema, Vec<(String, ScalarType)>)> {
    let defs: Vec<(String, ScalarType)> = definitions
        .iter()
        .map(AttributeDefinitionInput::definition)
        .collect();
    let def_names: Vec<&str> = defs.iter().map(|(n, _)| n.as_str()).collect();
    let key_names: Vec<&str> = schema
        .iter()
        .map(|k| k.attribute_name.as_deref().unwrap_or(""))
        .collect();

    if key_names.len() > def_names.len() {
        return Err(EngineError::validation(messages::KEY_WITHOUT_DEFINITION));
    }
    if key_names.iter().any(|k| !def_names.contains(k)) {
        return Err(EngineError::validation(messages::keys_not_defined(
            &key_names, &def_names,
        )));
    }
    if key_names.len() == 2 && key_names.first() == key_names.get(1) {
        return Err(EngineError::validation(messages::SAME_HASH_AND_RANGE));
    }
    if schema.first().and_then(|k| k.key_type.as_deref()) != Some("HASH") {
        return Err(EngineError::validation(messages::FIRST_KEY_NOT_HASH));
    }
    if let Some(second) = schema.get(1)
        && second.key_type.as_deref() != Some("RANGE")
    {
        return Err(EngineError::validation(messages::SECOND_KEY_NOT_RANGE));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = def_names.iter().find(|n| !seen.insert(**n)) {
        return Err(EngineError::validation(
            messages::duplicate_attribute_definition(twice),
        ));
    }
    match index_keys {
        None if key_names.len() != def_names.len() => {
            return Err(EngineError::validation(messages::DEFINITIONS_MISMATCH));
        }
        None => {}
        Some(index_keys) => {
            let mut used: Vec<&str> = Vec::new();
            for name in key_names.iter().chain(&index_keys) {
                if !used.contains(name) {
                    used.push(name);
                }
            }
            if def_names.iter().any(|d| !used.contains(d)) {
                return Err(EngineError::validation(
                    messages::unused_attribute_definitions(&def_names, &used),
                ));
            }
        }
    }
    let attr = |name: &str| {
        let ty = defs
            .iter()
            .find(|(n, _)| n == name)
            .map_or(ScalarType::S, |(_, t)| *t);
        KeyAttribute {
            name: name.to_owned(),
            ty,
        }
    };
    let hash = attr(key_names.first().copied().unwrap_or_default());
    let range = key_names.get(1).map(|n| attr(n));
    Ok((KeySchema { hash, range }, defs))
}
