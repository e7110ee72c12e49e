//! Attributes too large for a DynamoDB item (400 KB), kept in an object store instead,
//! as the seed framework keeps them in S3: the row's `attributes` becomes the text
//! `s3://bucket/key` and the object holds the attributes as JSON (numbers exact).
//!
//! `CommandService::publish_*` offloads a version whose row would pass the threshold;
//! the projector copies the reference to the data and history rows as it is (one object
//! per version, written once); the services given the same [`LargeAttributes`] read it
//! back into [`CommandModel::attributes`], so callers and sync handlers see the entity
//! as published. A service without it refuses such a row (`CqrsError::Object`) rather
//! than hand out an entity without its attributes.
//!
//! Objects are never deleted by the framework: every version in history refers to its
//! own. An object written for a publish that then lost its version race is an orphan; a
//! bucket lifecycle rule is the way to collect both.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Map, Value};

use crate::command::CommandModel;
use crate::error::{CqrsError, Result};
use crate::objects::{ObjectStore, location, parse_location};
use crate::rows::Item;

/// Where a module's large attributes go: a bucket of an object store, and the row size
/// from which they go there.
#[derive(Debug, Clone)]
pub struct LargeAttributes {
    store: Arc<dyn ObjectStore>,
    bucket: String,
    threshold: usize,
}

impl LargeAttributes {
    /// Rows up to this many bytes (DynamoDB's item size) keep their attributes: 50 KB
    /// under the 400 KB limit leaves room for what the data, history and session rows
    /// add to a command row.
    pub const DEFAULT_THRESHOLD: usize = 350_000;

    pub fn new(store: Arc<dyn ObjectStore>, bucket: impl Into<String>) -> LargeAttributes {
        LargeAttributes {
            store,
            bucket: bucket.into(),
            threshold: Self::DEFAULT_THRESHOLD,
        }
    }

    /// Offloads the attributes of rows larger than `bytes`.
    pub fn with_threshold(mut self, bytes: usize) -> LargeAttributes {
        self.threshold = bytes;
        self
    }

    /// Puts `model`'s attributes in the bucket when its row would pass the threshold,
    /// leaving the reference in `attributes_ref` (and the attributes in memory).
    pub async fn offload(&self, table: &str, model: &mut CommandModel) -> Result<()> {
        if model.attributes_ref.is_some() || item_size(&model.to_item()) <= self.threshold {
            return Ok(());
        }
        let key = format!("{table}/{}.json", ulid::Ulid::new());
        let body = serde_json::to_vec(&model.attributes).map_err(|source| CqrsError::Entity {
            what: format!("{} {} as JSON", model.pk, model.sk),
            source,
        })?;
        self.store.put(&self.bucket, &key, body).await?;
        tracing::debug!(pk = %model.pk, sk = %model.sk, bucket = %self.bucket, key, "attributes offloaded");
        model.attributes_ref = Some(location(&self.bucket, &key));
        Ok(())
    }

    /// Reads an offloaded `model`'s attributes back (nothing to do for one whose
    /// attributes are in the row, or already read).
    pub async fn load(&self, model: &mut CommandModel) -> Result<()> {
        let Some(location) = model.attributes_ref.as_deref() else {
            return Ok(());
        };
        if !model.attributes.is_empty() {
            return Ok(());
        }
        let (bucket, key) = parse_location(location)
            .ok_or_else(|| CqrsError::Malformed(format!("attributes at {location}")))?;
        let body = self.store.get(bucket, key).await?;
        model.attributes =
            serde_json::from_slice::<Map<String, Value>>(&body).map_err(|e| CqrsError::Object {
                location: location.to_owned(),
                message: format!("not a JSON map of attributes: {e}"),
            })?;
        Ok(())
    }
}

