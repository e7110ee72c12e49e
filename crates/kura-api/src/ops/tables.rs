//! Table family: CreateTable, DescribeTable, ListTables, UpdateTable, DeleteTable, tags,
//! DescribeLimits, DescribeEndpoints, resource-based policies.

use kura_model::messages;

use super::{Call, json};
use crate::error::ApiError;

pub async fn create_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: kura_engine::api::CreateTableInput = call.input()?;
    if let Some(serde_json::Value::String(policy)) = &input.resource_policy {
        check_policy(policy)?;
    }
    json(&call.engine.create_table(&call.ctx, input).await?)
}

/// A resource-based policy must parse as one (a Principal in every statement); one over
/// the size limit is left to the engine's LimitExceededException.
fn check_policy(policy: &str) -> Result<(), ApiError> {
    if policy.len() > kura_model::limits::MAX_RESOURCE_POLICY_BYTES {
        return Ok(());
    }
    kura_auth::Policy::resource_from_json(policy)
        .map(drop)
        .map_err(|e| ApiError::validation(messages::invalid_policy(&e.0)))
}

pub async fn put_resource_policy(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: kura_engine::api::PutResourcePolicyInput = call.input()?;
    if let Some(policy) = &input.policy {
        check_policy(policy)?;
        if input.confirm_remove_self_resource_access != Some(true) {
            refuse_self_lockout(&call, input.resource_arn.as_deref(), policy)?;
        }
    }
    json(&call.engine.put_resource_policy(input).await?)
}

/// A policy that explicitly denies the caller PutResourcePolicy on the resource needs
/// `ConfirmRemoveSelfResourceAccess` (API Reference, PutResourcePolicy).
fn refuse_self_lockout(call: &Call<'_>, arn: Option<&str>, policy: &str) -> Result<(), ApiError> {
    let (Some(principal), Some(arn)) = (&call.principal, arn) else {
        return Ok(());
    };
    let Ok(parsed) = kura_auth::Policy::resource_from_json(policy) else {
        return Ok(());
    };
    let ctx = crate::authz::global_keys(principal, call.source_ip);
    let decision = kura_auth::evaluate(&[parsed], "dynamodb:PutResourcePolicy", arn, &ctx);
    if decision == kura_auth::Decision::ExplicitDeny {
        return Err(ApiError::validation(messages::policy_self_lockout()));
    }
    Ok(())
}

pub fn get_resource_policy(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.get_resource_policy(call.input()?)?)
}

pub async fn delete_resource_policy(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.delete_resource_policy(call.input()?).await?)
}

pub async fn describe_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_table(&call.ctx, call.input()?).await?)
}

pub async fn update_time_to_live(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input = call.input()?;
    match call.regions {
        Some(regions) => json(&regions.update_time_to_live(call.engine, input).await?),
        None => json(&call.engine.update_time_to_live(input).await?),
    }
}

pub fn describe_time_to_live(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_time_to_live(call.input()?)?)
}

pub fn list_tables(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.list_tables(call.input()?)?)
}

pub async fn update_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input = call.input()?;
    match call.regions {
        Some(regions) => json(&regions.update_table(call.engine, &call.ctx, input).await?),
        None => json(&call.engine.update_table(&call.ctx, input).await?),
    }
}

pub async fn delete_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.delete_table(&call.ctx, call.input()?).await?)
}

/// TagResource and UntagResource answer an empty body, as DynamoDB does (erlcloud PR
/// #502; the API Reference lists no response elements).
pub async fn tag_resource(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    call.engine.tag_resource(call.input()?).await?;
    Ok(Vec::new())
}

pub async fn untag_resource(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    call.engine.untag_resource(call.input()?).await?;
    Ok(Vec::new())
}

pub fn list_tags_of_resource(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.list_tags_of_resource(call.input()?)?)
}

pub fn describe_limits(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_limits())
}

pub fn describe_endpoints(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_endpoints(&call.host))
}
