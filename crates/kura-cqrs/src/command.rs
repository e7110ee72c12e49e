//! Commands: what a client publishes, the stored command row, and the pure decision of
//! what publishing means given the latest version (tested without I/O).

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::attributes::{canonical_map, from_item, to_attribute};
use crate::error::{CqrsError, Result};
use crate::keys::{
    KEY_SEPARATOR, VERSION_FIRST, VERSION_LATEST, Version, add_sort_key_version, check_base_sk,
    generate_id, get_sort_key_version, get_tenant_code, normalize_tenant, remove_sort_key_version,
};
use crate::names::{
    ATTRIBUTES, CODE, CREATED_AT, CREATED_BY, CREATED_IP, ID, IS_DELETED, NAME, PK, REQUEST_ID,
    SEQ, SK, SOURCE, TENANT_CODE, TTL, TTL_POLICY, TYPE, UPDATED_AT, UPDATED_BY, UPDATED_IP,
    VERSION, is_framework_attribute,
};
use crate::objects::parse_location;

/// What a client publishes: one version of an entity.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandInput {
    pub pk: String,
    /// The base sort key (no version).
    pub sk: String,
    pub code: String,
    pub name: String,
    /// 0 creates, -1 goes on top of the latest, N goes on top of version N.
    pub version: Version,
    pub tenant_code: String,
    /// The entity type (the seed's `type`).
    pub kind: String,
    pub is_deleted: bool,
    pub seq: Option<i64>,
    pub ttl: Option<i64>,
    pub attributes: Map<String, Value>,
}

impl CommandInput {
    /// Version `version` (0 creates, -1 goes on top of the latest) of the entity at
    /// `pk`/`sk` (`sk` without version). Defaults, each changed by a `with_*` method:
    /// `code` is `sk`, `name` is empty, `tenant_code` is the segment of `pk` after its last
    /// `#` (empty without one), `kind` the segment before its first `#`, not deleted, no
    /// `seq`, no `ttl`, no attributes.
    pub fn new(
        pk: impl Into<String>,
        sk: impl Into<String>,
        version: impl Into<Version>,
    ) -> CommandInput {
        let pk = pk.into();
        let sk = sk.into();
        let tenant_code = get_tenant_code(&pk).unwrap_or_default().to_owned();
        let kind = pk
            .split(KEY_SEPARATOR)
            .next()
            .unwrap_or_default()
            .to_owned();
        CommandInput {
            code: sk.clone(),
            name: String::new(),
            version: version.into(),
            tenant_code,
            kind,
            is_deleted: false,
            seq: None,
            ttl: None,
            attributes: Map::new(),
            pk,
            sk,
        }
    }

    /// [`CommandInput::new`] for a key built by [`crate::keys`].
    pub fn for_key(key: &crate::keys::Key, version: impl Into<Version>) -> CommandInput {
        CommandInput::new(key.pk.clone(), key.sk.clone(), version)
    }

    pub fn with_code(mut self, code: impl Into<String>) -> CommandInput {
        self.code = code.into();
        self
    }

    pub fn with_name(mut self, name: impl Into<String>) -> CommandInput {
        self.name = name.into();
        self
    }

    pub fn with_version(mut self, version: impl Into<Version>) -> CommandInput {
        self.version = version.into();
        self
    }

    pub fn with_tenant_code(mut self, tenant_code: impl Into<String>) -> CommandInput {
        self.tenant_code = tenant_code.into();
        self
    }

    /// The entity type (the seed's `type`).
    pub fn with_kind(mut self, kind: impl Into<String>) -> CommandInput {
        self.kind = kind.into();
        self
    }

    pub fn with_deleted(mut self, is_deleted: bool) -> CommandInput {
        self.is_deleted = is_deleted;
        self
    }

    pub fn with_seq(mut self, seq: Option<i64>) -> CommandInput {
        self.seq = seq;
        self
    }

    pub fn with_ttl(mut self, ttl: Option<i64>) -> CommandInput {
        self.ttl = ttl;
        self
    }

    /// Replaces the attributes.
    pub fn with_attributes(mut self, attributes: Map<String, Value>) -> CommandInput {
        self.attributes = attributes;
        self
    }

