//! IAM identity policies: parsing and evaluation as AWS evaluates them.
//!
//! Over 800 lines on purpose for now: the grammar, the condition operators and their unit
//! tests are one evaluator; splitting the operators into `policy/conditions.rs` is the
//! planned next step (issue 18 follow-up).
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

use std::collections::HashMap;
use std::net::IpAddr;

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SetOp {
    None,
    ForAllValues,
    ForAnyValue,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    StringEquals,
    StringNotEquals,
    StringEqualsIgnoreCase,
    StringNotEqualsIgnoreCase,
    StringLike,
    StringNotLike,
    NumericEquals,
    NumericNotEquals,
    NumericLessThan,
    NumericLessThanEquals,
    NumericGreaterThan,
    NumericGreaterThanEquals,
    DateEquals,
    DateNotEquals,
    DateLessThan,
    DateLessThanEquals,
    DateGreaterThan,
    DateGreaterThanEquals,
    Bool,
    IpAddress,
    NotIpAddress,
    ArnEquals,
    ArnLike,
    ArnNotEquals,
    ArnNotLike,
    Null,
}

impl Op {
    fn parse(name: &str) -> Option<Op> {
        use Op::*;
        Some(match name {
            "StringEquals" => StringEquals,
            "StringNotEquals" => StringNotEquals,
            "StringEqualsIgnoreCase" => StringEqualsIgnoreCase,
            "StringNotEqualsIgnoreCase" => StringNotEqualsIgnoreCase,
            "StringLike" => StringLike,
            "StringNotLike" => StringNotLike,
            "NumericEquals" => NumericEquals,
            "NumericNotEquals" => NumericNotEquals,
            "NumericLessThan" => NumericLessThan,
            "NumericLessThanEquals" => NumericLessThanEquals,
            "NumericGreaterThan" => NumericGreaterThan,
            "NumericGreaterThanEquals" => NumericGreaterThanEquals,
            "DateEquals" => DateEquals,
            "DateNotEquals" => DateNotEquals,
            "DateLessThan" => DateLessThan,
            "DateLessThanEquals" => DateLessThanEquals,
            "DateGreaterThan" => DateGreaterThan,
            "DateGreaterThanEquals" => DateGreaterThanEquals,
            "Bool" => Bool,
            "IpAddress" => IpAddress,
            "NotIpAddress" => NotIpAddress,
            "ArnEquals" => ArnEquals,
            "ArnLike" => ArnLike,
            "ArnNotEquals" => ArnNotEquals,
            "ArnNotLike" => ArnNotLike,
            "Null" => Null,
            _ => return None,
        })
    }

    /// The negated operators: true when no policy value matches, and true for an absent key.
    fn negated(self) -> bool {
        use Op::*;
        matches!(
            self,
            StringNotEquals
                | StringNotEqualsIgnoreCase
                | StringNotLike
                | NumericNotEquals
                | DateNotEquals
                | NotIpAddress
                | ArnNotEquals
                | ArnNotLike
        )
    }

    /// Whether one context value matches one policy value, for the positive form.
    fn matches_one(self, context: &str, policy: &str) -> bool {
        use Op::*;
        match self {
            StringEquals | StringNotEquals | ArnEquals | ArnNotEquals => context == policy,
            StringEqualsIgnoreCase | StringNotEqualsIgnoreCase => {
                context.to_lowercase() == policy.to_lowercase()
            }
            StringLike | StringNotLike | ArnLike | ArnNotLike => glob(policy, context, false),
            NumericEquals | NumericNotEquals => num(context, policy, |o| o.is_eq()),
            NumericLessThan => num(context, policy, |o| o.is_lt()),
            NumericLessThanEquals => num(context, policy, |o| o.is_le()),
            NumericGreaterThan => num(context, policy, |o| o.is_gt()),
            NumericGreaterThanEquals => num(context, policy, |o| o.is_ge()),
            DateEquals | DateNotEquals => date(context, policy, |o| o.is_eq()),
            DateLessThan => date(context, policy, |o| o.is_lt()),
            DateLessThanEquals => date(context, policy, |o| o.is_le()),
            DateGreaterThan => date(context, policy, |o| o.is_gt()),
            DateGreaterThanEquals => date(context, policy, |o| o.is_ge()),
            Bool => context.eq_ignore_ascii_case(policy),
            IpAddress | NotIpAddress => ip_in(context, policy),
            Null => false,
        }
    }
}

