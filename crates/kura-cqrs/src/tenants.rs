//! Tenant records: one per tenant in the common tenant's partition (`TENANT#common` /
//! `code`), written through the command side like any entity, and the common tenant
//! itself. Codes are normalised to lower case (`keys::normalize_tenant`).

use serde_json::{Map, Value};

use crate::command::{CommandInput, CommandModel, Invoker};
use crate::data::{DataService, ListOptions};
use crate::error::{CqrsError, Result};
use crate::keys::{KEY_SEPARATOR, TENANT_COMMON, VERSION_FIRST, VERSION_LATEST, normalize_tenant};
use crate::partial::PartialUpdate;
use crate::service::CommandService;

/// The partition holding every tenant record.
pub fn tenant_pk() -> String {
    format!("TENANT{KEY_SEPARATOR}{TENANT_COMMON}")
}

#[derive(Debug, Clone)]
pub struct TenantService {
    commands: CommandService,
    data: DataService,
}

impl TenantService {
    /// Tenant records live in the module whose services these are.
    pub fn new(commands: CommandService, data: DataService) -> TenantService {
        TenantService { commands, data }
    }

    /// Creates a tenant; an existing code is a `VersionConflict`.
    pub async fn create(
        &self,
        code: &str,
        name: &str,
        attributes: Map<String, Value>,
        invoker: &Invoker,
    ) -> Result<CommandModel> {
        let code = normalize_tenant(code);
        if code.is_empty() {
            return Err(CqrsError::InvalidKey(
                "a tenant code must not be empty".into(),
            ));
        }
        let input = CommandInput::new(tenant_pk(), code.clone(), VERSION_FIRST)
            .with_name(name)
            .with_tenant_code(TENANT_COMMON)
            .with_kind("TENANT")
            .with_attributes(attributes);
        self.commands
            .publish_sync(&input, invoker)
            .await?
            .ok_or_else(|| CqrsError::Malformed(format!("tenant {code} was not written")))
    }

    /// Creates the common tenant unless it exists.
    pub async fn ensure_common(&self, invoker: &Invoker) -> Result<()> {
        if self.get(TENANT_COMMON).await?.is_some() {
            return Ok(());
        }
        match self
            .create(TENANT_COMMON, "common", Map::new(), invoker)
            .await
        {
            Ok(_) | Err(CqrsError::VersionConflict { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub async fn get(&self, code: &str) -> Result<Option<CommandModel>> {
        self.data
            .get_item(&tenant_pk(), &normalize_tenant(code))
            .await
    }

    /// Every active tenant, by code.
    pub async fn list(&self) -> Result<Vec<CommandModel>> {
        self.data
            .list_all_by_pk(
                &tenant_pk(),
                &ListOptions {
                    exclude_deleted: true,
                    ..ListOptions::default()
                },
            )
            .await
    }

    /// Marks a tenant deleted (soft delete: its record and history stay).
    pub async fn deactivate(&self, code: &str, invoker: &Invoker) -> Result<()> {
        let patch = PartialUpdate {
            pk: tenant_pk(),
            sk: normalize_tenant(code),
            version: VERSION_LATEST,
            is_deleted: Some(true),
            ..PartialUpdate::default()
        };
        self.commands
            .publish_partial_update_sync(&patch, invoker)
            .await?;
        Ok(())
    }
}
