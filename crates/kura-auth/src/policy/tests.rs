//! The evaluator's unit tests: grammar, operators, variables, principals.

use super::conditions::ip_in;
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
    clock.set_current_time(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000));
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

#[test]
fn glob_prefix_asks_whether_any_extension_matches() {
    assert!(glob_prefix("b/exports/private/*", "b/exports/"));
    assert!(glob_prefix("b/*", "b/exports/"));
    assert!(glob_prefix("b/e?ports/x", "b/exports/"));
    assert!(glob_prefix("*", ""));
    assert!(!glob_prefix("b/other/*", "b/exports/"));
    assert!(!glob_prefix("b/ex", "b/exports/"));
    assert!(glob_prefix("*private*", "b/exports/"));
}

/// Over every object under a prefix: an Allow must cover the prefix, a Deny of any key
/// under it refuses the whole (a narrower Deny is not sidestepped by the wildcard).
#[test]
fn a_prefix_needs_an_allow_that_covers_it_and_no_deny_that_touches_it() {
    const OBJECTS: &str = "arn:aws:s3:::b/exports/AWSDynamoDB/";
    let ctx = RequestContext::new();
    let decide_under = |text: &str| {
        evaluate_on(
            &[policy(text)],
            "s3:PutObject",
            Resource::Under(OBJECTS),
            &ctx,
        )
    };
    let allow = r#"{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::b/*"}"#;
    let doc = |statements: &[&str]| {
        format!(
            r#"{{"Version":"2012-10-17","Statement":[{}]}}"#,
            statements.join(",")
        )
    };
    assert_eq!(decide_under(&doc(&[allow])), Decision::Allow);
    let narrow_deny = r#"{"Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::b/exports/AWSDynamoDB/private/*"}"#;
    assert_eq!(
        decide_under(&doc(&[allow, narrow_deny])),
        Decision::ExplicitDeny
    );
    let other_deny = r#"{"Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::b/imports/*"}"#;
    assert_eq!(decide_under(&doc(&[allow, other_deny])), Decision::Allow);
    // An Allow of only part of the prefix does not grant it.
    let part = r#"{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::b/exports/AWSDynamoDB/data/*"}"#;
    assert_eq!(decide_under(&doc(&[part])), Decision::ImplicitDeny);
    // NotResource: a Deny of everything but the bucket's `public/` touches the prefix.
    let deny_but_public =
        r#"{"Effect":"Deny","Action":"s3:*","NotResource":"arn:aws:s3:::b/public/*"}"#;
    assert_eq!(
        decide_under(&doc(&[allow, deny_but_public])),
        Decision::ExplicitDeny
    );
    let deny_but_exports =
        r#"{"Effect":"Deny","Action":"s3:*","NotResource":"arn:aws:s3:::b/exports/*"}"#;
    assert_eq!(
        decide_under(&doc(&[allow, deny_but_exports])),
        Decision::Allow
    );
}
