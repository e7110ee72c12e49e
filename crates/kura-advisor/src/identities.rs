//! The identity policies `--auth` attaches to access keys (docs/advisor.md,
//! `security.identity-*`): people given every DynamoDB action, and grants on every table
//! rather than on one environment's. Read from the credentials file itself, so `kura
//! advise --credentials FILE` checks it before it is deployed, as `--template` does for
//! tables; the console checks the signed-in principal's own.

use kura_auth::{Principal, PrincipalKind};

use crate::finding::{Finding, instance_wide};

/// `*`, `dynamodb:*` or a pattern matching every DynamoDB action.
fn every_action(pattern: &str) -> bool {
    let lower = pattern.to_ascii_lowercase();
    lower == "*" || lower == "dynamodb:*"
}

/// Whether a pattern can match a DynamoDB action.
fn dynamodb_action(pattern: &str) -> bool {
    let lower = pattern.to_ascii_lowercase();
    lower.starts_with("dynamodb:") || lower.starts_with('*')
}

/// A resource pattern reaching tables of any environment: `*`, or a table name that is
/// wild before an environment prefix is written out (`table/*`, `table/Ord*`).
fn any_environment(resource: &str, environments: &[String]) -> bool {
    if resource == "*" {
        return true;
    }
    let Some((_, rest)) = resource.split_once(":table/") else {
        // Another service's ARN, or a whole-region pattern (`arn:aws:dynamodb:*`, in any
        // partition: aws, aws-cn, aws-us-gov).
        return resource.starts_with("arn:aws")
            && resource.contains(":dynamodb:")
            && resource.ends_with('*');
    };
    // The table's name only: `table/Orders/index/*` is one table's indexes.
    let table = rest.split('/').next().unwrap_or_default();
    let wild = table.find(['*', '?']);
    match wild {
        None => false,
        Some(at) => !environments.iter().any(|env| {
            table[..at]
                .strip_prefix(env.as_str())
                .is_some_and(|r| r.starts_with('-'))
        }),
    }
}

/// The findings on these principals' identity policies, with the guideline's environments.
pub fn identities(principals: &[&Principal]) -> Vec<Finding> {
    identities_with(principals, &crate::Options::default().environments)
}

/// The findings on these principals' identity policies; a table pattern narrowed to one of
/// `environments` (`dev-*`) reaches one environment.
pub fn identities_with(principals: &[&Principal], environments: &[String]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for principal in principals {
        let Some(policies) = &principal.policies else {
            continue;
        };
        let grants = || policies.iter().flat_map(|p| p.grants());
        // People (users) get the operations they need; every action is for applications
        // (roles) that operate DynamoDB.
        let everything = grants().find(|g| {
            !g.conditional && (g.not_actions || g.actions.iter().any(|a| every_action(a)))
        });
        if principal.kind == PrincipalKind::User
            && let Some(grant) = everything
        {
            let what = if grant.not_actions {
                format!("every action but {}", grant.actions.join(", "))
            } else {
                grant.actions.join(", ")
            };
            findings.extend(instance_wide(
                "security.identity-full-access",
                format!(
                    "user {} is allowed {what} on {}",
                    principal.arn(),
                    grant.resources.join(", ")
                ),
            ));
        }
        let unscoped = grants().find_map(|g| {
            let acts = g.not_actions || g.actions.iter().any(|a| dynamodb_action(a));
            let wide = if g.not_resources {
                Some("every resource but those named".to_owned())
            } else {
                g.resources
                    .iter()
                    .find(|r| any_environment(r, environments))
                    .cloned()
            };
            wide.filter(|_| acts)
        });
        if let Some(resource) = unscoped {
            findings.extend(instance_wide(
                "security.identity-resource-scope",
                format!(
                    "{} is allowed DynamoDB actions on {resource}, not narrowed to one environment's tables",
                    principal.arn()
                ),
            ));
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_narrowed_to_an_environment_are_not_wide() {
        let environments = &crate::Options::default().environments;
        assert!(any_environment("*", environments));
        assert!(any_environment(
            "arn:aws:dynamodb:us-east-1:123456789012:table/*",
            environments
        ));
        assert!(any_environment(
            "arn:aws:dynamodb:*:*:table/Ord*",
            environments
        ));
        assert!(any_environment(
            "arn:aws:dynamodb:us-east-1:123456789012:*",
            environments
        ));
        assert!(!any_environment(
            "arn:aws:dynamodb:*:*:table/dev-*",
            environments
        ));
        assert!(!any_environment(
            "arn:aws:dynamodb:*:*:table/prod-shop-*/index/*",
            environments
        ));
        assert!(!any_environment(
            "arn:aws:dynamodb:us-east-1:123456789012:table/Orders",
            environments
        ));
        assert!(!any_environment("arn:aws:s3:::bucket/*", environments));
        assert!(!any_environment(
            "arn:aws:dynamodb:*:*:table/Orders/index/*",
            environments
        ));
        assert!(!any_environment(
            "arn:aws:dynamodb:*:*:table/Orders/stream/*",
            environments
        ));
        assert!(any_environment(
            "arn:aws-cn:dynamodb:cn-north-1:123456789012:*",
            environments
        ));
    }

    #[test]
    fn people_with_every_action_and_unscoped_grants_are_found() {
        let credentials = kura_auth::Credentials::from_json(
            r#"{"Credentials": [
              {"AccessKeyId": "AKIAALICE", "SecretAccessKey": "s", "User": "alice",
               "Policies": [{"Version": "2012-10-17", "Statement": [
                 {"Effect": "Allow", "Action": "dynamodb:*",
                  "Resource": "arn:aws:dynamodb:*:*:table/dev-*"}]}]},
              {"AccessKeyId": "ASIAAPP", "SecretAccessKey": "s", "Role": "app",
               "Policies": [{"Version": "2012-10-17", "Statement": [
                 {"Effect": "Allow", "Action": "dynamodb:*",
                  "Resource": "arn:aws:dynamodb:*:*:table/*"}]}]},
              {"AccessKeyId": "AKIABOB", "SecretAccessKey": "s", "User": "bob",
               "Policies": [{"Version": "2012-10-17", "Statement": [
                 {"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:Query"],
                  "Resource": "arn:aws:dynamodb:*:*:table/prod-shop-*"}]}]}
            ]}"#,
        )
        .expect("credentials");
        let found: Vec<(&str, String)> = identities(&credentials.principals())
            .into_iter()
            .map(|f| (f.rule, f.evidence))
            .collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, "security.identity-resource-scope");
        assert!(found[0].1.contains("role/app"), "{found:?}");
        assert_eq!(found[1].0, "security.identity-full-access");
        assert!(found[1].1.contains("user/alice"), "{found:?}");
    }
}