    /// Replaces the attributes with a typed entity's fields (serde; numbers exact). An
    /// entity must serialize to a map (a struct, a map, a `json!({..})`): anything else
    /// is [`CqrsError::Entity`].
    pub fn with_entity<T: Serialize + ?Sized>(mut self, entity: &T) -> Result<CommandInput> {
        self.attributes = entity_attributes(entity)?;
        Ok(self)
    }

    /// Sets one attribute.
    pub fn with_attribute(mut self, name: impl Into<String>, value: Value) -> CommandInput {
        self.attributes.insert(name.into(), value);
        self
    }
}

/// A typed entity as attributes: it must serialize to a map.
pub fn entity_attributes<T: Serialize + ?Sized>(entity: &T) -> Result<Map<String, Value>> {
    let what = std::any::type_name::<T>();
    match serde_json::to_value(entity) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(CqrsError::Entity {
            what: what.to_owned(),
            source: serde::ser::Error::custom(format!(
                "serializes to {}, not to a map of attributes",
                kind_of(&other)
            )),
        }),
        Err(source) => Err(CqrsError::Entity {
            what: what.to_owned(),
            source,
        }),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// Who asked, for the audit fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Invoker {
    pub user_id: String,
    pub ip: String,
    pub request_id: String,
    pub source: String,
}

/// Audit fields of a stored row (timestamps: RFC 3339, UTC, milliseconds).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Audit {
    pub created_at: String,
    pub created_by: String,
    pub created_ip: String,
    pub updated_at: String,
    pub updated_by: String,
    pub updated_ip: String,
    pub request_id: String,
    pub source: String,
}

/// A stored command: one version of an entity, `sk` = `base@version`.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandModel {
    pub pk: String,
    pub sk: String,
    pub id: String,
    pub code: String,
    pub name: String,
    pub version: Version,
    pub tenant_code: String,
    pub kind: String,
    pub is_deleted: bool,
    pub seq: Option<i64>,
    /// The entity's own `ttl`, as published.
    pub ttl: Option<i64>,
    /// The `ttl` a retention policy gave the stored row, when it had none of its own
    /// ([`crate::TtlPolicies`]); never written back as the entity's own.
    pub policy_ttl: Option<i64>,
    pub attributes: Map<String, Value>,
    /// Where the attributes are when they were too large for the row
    /// ([`crate::LargeAttributes`]): `s3://bucket/key`, written in place of the map.
    /// Services given the store read them back into `attributes`.
    pub attributes_ref: Option<String>,
    pub audit: Audit,
    /// Top-level attributes other than the framework's own: the keys of the module's
    /// secondary indexes ([`crate::Indexes`] writes them at publish time), carried from
    /// the command row to the data row as they are.
    pub index_keys: BTreeMap<String, AttributeValue>,
}

/// What publishing a command does.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Write this version.
    Write { version: Version },
    /// The input equals the latest version: write nothing (the seed's "not dirty" rule).
    NotDirty,
}

/// Decides what publishing `input` does when the entity's latest version is `latest`.
pub fn decide(input: &CommandInput, latest: Option<&CommandModel>) -> Result<Decision> {
    check_base_sk(&input.sk)?;
    let current = latest.map_or(VERSION_FIRST, |l| l.version);
    let base = match input.version {
        VERSION_FIRST if latest.is_none() => VERSION_FIRST,
        VERSION_LATEST => current,
        v if v.is_stored() && v == current => v,
        v if v < VERSION_LATEST => {
            return Err(CqrsError::InvalidKey(format!(
                "version {v} is neither a version, 0 (create) nor -1 (latest)"
            )));
        }
        expected => {
            return Err(CqrsError::VersionConflict {
                expected,
                actual: current,
            });
        }
    };
    if let Some(latest) = latest
        && !is_dirty(input, latest)
    {
        return Ok(Decision::NotDirty);
    }
    Ok(Decision::Write {
        version: base.next(),
    })
}

/// Whether `input` differs from `latest` in what the seed compares: id, code, name,
/// tenantCode, type, isDeleted, seq, ttl and attributes (numbers by value).
pub fn is_dirty(input: &CommandInput, latest: &CommandModel) -> bool {
    generate_id(&input.pk, &input.sk) != latest.id
        || input.code != latest.code
        || input.name != latest.name
        || normalize_tenant(&input.tenant_code) != latest.tenant_code
        || input.kind != latest.kind
        || input.is_deleted != latest.is_deleted
        || input.seq != latest.seq
        || input.ttl != latest.ttl
        || canonical_map(&input.attributes) != latest.attributes
}

