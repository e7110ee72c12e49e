//! Typed entities: a data row's attributes read as the caller's own type (serde), with
//! the row beside it for the version, the audit fields and the key.

use serde::de::DeserializeOwned;

use crate::command::CommandModel;
use crate::error::Result;
use crate::keys::Key;

/// An entity of type `T` and the row it was read from. Derefs to `T`.
#[derive(Debug, Clone, PartialEq)]
pub struct Entity<T> {
    pub value: T,
    pub row: CommandModel,
}

impl<T: DeserializeOwned> Entity<T> {
    /// Reads `row`'s attributes as a `T` ([`crate::CqrsError::Entity`] when they do not
    /// fit).
    pub fn from_row(row: CommandModel) -> Result<Entity<T>> {
        Ok(Entity {
            value: row.entity()?,
            row,
        })
    }
}

impl<T> Entity<T> {
    /// The entity's key (the sort key without version).
    pub fn key(&self) -> Key {
        Key {
            pk: self.row.pk.clone(),
            sk: self.row.base_sk().to_owned(),
        }
    }

    /// The version the row is at: publish on top of it for optimistic locking.
    pub fn version(&self) -> crate::Version {
        self.row.version
    }

    pub fn into_value(self) -> T {
        self.value
    }
}

impl<T> std::ops::Deref for Entity<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

/// Rows read as entities of type `T`.
pub fn entities<T: DeserializeOwned>(rows: Vec<CommandModel>) -> Result<Vec<Entity<T>>> {
    rows.into_iter().map(Entity::from_row).collect()
}
