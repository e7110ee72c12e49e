//! IAM identity policies: parsing and evaluation as AWS evaluates them.
//!
//! A [`Policy`] is an IAM policy document (`Version`, `Statement` as an object or a list,
//! `Sid`, `Effect`, `Action`/`NotAction`, `Resource`/`NotResource`, `Condition`).
//! [`evaluate`] answers one request — an action (`dynamodb:GetItem`), a resource ARN and
//! the request's condition keys ([`RequestContext`]) — against a principal's policies:
//! an explicit `Deny` wins, otherwise an `Allow` is needed, and nothing matching is an
//! implicit deny.
//!
//! Matching follows IAM: action names are compared without regard to case, resources
//! and `StringLike` values with case; `*` matches any run of characters and `?` any one;
//! condition operators are AND-ed, the keys of one operator AND-ed, the values of one key
//! OR-ed. Policy variables (`${aws:username}`, `${aws:PrincipalTag/tenant}`, `${*}`,
//! `${?}`, `${$}`) are replaced in `Resource`/`NotResource` and in condition values of
//! documents with `"Version": "2012-10-17"`; a variable whose key the request lacks makes
//! the resource or the condition value match nothing.
//!
//! Resource-based policies ([`Policy::resource_from_json`]) are the same documents with a
//! `Principal` in every statement; a statement applies only when its principal names the
//! requester (`aws:PrincipalArn`, or its account by id or `:root` ARN, or `*`).

use serde_json::Value;

mod conditions;
mod context;
mod glob;

pub use context::RequestContext;
use context::substitute;
pub use glob::glob;
use glob::glob_prefix;

use conditions::{Condition, Op, SetOp};

/// A policy that does not parse: the reason, for the credentials file's error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError(pub String);

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(message: impl Into<String>) -> Result<T, PolicyError> {
    Err(PolicyError(message.into()))
}

/// One parsed IAM policy document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    statements: Vec<Statement>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    Allow,
    Deny,
}

/// A list of patterns, or its negation (`NotAction`, `NotResource`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Patterns {
    negated: bool,
    patterns: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Statement {
    effect: Effect,
    actions: Patterns,
    /// None: the statement names no resource (AWS refuses that for identity policies;
    /// Kura refuses it at parse time too).
    resources: Patterns,
    conditions: Vec<Condition>,
    variables: bool,
    /// The `Principal` of a resource-based policy statement (`*`, or the `AWS` values);
    /// None in an identity policy, whose principal is the one it is attached to.
    principals: Option<Vec<String>>,
}

/// A JSON value that IAM reads as one string or a list of strings (numbers and booleans
/// stand for their text).
fn strings(value: &Value, what: &str) -> Result<Vec<String>, PolicyError> {
    fn one(v: &Value, what: &str) -> Result<String, PolicyError> {
        match v {
            Value::String(s) => Ok(s.clone()),
            Value::Bool(b) => Ok(b.to_string()),
            Value::Number(n) => Ok(n.to_string()),
            _ => err(format!("{what} must be a string or a list of strings")),
        }
    }
    match value {
        Value::Array(items) => items.iter().map(|v| one(v, what)).collect(),
        v => Ok(vec![one(v, what)?]),
    }
}

/// An `Allow` statement as the design advisor reads it (docs/advisor.md, the identity
/// rules): what it grants, on what, and whether a condition narrows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant<'a> {
    /// The action patterns (`dynamodb:GetItem`, `dynamodb:*`, `*`).
    pub actions: &'a [String],
    /// `NotAction`: the grant is every action but these.
    pub not_actions: bool,
    /// The resource patterns (ARNs with `*` and `?`).
    pub resources: &'a [String],
    /// `NotResource`: every resource but these.
    pub not_resources: bool,
    pub conditional: bool,
}

impl Policy {
    /// The policy's `Allow` statements.
    pub fn grants(&self) -> impl Iterator<Item = Grant<'_>> {
        self.statements
            .iter()
            .filter(|s| s.effect == Effect::Allow)
            .map(|s| Grant {
                actions: &s.actions.patterns,
                not_actions: s.actions.negated,
                resources: &s.resources.patterns,
                not_resources: s.resources.negated,
                conditional: !s.conditions.is_empty(),
            })
    }

    /// Parses an identity policy document given as JSON text.
    pub fn from_json(text: &str) -> Result<Policy, PolicyError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| PolicyError(format!("not JSON: {e}")))?;
        Policy::from_value(&value)
    }

    /// Parses an identity policy document given as a JSON value.
    pub fn from_value(value: &Value) -> Result<Policy, PolicyError> {
        Policy::parse(value, false)
    }

    /// Parses a resource-based policy (PutResourcePolicy's `Policy`): every statement names
    /// its `Principal`.
    pub fn resource_from_json(text: &str) -> Result<Policy, PolicyError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| PolicyError(format!("not JSON: {e}")))?;
        Policy::parse(&value, true)
    }

    fn parse(value: &Value, resource_based: bool) -> Result<Policy, PolicyError> {
        let Value::Object(doc) = value else {
            return err("a policy must be a JSON object");
        };
        let mut variables = false;
        let mut statements = Vec::new();
        for (name, v) in doc {
            match name.as_str() {
                "Version" => match v.as_str() {
                    Some("2012-10-17") => variables = true,
                    Some("2008-10-17") => variables = false,
                    _ => return err("Version must be \"2012-10-17\" or \"2008-10-17\""),
                },
                "Id" => {}
                "Statement" => match v {
                    Value::Array(list) => {
                        for s in list {
                            statements.push(Statement::parse(s, resource_based)?);
                        }
                    }
                    s => statements.push(Statement::parse(s, resource_based)?),
                },
                other => return err(format!("unknown policy element {other:?}")),
            }
        }
        if !doc.contains_key("Statement") {
            return err("a policy needs a Statement");
        }
        for s in &mut statements {
            s.variables = variables;
        }
        Ok(Policy { statements })
    }
}