/// The current time as the framework stores it: RFC 3339, UTC, with milliseconds.
pub fn now_timestamp() -> String {
    let now = time::OffsetDateTime::now_utc();
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    now.format(&format).unwrap_or_default()
}

impl CommandModel {
    /// The row for `version` of `input`; created* come from `first` (the entity's first
    /// version) when there is one.
    pub fn from_input(
        input: &CommandInput,
        version: impl Into<Version>,
        invoker: &Invoker,
        created: Option<&Audit>,
        now: &str,
    ) -> CommandModel {
        let version = version.into();
        let audit = Audit {
            created_at: created.map_or_else(|| now.to_owned(), |c| c.created_at.clone()),
            created_by: created.map_or_else(|| invoker.user_id.clone(), |c| c.created_by.clone()),
            created_ip: created.map_or_else(|| invoker.ip.clone(), |c| c.created_ip.clone()),
            updated_at: now.to_owned(),
            updated_by: invoker.user_id.clone(),
            updated_ip: invoker.ip.clone(),
            request_id: invoker.request_id.clone(),
            source: invoker.source.clone(),
        };
        CommandModel {
            pk: input.pk.clone(),
            sk: add_sort_key_version(&input.sk, version),
            id: generate_id(&input.pk, &input.sk),
            code: input.code.clone(),
            name: input.name.clone(),
            version,
            tenant_code: normalize_tenant(&input.tenant_code),
            kind: input.kind.clone(),
            is_deleted: input.is_deleted,
            seq: input.seq,
            ttl: input.ttl,
            policy_ttl: None,
            // As DynamoDB gives them back.
            attributes: canonical_map(&input.attributes),
            attributes_ref: None,
            audit,
            index_keys: BTreeMap::new(),
        }
    }

    /// The attributes as a typed entity (serde; numbers exact).
    pub fn entity<T: DeserializeOwned>(&self) -> Result<T> {
        self.check_loaded()?;
        // One clone of the map: serde_json reads a `Value` by value.
        serde_json::from_value(Value::Object(self.attributes.clone())).map_err(|source| {
            CqrsError::Entity {
                what: format!("{} at {}/{}", std::any::type_name::<T>(), self.pk, self.sk),
                source,
            }
        })
    }

    /// Refuses a row whose attributes are in an object store and were not read back:
    /// an entity made of it would be stored with no attributes.
    fn check_loaded(&self) -> Result<()> {
        match (&self.attributes_ref, self.attributes.is_empty()) {
            (Some(location), true) => Err(CqrsError::Object {
                location: location.clone(),
                message: "the attributes were not read back (give the service its \
                          LargeAttributes)"
                    .into(),
            }),
            _ => Ok(()),
        }
    }

    /// This version as an input at `version`, unchanged otherwise (to publish it again).
    /// A row whose offloaded attributes were not read back is refused.
    pub fn to_input(&self, version: impl Into<Version>) -> Result<CommandInput> {
        self.check_loaded()?;
        Ok(CommandInput {
            pk: self.pk.clone(),
            sk: self.base_sk().to_owned(),
            code: self.code.clone(),
            name: self.name.clone(),
            version: version.into(),
            tenant_code: self.tenant_code.clone(),
            kind: self.kind.clone(),
            is_deleted: self.is_deleted,
            seq: self.seq,
            ttl: self.ttl,
            attributes: self.attributes.clone(),
        })
    }

    /// When the stored row expires: its own `ttl`, else the one a policy gave it.
    pub fn expires(&self) -> Option<i64> {
        self.ttl.or(self.policy_ttl)
    }

    /// The base sort key (without version).
    pub fn base_sk(&self) -> &str {
        remove_sort_key_version(&self.sk)
    }

