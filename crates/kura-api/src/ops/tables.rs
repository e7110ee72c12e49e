//! Table family: CreateTable, DescribeTable, ListTables, UpdateTable, DeleteTable, tags,
//! DescribeLimits, DescribeEndpoints, resource-based policies.

use kura_engine::api::{
    CreateTableInput, DeleteResourcePolicyInput, GetResourcePolicyInput, ListTablesInput,
    ListTagsOfResourceInput, PutResourcePolicyInput, TableNameInput, TagResourceInput,
    UntagResourceInput, UpdateTableInput, UpdateTimeToLiveInput,
};
use kura_model::messages;

use super::input::{NoMembers, begin, control_inputs};
use super::{Call, json};
use crate::error::ApiError;

control_inputs! {
    CreateTableInput => table_name;
    TableNameInput => table_name;
    ListTablesInput => -;
    UpdateTableInput => table_name;
    UpdateTimeToLiveInput => table_name;
    TagResourceInput => resource_arn;
    UntagResourceInput => resource_arn;
    ListTagsOfResourceInput => resource_arn;
    PutResourcePolicyInput => resource_arn;
    GetResourcePolicyInput => resource_arn;
    DeleteResourcePolicyInput => resource_arn;
}

pub async fn create_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: CreateTableInput = begin(&call).await?;
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
    let input: PutResourcePolicyInput = begin(&call).await?;
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

pub async fn get_resource_policy(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.get_resource_policy(begin(&call).await?)?)
}

pub async fn delete_resource_policy(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(
        &call
            .engine
            .delete_resource_policy(begin(&call).await?)
            .await?,
    )
}

pub async fn describe_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(
        &call
            .engine
            .describe_table(&call.ctx, begin(&call).await?)
            .await?,
    )
}

pub async fn update_time_to_live(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input = begin(&call).await?;
    match call.regions {
        Some(regions) => json(&regions.update_time_to_live(call.engine, input).await?),
        None => json(&call.engine.update_time_to_live(input).await?),
    }
}

pub async fn describe_time_to_live(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.describe_time_to_live(begin(&call).await?)?)
}

pub async fn list_tables(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.list_tables(begin(&call).await?)?)
}

pub async fn update_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input = begin(&call).await?;
    match call.regions {
        Some(regions) => json(&regions.update_table(call.engine, &call.ctx, input).await?),
        None => json(&call.engine.update_table(&call.ctx, input).await?),
    }
}

pub async fn delete_table(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(
        &call
            .engine
            .delete_table(&call.ctx, begin(&call).await?)
            .await?,
    )
}

/// TagResource and UntagResource answer an empty body, as DynamoDB does (erlcloud PR
/// #502; the API Reference lists no response elements).
pub async fn tag_resource(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    call.engine.tag_resource(begin(&call).await?).await?;
    Ok(Vec::new())
}

pub async fn untag_resource(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    call.engine.untag_resource(begin(&call).await?).await?;
    Ok(Vec::new())
}

pub async fn list_tags_of_resource(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    json(&call.engine.list_tags_of_resource(begin(&call).await?)?)
}

pub async fn describe_limits(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let _: NoMembers = begin(&call).await?;
    json(&call.engine.describe_limits())
}

pub async fn describe_endpoints(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let _: NoMembers = begin(&call).await?;
    json(&call.engine.describe_endpoints(&call.host))
}