fn num(context: &str, policy: &str, f: impl Fn(std::cmp::Ordering) -> bool) -> bool {
    match (context.trim().parse::<f64>(), policy.trim().parse::<f64>()) {
        (Ok(a), Ok(b)) => a.partial_cmp(&b).is_some_and(f),
        _ => false,
    }
}

/// RFC 3339 or epoch seconds, as IAM accepts for date conditions.
fn parse_date(text: &str) -> Option<i128> {
    if let Ok(seconds) = text.trim().parse::<i64>() {
        return Some(i128::from(seconds) * 1_000_000_000);
    }
    OffsetDateTime::parse(text.trim(), &Rfc3339)
        .ok()
        .map(|d| d.unix_timestamp_nanos())
}

fn date(context: &str, policy: &str, f: impl Fn(std::cmp::Ordering) -> bool) -> bool {
    match (parse_date(context), parse_date(policy)) {
        (Some(a), Some(b)) => f(a.cmp(&b)),
        _ => false,
    }
}

/// Whether `addr` lies in `cidr` (`203.0.113.0/24`, `2001:db8::/32`, or a bare address).
fn ip_in(addr: &str, cidr: &str) -> bool {
    let Ok(addr) = addr.trim().parse::<IpAddr>() else {
        return false;
    };
    let (net, bits) = match cidr.trim().split_once('/') {
        Some((net, bits)) => (net, bits.parse::<u32>().ok()),
        None => (cidr.trim(), None),
    };
    let Ok(net) = net.parse::<IpAddr>() else {
        return false;
    };
    match (addr, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let bits = bits.unwrap_or(32);
            if bits > 32 {
                return false;
            }
            let mask = if bits == 0 {
                0
            } else {
                u32::MAX << (32 - bits)
            };
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let bits = bits.unwrap_or(128);
            if bits > 128 {
                return false;
            }
            let mask = if bits == 0 {
                0
            } else {
                u128::MAX << (128 - bits)
            };
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Condition {
    op: Op,
    set: SetOp,
    if_exists: bool,
    /// Lower-cased: condition keys are case-insensitive.
    key: String,
    values: Vec<String>,
}

/// `*` any run, `?` any one character; `ignore_case` for action names.
pub fn glob(pattern: &str, text: &str, ignore_case: bool) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let eq = |a: char, b: char| {
        if ignore_case {
            a.to_lowercase().eq(b.to_lowercase())
        } else {
            a == b
        }
    };
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && eq(p[pi], t[ti]))) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
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

impl Policy {
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
                "Condition" => {
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
                }
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

/// The condition keys of one request, by lower-cased name; a key holds one or more values
/// (`dynamodb:LeadingKeys` and `dynamodb:Attributes` are multi-valued). A key that is
/// absent is absent: no entry, which is not the same as an empty set for `Null`.
#[derive(Debug, Clone, Default)]
pub struct RequestContext {
    keys: HashMap<String, Vec<String>>,
}

impl RequestContext {
    pub fn new() -> RequestContext {
        RequestContext::default()
    }

    /// Sets a single-valued key.
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        self.keys.insert(key.to_lowercase(), vec![value.into()]);
    }

    /// Sets a multi-valued key. An empty list removes the key: AWS leaves out a
    /// multi-valued key with no values (a Scan has no `dynamodb:LeadingKeys`).
    pub fn set_all(&mut self, key: &str, values: Vec<String>) {
        if values.is_empty() {
            self.keys.remove(&key.to_lowercase());
        } else {
            self.keys.insert(key.to_lowercase(), values);
        }
    }

    /// Sets `aws:CurrentTime` (RFC 3339) and `aws:EpochTime` (seconds) to `now`.
    pub fn set_current_time(&mut self, now: std::time::SystemTime) {
        let now = OffsetDateTime::from(now);
        if let Ok(text) = now.format(&Rfc3339) {
            self.set("aws:CurrentTime", text);
        }
        self.set("aws:EpochTime", now.unix_timestamp().to_string());
    }