    /// The row as a DynamoDB item, attribute names as the seed framework stores them.
    pub fn to_item(&self) -> HashMap<String, AttributeValue> {
        let mut item = HashMap::new();
        let s = |v: &str| AttributeValue::S(v.to_owned());
        item.insert(PK.into(), s(&self.pk));
        item.insert(SK.into(), s(&self.sk));
        item.insert(ID.into(), s(&self.id));
        item.insert(VERSION.into(), AttributeValue::N(self.version.to_string()));
        // Empty texts are left out (read back as empty): an index may use any of these
        // fields as its key, and DynamoDB refuses an empty string as an index key.
        let mut text = |name: &str, value: &str| {
            if !value.is_empty() {
                item.insert(name.into(), s(value));
            }
        };
        text(CODE, &self.code);
        text(NAME, &self.name);
        text(TENANT_CODE, &self.tenant_code);
        text(TYPE, &self.kind);
        item.insert(IS_DELETED.into(), AttributeValue::Bool(self.is_deleted));
        if let Some(seq) = self.seq {
            item.insert(SEQ.into(), AttributeValue::N(seq.to_string()));
        }
        if let Some(ttl) = self.ttl {
            item.insert(TTL.into(), AttributeValue::N(ttl.to_string()));
        }
        let attributes = match &self.attributes_ref {
            Some(location) => s(location),
            None => to_attribute(&Value::Object(self.attributes.clone())),
        };
        item.insert(ATTRIBUTES.into(), attributes);
        let a = &self.audit;
        for (name, value) in [
            (CREATED_AT, &a.created_at),
            (CREATED_BY, &a.created_by),
            (CREATED_IP, &a.created_ip),
            (UPDATED_AT, &a.updated_at),
            (UPDATED_BY, &a.updated_by),
            (UPDATED_IP, &a.updated_ip),
            (REQUEST_ID, &a.request_id),
            (SOURCE, &a.source),
        ] {
            if !value.is_empty() {
                item.insert(name.into(), s(value));
            }
        }
        for (name, value) in &self.index_keys {
            item.insert(name.clone(), value.clone());
        }
        item
    }

