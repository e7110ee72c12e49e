//! TTL retention policies per table type (`MASTER#tenant` / `TTL#tableType` rows of a
//! master module, `attributes.days`), optionally per module first (`TTL#module-tableType`),
//! resolved tenant → common, and the pure rule that applies them to a row.
//!
//! The rule: a command or data row without a `ttl` of its own gets now + the policy's
//! days for its table type and tenant; a history row always gets the history policy's
//! (it is a copy of a data row, whose ttl is the data table's). Without a policy a row
//! keeps what it has.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Result;
use crate::master::MasterService;
use crate::names::{TTL, TTL_POLICY};
use crate::rows::Item;
use crate::tables::TableKind;

/// The `ttl` (epoch seconds) each table type's policy gives a row written now, for one
/// tenant; `None` where there is no policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowTtl {
    pub command: Option<i64>,
    pub data: Option<i64>,
    pub history: Option<i64>,
}

impl RowTtl {
    /// No policies: rows keep their own `ttl`, if any.
    pub const NONE: RowTtl = RowTtl {
        command: None,
        data: None,
        history: None,
    };

    pub fn of(&self, kind: TableKind) -> Option<i64> {
        match kind {
            TableKind::Command => self.command,
            TableKind::Data => self.data,
            TableKind::History => self.history,
        }
    }

    /// Sets `ttl` on `item`, a row of a `kind` table, by the rule above, marked as the
    /// policy's ([`TTL_POLICY`]) so that it is never read back as the entity's own.
    pub fn apply(&self, item: &mut Item, kind: TableKind) {
        if kind != TableKind::History && item.contains_key(TTL) {
            return;
        }
        if let Some(ttl) = self.of(kind) {
            item.insert(TTL.into(), AttributeValue::N(ttl.to_string()));
            item.insert(TTL_POLICY.into(), AttributeValue::Bool(true));
        }
    }
}

/// TTL retention policies applied to the rows the framework writes.
#[derive(Debug, Clone)]
pub struct TtlPolicies {
    master: MasterService,
    module: Option<String>,
}

impl TtlPolicies {
    /// Policies per table type (`TTL#command`, `TTL#data`, `TTL#history`).
    pub fn new(master: MasterService) -> TtlPolicies {
        TtlPolicies {
            master,
            module: None,
        }
    }

    /// Policies of one module first (`TTL#order-history`), the table type's as the
    /// fallback: modules of one app can keep their history for different times.
    pub fn for_module(mut self, module: &str) -> TtlPolicies {
        self.module = Some(module.to_owned());
        self
    }

    /// The policies' ttl for rows of `kinds` written now for `tenant_code` (other kinds
    /// are left `None`, and not read).
    pub async fn resolve(&self, tenant_code: &str, kinds: &[TableKind]) -> Result<RowTtl> {
        let now_s = time::OffsetDateTime::now_utc().unix_timestamp();
        let mut ttl = RowTtl::NONE;
        for kind in kinds {
            let value = self
                .master
                .module_ttl_for(tenant_code, self.module.as_deref(), *kind, now_s)
                .await?;
            match kind {
                TableKind::Command => ttl.command = value,
                TableKind::Data => ttl.data = value,
                TableKind::History => ttl.history = value,
            }
        }
        Ok(ttl)
    }

    /// Sets `ttl` on `item` (a row of a `kind` table of `tenant_code`) from its policy.
    pub async fn apply(&self, item: &mut Item, tenant_code: &str, kind: TableKind) -> Result<()> {
        if kind != TableKind::History && item.contains_key(TTL) {
            return Ok(());
        }
        self.resolve(tenant_code, &[kind]).await?.apply(item, kind);
        Ok(())
    }
}

/// The policies' ttl for `kinds`, or none without policies.
pub(crate) async fn resolve(
    policies: Option<&TtlPolicies>,
    tenant_code: &str,
    kinds: &[TableKind],
) -> Result<RowTtl> {
    match policies {
        Some(p) => p.resolve(tenant_code, kinds).await,
        None => Ok(RowTtl::NONE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::n;

    #[test]
    fn own_ttl_kept_except_in_history() {
        let policy = RowTtl {
            command: Some(1),
            data: Some(2),
            history: Some(3),
        };
        let mut own = Item::from([(TTL.to_owned(), n(42))]);
        policy.apply(&mut own, TableKind::Data);
        assert_eq!(own[TTL], n(42));
        policy.apply(&mut own, TableKind::History);
        assert_eq!(own[TTL], n(3));
        let mut bare = Item::new();
        policy.apply(&mut bare, TableKind::Command);
        assert_eq!(bare[TTL], n(1));
        let mut untouched = Item::from([(TTL.to_owned(), n(42))]);
        RowTtl::NONE.apply(&mut untouched, TableKind::History);
        assert_eq!(untouched[TTL], n(42));
    }
}