    pub fn get(&self, key: &str) -> Option<&[String]> {
        self.keys.get(&key.to_lowercase()).map(Vec::as_slice)
    }
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

/// Replaces `${...}` policy variables; None when one names a key the request lacks.
fn substitute(text: &str, ctx: &RequestContext) -> Option<String> {
    if !text.contains("${") {
        return Some(text.to_owned());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Some(out);
        };
        let name = &after[..end];
        match name {
            "*" => out.push('*'),
            "?" => out.push('?'),
            "$" => out.push('$'),
            key => {
                // `${key, 'default'}`
                let (key, default) = match key.split_once(',') {
                    Some((k, d)) => (k.trim(), Some(d.trim().trim_matches('\'').to_owned())),
                    None => (key.trim(), None),
                };
                match ctx.get(key) {
                    Some([value]) => out.push_str(value),
                    _ => out.push_str(&default?),
                }
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

impl Condition {
    fn holds(&self, ctx: &RequestContext, variables: bool) -> bool {
        let present = ctx.get(&self.key);
        if self.op == Op::Null {
            let absent = present.is_none_or(|v| v.is_empty());
            return self
                .values
                .iter()
                .any(|want| want.eq_ignore_ascii_case("true") == absent);
        }
        let values: Vec<String> = if variables {
            self.values
                .iter()
                .filter_map(|v| substitute(v, ctx))
                .collect()
        } else {
            self.values.clone()
        };
        let negated = self.op.negated();
        // One context value against the policy values: any matches (positive), none
        // matches (negated).
        let one = |c: &str| {
            let hit = values.iter().any(|p| self.op.matches_one(c, p));
            hit != negated
        };
        match (self.set, present) {
            // The ForAllValues trap: an absent (or empty) key makes it true.
            (SetOp::ForAllValues, None) => true,
            (SetOp::ForAllValues, Some(cs)) => cs.iter().all(|c| one(c)),
            (SetOp::ForAnyValue, None) => self.if_exists,
            (SetOp::ForAnyValue, Some(cs)) => cs.iter().any(|c| one(c)),
            (SetOp::None, None) => self.if_exists || negated,
            // A single-valued operator over a multi-valued key: every value must match
            // (Kura's conservative reading; policies for multi-valued keys should use a
            // set operator, as AWS advises).
            (SetOp::None, Some(cs)) => cs.iter().all(|c| one(c)),
        }
    }
}

impl Statement {
    fn applies(&self, action: &str, resource: &str, ctx: &RequestContext) -> bool {
        if !self.names_principal(ctx) {
            return false;
        }
        let action_hit = self.actions.patterns.iter().any(|p| glob(p, action, true));
        if action_hit == self.actions.negated {
            return false;
        }
        let resource_hit = self.resources.patterns.iter().any(|p| {
            if self.variables {
                substitute(p, ctx).is_some_and(|p| glob(&p, resource, false))
            } else {
                glob(p, resource, false)
            }
        });
        if resource_hit == self.resources.negated {
            return false;
        }
        self.conditions.iter().all(|c| c.holds(ctx, self.variables))
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

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "arn:aws:dynamodb:us-east-1:123456789012:table/Orders";

    fn policy(text: &str) -> Policy {
        Policy::from_json(text).unwrap()
    }

    fn decide(p: &str, action: &str, resource: &str, ctx: &RequestContext) -> Decision {
        evaluate(&[policy(p)], action, resource, ctx)
    }

    fn tenant(t: &str) -> RequestContext {
        let mut ctx = RequestContext::new();
        ctx.set("aws:PrincipalTag/tenant", t);
        ctx.set("aws:username", "alice");
        ctx
    }

    #[test]
    fn globs() {
        assert!(glob("dynamodb:Get*", "dynamodb:GetItem", false));
        assert!(glob("dynamodb:get*", "DynamoDB:GetItem", true));
        assert!(!glob("dynamodb:get*", "dynamodb:GetItem", false));
        assert!(glob("a?c", "abc", false));
        assert!(!glob("a?c", "ac", false));
        assert!(glob("*#acme", "ORDER#acme", false));
        assert!(!glob("*#acme", "ORDER#acme2", false));
        assert!(glob("*", "", false));
        assert!(glob("a*b*c", "aXXbYYc", false));
        assert!(!glob("a*b*c", "aXXbYY", false));
    }

    #[test]
    fn parses_statement_object_or_list_and_refuses_bad_documents() {
        policy(
            r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}"#,
        );
        policy(
            r#"{"Statement":[{"Sid":"a","Effect":"Deny","NotAction":["dynamodb:Get*"],"NotResource":"*"}]}"#,
        );
        for bad in [
            "[]",
            "{}",
            r#"{"Statement":{"Effect":"Maybe","Action":"dynamodb:*","Resource":"*"}}"#,
            r#"{"Statement":{"Effect":"Allow","Resource":"*"}}"#,
            r#"{"Statement":{"Effect":"Allow","Action":"dynamodb:*"}}"#,
            r#"{"Statement":{"Effect":"Allow","Action":"GetItem","Resource":"*"}}"#,
            r#"{"Statement":{"Effect":"Allow","Action":"dynamodb:*","NotAction":"x:y","Resource":"*"}}"#,
            r#"{"Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*","Condition":{"StringSorta":{"k":"v"}}}}"#,
            r#"{"Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*","Extra":1}}"#,
            r#"{"Version":"2020-01-01","Statement":[]}"#,
            r#"{"Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*","Principal":"*"}}"#,
        ] {
            assert!(Policy::from_json(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn actions_resources_and_deny_precedence() {
        let ctx = RequestContext::new();
        let read_only = r#"{"Version":"2012-10-17","Statement":[
            {"Effect":"Allow","Action":["dynamodb:Get*","dynamodb:Query","dynamodb:Scan","dynamodb:BatchGetItem"],
             "Resource":["arn:aws:dynamodb:*:*:table/Orders","arn:aws:dynamodb:*:*:table/Orders/index/*"]}]}"#;
        assert_eq!(
            decide(read_only, "dynamodb:GetItem", T, &ctx),
            Decision::Allow
        );
        assert_eq!(
            decide(read_only, "DYNAMODB:getitem", T, &ctx),
            Decision::Allow
        );
        assert_eq!(
            decide(read_only, "dynamodb:PutItem", T, &ctx),
            Decision::ImplicitDeny
        );
        assert_eq!(
            decide(
                read_only,
                "dynamodb:Query",
                &format!("{T}/index/ByDate"),
                &ctx
            ),
            Decision::Allow
        );
        assert_eq!(
            decide(read_only, "dynamodb:GetItem", &format!("{T}2"), &ctx),
            Decision::ImplicitDeny
        );
        let deny = r#"{"Statement":[
            {"Effect":"Allow","Action":"dynamodb:*","Resource":"*"},
            {"Effect":"Deny","Action":"dynamodb:DeleteItem","Resource":"*"}]}"#;
        assert_eq!(decide(deny, "dynamodb:GetItem", T, &ctx), Decision::Allow);
        assert_eq!(
            decide(deny, "dynamodb:DeleteItem", T, &ctx),
            Decision::ExplicitDeny
        );
        // Across policies too.
        let allow = policy(r#"{"Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}"#);
        let deny =
            policy(r#"{"Statement":{"Effect":"Deny","NotAction":"dynamodb:Get*","Resource":"*"}}"#);
        let both = [allow, deny];
        assert_eq!(
            evaluate(&both, "dynamodb:GetItem", T, &ctx),
            Decision::Allow
        );
        assert_eq!(
            evaluate(&both, "dynamodb:PutItem", T, &ctx),
            Decision::ExplicitDeny
        );
        // NotResource: everything but the named table.
        let not_resource = r#"{"Statement":{"Effect":"Allow","Action":"dynamodb:*","NotResource":"arn:aws:dynamodb:*:*:table/Secrets*"}}"#;
        assert_eq!(
            decide(not_resource, "dynamodb:GetItem", T, &ctx),
            Decision::Allow
        );
        assert_eq!(
            decide(
                not_resource,
                "dynamodb:GetItem",
                "arn:aws:dynamodb:us-east-1:123456789012:table/Secrets",
                &ctx
            ),
            Decision::ImplicitDeny
        );
        assert_eq!(
            evaluate(&[], "dynamodb:GetItem", T, &ctx),
            Decision::ImplicitDeny
        );
    }

    const PER_TENANT: &str = r#"{"Version":"2012-10-17","Statement":[{
        "Effect":"Allow","Action":"dynamodb:*","Resource":"*",
        "Condition":{"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["*#${aws:PrincipalTag/tenant}"]},
                     "Null":{"dynamodb:LeadingKeys":"false"}}}]}"#;

    #[test]
    fn leading_keys_with_a_principal_tag_variable() {
        let mut ctx = tenant("acme");
        ctx.set_all(
            "dynamodb:LeadingKeys",
            vec!["ORDER#acme".into(), "USER#acme".into()],
        );
        assert_eq!(
            decide(PER_TENANT, "dynamodb:GetItem", T, &ctx),
            Decision::Allow
        );
        ctx.set_all(
            "dynamodb:LeadingKeys",
            vec!["ORDER#acme".into(), "ORDER#globex".into()],
        );
        assert_eq!(
            decide(PER_TENANT, "dynamodb:BatchGetItem", T, &ctx),
            Decision::ImplicitDeny
        );
        // A Scan has no leading keys: the Null guard refuses it.
        let ctx = tenant("acme");
        assert_eq!(
            decide(PER_TENANT, "dynamodb:Scan", T, &ctx),
            Decision::ImplicitDeny
        );
        // A principal without the tag: the variable matches nothing.
        let mut ctx = RequestContext::new();
        ctx.set_all("dynamodb:LeadingKeys", vec!["ORDER#acme".into()]);
        assert_eq!(
            decide(PER_TENANT, "dynamodb:GetItem", T, &ctx),
            Decision::ImplicitDeny
        );
    }

    #[test]
    fn the_for_all_values_trap() {
        // Without the Null guard, ForAllValues on an absent key is true: a Scan passes.
        let trap = r#"{"Version":"2012-10-17","Statement":[{
            "Effect":"Allow","Action":"dynamodb:*","Resource":"*",
            "Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:username}"]}}}]}"#;
        assert_eq!(
            decide(trap, "dynamodb:Scan", T, &tenant("acme")),
            Decision::Allow
        );
        // ForAnyValue on an absent key is false.
        let any = trap.replace("ForAllValues", "ForAnyValue");
        assert_eq!(
            decide(&any, "dynamodb:Scan", T, &tenant("acme")),
            Decision::ImplicitDeny
        );
        // Version 2008-10-17 takes variables literally.
        let old = trap.replace("2012-10-17", "2008-10-17");
        let mut ctx = tenant("acme");
        ctx.set_all("dynamodb:LeadingKeys", vec!["alice".into()]);
        assert_eq!(decide(trap, "dynamodb:GetItem", T, &ctx), Decision::Allow);
        assert_eq!(
            decide(&old, "dynamodb:GetItem", T, &ctx),
            Decision::ImplicitDeny
        );
    }

    #[test]
    fn resource_variables() {
        let p = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*",
            "Resource":"arn:aws:dynamodb:*:*:table/${aws:PrincipalTag/tenant}-*"}}"#;
        let acme = "arn:aws:dynamodb:us-east-1:123456789012:table/acme-orders";
        assert_eq!(
            decide(p, "dynamodb:GetItem", acme, &tenant("acme")),
            Decision::Allow
        );
        assert_eq!(
            decide(p, "dynamodb:GetItem", acme, &tenant("globex")),
            Decision::ImplicitDeny
        );
        assert_eq!(
            decide(p, "dynamodb:GetItem", acme, &RequestContext::new()),
            Decision::ImplicitDeny
        );
    }

    fn cond(op: &str, key: &str, values: &str, ctx: &RequestContext) -> bool {
        let p = format!(
            r#"{{"Version":"2012-10-17","Statement":{{"Effect":"Allow","Action":"*","Resource":"*","Condition":{{"{op}":{{"{key}":{values}}}}}}}}}"#
        );
        decide(&p, "dynamodb:GetItem", T, ctx) == Decision::Allow
    }

    #[test]
    fn condition_operators() {
        let mut ctx = tenant("acme");
        ctx.set("dynamodb:Select", "ALL_ATTRIBUTES");
        ctx.set("dynamodb:ReturnValues", "NONE");
        ctx.set("aws:SourceIp", "203.0.113.7");
        ctx.set("aws:CurrentTime", "2026-11-24T07:00:00Z");
        ctx.set("aws:SecureTransport", "false");
        ctx.set("n", "10");
        let mut clock = RequestContext::new();
        clock.set_current_time(
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000),
        );
        assert_eq!(
            clock.get("aws:EpochTime"),
            Some(&["1800000000".to_owned()][..])
        );
        assert_eq!(
            clock.get("AWS:CurrentTime"),
            Some(&["2027-01-15T08:00:00Z".to_owned()][..])
        );
        ctx.set_all("dynamodb:Attributes", vec!["pk".into(), "name".into()]);
        let c = |op: &str, key: &str, values: &str| cond(op, key, values, &ctx);
        assert!(c("StringEquals", "dynamodb:Select", r#""ALL_ATTRIBUTES""#));
        assert!(c(
            "StringEquals",
            "DYNAMODB:select",
            r#"["X","ALL_ATTRIBUTES"]"#
        ));
        assert!(!c("StringEquals", "dynamodb:Select", r#""all_attributes""#));
        assert!(c(
            "StringEqualsIgnoreCase",
            "dynamodb:Select",
            r#""all_attributes""#
        ));
        assert!(!c(
            "StringNotEquals",
            "dynamodb:Select",
            r#""ALL_ATTRIBUTES""#
        ));
        assert!(c("StringNotEquals", "dynamodb:Select", r#""COUNT""#));
        assert!(c("StringLike", "aws:username", r#""al*""#));
        assert!(!c("StringNotLike", "aws:username", r#""al?ce""#));
        // Absent keys: positive false, negated true, IfExists true.
        assert!(!c(
            "StringEquals",
            "dynamodb:ReturnConsumedCapacity",
            r#""NONE""#
        ));
        assert!(c(
            "StringNotEquals",
            "dynamodb:ReturnConsumedCapacity",
            r#""NONE""#
        ));
        assert!(c(
            "StringEqualsIfExists",
            "dynamodb:ReturnConsumedCapacity",
            r#""NONE""#
        ));
        assert!(!c(
            "StringEqualsIfExists",
            "dynamodb:ReturnValues",
            r#""ALL_OLD""#
        ));
        assert!(c("Null", "dynamodb:ReturnConsumedCapacity", r#""true""#));
        assert!(c("Null", "dynamodb:Select", "false"));
        assert!(c("Bool", "aws:SecureTransport", "false"));
        assert!(!c("Bool", "aws:SecureTransport", r#""true""#));
        assert!(c("NumericLessThan", "n", "11"));
        assert!(!c("NumericLessThan", "n", r#""10""#));
        assert!(c("NumericLessThanEquals", "n", r#""10""#));
        assert!(c("NumericGreaterThan", "n", "9.5"));
        assert!(c("NumericEquals", "n", "10"));
        assert!(c("NumericNotEquals", "n", "11"));
        assert!(c(
            "DateLessThan",
            "aws:CurrentTime",
            r#""2027-01-01T00:00:00Z""#
        ));
        assert!(!c(
            "DateGreaterThan",
            "aws:CurrentTime",
            r#""2027-01-01T00:00:00Z""#
        ));
        assert!(c("DateGreaterThanEquals", "aws:CurrentTime", "1700000000"));
        assert!(c(
            "DateEquals",
            "aws:CurrentTime",
            r#""2026-11-24T08:00:00+01:00""#
        ));
        assert!(c("IpAddress", "aws:SourceIp", r#""203.0.113.0/24""#));
        assert!(!c(
            "IpAddress",
            "aws:SourceIp",
            r#"["10.0.0.0/8","198.51.100.7"]"#
        ));
        assert!(c("NotIpAddress", "aws:SourceIp", r#""10.0.0.0/8""#));
        assert!(c(
            "ForAllValues:StringEquals",
            "dynamodb:Attributes",
            r#"["pk","name","email"]"#
        ));
        assert!(!c(
            "ForAllValues:StringEquals",
            "dynamodb:Attributes",
            r#"["pk"]"#
        ));
        assert!(c(
            "ForAnyValue:StringEquals",
            "dynamodb:Attributes",
            r#"["name"]"#
        ));
        assert!(!c(
            "ForAnyValue:StringEquals",
            "dynamodb:Attributes",
            r#"["secret"]"#
        ));
        assert!(c(
            "ForAllValues:StringNotLike",
            "dynamodb:Attributes",
            r#"["secret*"]"#
        ));
        assert!(c("StringEquals", "aws:username", r#""${aws:username}""#));
        assert!(c(
            "StringLike",
            "aws:username",
            r#""${aws:PrincipalTag/missing, 'alice'}""#
        ));
        // Several operators AND-ed, several keys of one operator AND-ed.
        let p = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"*","Resource":"*",
            "Condition":{"StringEquals":{"dynamodb:Select":"ALL_ATTRIBUTES","dynamodb:ReturnValues":"ALL_OLD"}}}}"#;
        assert_eq!(
            decide(p, "dynamodb:GetItem", T, &ctx),
            Decision::ImplicitDeny
        );
    }

    #[test]
    fn ipv6_and_odd_inputs() {
        assert!(ip_in("2001:db8::1", "2001:db8::/32"));
        assert!(!ip_in("2001:db9::1", "2001:db8::/32"));
        assert!(ip_in("10.1.2.3", "0.0.0.0/0"));
        assert!(!ip_in("10.1.2.3", "10.0.0.0/99"));
        assert!(!ip_in("nope", "10.0.0.0/8"));
        assert_eq!(
            substitute("${unclosed", &RequestContext::new()).as_deref(),
            Some("${unclosed")
        );
        assert_eq!(
            substitute("a${*}b${$}", &RequestContext::new()).as_deref(),
            Some("a*b$")
        );
    }

    #[test]
    fn resource_policies_name_their_principal() {
        let doc = r#"{"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam::123456789012:user/bob", "111122223333"]},
             "Action": "dynamodb:GetItem", "Resource": "*"},
            {"Effect": "Deny", "Principal": "*", "Action": "dynamodb:DeleteItem", "Resource": "*"}]}"#;
        let p = Policy::resource_from_json(doc).unwrap();
        let ctx = |arn: &str, account: &str| {
            let mut c = RequestContext::new();
            c.set("aws:PrincipalArn", arn);
            c.set("aws:PrincipalAccount", account);
            c
        };
        let bob = ctx("arn:aws:iam::123456789012:user/bob", "123456789012");
        let eve = ctx("arn:aws:iam::123456789012:user/eve", "123456789012");
        let other = ctx("arn:aws:iam::111122223333:role/r", "111122223333");
        let ps = std::slice::from_ref(&p);
        assert_eq!(evaluate(ps, "dynamodb:GetItem", T, &bob), Decision::Allow);
        assert_eq!(
            evaluate(ps, "dynamodb:GetItem", T, &eve),
            Decision::ImplicitDeny
        );
        assert_eq!(evaluate(ps, "dynamodb:GetItem", T, &other), Decision::Allow);
        assert_eq!(
            evaluate(ps, "dynamodb:DeleteItem", T, &eve),
            Decision::ExplicitDeny
        );
        // Identity policies name no Principal; resource policies must.
        assert!(Policy::from_json(doc).is_err());
        let no_principal =
            r#"{"Statement": {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}}"#;
        assert!(Policy::resource_from_json(no_principal).is_err());
        for bad in [
            r#""alice""#,
            r#"{"AWS": "alice"}"#,
            r#"{"Other": "x"}"#,
            r#"{"AWS": "arn:aws:iam::12:user/x"}"#,
        ] {
            let doc = format!(
                r#"{{"Statement": {{"Effect": "Allow", "Principal": {bad}, "Action": "dynamodb:*", "Resource": "*"}}}}"#
            );
            assert_eq!(
                Policy::resource_from_json(&doc).unwrap_err().0,
                "Invalid principal in policy document.",
                "{bad}"
            );
        }
        let root = r#"{"Statement": {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
            "Action": "dynamodb:*", "Resource": "*"}}"#;
        let root = Policy::resource_from_json(root).unwrap();
        assert_eq!(
            evaluate(&[root], "dynamodb:Query", T, &eve),
            Decision::Allow
        );
    }
}
