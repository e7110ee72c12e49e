//! TagResource, UntagResource and ListTagsOfResource.

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::{limits, messages};

use crate::Engine;
use crate::api::*;
use crate::catalog::TableRecord;
use crate::catalog::TagRecord;
use crate::error::{EngineError, Result};

impl Engine {
    pub async fn tag_resource(&self, input: TagResourceInput) -> Result<()> {
        let mut c = Constraints::new();
        c.not_null("resourceArn", input.resource_arn.as_ref());
        c.not_null("tags", input.tags.as_ref());
        c.finish()?;
        let tags = check_tags(&input.tags.unwrap_or_default())?;
        self.update_tags(input.resource_arn.unwrap_or_default(), move |current| {
            for tag in tags {
                current.retain(|t| t.key != tag.key);
                current.push(tag);
            }
            if current.len() > limits::MAX_TAGS_PER_RESOURCE {
                return Err(EngineError::validation(messages::TOO_MANY_TAGS));
            }
            Ok(())
        })
        .await
    }

    pub async fn untag_resource(&self, input: UntagResourceInput) -> Result<()> {
        let mut c = Constraints::new();
        c.not_null("resourceArn", input.resource_arn.as_ref());
        c.not_null("tagKeys", input.tag_keys.as_ref());
        c.finish()?;
        let remove = input.tag_keys.unwrap_or_default();
        self.update_tags(input.resource_arn.unwrap_or_default(), move |current| {
            current.retain(|t| !remove.contains(&t.key));
            Ok(())
        })
        .await
    }

    pub fn list_tags_of_resource(
        &self,
        input: ListTagsOfResourceInput,
    ) -> Result<ListTagsOfResourceOutput> {
        let mut c = Constraints::new();
        c.not_null("resourceArn", input.resource_arn.as_ref());
        c.finish()?;
        let arn = input.resource_arn.unwrap_or_default();
        let record = self.table_of_arn(&arn)?;
        Ok(ListTagsOfResourceOutput {
            tags: record
                .tags
                .iter()
                .map(|t| Tag {
                    key: Some(t.key.clone()),
                    value: Some(t.value.clone()),
                })
                .collect(),
            next_token: None,
        })
    }

    async fn update_tags(
        &self,
        arn: String,
        change: impl FnOnce(&mut Vec<TagRecord>) -> Result<()> + Send + 'static,
    ) -> Result<()> {
        let name = table_name_of_arn(&arn)?;
        let catalog = self.catalog.clone();
        self.writer
            .submit(true, move |w| {
                let current = catalog
                    .get(&name)
                    .ok_or_else(|| resource_arn_not_found(&arn))?;
                let mut next = (*current).clone();
                change(&mut next.tags)?;
                catalog.stage(w, Arc::new(next))
            })
            .await
    }

    fn table_of_arn(&self, arn: &str) -> Result<Arc<TableRecord>> {
        let name = table_name_of_arn(arn)?;
        self.catalog
            .get(&name)
            .ok_or_else(|| resource_arn_not_found(arn))
    }
}

/// The table a tagging request's ARN names; anything else is refused with the text AWS
/// has for its kind (not an ARN, another service's, an index's, else malformed).
fn table_name_of_arn(arn: &str) -> Result<String> {
    if let Some(name) = crate::arn::parse_table(arn) {
        return Ok(name.to_owned());
    }
    let message = if !arn.starts_with("arn:") {
        messages::arn_without_prefix(arn)
    } else if arn.split(':').nth(2) != Some("dynamodb") {
        messages::not_a_dynamodb_arn(arn)
    } else if crate::arn::parse_stream(arn).is_none()
        && arn
            .splitn(6, ':')
            .nth(5)
            .and_then(|r| r.strip_prefix("table/"))
            .is_some_and(|r| r.contains('/'))
    {
        messages::not_a_table_or_stream_arn(arn)
    } else {
        messages::invalid_arn(arn)
    };
    Err(EngineError::validation(message))
}

pub(super) fn resource_arn_not_found(arn: &str) -> EngineError {
    EngineError::ResourceNotFound(messages::resource_arn_not_found(arn))
}

/// The tags of a request, validated, in their stored form.
pub(super) fn check_tags(tags: &[Tag]) -> Result<Vec<TagRecord>> {
    let mut c = Constraints::new();
    for (i, tag) in tags.iter().enumerate() {
        let path = format!("tags.{}.member", i + 1);
        match &tag.key {
            None => c.not_null::<()>(&format!("{path}.key"), None),
            Some(k) => c.length(
                &format!("{path}.key"),
                k,
                k.chars().count(),
                1,
                limits::MAX_TAG_KEY_LEN,
            ),
        }
        match &tag.value {
            None => c.not_null::<()>(&format!("{path}.value"), None),
            Some(v) => c.length(
                &format!("{path}.value"),
                v,
                v.chars().count(),
                0,
                limits::MAX_TAG_VALUE_LEN,
            ),
        }
    }
    c.finish()?;
    for tag in tags {
        let key = tag.key.as_deref().unwrap_or_default();
        let value = tag.value.as_deref().unwrap_or_default();
        if !key.chars().all(allowed_in_tags) {
            return Err(EngineError::validation(messages::invalid_tag_characters(
                "key", key,
            )));
        }
        if !value.chars().all(allowed_in_tags) {
            return Err(EngineError::validation(messages::invalid_tag_characters(
                "value", value,
            )));
        }
        if key.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("aws:")) {
            return Err(EngineError::validation(messages::reserved_tag_key(key)));
        }
    }
    if tags.len() > limits::MAX_TAGS_PER_RESOURCE {
        return Err(EngineError::validation(messages::TOO_MANY_TAGS));
    }
    Ok(tags
        .iter()
        .map(|t| TagRecord {
            key: t.key.clone().unwrap_or_default(),
            value: t.value.clone().unwrap_or_default(),
        })
        .collect())
}

/// AWS's tag alphabet: letters, digits and white space of any script, and `_.:/=+-@`.
fn allowed_in_tags(c: char) -> bool {
    c.is_alphanumeric() || c.is_whitespace() || "_.:/=+-@".contains(c)
}
