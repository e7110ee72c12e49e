//! The AttributeDefinitions of UpdateTable's GSI Create: every key of the new index
//! defined in the request, with the type the table already gives it.

use kura_model::keycode::ScalarType;
use kura_model::messages;

use crate::api::*;
use crate::catalog::TableRecord;
use crate::error::{EngineError, Result};

/// Checks the request's `definitions` for the new GSI `name` of `table`.
pub(crate) fn check_definitions(
    table: &TableRecord,
    name: &str,
    create: &GlobalSecondaryIndexInput,
    definitions: &[AttributeDefinitionInput],
) -> Result<()> {
    // Every key of the new index must be defined in this request, even one the table
    // already defines (dynoxide issue #144, against AWS), and with the type it already
    // has. A redefinition of an attribute the new index does not key on is accepted and
    // the stored type kept (paritysuite issue #78, against AWS).
    let key_attrs: Vec<&str> = create
        .key_schema
        .iter()
        .flatten()
        .map(|k| k.attribute_name.as_deref().unwrap_or_default())
        .collect();
    if definitions.is_empty() {
        return Err(EngineError::validation(messages::index_definition_missing(
            name,
        )));
    }
    let requested = |attr: &str| {
        definitions
            .iter()
            .find(|d| d.attribute_name.as_deref() == Some(attr))
            .map(AttributeDefinitionInput::definition)
    };
    if key_attrs.iter().any(|a| requested(a).is_none()) {
        let defs: Vec<&str> = definitions
            .iter()
            .map(|d| d.attribute_name.as_deref().unwrap_or_default())
            .collect();
        return Err(EngineError::validation(messages::keys_not_defined(
            &key_attrs, &defs,
        )));
    }
    let known = |attr: &str| {
        table
            .attribute_definitions
            .iter()
            .find(|(n, _)| n == attr)
            .map(|(_, t)| *t)
    };
    let retyped: Vec<(&str, ScalarType, ScalarType)> = key_attrs
        .iter()
        .filter_map(|a| {
            let (_, new) = requested(a)?;
            let old = known(a)?;
            (old != new).then_some((*a, old, new))
        })
        .collect();
    if !retyped.is_empty() {
        let existing: Vec<(&str, &str)> = retyped
            .iter()
            .map(|(a, o, _)| (*a, o.descriptor()))
            .collect();
        let new: Vec<(&str, &str)> = retyped
            .iter()
            .map(|(a, _, n)| (*a, n.descriptor()))
            .collect();
        return Err(EngineError::validation(messages::attributes_redefined(
            &existing, &new,
        )));
    }
    Ok(())
}
