//! Partial updates: a patch merged onto the latest version (maps merged recursively,
//! lists and other values replaced, an explicit null removing a field).

use serde_json::{Map, Value};

use crate::command::{CommandInput, CommandModel, entity_attributes};
use crate::error::Result;
use crate::keys::{Key, VERSION_LATEST};
use crate::version::Version;

/// What a partial update changes; `None` keeps the latest value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartialUpdate {
    pub pk: String,
    pub sk: String,
    /// As for a full command: -1 on top of the latest, N on top of N.
    pub version: Version,
    pub code: Option<String>,
    pub name: Option<String>,
    pub is_deleted: Option<bool>,
    pub seq: Option<i64>,
    pub ttl: Option<i64>,
    /// Merged onto the latest attributes.
    pub attributes: Map<String, Value>,
}

/// `patch` merged onto `base`: objects recursively, null removes, anything else replaces.
pub fn merge(base: &Map<String, Value>, patch: &Map<String, Value>) -> Map<String, Value> {
    let mut out = base.clone();
    for (key, value) in patch {
        match (out.get(key), value) {
            (_, Value::Null) => {
                out.remove(key);
            }
            (Some(Value::Object(old)), Value::Object(new)) => {
                let merged = merge(old, new);
                out.insert(key.clone(), Value::Object(merged));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    out
}

impl PartialUpdate {
    /// A patch of the entity at `key`, on top of `version` (-1: the latest), changing
    /// nothing yet.
    pub fn new(key: &Key, version: Version) -> PartialUpdate {
        PartialUpdate {
            pk: key.pk.clone(),
            sk: key.sk.clone(),
            version,
            ..PartialUpdate::default()
        }
    }

    /// The attributes to merge, from a typed patch (a struct of the fields that change,
    /// a map, a `json!({..})`; it must serialize to a map).
    pub fn with_patch<T: serde::Serialize + ?Sized>(mut self, patch: &T) -> Result<PartialUpdate> {
        self.attributes = entity_attributes(patch)?;
        Ok(self)
    }

    /// The full command this patch makes of `latest`, pinned to `latest`'s version: it
    /// may only be written as the version after the one it was merged onto (a patch on
    /// top of the latest, -1, takes `latest`'s number; a patch for version N merged onto
    /// another version is a conflict when published). Refused when `latest`'s offloaded
    /// attributes were not read back: the patch would replace them all.
    pub fn apply_to(&self, latest: &CommandModel) -> Result<CommandInput> {
        let version = match self.version {
            VERSION_LATEST => latest.version,
            pinned => pinned,
        };
        Ok(CommandInput {
            pk: self.pk.clone(),
            sk: self.sk.clone(),
            code: self.code.clone().unwrap_or_else(|| latest.code.clone()),
            name: self.name.clone().unwrap_or_else(|| latest.name.clone()),
            is_deleted: self.is_deleted.unwrap_or(latest.is_deleted),
            seq: self.seq.or(latest.seq),
            ttl: self.ttl.or(latest.ttl),
            attributes: merge(&latest.attributes, &self.attributes),
            ..latest.to_input(version)?
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn maps_merge_lists_replace_nulls_remove() {
        let base = map(json!({"a": {"x": 1, "y": 2}, "list": [1, 2], "gone": true, "keep": "k"}));
        let patch = map(json!({"a": {"y": 3, "z": 4}, "list": [9], "gone": null, "new": 5}));
        assert_eq!(
            Value::Object(merge(&base, &patch)),
            json!({"a": {"x": 1, "y": 3, "z": 4}, "list": [9], "keep": "k", "new": 5})
        );
        // A map replaces a scalar and the other way round.
        let base = map(json!({"a": 1, "b": {"c": 1}}));
        let patch = map(json!({"a": {"n": 1}, "b": 2}));
        assert_eq!(
            Value::Object(merge(&base, &patch)),
            json!({"a": {"n": 1}, "b": 2})
        );
    }
}
