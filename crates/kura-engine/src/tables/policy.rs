//! PutResourcePolicy, GetResourcePolicy and DeleteResourcePolicy: a table's policy lives
//! on its catalog record, a stream's on the record's stream spec. The server checks the
//! document (it knows IAM policies); the engine stores it with a revision id.

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::{limits, messages};

use crate::Engine;
use crate::api::*;
use crate::catalog::{PublishedTable, ResourcePolicyRecord, TableRecord};
use crate::error::{EngineError, Result};

use super::tags::resource_arn_not_found;

/// The `ExpectedRevisionId` that asks for "no policy yet" (API Reference, PutResourcePolicy).
const NO_POLICY: &str = "NO_POLICY";

/// The resource a policy ARN names.
enum Target {
    Table(String),
    Stream(String, String),
}

fn target(arn: &str) -> Result<Target> {
    if let Some(name) = crate::arn::parse_table(arn) {
        return Ok(Target::Table(name.to_owned()));
    }
    if let Some((table, label)) = crate::arn::parse_stream(arn) {
        return Ok(Target::Stream(table.to_owned(), label.to_owned()));
    }
    Err(EngineError::validation(messages::invalid_arn(arn)))
}

/// The policy slot of `record` the ARN names; None when the stream is not the table's.
fn slot<'a>(
    record: &'a mut TableRecord,
    target: &Target,
) -> Option<&'a mut Option<ResourcePolicyRecord>> {
    match target {
        Target::Table(_) => Some(&mut record.resource_policy),
        Target::Stream(_, label) => match &mut record.stream {
            Some(spec) if &spec.label == label => Some(&mut spec.policy),
            _ => None,
        },
    }
}

fn table_of(target: &Target) -> &str {
    match target {
        Target::Table(t) | Target::Stream(t, _) => t,
    }
}

/// A new revision id: a decimal millisecond time, greater than the one it replaces.
pub(super) fn next_revision(now_ms: i64, previous: Option<&ResourcePolicyRecord>) -> String {
    let last = previous
        .and_then(|p| p.revision_id.parse::<i64>().ok())
        .unwrap_or(0);
    now_ms.max(last.saturating_add(1)).to_string()
}

/// The size check PutResourcePolicy and CreateTable's `ResourcePolicy` share.
pub fn check_policy_size(policy: &str) -> Result<()> {
    if policy.len() > limits::MAX_RESOURCE_POLICY_BYTES {
        return Err(EngineError::LimitExceeded(messages::policy_too_large(
            policy.len(),
        )));
    }
    Ok(())
}

impl Engine {
    pub async fn put_resource_policy(
        &self,
        input: PutResourcePolicyInput,
    ) -> Result<ResourcePolicyRevision> {
        let mut c = Constraints::new();
        c.not_null("resourceArn", input.resource_arn.as_ref());
        c.not_null("policy", input.policy.as_ref());
        c.finish()?;
        let arn = input.resource_arn.unwrap_or_default();
        let policy = input.policy.unwrap_or_default();
        let target = target(&arn)?;
        check_policy_size(&policy)?;
        let expected = input.expected_revision_id;
        let catalog = self.catalog.clone();
        self.writer
            .submit(true, move |w| {
                let current = catalog
                    .get(table_of(&target))
                    .ok_or_else(|| resource_arn_not_found(&arn))?;
                let mut next = (*current).clone();
                let slot = slot(&mut next, &target).ok_or_else(|| resource_arn_not_found(&arn))?;
                let table = table_of(&target);
                match (expected.as_deref(), slot.as_ref()) {
                    (None, _) | (Some(NO_POLICY), None) => {}
                    (Some(NO_POLICY), Some(p)) => {
                        return Err(EngineError::PolicyNotFound(messages::policy_exists(
                            table,
                            &p.revision_id,
                        )));
                    }
                    (Some(_), None) => {
                        return Err(EngineError::PolicyNotFound(messages::policy_not_found(
                            &arn,
                        )));
                    }
                    (Some(e), Some(p)) if e != p.revision_id => {
                        return Err(EngineError::PolicyNotFound(
                            messages::policy_revision_mismatch(table, e, &p.revision_id),
                        ));
                    }
                    (Some(_), Some(_)) => {}
                }
                // The same document again keeps its revision (PutResourcePolicy is
                // idempotent, API Reference).
                if let Some(p) = slot.as_ref()
                    && p.policy == policy
                {
                    return Ok(p.revision_id.clone());
                }
                let revision_id = next_revision(w.now_ms(), slot.as_ref());
                *slot = Some(ResourcePolicyRecord {
                    policy,
                    revision_id: revision_id.clone(),
                });
                catalog.stage(w, Arc::new(next))?;
                Ok(revision_id)
            })
            .await
            .map(|revision_id| ResourcePolicyRevision { revision_id })
    }

