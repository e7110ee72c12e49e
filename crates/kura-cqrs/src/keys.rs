//! The seed's key design: `PK = PREFIX#TENANT`, `SK = IDENTIFIER[@VERSION]`,
//! `ID = PK#SK`, its constants and helpers (with the seed's exact results), and typed
//! builders for its six key patterns.

use crate::error::{CqrsError, Result};
pub use crate::version::Version;

/// Separates key components (PK segments, SK segments, ID).
pub const KEY_SEPARATOR: &str = "#";
/// Separates a sort key from its version number.
pub const VER_SEPARATOR: &str = "@";
/// The input version of a command that creates an entity.
pub const VERSION_FIRST: Version = Version::FIRST;
/// The input version meaning "on top of the latest"; also what a sort key without a
/// version reports.
pub const VERSION_LATEST: Version = Version::LATEST;
/// The tenant of data shared by all tenants.
pub const TENANT_COMMON: &str = "common";
/// The tenant of single-tenant applications.
pub const DEFAULT_TENANT_CODE: &str = "single";

/// `pk#sk` with the version removed from `sk`: an entity's id (the same for every
/// version, as the seed's `generateId`).
pub fn generate_id(pk: &str, sk: &str) -> String {
    format!("{pk}{KEY_SEPARATOR}{}", remove_sort_key_version(sk))
}

/// The tenant code of a partition key: the segment after its prefix (`PREFIX#tenant`,
/// and `LOG#tenant#2026-12` for a time series, whose month is not its tenant); `None`
/// without a `#`.
pub fn get_tenant_code(pk: &str) -> Option<&str> {
    pk.split(KEY_SEPARATOR).nth(1)
}

/// `sk@version`.
pub fn add_sort_key_version(sk: &str, version: Version) -> String {
    format!("{sk}{VER_SEPARATOR}{version}")
}

/// The sort key without its version: everything before the last `@`.
pub fn remove_sort_key_version(sk: &str) -> &str {
    sk.rsplit_once(VER_SEPARATOR).map_or(sk, |(base, _)| base)
}

/// The version after the last `@`; [`VERSION_LATEST`] when there is none (or it is not a
/// number).
pub fn get_sort_key_version(sk: &str) -> Version {
    sk.rsplit_once(VER_SEPARATOR)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(VERSION_LATEST)
}

/// `MASTER#tenant` (the default tenant when none is given).
pub fn master_pk(tenant_code: Option<&str>) -> String {
    with_tenant("MASTER", tenant_code)
}

/// `SEQ#tenant` (the default tenant when none is given).
pub fn seq_pk(tenant_code: Option<&str>) -> String {
    with_tenant("SEQ", tenant_code)
}

/// `TTL#tableType`: the sort key of a table type's TTL setting.
pub fn ttl_sk(table_type: &str) -> String {
    format!("TTL{KEY_SEPARATOR}{table_type}")
}

fn with_tenant(prefix: &str, tenant_code: Option<&str>) -> String {
    let tenant = normalize_tenant(tenant_code.unwrap_or(DEFAULT_TENANT_CODE));
    format!("{prefix}{KEY_SEPARATOR}{tenant}")
}

/// Tenant codes are case-insensitive: this is the one place they are lower-cased.
pub fn normalize_tenant(code: &str) -> String {
    code.to_lowercase()
}

/// A base sort key (no version): `@` is reserved for versions.
pub fn check_base_sk(sk: &str) -> Result<()> {
    if sk.is_empty() {
        return Err(CqrsError::InvalidKey("a sort key must not be empty".into()));
    }
    if sk.contains(VER_SEPARATOR) {
        return Err(CqrsError::InvalidKey(format!(
            "the base sort key {sk:?} contains {VER_SEPARATOR:?}, which separates versions"
        )));
    }
    Ok(())
}

/// A tenant code or a key part a builder joins with `#`: not empty, and without `#` (which
/// would shift every segment after it: a tenant `a#b` reads back as tenant `a`) or `@`
/// (which separates versions).
pub fn check_key_part(what: &str, part: &str) -> Result<()> {
    if part.is_empty() {
        return Err(CqrsError::InvalidKey(format!(
            "the {what} must not be empty"
        )));
    }
    if let Some(bad) = [KEY_SEPARATOR, VER_SEPARATOR]
        .into_iter()
        .find(|sep| part.contains(sep))
    {
        return Err(CqrsError::InvalidKey(format!(
            "the {what} {part:?} contains {bad:?}, which separates key parts"
        )));
    }
    Ok(())
}

