//! ARNs of another account. DynamoDB treats a request that names a table by an ARN of
//! an account that is not the caller's as cross-account: with no resource-based policy
//! granting it, the answer is AccessDeniedException, never ResourceNotFoundException
//! (which would tell a stranger whether the table exists).
//!
//! The caller's account is, with `--auth`, the signer's (its `Account` in the credentials
//! file) and, without it, the account Kura writes in its own ARNs
//! ([`kura_engine::ACCOUNT_ID`]). Under `--auth` Kura's own account counts as the caller's
//! too: DescribeTable reports its ARNs in it, and every principal shares one namespace
//! (docs/security.md, "ARNs and accounts").

use kura_engine::ACCOUNT_ID;
use kura_model::messages;
use serde::Deserialize;

use crate::error::ApiError;
use crate::operation::Op;

/// The members of a request that may hold a table's ARN.
#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct Named {
    table_name: Option<String>,
    resource_arn: Option<String>,
    table_arn: Option<String>,
}

/// Refuses a request whose `TableName`, `ResourceArn` or `TableArn` is a DynamoDB ARN of
/// another account. Bodies with no `arn:` in them (nearly all) are not parsed again.
/// Takes the body and the signer, not the whole call, so it stays outside the
/// authz ↔ ops import circle (issue 30).
pub(crate) fn own_account(
    body: &[u8],
    principal: Option<&kura_auth::Principal>,
    op: Op,
) -> Result<(), ApiError> {
    if memchr::memmem::find(body, b"arn:").is_none() {
        return Ok(());
    }
    let named: Named = serde_json::from_slice(body).unwrap_or_default();
    let caller = principal.map(|p| p.account.as_str());
    let arns = [named.table_name, named.resource_arn, named.table_arn];
    for arn in arns.iter().flatten() {
        let Some(account) = account_of(arn) else {
            continue;
        };
        if account == ACCOUNT_ID || Some(account) == caller {
            continue;
        }
        let principal = principal.map_or_else(
            || format!("arn:aws:iam::{ACCOUNT_ID}:root"),
            kura_auth::Principal::arn,
        );
        return Err(ApiError::access_denied(messages::auth::cross_account(
            &principal,
            &op.iam_action(),
            arn,
        )));
    }
    Ok(())
}

/// The account of a DynamoDB ARN (`arn:<partition>:dynamodb:<region>:<account>:...`);
/// None for anything else, which the engine then refuses as it always has.
fn account_of(arn: &str) -> Option<&str> {
    let mut parts = arn.splitn(6, ':');
    match (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) {
        (Some("arn"), Some(_), Some("dynamodb"), Some(_), Some(account), Some(_)) => Some(account),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounts_of_dynamodb_arns_only() {
        assert_eq!(
            account_of("arn:aws:dynamodb:us-east-1:111122223333:table/T"),
            Some("111122223333")
        );
        assert_eq!(account_of("arn:aws:s3:::bucket"), None);
        assert_eq!(account_of("Users"), None);
        assert_eq!(account_of("arn:aws:dynamodb:us-east-1"), None);
    }
}