impl Statement {
    fn parse(value: &Value, resource_based: bool) -> Result<Statement, PolicyError> {
        let Value::Object(s) = value else {
            return err("a Statement must be an object");
        };
        let mut principals = None;
        let mut effect = None;
        let mut actions = None;
        let mut resources = None;
        let mut conditions = Vec::new();
        for (name, v) in s {
            match name.as_str() {
                "Sid" => {
                    if !v.is_string() {
                        return err("Sid must be a string");
                    }
                }
                "Effect" => {
                    effect = Some(match v.as_str() {
                        Some("Allow") => Effect::Allow,
                        Some("Deny") => Effect::Deny,
                        _ => return err("Effect must be \"Allow\" or \"Deny\""),
                    })
                }
                "Action" | "NotAction" => {
                    if actions.is_some() {
                        return err("give one of Action and NotAction");
                    }
                    let patterns = strings(v, name)?;
                    for p in &patterns {
                        if p != "*" && !p.contains(':') {
                            return err(format!("action {p:?} must be service:Name"));
                        }
                    }
                    actions = Some(Patterns {
                        negated: name == "NotAction",
                        patterns,
                    });
                }
                "Resource" | "NotResource" => {
                    if resources.is_some() {
                        return err("give one of Resource and NotResource");
                    }
                    resources = Some(Patterns {
                        negated: name == "NotResource",
                        patterns: strings(v, name)?,
                    });
                }
                "Condition" => parse_conditions(v, &mut conditions)?,
                "Principal" if resource_based => principals = Some(parse_principal(v)?),
                "NotPrincipal" if resource_based => {
                    return err("NotPrincipal is not supported; name the Principal");
                }
                "Principal" | "NotPrincipal" => {
                    return err("an identity policy names no Principal");
                }
                other => return err(format!("unknown statement element {other:?}")),
            }
        }
        let Some(effect) = effect else {
            return err("a Statement needs an Effect");
        };
        let Some(actions) = actions else {
            return err("a Statement needs an Action or NotAction");
        };
        let Some(resources) = resources else {
            return err("a Statement needs a Resource or NotResource");
        };
        if resource_based && principals.is_none() {
            return err("a resource-based policy Statement needs a Principal");
        }
        Ok(Statement {
            effect,
            actions,
            resources,
            conditions,
            variables: true,
            principals,
        })
    }

    /// Whether the statement's `Principal` names the requester (`aws:PrincipalArn`,
    /// `aws:PrincipalAccount` of `ctx`); always true for an identity policy.
    fn names_principal(&self, ctx: &RequestContext) -> bool {
        let Some(principals) = &self.principals else {
            return true;
        };
        let arn = ctx.get("aws:PrincipalArn").and_then(|v| v.first());
        let account = ctx.get("aws:PrincipalAccount").and_then(|v| v.first());
        principals.iter().any(|p| {
            p == "*"
                || arn.is_some_and(|a| a == p)
                || account.is_some_and(|a| p == a || *p == format!("arn:aws:iam::{a}:root"))
        })
    }
}

/// A resource policy's `Principal`: `"*"`, or `{"AWS": ...}` with account ids, account
/// root ARNs, user and role ARNs, or `"*"`. Other principal types (`Service`,
/// `Federated`, `CanonicalUser`) are accepted and name no Kura principal. Anything else is
/// DynamoDB's "Invalid principal in policy document." (hashicorp/terraform-provider-aws
/// issue #42933 quotes it).
fn parse_principal(value: &Value) -> Result<Vec<String>, PolicyError> {
    const INVALID: &str = "Invalid principal in policy document.";
    match value {
        Value::String(s) if s == "*" => Ok(vec!["*".to_owned()]),
        Value::Object(map) => {
            let mut out = Vec::new();
            for (kind, v) in map {
                match kind.as_str() {
                    "AWS" => {
                        let values =
                            strings(v, "Principal AWS").map_err(|_| PolicyError(INVALID.into()))?;
                        if !values.iter().all(|p| aws_principal(p)) {
                            return err(INVALID);
                        }
                        out.extend(values);
                    }
                    "Service" | "Federated" | "CanonicalUser" => {
                        strings(v, kind)?;
                    }
                    _ => return err(INVALID),
                }
            }
            Ok(out)
        }
        _ => err(INVALID),
    }
}

