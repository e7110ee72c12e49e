//! IAM condition operators (`StringLike`, `NumericLessThan`, `IpAddress`, `Null`, ...),
//! their set forms (`ForAllValues:`, `ForAnyValue:`) and `...IfExists`, and how one
//! condition holds for a request.

use std::net::IpAddr;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::context::{RequestContext, substitute};
use super::glob::glob;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SetOp {
    None,
    ForAllValues,
    ForAnyValue,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
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
    pub(super) fn parse(name: &str) -> Option<Op> {
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

pub(super) fn num(context: &str, policy: &str, f: impl Fn(std::cmp::Ordering) -> bool) -> bool {
    match (context.trim().parse::<f64>(), policy.trim().parse::<f64>()) {
        (Ok(a), Ok(b)) => a.partial_cmp(&b).is_some_and(f),
        _ => false,
    }
}

/// RFC 3339 or epoch seconds, as IAM accepts for date conditions.
pub(super) fn parse_date(text: &str) -> Option<i128> {
    if let Ok(seconds) = text.trim().parse::<i64>() {
        return Some(i128::from(seconds) * 1_000_000_000);
    }
    OffsetDateTime::parse(text.trim(), &Rfc3339)
        .ok()
        .map(|d| d.unix_timestamp_nanos())
}

pub(super) fn date(context: &str, policy: &str, f: impl Fn(std::cmp::Ordering) -> bool) -> bool {
    match (parse_date(context), parse_date(policy)) {
        (Some(a), Some(b)) => f(a.cmp(&b)),
        _ => false,
    }
}

/// Whether `addr` lies in `cidr` (`203.0.113.0/24`, `2001:db8::/32`, or a bare address).
pub(super) fn ip_in(addr: &str, cidr: &str) -> bool {
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
pub(super) struct Condition {
    pub(super) op: Op,
    pub(super) set: SetOp,
    pub(super) if_exists: bool,
    /// Lower-cased: condition keys are case-insensitive.
    pub(super) key: String,
    pub(super) values: Vec<String>,
}

impl Condition {
    pub(super) fn holds(&self, ctx: &RequestContext, variables: bool) -> bool {
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
