//! Authorization: after a request is parsed and before the engine runs it, the verified
//! principal's identity policies (kura-auth) decide on every action the request performs.
//!
//! Each operation family turns its parsed input into [`Check`]s — the IAM action, the
//! resource ARN, the DynamoDB condition keys (`dynamodb:LeadingKeys`,
//! `dynamodb:Attributes`, ...) — in its own module (`items`, `partiql`, `streams`); this
//! module adds the global keys (`aws:username`, `aws:PrincipalTag/...`, `aws:SourceIp`,
//! `aws:CurrentTime`) and evaluates. The engine never sees an identity.
//!
//! The resource-based policy of the table (for the table and its indexes) or of the stream
//! a check names joins the identity policies as IAM combines them within one account: an
//! explicit Deny in either refuses, otherwise an Allow in either suffices.
//!
//! Nothing is computed when Kura runs open or when the principal has no `Policies` in the
//! credentials file (then everything is allowed, as before policies existed; resource
//! policies too govern only principals that have `Policies`).

pub(crate) mod accounts;
pub(crate) mod backups;
pub(crate) mod items;
pub(crate) mod kinesis;
pub(crate) mod partiql;
pub(crate) mod streams;

use std::net::IpAddr;

use kura_auth::{
    Decision, Policy, Principal, PrincipalKind, RequestContext, Resource, evaluate_on,
};
use kura_engine::Engine;
use kura_model::messages;

use crate::call::Call;
use crate::error::ApiError;
use crate::operation::Op;

/// One action on one resource, with the request's condition keys for it.
#[derive(Debug, Clone)]
pub(crate) struct Check {
    /// `dynamodb`, or `s3` for the objects an export writes and an import reads.
    pub service: &'static str,
    /// The operation name, without the service.
    pub action: &'static str,
    pub resource: String,
    /// The check is on every resource under `resource` (a prefix ending in `*`): an Allow
    /// must cover them all, a Deny of any one of them refuses.
    pub every_key_under: bool,
    pub keys: Vec<(&'static str, Vec<String>)>,
}

impl Check {
    pub fn new(action: &'static str, resource: String) -> Check {
        Check {
            service: "dynamodb",
            action,
            resource,
            every_key_under: false,
            keys: Vec::new(),
        }
    }

    /// The IAM action of `op` itself (the operation table's column) on `resource`.
    pub fn of(op: Op, resource: String) -> Check {
        Check {
            service: op.iam_service(),
            ..Check::new(op.name(), resource)
        }
    }

    /// An S3 action, as IAM asks it of the caller of an export or an import.
    pub fn s3(action: &'static str, resource: String) -> Check {
        Check {
            service: "s3",
            ..Check::new(action, resource)
        }
    }

    /// An S3 action on every object whose key starts with `prefix` in `bucket`.
    pub fn s3_objects_under(action: &'static str, bucket: &str, prefix: &str) -> Check {
        Check {
            every_key_under: true,
            ..Check::s3(action, format!("arn:aws:s3:::{bucket}/{prefix}*"))
        }
    }

    /// Adds a condition key; an empty list adds nothing (the key is absent).
    pub fn key(mut self, name: &'static str, values: Vec<String>) -> Check {
        if !values.is_empty() {
            self.keys.push((name, values));
        }
        self
    }

    /// Adds a single-valued key when the request sets it.
    pub fn opt(self, name: &'static str, value: Option<&str>) -> Check {
        match value {
            Some(v) => self.key(name, vec![v.to_owned()]),
            None => self,
        }
    }
}

/// What the extraction of a family needs: the engine (for key schemas) and how to name
/// resources.
pub(crate) struct Scope<'a> {
    pub engine: &'a Engine,
    /// Key schemas, looked up once per request.
    pub schemas: &'a crate::schemas::Schemas<'a>,
    /// The request's region (resources are named in it).
    pub ctx: &'a kura_engine::RequestContext,
    account: &'a str,
}

impl Scope<'_> {
    /// `arn:aws:dynamodb:<region>:<account>:table/<name>`, in the signer's region and
    /// account (policies written for an AWS account match unchanged).
    pub fn table(&self, table: &str) -> String {
        format!(
            "arn:aws:dynamodb:{}:{}:table/{table}",
            self.ctx.region, self.account
        )
    }

    pub fn index(&self, table: &str, index: &str) -> String {
        format!("{}/index/{index}", self.table(table))
    }

    /// The table, or the index when one is named.
    pub fn target(&self, table: &str, index: Option<&str>) -> String {
        match index {
            Some(index) => self.index(table, index),
            None => self.table(table),
        }
    }

    /// A stream ARN as the client sent it, re-scoped to the signer's region and account.
    pub fn stream(&self, arn: &str) -> String {
        match arn.split_once(":table/") {
            Some((_, rest)) => self.table(rest),
            None => arn.to_owned(),
        }
    }

    /// `arn:aws:kinesis:<region>:<account>:stream/<name>`.
    pub fn kinesis_stream(&self, name: &str) -> String {
        format!(
            "arn:aws:kinesis:{}:{}:stream/{name}",
            self.ctx.region, self.account
        )
    }

    /// `*`, for ListTables, ListStreams, DescribeLimits and DescribeEndpoints.
    pub fn any(&self) -> String {
        "*".to_owned()
    }
}