/// `*`, a 12-digit account id, or `arn:aws:iam::<account>:root|user/...|role/...`.
fn aws_principal(p: &str) -> bool {
    let account = |a: &str| a.len() == 12 && a.bytes().all(|b| b.is_ascii_digit());
    if p == "*" || account(p) {
        return true;
    }
    let Some(rest) = p.strip_prefix("arn:aws:iam::") else {
        return false;
    };
    let Some((acct, resource)) = rest.split_once(':') else {
        return false;
    };
    account(acct)
        && (resource == "root"
            || resource
                .strip_prefix("user/")
                .is_some_and(|n| !n.is_empty())
            || resource
                .strip_prefix("role/")
                .is_some_and(|n| !n.is_empty()))
}

/// The outcome of evaluating a request against a principal's policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allow,
    /// A `Deny` statement matched.
    ExplicitDeny,
    /// No `Allow` matched.
    ImplicitDeny,
}

/// What a request acts on: one resource, or every resource whose ARN starts with a
/// prefix (the objects an export will write or an import read, whose keys are not known
/// when the request is authorized).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource<'a> {
    One(&'a str),
    Under(&'a str),
}

impl Statement {
    fn applies(&self, action: &str, resource: Resource<'_>, ctx: &RequestContext) -> bool {
        if !self.names_principal(ctx) {
            return false;
        }
        let action_hit = self.actions.patterns.iter().any(|p| glob(p, action, true));
        if action_hit == self.actions.negated {
            return false;
        }
        let pattern = |p: &String| {
            if self.variables {
                substitute(p, ctx)
            } else {
                Some(p.clone())
            }
        };
        let hit = |test: &dyn Fn(&str) -> bool| {
            self.resources
                .patterns
                .iter()
                .any(|p| pattern(p).is_some_and(|p| test(&p)))
        };
        let applies = match resource {
            Resource::One(arn) => hit(&|p| glob(p, arn, false)) != self.resources.negated,
            // Over a set, an Allow must hold for every member and a Deny for any one:
            // a narrower Deny (`bucket/exports/private/*`) refuses the whole prefix.
            Resource::Under(prefix) => {
                let covers = |p: &str| p.ends_with('*') && glob(p, prefix, false);
                let touches = |p: &str| glob_prefix(p, prefix);
                match (self.effect, self.resources.negated) {
                    (Effect::Allow, false) => hit(&covers),
                    (Effect::Allow, true) => !hit(&touches),
                    (Effect::Deny, false) => hit(&touches),
                    (Effect::Deny, true) => !hit(&covers),
                }
            }
        };
        applies && self.conditions.iter().all(|c| c.holds(ctx, self.variables))
    }
}

/// Evaluates one action on one resource against `policies`: an explicit deny wins, then
/// an allow; nothing matching is an implicit deny.
pub fn evaluate(
    policies: &[Policy],
    action: &str,
    resource: &str,
    ctx: &RequestContext,
) -> Decision {
    evaluate_on(policies, action, Resource::One(resource), ctx)
}

/// [`evaluate`] on one resource or every resource under a prefix.
pub fn evaluate_on(
    policies: &[Policy],
    action: &str,
    resource: Resource<'_>,
    ctx: &RequestContext,
) -> Decision {
    let mut allowed = false;
    for statement in policies.iter().flat_map(|p| &p.statements) {
        if statement.applies(action, resource, ctx) {
            match statement.effect {
                Effect::Deny => return Decision::ExplicitDeny,
                Effect::Allow => allowed = true,
            }
        }
    }
    if allowed {
        Decision::Allow
    } else {
        Decision::ImplicitDeny
    }
}

/// A statement's `Condition`: operator (with its set and `IfExists` qualifiers) to keys to
/// values, each key's values a condition of its own.
fn parse_conditions(v: &Value, conditions: &mut Vec<Condition>) -> Result<(), PolicyError> {
    let Value::Object(ops) = v else {
        return err("Condition must be an object");
    };
    for (op_name, keys) in ops {
        let (set, rest) = if let Some(r) = op_name.strip_prefix("ForAllValues:") {
            (SetOp::ForAllValues, r)
        } else if let Some(r) = op_name.strip_prefix("ForAnyValue:") {
            (SetOp::ForAnyValue, r)
        } else {
            (SetOp::None, op_name.as_str())
        };
        let (if_exists, base) = match rest.strip_suffix("IfExists") {
            Some(base) => (true, base),
            None => (false, rest),
        };
        let Some(op) = Op::parse(base) else {
            return err(format!("unknown condition operator {op_name:?}"));
        };
        if op == Op::Null && (if_exists || set != SetOp::None) {
            return err(format!("unknown condition operator {op_name:?}"));
        }
        let Value::Object(keys) = keys else {
            return err(format!("{op_name} must map condition keys to values"));
        };
        for (key, values) in keys {
            conditions.push(Condition {
                op,
                set,
                if_exists,
                key: key.to_lowercase(),
                values: strings(values, key)?,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
