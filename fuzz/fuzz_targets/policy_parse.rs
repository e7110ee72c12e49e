//! The IAM policy parser and evaluator from arbitrary text: a policy that parses is
//! evaluated against a fixed request (wildcards, variables, every condition operator)
//! without panicking, and an explicit deny is never an allow. The first line is the
//! policy, the second an action, the third a resource, the rest `key=value` lines of the
//! request context (values split on `,` for multi-valued keys). A text that is no identity
//! policy is tried as a resource-based one (a `Principal` in every statement).
#![no_main]
use kura_auth::{Decision, Policy, RequestContext, evaluate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.splitn(4, '\n');
    let policy = lines.next().unwrap_or_default();
    let action = lines.next().unwrap_or("dynamodb:GetItem");
    let resource = lines
        .next()
        .unwrap_or("arn:aws:dynamodb:us-east-1:123456789012:table/app");
    let Ok(policy) = Policy::from_json(policy).or_else(|_| Policy::resource_from_json(policy))
    else {
        return;
    };
    let mut ctx = RequestContext::new();
    ctx.set("aws:username", "alice");
    ctx.set("aws:PrincipalArn", "arn:aws:iam::123456789012:user/alice");
    ctx.set("aws:PrincipalAccount", "123456789012");
    ctx.set("aws:PrincipalTag/tenant", "acme");
    ctx.set("aws:SourceIp", "127.0.0.1");
    ctx.set("aws:CurrentTime", "2026-11-24T07:00:00Z");
    for line in lines.next().unwrap_or_default().lines() {
        if let Some((key, values)) = line.split_once('=') {
            ctx.set_all(key, values.split(',').map(str::to_owned).collect());
        }
    }
    let one = evaluate(std::slice::from_ref(&policy), action, resource, &ctx);
    // Adding a policy never turns an explicit deny into something else.
    let both = evaluate(&[policy.clone(), policy], action, resource, &ctx);
    assert_eq!(one, both);
    if one == Decision::ExplicitDeny {
        assert_ne!(both, Decision::Allow);
    }
});
