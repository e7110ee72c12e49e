//! `ExpressionAttributeNames` and `ExpressionAttributeValues`: checked once per request,
//! shared by all of its expressions, which mark the placeholders they use so that unused
//! ones can be refused afterwards as DynamoDB does.

use std::collections::{BTreeMap, BTreeSet};

use kura_model::AttributeValue;
use kura_model::wire::AttributeValueJson;

use crate::error::{ExprError, Result};
use kura_model::messages;

/// Longest placeholder, sigil included.
const MAX_KEY_BYTES: usize = 255;

#[derive(Debug, Default)]
pub struct Bindings {
    names: BTreeMap<String, String>,
    values: BTreeMap<String, AttributeValue>,
    used_names: BTreeSet<String>,
    used_values: BTreeSet<String>,
}

fn valid_key(key: &str, sigil: char) -> bool {
    let mut chars = key.chars();
    chars.next() == Some(sigil)
        && key.len() > 1
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Bindings {
    /// Validates the two maps in DynamoDB's order: names (not empty, keys `#[0-9A-Za-z_]+`),
    /// then values (not empty, keys `:[0-9A-Za-z_]+`, each value valid).
    pub fn new(
        names: Option<BTreeMap<String, String>>,
        values: Option<BTreeMap<String, AttributeValueJson>>,
    ) -> Result<Bindings> {
        let mut bindings = Bindings::default();
        if let Some(names) = names {
            if names.is_empty() {
                return Err(ExprError::validation(messages::NAMES_EMPTY));
            }
            for (key, name) in &names {
                if key.len() > MAX_KEY_BYTES {
                    return Err(ExprError::validation(messages::names_key_too_long(
                        key.len(),
                    )));
                }
                if !valid_key(key, '#') {
                    return Err(ExprError::validation(messages::invalid_names_key(key)));
                }
                if name.is_empty() {
                    return Err(ExprError::validation(messages::empty_attribute_name(key)));
                }
                kura_model::wire::check_name_size(name)?;
            }
            bindings.names = names;
        }
        if let Some(values) = values {
            if values.is_empty() {
                return Err(ExprError::validation(messages::VALUES_EMPTY));
            }
            for key in values.keys() {
                if key.len() > MAX_KEY_BYTES {
                    return Err(ExprError::validation(messages::VALUES_KEY_TOO_LONG));
                }
                if !valid_key(key, ':') {
                    return Err(ExprError::validation(messages::invalid_values_key(key)));
                }
            }
            let name_too_large = messages::one_validation_error(messages::ATTRIBUTE_NAME_TOO_LARGE);
            for (key, raw) in values {
                let value = raw.into_value().map_err(|e| {
                    let e = ExprError::from(e);
                    // A map key too large is reported as in an item, not as a bad value.
                    if e.message() == name_too_large {
                        return e;
                    }
                    ExprError::validation(messages::invalid_value(e.message(), &key))
                })?;
                bindings.values.insert(key, value);
            }
        }
        Ok(bindings)
    }

    /// Bindings from already-validated maps (legacy translation and tests).
    pub fn from_parts(
        names: BTreeMap<String, String>,
        values: BTreeMap<String, AttributeValue>,
    ) -> Bindings {
        Bindings {
            names,
            values,
            ..Bindings::default()
        }
    }

    pub fn has_names(&self) -> bool {
        !self.names.is_empty()
    }

    pub fn has_values(&self) -> bool {
        !self.values.is_empty()
    }

    /// The attribute name a `#placeholder` stands for, marking it used.
    pub(crate) fn name(&mut self, placeholder: &str) -> Option<String> {
        let name = self.names.get(placeholder)?.clone();
        self.used_names.insert(placeholder.to_owned());
        Some(name)
    }

    /// The value a `:placeholder` stands for, marking it used.
    pub(crate) fn value(&mut self, placeholder: &str) -> Option<AttributeValue> {
        let value = self.values.get(placeholder)?.clone();
        self.used_values.insert(placeholder.to_owned());
        Some(value)
    }

    /// Refuses placeholders no expression used: names first, then values.
    pub fn check_all_used(&self) -> Result<()> {
        let unused = |all: Vec<&String>, used: &BTreeSet<String>| -> Vec<String> {
            all.into_iter()
                .filter(|k| !used.contains(*k))
                .cloned()
                .collect()
        };
        let names = unused(self.names.keys().collect(), &self.used_names);
        if !names.is_empty() {
            return Err(ExprError::validation(messages::unused_names(&names)));
        }
        let values = unused(self.values.keys().collect(), &self.used_values);
        if !values.is_empty() {
            return Err(ExprError::validation(messages::unused_values(&values)));
        }
        Ok(())
    }
}