    pub fn get_resource_policy(
        &self,
        input: GetResourcePolicyInput,
    ) -> Result<GetResourcePolicyOutput> {
        let mut c = Constraints::new();
        c.not_null("resourceArn", input.resource_arn.as_ref());
        c.finish()?;
        let arn = input.resource_arn.unwrap_or_default();
        match self.resource_policy(&arn)? {
            Some(p) => Ok(GetResourcePolicyOutput {
                policy: p.policy,
                revision_id: p.revision_id,
            }),
            None => Err(EngineError::PolicyNotFound(messages::policy_not_found(
                &arn,
            ))),
        }
    }

    pub async fn delete_resource_policy(
        &self,
        input: DeleteResourcePolicyInput,
    ) -> Result<DeleteResourcePolicyOutput> {
        let mut c = Constraints::new();
        c.not_null("resourceArn", input.resource_arn.as_ref());
        c.finish()?;
        let arn = input.resource_arn.unwrap_or_default();
        let target = target(&arn)?;
        let expected = input.expected_revision_id;
        let catalog = self.catalog.clone();
        self.writer
            .submit(true, move |w| {
                let current = catalog
                    .get(table_of(&target))
                    .ok_or_else(|| resource_arn_not_found(&arn))?;
                let mut next = (*current).clone();
                let slot = slot(&mut next, &target).ok_or_else(|| resource_arn_not_found(&arn))?;
                // No policy: an ExpectedRevisionId cannot match (PolicyNotFoundException);
                // without one the call succeeds with no RevisionId (API Reference).
                let Some(existing) = slot.take() else {
                    return match expected {
                        Some(_) => Err(EngineError::PolicyNotFound(messages::policy_not_found(
                            &arn,
                        ))),
                        None => Ok(None),
                    };
                };
                if let Some(e) = &expected
                    && *e != existing.revision_id
                {
                    return Err(EngineError::PolicyNotFound(
                        messages::policy_revision_mismatch(
                            table_of(&target),
                            e,
                            &existing.revision_id,
                        ),
                    ));
                }
                catalog.stage(w, Arc::new(next))?;
                Ok(Some(existing.revision_id))
            })
            .await
            .map(|revision_id| DeleteResourcePolicyOutput { revision_id })
    }

    /// The resource-based policy of the table or stream `arn` names (an index ARN: its
    /// table's, as DynamoDB applies a table's policy to its indexes). Ok(None) when there
    /// is none; ResourceNotFound for an unknown table or stream.
    pub fn resource_policy(&self, arn: &str) -> Result<Option<ResourcePolicyRecord>> {
        policy_of(arn, |table| self.catalog.get(table))
    }

    /// [`Engine::resource_policy`] with the table from `read` (a front end that holds the
    /// request's copy of the table passes it, instead of reading it again).
    pub fn resource_policy_with(
        arn: &str,
        read: impl FnOnce(&str) -> Option<PublishedTable>,
    ) -> Result<Option<ResourcePolicyRecord>> {
        policy_of(arn, |table| read(table).map(|published| published.0))
    }
}

/// The policy `arn` names, in the record `read` finds for its table.
fn policy_of(
    arn: &str,
    read: impl FnOnce(&str) -> Option<Arc<TableRecord>>,
) -> Result<Option<ResourcePolicyRecord>> {
    let target = match arn.split_once("/index/") {
        Some((table_arn, _)) => target(table_arn)?,
        None => target(arn)?,
    };
    let record = read(table_of(&target)).ok_or_else(|| resource_arn_not_found(arn))?;
    match &target {
        Target::Table(_) => Ok(record.resource_policy.clone()),
        Target::Stream(_, label) => match &record.stream {
            Some(spec) if &spec.label == label => Ok(spec.policy.clone()),
            _ => Err(resource_arn_not_found(arn)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_grow() {
        assert_eq!(next_revision(1000, None), "1000");
        let p = ResourcePolicyRecord {
            policy: "{}".into(),
            revision_id: "5000".into(),
        };
        assert_eq!(next_revision(1000, Some(&p)), "5001");
        assert_eq!(next_revision(9000, Some(&p)), "9000");
    }

    #[test]
    fn size_limit() {
        assert!(check_policy_size(&"x".repeat(20 * 1024)).is_ok());
        assert!(matches!(
            check_policy_size(&"x".repeat(20 * 1024 + 1)),
            Err(EngineError::LimitExceeded(_))
        ));
    }
}
