//! Master data, settings and TTL policies, read from a master module's data table.
//!
//! - Master data rows: `MASTER#tenant` / `TYPE#category#code` (key pattern 5).
//! - Settings: `MASTER#tenant` / `SETTING#name`, with per-user and per-group overrides at
//!   `SETTING#name#USER#id` and `SETTING#name#GROUP#id`; resolved user → group → tenant →
//!   common tenant, the first found winning.
//! - TTL policies: `MASTER#tenant` / `TTL#tableType` (`ttl_sk`) with `attributes.days`;
//!   resolved tenant → common. A policy sets the `ttl` of rows written for that table type
//!   (applied by the `ttl` module).

use aws_sdk_dynamodb::Client;
use serde_json::{Map, Value};

use crate::command::CommandModel;
use crate::error::Result;
use crate::keys::{KEY_SEPARATOR, TENANT_COMMON, master_pk, ttl_sk};
use crate::large::{LargeAttributes, resolve_some};
use crate::names::DAYS;
use crate::rows::read_row;
use crate::tables::TableKind;

/// Who a setting is resolved for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingScope {
    pub tenant_code: String,
    pub group_id: Option<String>,
    pub user_id: Option<String>,
}

/// Reads master data, settings and TTL policies from one table (a master module's data
/// table, whose rows the projector or `publish_sync` keeps current).
#[derive(Debug, Clone)]
pub struct MasterService {
    client: Client,
    table: String,
    large: Option<LargeAttributes>,
}

/// The sort key of a setting, at a level (`None` = the tenant's own).
pub fn setting_sk(name: &str, level: Option<(&str, &str)>) -> String {
    match level {
        None => format!("SETTING{KEY_SEPARATOR}{name}"),
        Some((kind, id)) => {
            format!("SETTING{KEY_SEPARATOR}{name}{KEY_SEPARATOR}{kind}{KEY_SEPARATOR}{id}")
        }
    }
}

impl MasterService {
    pub fn new(client: Client, table: impl Into<String>) -> MasterService {
        MasterService {
            client,
            table: table.into(),
            large: None,
        }
    }

    /// Reads attributes the master module keeps in an object store back (without it,
    /// such a row is an error, never an empty setting).
    pub fn with_large_attributes(mut self, large: LargeAttributes) -> MasterService {
        self.large = Some(large);
        self
    }

    async fn row(&self, pk: &str, sk: &str) -> Result<Option<CommandModel>> {
        let row = read_row(&self.client, &self.table, pk, sk).await?;
        resolve_some(self.large.as_ref(), row.filter(|r| !r.is_deleted)).await
    }

    /// A master data row (`TYPE#category#code`) of a tenant, else of the common tenant.
    pub async fn master_data(
        &self,
        tenant_code: &str,
        kind: &str,
        category: &str,
        code: &str,
    ) -> Result<Option<CommandModel>> {
        let sk = [kind, category, code].join(KEY_SEPARATOR);
        for tenant in [tenant_code, TENANT_COMMON] {
            if let Some(row) = self.row(&master_pk(Some(tenant)), &sk).await? {
                return Ok(Some(row));
            }
        }
        Ok(None)
    }

    /// A setting's attributes, resolved user → group → tenant → common.
    pub async fn setting(
        &self,
        name: &str,
        scope: &SettingScope,
    ) -> Result<Option<Map<String, Value>>> {
        let tenant_pk = master_pk(Some(&scope.tenant_code));
        let mut candidates = Vec::new();
        if let Some(user) = &scope.user_id {
            candidates.push((tenant_pk.clone(), setting_sk(name, Some(("USER", user)))));
        }
        if let Some(group) = &scope.group_id {
            candidates.push((tenant_pk.clone(), setting_sk(name, Some(("GROUP", group)))));
        }
        candidates.push((tenant_pk, setting_sk(name, None)));
        candidates.push((master_pk(Some(TENANT_COMMON)), setting_sk(name, None)));
        for (pk, sk) in candidates {
            if let Some(row) = self.row(&pk, &sk).await? {
                return Ok(Some(row.attributes));
            }
        }
        Ok(None)
    }

    /// The retention in days of `kind` rows of a tenant (its own policy, else the common
    /// tenant's), if any.
    pub async fn ttl_days(&self, tenant_code: &str, kind: TableKind) -> Result<Option<i64>> {
        self.module_ttl_days(tenant_code, None, kind).await
    }

    /// The retention in days of `kind` rows of `module` for a tenant: the first policy
    /// of the tenant's for the module (`TTL#order-history`), the tenant's for the table
    /// type (`TTL#history`), the common tenant's for the module, the common tenant's for
    /// the table type.
    pub async fn module_ttl_days(
        &self,
        tenant_code: &str,
        module: Option<&str>,
        kind: TableKind,
    ) -> Result<Option<i64>> {
        let module_sk = module.map(|m| ttl_sk(&format!("{m}-{}", kind.name())));
        let kind_sk = ttl_sk(kind.name());
        for tenant in [tenant_code, TENANT_COMMON] {
            for sk in module_sk.iter().chain([&kind_sk]) {
                if let Some(row) = self.row(&master_pk(Some(tenant)), sk).await? {
                    return Ok(row.attributes.get(DAYS).and_then(Value::as_i64));
                }
            }
        }
        Ok(None)
    }

    /// The `ttl` (epoch seconds) a `kind` row written at `now_s` gets under its policy.
    pub async fn ttl_for(
        &self,
        tenant_code: &str,
        kind: TableKind,
        now_s: i64,
    ) -> Result<Option<i64>> {
        self.module_ttl_for(tenant_code, None, kind, now_s).await
    }

    /// [`MasterService::ttl_for`] for a row of `module` ([`MasterService::module_ttl_days`]).
    pub async fn module_ttl_for(
        &self,
        tenant_code: &str,
        module: Option<&str>,
        kind: TableKind,
        now_s: i64,
    ) -> Result<Option<i64>> {
        Ok(self
            .module_ttl_days(tenant_code, module, kind)
            .await?
            .map(|days| now_s + days * 86_400))
    }
}
