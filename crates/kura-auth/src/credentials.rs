//! The credentials file: access keys mapped to principals.
//!
//! JSON, in the shape of AWS STS credentials:
//!
//! ```json
//! {"Credentials": [
//!   {"AccessKeyId": "AKIAALICE", "SecretAccessKey": "...", "User": "alice",
//!    "Account": "123456789012"},
//!   {"AccessKeyId": "ASIADEPLOY", "SecretAccessKey": "...", "SessionToken": "...",
//!    "Expiration": "2026-12-01T00:00:00Z", "Role": "deployer", "Account": "123456789012"}
//! ]}
//! ```

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Deserialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::AuthError;
use crate::policy::Policy;

/// The account Kura reports when the file names none (DynamoDB Local's).
pub const DEFAULT_ACCOUNT: &str = "000000000000";

/// Whether an access key belongs to an IAM user or to a role's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrincipalKind {
    User,
    Role,
}

/// Who signed a request: what the later authorization step decides on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub kind: PrincipalKind,
    /// The user or role name.
    pub name: String,
    /// The 12-digit account id.
    pub account: String,
    /// Tags on the principal (`aws:PrincipalTag/<key>` in policies).
    pub tags: BTreeMap<String, String>,
    /// The identity policies; None when the file gives the principal no `Policies`
    /// member (then every authenticated request is allowed, as before policies).
    pub policies: Option<Arc<[Policy]>>,
}

impl Principal {
    /// The principal's ARN as IAM writes it (`arn:aws:iam::123456789012:user/alice`).
    pub fn arn(&self) -> String {
        let kind = match self.kind {
            PrincipalKind::User => "user",
            PrincipalKind::Role => "role",
        };
        format!("arn:aws:iam::{}:{kind}/{}", self.account, self.name)
    }
}

/// One access key.
#[derive(Debug, Clone)]
pub struct Credential {
    pub access_key_id: String,
    pub secret_access_key: String,
    /// Required in `X-Amz-Security-Token` when set.
    pub session_token: Option<String>,
    /// Requests after it get ExpiredTokenException.
    pub expiration: Option<OffsetDateTime>,
    pub principal: Principal,
}

/// Every access key of a credentials file, by access key id.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    by_key: HashMap<String, Credential>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct File {
    credentials: Vec<Entry>,
    /// Policies and tags shared by every key of a user or role.
    #[serde(default)]
    principals: Vec<PrincipalEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct PrincipalEntry {
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    account: Option<String>,
    #[serde(default)]
    policies: Option<Vec<serde_json::Value>>,
    #[serde(default)]
    tags: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct Entry {
    access_key_id: String,
    secret_access_key: String,
    #[serde(default)]
    session_token: Option<String>,
    #[serde(default)]
    expiration: Option<String>,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    account: Option<String>,
    #[serde(default)]
    policies: Option<Vec<serde_json::Value>>,
    #[serde(default)]
    tags: BTreeMap<String, String>,
}

fn bad(message: String) -> AuthError {
    AuthError::CredentialsFile(message)
}

fn who(
    id: &str,
    user: Option<String>,
    role: Option<String>,
    account: Option<String>,
) -> Result<(PrincipalKind, String, String), AuthError> {
    let (kind, name) = match (user, role) {
        (Some(user), None) => (PrincipalKind::User, user),
        (None, Some(role)) => (PrincipalKind::Role, role),
        _ => return Err(bad(format!("{id}: give exactly one of User and Role"))),
    };
    if name.is_empty() {
        return Err(bad(format!("{id}: the User or Role name is empty")));
    }
    let account = account.unwrap_or_else(|| DEFAULT_ACCOUNT.to_owned());
    if account.len() != 12 || !account.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(format!("{id}: Account {account:?} is not 12 digits")));
    }
    Ok((kind, name, account))
}

fn policies(id: &str, docs: Vec<serde_json::Value>) -> Result<Vec<Policy>, AuthError> {
    docs.iter()
        .enumerate()
        .map(|(i, doc)| {
            Policy::from_value(doc).map_err(|e| bad(format!("{id}: Policies[{i}]: {e}")))
        })
        .collect()
}