/// A new sortable unique id (ULID): what the seed uses for sort keys.
pub fn new_ulid() -> String {
    ulid::Ulid::new().to_string()
}

/// A primary key of the data and history tables (`sk` without version).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub pk: String,
    pub sk: String,
}

impl Key {
    /// `PREFIX#tenant` and `sk`, with the tenant normalised and the sort key checked.
    pub fn new(prefix: &str, tenant_code: &str, sk: impl Into<String>) -> Result<Key> {
        let sk = sk.into();
        check_key_part("prefix", prefix)?;
        check_key_part("tenant code", tenant_code)?;
        check_base_sk(&sk)?;
        Ok(Key {
            pk: format!("{prefix}{KEY_SEPARATOR}{}", normalize_tenant(tenant_code)),
            sk,
        })
    }

    pub fn id(&self) -> String {
        generate_id(&self.pk, &self.sk)
    }

    pub fn tenant_code(&self) -> Option<&str> {
        get_tenant_code(&self.pk)
    }
}

fn join(parts: &[&str]) -> String {
    parts.join(KEY_SEPARATOR)
}

/// Pattern 1, simple entity: `ENTITY#tenant` / `<ulid>`.
pub fn simple_entity(prefix: &str, tenant_code: &str) -> Result<Key> {
    Key::new(prefix, tenant_code, new_ulid())
}

/// Pattern 2, hierarchical entity: the parent `PARENT#tenant` / `PARENT#parentId`.
pub fn parent(prefix: &str, tenant_code: &str, parent_id: &str) -> Result<Key> {
    check_key_part("parent id", parent_id)?;
    Key::new(prefix, tenant_code, join(&[prefix, parent_id]))
}

impl Key {
    /// Pattern 2, a child in this parent's partition: `PARENT#tenant` /
    /// `CHILD#parentId#childId`. This key must be a parent built by [`parent`]
    /// (`PARENT#tenant` / `PARENT#parentId`).
    pub fn child(&self, child_prefix: &str, child_id: &str) -> Result<Key> {
        let parent_id = self.parent_id()?;
        check_key_part("child prefix", child_prefix)?;
        check_key_part("child id", child_id)?;
        Key::new(
            self.prefix(),
            self.tenant_code().unwrap_or_default(),
            join(&[child_prefix, parent_id, child_id]),
        )
    }

    /// The sort-key prefix of every `child_prefix` child of this parent (for
    /// `begins_with`, [`crate::SkCondition::BeginsWith`]).
    pub fn children_prefix(&self, child_prefix: &str) -> Result<String> {
        Ok(format!(
            "{}{KEY_SEPARATOR}",
            join(&[child_prefix, self.parent_id()?])
        ))
    }

    /// The segment of `pk` before its first `#` (`ORDER` of `ORDER#tenant001`).
    pub fn prefix(&self) -> &str {
        self.pk
            .split_once(KEY_SEPARATOR)
            .map_or(self.pk.as_str(), |(prefix, _)| prefix)
    }

    fn parent_id(&self) -> Result<&str> {
        self.sk
            .strip_prefix(self.prefix())
            .and_then(|rest| rest.strip_prefix(KEY_SEPARATOR))
            .filter(|id| !id.is_empty())
            .ok_or_else(|| {
                CqrsError::InvalidKey(format!(
                    "{}/{} is not a parent key (PREFIX#tenant / PREFIX#id)",
                    self.pk, self.sk
                ))
            })
    }
}

/// Pattern 3, composite variant sort key: `ENTITY#tenant` / `variant#identifier`.
pub fn variant(prefix: &str, tenant_code: &str, variant: &str, identifier: &str) -> Result<Key> {
    check_key_part("variant", variant)?;
    check_key_part("identifier", identifier)?;
    Key::new(prefix, tenant_code, join(&[variant, identifier]))
}

/// Pattern 4, association in the common tenant: `ENTITY#common` / `tenant#identifier`.
pub fn common_association(prefix: &str, tenant_code: &str, identifier: &str) -> Result<Key> {
    check_key_part("tenant code", tenant_code)?;
    check_key_part("identifier", identifier)?;
    Key::new(
        prefix,
        TENANT_COMMON,
        join(&[&normalize_tenant(tenant_code), identifier]),
    )
}