    /// Reads a row back (command rows, and data and history rows, which share the shape).
    pub fn from_item(item: &HashMap<String, AttributeValue>) -> Result<CommandModel> {
        let text = |name: &str| -> String {
            match item.get(name) {
                Some(AttributeValue::S(s)) => s.clone(),
                _ => String::new(),
            }
        };
        let number = |name: &str| -> Option<i64> {
            match item.get(name) {
                Some(AttributeValue::N(n)) => n.parse().ok(),
                _ => None,
            }
        };
        let pk = text(PK);
        let sk = text(SK);
        if pk.is_empty() || sk.is_empty() {
            return Err(CqrsError::Malformed(format!(
                "a row without its key: {item:?}"
            )));
        }
        let attributes = match item.get(ATTRIBUTES) {
            Some(AttributeValue::M(map)) => from_item(map),
            _ => Map::new(),
        };
        let attributes_ref = match item.get(ATTRIBUTES) {
            Some(AttributeValue::S(location)) if parse_location(location).is_some() => {
                Some(location.clone())
            }
            _ => None,
        };
        let by_policy = matches!(item.get(TTL_POLICY), Some(AttributeValue::Bool(true)));
        let index_keys = item
            .iter()
            .filter(|(name, _)| !is_framework_attribute(name))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        Ok(CommandModel {
            version: number(VERSION)
                .map(Version::new)
                .unwrap_or_else(|| get_sort_key_version(&sk).max(VERSION_FIRST)),
            id: text(ID),
            code: text(CODE),
            name: text(NAME),
            tenant_code: text(TENANT_CODE),
            kind: text(TYPE),
            is_deleted: matches!(item.get(IS_DELETED), Some(AttributeValue::Bool(true))),
            seq: number(SEQ),
            ttl: number(TTL).filter(|_| !by_policy),
            policy_ttl: number(TTL).filter(|_| by_policy),
            attributes,
            attributes_ref,
            audit: Audit {
                created_at: text(CREATED_AT),
                created_by: text(CREATED_BY),
                created_ip: text(CREATED_IP),
                updated_at: text(UPDATED_AT),
                updated_by: text(UPDATED_BY),
                updated_ip: text(UPDATED_IP),
                request_id: text(REQUEST_ID),
                source: text(SOURCE),
            },
            index_keys,
            pk,
            sk,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_time_series_command_keeps_its_tenant_not_its_month() {
        let key =
            crate::keys::time_series("LOG", "Tenant1", "2026-12-04T10:00:00Z", "e1").expect("key");
        let input = CommandInput::new(&key.pk, &key.sk, 0);
        assert_eq!(input.tenant_code, "tenant1", "not the month");
    }

    fn input(version: i64, name: &str) -> CommandInput {
        CommandInput::new("ORDER#tenant001", "ORDER#1", version)
            .with_code("1")
            .with_name(name)
            .with_tenant_code("Tenant001")
            .with_attribute("total", json!(10))
    }

    fn stored(version: i64, name: &str) -> CommandModel {
        CommandModel::from_input(
            &input(version, name),
            version,
            &Invoker::default(),
            None,
            "t",
        )
    }

    // Given no entity, when version 0 is published, then version 1 is written.
    #[test]
    fn create() {
        assert_eq!(
            decide(&input(0, "a"), None).ok(),
            Some(Decision::Write {
                version: Version::new(1)
            })
        );
        assert_eq!(
            decide(&input(-1, "a"), None).ok(),
            Some(Decision::Write {
                version: Version::new(1)
            })
        );
    }

    // Given version 3, a create or a stale version conflicts; the right base writes 4.
    #[test]
    fn optimistic_locking() {
        let latest = stored(3, "a");
        assert!(matches!(
            decide(&input(0, "b"), Some(&latest)),
            Err(CqrsError::VersionConflict { expected, actual })
                if (expected.get(), actual.get()) == (0, 3)
        ));
        assert!(matches!(
            decide(&input(2, "b"), Some(&latest)),
            Err(CqrsError::VersionConflict { expected, actual })
                if (expected.get(), actual.get()) == (2, 3)
        ));
        assert!(matches!(
            decide(&input(5, "b"), None),
            Err(CqrsError::VersionConflict { expected, actual })
                if (expected.get(), actual.get()) == (5, 0)
        ));
        assert_eq!(
            decide(&input(3, "b"), Some(&latest)).ok(),
            Some(Decision::Write {
                version: Version::new(4)
            })
        );
        assert_eq!(
            decide(&input(-1, "b"), Some(&latest)).ok(),
            Some(Decision::Write {
                version: Version::new(4)
            })
        );
        assert!(decide(&input(-2, "b"), Some(&latest)).is_err());
    }

    // Given version 3, an identical input writes nothing, whatever version it names.
    #[test]
    fn not_dirty() {
        let latest = stored(3, "a");
        assert_eq!(
            decide(&input(3, "a"), Some(&latest)).ok(),
            Some(Decision::NotDirty)
        );
        assert_eq!(
            decide(&input(-1, "a"), Some(&latest)).ok(),
            Some(Decision::NotDirty)
        );
        let mut changed = input(3, "a");
        changed.attributes.insert("total".into(), json!(11));
        assert_eq!(
            decide(&changed, Some(&latest)).ok(),
            Some(Decision::Write {
                version: Version::new(4)
            })
        );
    }

    #[test]
    fn rows_round_trip() {
        let row = stored(12, "a");
        assert_eq!(row.sk, "ORDER#1@12");
        assert_eq!(row.tenant_code, "tenant001");
        assert_eq!(CommandModel::from_item(&row.to_item()).ok(), Some(row));
    }

    #[test]
    fn the_constructor_takes_tenant_and_kind_from_the_key() {
        let input = CommandInput::new("ORDER#tenant001", "ORDER#1", 0);
        assert_eq!(
            (input.tenant_code.as_str(), input.kind.as_str()),
            ("tenant001", "ORDER")
        );
        assert_eq!(input.code, "ORDER#1");
        let bare = CommandInput::new("PLAIN", "x", -1)
            .with_entity(&json!({"a": 1}))
            .expect("a map");
        assert_eq!(
            (bare.tenant_code.as_str(), bare.kind.as_str()),
            ("", "PLAIN")
        );
        assert_eq!(Value::Object(bare.attributes), json!({"a": 1}));
        let row = stored(3, "a");
        assert_eq!(row.to_input(3).expect("loaded").sk, "ORDER#1");
        assert_eq!(
            decide(&row.to_input(3).expect("loaded"), Some(&row)).ok(),
            Some(Decision::NotDirty)
        );
    }

    #[test]
    fn a_base_sort_key_with_a_version_is_refused() {
        let mut bad = input(0, "a");
        bad.sk = "ORDER#1@2".into();
        assert!(matches!(decide(&bad, None), Err(CqrsError::InvalidKey(_))));
    }
}