/// `model` with its attributes read back when they are offloaded; an error when they are
/// and there is no store to read them from.
pub async fn resolve(
    large: Option<&LargeAttributes>,
    mut model: CommandModel,
) -> Result<CommandModel> {
    match (large, &model.attributes_ref) {
        (_, None) => {}
        (Some(large), Some(_)) => large.load(&mut model).await?,
        (None, Some(location)) if model.attributes.is_empty() => {
            return Err(CqrsError::Object {
                location: location.clone(),
                message: format!(
                    "{} {} keeps its attributes in an object store: give this service \
                     one (with_large_attributes) to read them",
                    model.pk, model.sk
                ),
            });
        }
        (None, Some(_)) => {}
    }
    Ok(model)
}

/// [`resolve`] for each row of a page.
pub async fn resolve_all(
    large: Option<&LargeAttributes>,
    rows: Vec<CommandModel>,
) -> Result<Vec<CommandModel>> {
    let mut resolved = Vec::with_capacity(rows.len());
    for row in rows {
        resolved.push(resolve(large, row).await?);
    }
    Ok(resolved)
}

/// [`resolve`] for an optional row.
pub async fn resolve_some(
    large: Option<&LargeAttributes>,
    row: Option<CommandModel>,
) -> Result<Option<CommandModel>> {
    match row {
        Some(row) => resolve(large, row).await.map(Some),
        None => Ok(None),
    }
}

/// An item's size as DynamoDB counts it (attribute names plus values; numbers counted
/// at their text's length, an upper bound of DynamoDB's figure).
pub fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| name.len() + value_size(value))
        .sum()
}

fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) | AttributeValue::N(s) => s.len(),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Ss(set) | AttributeValue::Ns(set) => set.iter().map(String::len).sum(),
        AttributeValue::Bs(set) => set.iter().map(|b| b.as_ref().len()).sum(),
        // Three bytes for the container, one per element.
        AttributeValue::L(list) => 3 + list.iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        AttributeValue::M(map) => {
            3 + map
                .iter()
                .map(|(name, v)| 1 + name.len() + value_size(v))
                .sum::<usize>()
        }
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{CommandInput, Invoker};
    use crate::objects::DirectoryStore;
    use serde_json::json;

    fn model(text_bytes: usize) -> CommandModel {
        let input = CommandInput::new("DOC#t1", "a", 0)
            .with_attribute("body", json!("x".repeat(text_bytes)))
            .with_attribute("n", json!(12345678901234567890123456789012345678_u128));
        CommandModel::from_input(&input, 1, &Invoker::default(), None, "t")
    }

    #[test]
    fn sizes_count_names_and_values() {
        let row = model(1000).to_item();
        let size = item_size(&row);
        assert!((1000..1200).contains(&size), "{size}");
    }

    #[tokio::test]
    async fn offloaded_attributes_come_back_exactly() {
        let root = std::env::temp_dir().join(format!("kura-large-{}", ulid::Ulid::new()));
        let large =
            LargeAttributes::new(Arc::new(DirectoryStore::new(&root)), "attrs").with_threshold(500);
        let mut small = model(10);
        large.offload("t-command", &mut small).await.unwrap();
        assert_eq!(small.attributes_ref, None);

        let mut big = model(1000);
        large.offload("t-command", &mut big).await.unwrap();
        let location = big.attributes_ref.clone().unwrap();
        assert!(location.starts_with("s3://attrs/t-command/"), "{location}");
        let row = big.to_item();
        assert_eq!(row.get("attributes"), Some(&AttributeValue::S(location)));

        let stored = CommandModel::from_item(&row).unwrap();
        assert!(stored.attributes.is_empty());
        assert!(
            stored.to_input(2).is_err(),
            "never an input without its attributes"
        );
        let refused = resolve(None, stored.clone()).await.unwrap_err();
        assert!(matches!(refused, CqrsError::Object { .. }), "{refused}");
        let back = resolve(Some(&large), stored).await.unwrap();
        assert_eq!(back.attributes, big.attributes);
        let _cleanup = std::fs::remove_dir_all(root);
    }
}