impl Credentials {
    /// Parses and checks a credentials file: unique non-empty access key ids, non-empty
    /// secrets, exactly one of `User` and `Role`, a 12-digit `Account`, an RFC 3339
    /// `Expiration`.
    pub fn from_json(text: &str) -> Result<Credentials, AuthError> {
        let file: File = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        type Shared = (Option<Vec<Policy>>, BTreeMap<String, String>);
        let mut shared: HashMap<(PrincipalKind, String, String), Shared> = HashMap::new();
        for entry in file.principals {
            let (kind, name, account) = who("Principals", entry.user, entry.role, entry.account)?;
            let docs = match entry.policies {
                Some(docs) => Some(policies(&name, docs)?),
                None => None,
            };
            if shared
                .insert((kind, name.clone(), account), (docs, entry.tags))
                .is_some()
            {
                return Err(bad(format!("Principals: {name} appears twice")));
            }
        }
        let mut by_key = HashMap::new();
        for entry in file.credentials {
            let id = entry.access_key_id;
            if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return Err(bad(format!(
                    "AccessKeyId {id:?} must be letters and digits"
                )));
            }
            if entry.secret_access_key.is_empty() {
                return Err(bad(format!("{id}: SecretAccessKey is empty")));
            }
            let (kind, name, account) = who(&id, entry.user, entry.role, entry.account)?;
            // The principal's shared policies and tags, then the key's own.
            let (mut all, mut tags) = shared
                .get(&(kind, name.clone(), account.clone()))
                .cloned()
                .unwrap_or_default();
            if let Some(docs) = entry.policies {
                all.get_or_insert_with(Vec::new)
                    .extend(policies(&id, docs)?);
            }
            tags.extend(entry.tags);
            let expiration =
                match entry.expiration {
                    None => None,
                    Some(text) => Some(OffsetDateTime::parse(&text, &Rfc3339).map_err(|e| {
                        bad(format!("{id}: Expiration {text:?} is not RFC 3339: {e}"))
                    })?),
                };
            let credential = Credential {
                access_key_id: id.clone(),
                secret_access_key: entry.secret_access_key,
                session_token: entry.session_token.filter(|t| !t.is_empty()),
                expiration,
                principal: Principal {
                    kind,
                    name,
                    account,
                    tags,
                    policies: all.map(Arc::from),
                },
            };
            if by_key.insert(id.clone(), credential).is_some() {
                return Err(bad(format!("AccessKeyId {id} appears twice")));
            }
        }
        Ok(Credentials { by_key })
    }

    /// Reads and parses a file.
    pub fn load(path: &std::path::Path) -> Result<Credentials, AuthError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| bad(format!("cannot read {}: {e}", path.display())))?;
        Credentials::from_json(&text)
    }

    pub fn get(&self, access_key_id: &str) -> Option<&Credential> {
        self.by_key.get(access_key_id)
    }

    /// Every principal the file names, once each, by ARN (several keys may share one).
    pub fn principals(&self) -> Vec<&Principal> {
        let mut by_arn: BTreeMap<String, &Principal> = BTreeMap::new();
        for credential in self.by_key.values() {
            by_arn
                .entry(credential.principal.arn())
                .or_insert(&credential.principal);
        }
        by_arn.into_values().collect()
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_users_and_roles() {
        let c = Credentials::from_json(
            r#"{"Credentials": [
              {"AccessKeyId": "AKIA1", "SecretAccessKey": "s1", "User": "alice", "Account": "123456789012"},
              {"AccessKeyId": "ASIA2", "SecretAccessKey": "s2", "SessionToken": "tok",
               "Expiration": "2026-12-01T00:00:00Z", "Role": "deployer"}]}"#,
        )
        .unwrap();
        assert_eq!(c.len(), 2);
        let alice = c.get("AKIA1").unwrap();
        assert_eq!(
            alice.principal.arn(),
            "arn:aws:iam::123456789012:user/alice"
        );
        let role = c.get("ASIA2").unwrap();
        assert_eq!(role.principal.kind, PrincipalKind::Role);
        assert_eq!(role.principal.account, DEFAULT_ACCOUNT);
        assert_eq!(role.session_token.as_deref(), Some("tok"));
        assert!(role.expiration.is_some());
        assert!(role.principal.policies.is_none());
    }

    #[test]
    fn policies_and_tags_per_key_and_per_principal() {
        let c = Credentials::from_json(
            r#"{"Credentials": [
              {"AccessKeyId": "AKIA1", "SecretAccessKey": "s1", "User": "alice",
               "Tags": {"team": "red"},
               "Policies": [{"Statement": {"Effect": "Deny", "Action": "dynamodb:DeleteItem", "Resource": "*"}}]},
              {"AccessKeyId": "AKIA2", "SecretAccessKey": "s2", "User": "alice"},
              {"AccessKeyId": "AKIA3", "SecretAccessKey": "s3", "User": "bob"}],
             "Principals": [{"User": "alice", "Tags": {"tenant": "acme"},
               "Policies": [{"Statement": {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}}]}]}"#,
        )
        .unwrap();
        let one = &c.get("AKIA1").unwrap().principal;
        assert_eq!(one.policies.as_ref().unwrap().len(), 2);
        assert_eq!(one.tags.get("tenant").map(String::as_str), Some("acme"));
        assert_eq!(one.tags.get("team").map(String::as_str), Some("red"));
        let two = &c.get("AKIA2").unwrap().principal;
        assert_eq!(two.policies.as_ref().unwrap().len(), 1);
        assert!(c.get("AKIA3").unwrap().principal.policies.is_none());
    }

    #[test]
    fn refuses_broken_files() {
        for text in [
            "not json",
            r#"{"Credentials": [{"AccessKeyId": "A", "SecretAccessKey": "s"}]}"#,
            r#"{"Credentials": [{"AccessKeyId": "A", "SecretAccessKey": "s", "User": "u", "Role": "r"}]}"#,
            r#"{"Credentials": [{"AccessKeyId": "A", "SecretAccessKey": "", "User": "u"}]}"#,
            r#"{"Credentials": [{"AccessKeyId": "A", "SecretAccessKey": "s", "User": "u", "Account": "12"}]}"#,
            r#"{"Credentials": [{"AccessKeyId": "A", "SecretAccessKey": "s", "User": "u", "Expiration": "tomorrow"}]}"#,
            r#"{"Credentials": [{"AccessKeyId": "A", "SecretAccessKey": "s", "User": "u"},
                                {"AccessKeyId": "A", "SecretAccessKey": "t", "User": "v"}]}"#,
            r#"{"Credentials": [{"AccessKeyId": "A", "SecretAccessKey": "s", "User": "u", "Extra": 1}]}"#,
            r#"{"Credentials": [{"AccessKeyId": "A", "SecretAccessKey": "s", "User": "u", "Policies": [{}]}]}"#,
            r#"{"Credentials": [], "Principals": [{"User": "u", "Policies": {"Statement": []}}]}"#,
            r#"{"Credentials": [], "Principals": [{"User": "u"}, {"User": "u"}]}"#,
        ] {
            assert!(
                matches!(
                    Credentials::from_json(text),
                    Err(AuthError::CredentialsFile(_))
                ),
                "{text}"
            );
        }
    }
}
