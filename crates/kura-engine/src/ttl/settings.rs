//! UpdateTimeToLive and DescribeTimeToLive.
//!
//! The status goes straight to ENABLED or DISABLED: DynamoDB's ENABLING and DISABLING are
//! not observed in practice (docs/compat.md). Enabling indexes the items already in the
//! table in the background; until then they expire as the sweeper reaches them.

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::{limits, messages};

use crate::Engine;
use crate::api::*;
use crate::catalog::TtlSpec;
use crate::error::{EngineError, Result};

/// DynamoDB allows one TTL change per table per hour (Developer Guide).
const CHANGE_INTERVAL_MS: i64 = 3600 * 1000;

impl Engine {
    pub async fn update_time_to_live(
        &self,
        input: UpdateTimeToLiveInput,
    ) -> Result<UpdateTimeToLiveOutput> {
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        let spec = input.time_to_live_specification.clone().unwrap_or_default();
        match &input.time_to_live_specification {
            None => c.not_null::<()>("timeToLiveSpecification", None),
            Some(s) => {
                c.not_null("timeToLiveSpecification.enabled", s.enabled.as_ref());
                match &s.attribute_name {
                    None => c.not_null::<()>("timeToLiveSpecification.attributeName", None),
                    Some(name) => c.length(
                        "timeToLiveSpecification.attributeName",
                        name,
                        name.len(),
                        1,
                        limits::MAX_KEY_ATTRIBUTE_NAME_BYTES,
                    ),
                }
            }
        }
        c.finish()?;
        let name = input.table_name.unwrap_or_default();
        let enable = spec.enabled.unwrap_or(false);
        let attribute = spec.attribute_name.clone().unwrap_or_default();
        let catalog = self.catalog.clone();
        let sweeper = self.sweeper.clone();
        self.writer
            .submit(true, move |w| {
                let current = catalog.get(&name).ok_or_else(|| {
                    EngineError::ResourceNotFound(messages::table_not_found(&name))
                })?;
                let now = w.now_ms();
                let active = current.ttl.as_ref().filter(|t| t.enabled);
                match (active, enable) {
                    (Some(t), true) if t.attribute == attribute => {
                        return Err(EngineError::validation(messages::TTL_ALREADY_ENABLED));
                    }
                    (Some(t), _) if t.attribute != attribute => {
                        return Err(EngineError::validation(messages::ttl_other_attribute(
                            &t.attribute,
                        )));
                    }
                    (None, false) => {
                        return Err(EngineError::validation(messages::TTL_ALREADY_DISABLED));
                    }
                    _ => {}
                }
                if current
                    .ttl
                    .as_ref()
                    .is_some_and(|t| now.saturating_sub(t.changed_ms) < CHANGE_INTERVAL_MS)
                {
                    return Err(EngineError::validation(messages::TTL_CHANGED_RECENTLY));
                }
                let mut next = current.as_ref().clone();
                next.ttl = Some(TtlSpec {
                    attribute: attribute.clone(),
                    enabled: enable,
                    changed_ms: now,
                    indexed: false,
                });
                let next = Arc::new(next);
                catalog.stage(w, next)?;
                w.after_commit(move || sweeper.wake());
                Ok(())
            })
            .await?;
        Ok(UpdateTimeToLiveOutput {
            time_to_live_specification: spec,
        })
    }

    pub fn describe_time_to_live(
        &self,
        input: DescribeTableInput,
    ) -> Result<DescribeTimeToLiveOutput> {
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        c.finish()?;
        let name = input.table_name.unwrap_or_default();
        let table = self
            .catalog
            .get(&name)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::table_not_found(&name)))?;
        let description = match table.ttl.as_ref().filter(|t| t.enabled) {
            Some(t) => TimeToLiveDescription {
                time_to_live_status: "ENABLED",
                attribute_name: Some(t.attribute.clone()),
            },
            None => TimeToLiveDescription {
                time_to_live_status: "DISABLED",
                attribute_name: None,
            },
        };
        Ok(DescribeTimeToLiveOutput {
            time_to_live_description: description,
        })
    }
}