/// Evaluates `checks` (computed only when the principal has policies) and refuses the
/// request at the first action the policies do not allow.
pub(crate) fn authorize(
    call: &Call<'_>,
    checks: impl FnOnce(&Scope<'_>) -> Vec<Check>,
) -> Result<(), ApiError> {
    let Some(principal) = &call.principal else {
        return Ok(());
    };
    let Some(policies) = &principal.policies else {
        return Ok(());
    };
    let scope = Scope {
        engine: call.engine,
        schemas: call.schemas,
        ctx: &call.ctx,
        account: &principal.account,
    };
    let base = global_keys(principal, call.source_ip);
    for check in checks(&scope) {
        let mut ctx = base.clone();
        for (name, values) in check.keys {
            ctx.set_all(name, values);
        }
        let action = format!("{}:{}", check.service, check.action);
        let on = match check.resource.strip_suffix('*') {
            Some(prefix) if check.every_key_under => Resource::Under(prefix),
            _ => Resource::One(&check.resource),
        };
        let identity = evaluate_on(policies, &action, on, &ctx);
        let resource = match resource_policy(call.schemas, &check.resource) {
            Some(policy) => evaluate_on(&[policy], &action, on, &ctx),
            None => Decision::ImplicitDeny,
        };
        if resource == Decision::ExplicitDeny {
            return Err(ApiError::access_denied(
                messages::auth::access_denied_by_resource_policy(
                    &principal.arn(),
                    &action,
                    &check.resource,
                ),
            ));
        }
        if identity != Decision::Allow && resource != Decision::Allow {
            return Err(ApiError::access_denied(messages::auth::access_denied(
                &principal.arn(),
                &action,
                &check.resource,
                identity == Decision::ExplicitDeny,
            )));
        }
    }
    Ok(())
}

/// The resource-based policy that governs `arn` (a table's also governs its indexes), if
/// the table or stream exists and has one. Stored policies were checked when they were
/// put, so one that no longer parses is treated as absent.
fn resource_policy(schemas: &crate::schemas::Schemas<'_>, arn: &str) -> Option<Policy> {
    let record = Engine::resource_policy_with(arn, |table| schemas.table(table))
        .ok()
        .flatten()?;
    Policy::resource_from_json(&record.policy).ok()
}

/// The global condition keys of a principal and connection.
pub fn global_keys(principal: &Principal, source_ip: Option<IpAddr>) -> RequestContext {
    let mut ctx = RequestContext::new();
    if principal.kind == PrincipalKind::User {
        ctx.set("aws:username", principal.name.clone());
    }
    ctx.set(
        "aws:PrincipalType",
        match principal.kind {
            PrincipalKind::User => "User",
            PrincipalKind::Role => "AssumedRole",
        },
    );
    ctx.set("aws:PrincipalArn", principal.arn());
    ctx.set("aws:PrincipalAccount", principal.account.clone());
    for (key, value) in &principal.tags {
        ctx.set(&format!("aws:PrincipalTag/{key}"), value.clone());
    }
    if let Some(ip) = source_ip {
        ctx.set("aws:SourceIp", ip.to_string());
    }
    ctx.set_current_time(std::time::SystemTime::now());
    ctx.set("aws:SecureTransport", "false");
    ctx
}

/// The control plane's check: the operation itself on the table a request names (a
/// `TableName`, or the table or stream of its `ResourceArn`), or on `*` for the
/// account-wide operations and those that name no table.
pub(crate) fn control(
    scope: &Scope<'_>,
    op: Op,
    table: Option<&str>,
    resource_arn: Option<&str>,
) -> Vec<Check> {
    let resource = match (table, resource_arn) {
        // A table's ARN is read as its name.
        (Some(table), _) => scope.table(table.split_once(":table/").map_or(table, |(_, t)| t)),
        (None, Some(arn)) => scope.stream(arn),
        (None, None) => scope.any(),
    };
    vec![Check::of(op, resource)]
}

/// Whether the caller of `call` may perform `op` on `table`, as the control plane asks:
/// for what a front end shows from outside the API (hot keys, the advisor's evidence).
pub fn authorize_on_table(call: &Call<'_>, op: Op, table: &str) -> Result<(), ApiError> {
    authorize(call, |scope| control(scope, op, Some(table), None))
}