/// Pattern 5, master data: `MASTER#tenant` / `TYPE#category#code`.
pub fn master_data(tenant_code: &str, kind: &str, category: &str, code: &str) -> Result<Key> {
    for (what, part) in [("type", kind), ("category", category), ("code", code)] {
        check_key_part(what, part)?;
    }
    Key::new("MASTER", tenant_code, join(&[kind, category, code]))
}

/// Pattern 6, time series: `LOG#tenant#YYYY-MM` / `timestamp#eventId`, the month taken
/// from the timestamp (RFC 3339, UTC).
pub fn time_series(
    prefix: &str,
    tenant_code: &str,
    timestamp: &str,
    event_id: &str,
) -> Result<Key> {
    check_key_part("prefix", prefix)?;
    check_key_part("tenant code", tenant_code)?;
    check_key_part("event id", event_id)?;
    let parsed =
        time::OffsetDateTime::parse(timestamp, &time::format_description::well_known::Rfc3339)
            .map_err(|e| {
                CqrsError::InvalidKey(format!("{timestamp:?} is not an RFC 3339 timestamp: {e}"))
            })?;
    if parsed.offset() != time::UtcOffset::UTC {
        return Err(CqrsError::InvalidKey(format!(
            "{timestamp:?} is not in UTC (the month of the partition would depend on the zone)"
        )));
    }
    // The text's own month: RFC 3339 starts with `YYYY-MM`.
    let month = timestamp.get(..7).unwrap_or_default();
    let sk = join(&[timestamp, event_id]);
    check_base_sk(&sk)?;
    Ok(Key {
        pk: join(&[prefix, &normalize_tenant(tenant_code), month]),
        sk,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The seed's examples (key-design-patterns.en.md), verbatim.
    #[test]
    fn seed_examples() {
        assert_eq!(master_pk(Some("tenant001")), "MASTER#tenant001");
        assert_eq!(master_pk(None), "MASTER#single");
        assert_eq!(seq_pk(Some("tenant001")), "SEQ#tenant001");
        assert_eq!(ttl_sk("product"), "TTL#product");
        assert_eq!(
            generate_id("PRODUCT#tenant001", "01HX7MBJK3V9WQBZ7XNDK5ZT2M"),
            "PRODUCT#tenant001#01HX7MBJK3V9WQBZ7XNDK5ZT2M"
        );
        // "Combines PK and SK into ID, removes version from SK".
        assert_eq!(
            generate_id("PRODUCT#tenant001", "01HX7MBJK3V9WQBZ7XNDK5ZT2M@3"),
            "PRODUCT#tenant001#01HX7MBJK3V9WQBZ7XNDK5ZT2M"
        );
        let sk = "01HX7MBJK3V9WQBZ7XNDK5ZT2M";
        let with_version = add_sort_key_version(sk, Version::new(3));
        assert_eq!(with_version, "01HX7MBJK3V9WQBZ7XNDK5ZT2M@3");
        assert_eq!(remove_sort_key_version(&with_version), sk);
        assert_eq!(get_sort_key_version(&with_version), 3);
        assert_eq!(get_sort_key_version(sk), -1);
        assert_eq!(get_tenant_code("PRODUCT#tenant001"), Some("tenant001"));
        assert_eq!(get_tenant_code("PRODUCT"), None);
        assert_eq!(KEY_SEPARATOR, "#");
        assert_eq!(VER_SEPARATOR, "@");
        assert_eq!((VERSION_FIRST.get(), VERSION_LATEST.get()), (0, -1));
        assert_eq!((TENANT_COMMON, DEFAULT_TENANT_CODE), ("common", "single"));
    }

    #[test]
    fn tenants_and_key_parts_are_checked() {
        for bad in ["", "a#b", "a@b"] {
            assert!(Key::new("ORDER", bad, "1").is_err(), "{bad:?}");
            assert!(simple_entity("ORDER", bad).is_err(), "{bad:?}");
            assert!(parent("ORDER", "t1", bad).is_err(), "{bad:?}");
            assert!(variant("USER", "t1", bad, "x").is_err(), "{bad:?}");
            assert!(variant("USER", "t1", "GOOGLE", bad).is_err(), "{bad:?}");
            assert!(common_association("USER", bad, "x").is_err(), "{bad:?}");
            assert!(master_data("t1", "CAT", bad, "c").is_err(), "{bad:?}");
            assert!(time_series("LOG", bad, "2026-12-04T00:00:00Z", "e").is_err());
            assert!(time_series("LOG", "t1", "2026-12-04T00:00:00Z", bad).is_err());
        }
        let order = parent("ORDER", "t1", "o1").expect("parent");
        assert!(order.child("ITEM", "a#b").is_err());
        assert!(order.child("", "x").is_err());
    }

    #[test]
    fn a_time_series_keeps_its_tenant() {
        let key = time_series("LOG", "Tenant1", "2026-12-04T10:00:00Z", "e1").expect("key");
        assert_eq!(key.pk, "LOG#tenant1#2026-12");
        assert_eq!(key.tenant_code(), Some("tenant1"));
    }

    #[test]
    fn edge_cases() {
        // The tenant is the segment after the prefix (a time series' month is not it);
        // versions are split at the last separator.
        assert_eq!(get_tenant_code("LOG#tenant001#2024-01"), Some("tenant001"));
        assert_eq!(remove_sort_key_version("a@b@7"), "a@b");
        assert_eq!(get_sort_key_version("a@b@7"), 7);
        assert_eq!(get_sort_key_version("ORDER#x@10"), 10);
        assert_eq!(get_sort_key_version("x@"), VERSION_LATEST);
        assert_eq!(get_sort_key_version("x@v2"), VERSION_LATEST);
        assert_eq!(remove_sort_key_version("plain"), "plain");
        assert_eq!(get_tenant_code("#"), Some(""));
        assert!(check_base_sk("ORDER#1@2").is_err());
        assert!(check_base_sk("").is_err());
        assert_eq!(master_pk(Some("Tenant001")), "MASTER#tenant001");
    }

    #[test]
    fn the_six_patterns() {
        let product = simple_entity("PRODUCT", "Tenant001").expect("key");
        assert_eq!(product.pk, "PRODUCT#tenant001");
        assert_eq!(product.sk.len(), 26);
        let order = parent("ORDER", "tenant001", "01HX7MBJK3V9WQBZ7XNDK5ZT2M").expect("key");
        assert_eq!(
            (order.pk.as_str(), order.sk.as_str()),
            ("ORDER#tenant001", "ORDER#01HX7MBJK3V9WQBZ7XNDK5ZT2M")
        );
        let item = order.child("ORDER_ITEM", "001").expect("key");
        assert_eq!(item.pk, "ORDER#tenant001");
        assert_eq!(item.sk, "ORDER_ITEM#01HX7MBJK3V9WQBZ7XNDK5ZT2M#001");
        assert!(
            item.sk
                .starts_with(&order.children_prefix("ORDER_ITEM").expect("parent"))
        );
        assert!(item.child("X", "1").is_err(), "a child is not a parent");
        let user = variant("USER", "common", "sso", "abc123def456").expect("key");
        assert_eq!(
            (user.pk.as_str(), user.sk.as_str()),
            ("USER#common", "sso#abc123def456")
        );
        let member = common_association("USER_TENANT", "tenant002", "user123").expect("key");
        assert_eq!(
            (member.pk.as_str(), member.sk.as_str()),
            ("USER_TENANT#common", "tenant002#user123")
        );
        let setting =
            master_data("tenant001", "DATA", "product_category", "electronics").expect("key");
        assert_eq!(
            (setting.pk.as_str(), setting.sk.as_str()),
            ("MASTER#tenant001", "DATA#product_category#electronics")
        );
        let log = time_series("LOG", "tenant001", "2024-01-15T10:30:00Z", "evt001").expect("key");
        assert_eq!(
            (log.pk.as_str(), log.sk.as_str()),
            ("LOG#tenant001#2024-01", "2024-01-15T10:30:00Z#evt001")
        );
        assert!(time_series("LOG", "t", "15/01/2024", "e").is_err());
        assert!(time_series("LOG", "t", "2024-13-01T00:00:00Z", "e").is_err());
        assert!(time_series("LOG", "t", "2024-01-", "e").is_err());
        assert!(time_series("LOG", "t", "2024-01-31T23:30:00-05:00", "e").is_err());
        let precise = time_series("LOG", "t", "2024-01-31T23:30:00.123Z", "e").expect("key");
        assert_eq!(precise.pk, "LOG#t#2024-01");
        assert!(parent("ORDER", "t", "bad@id").is_err());
    }
}
