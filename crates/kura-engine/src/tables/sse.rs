//! Server-side encryption settings. Kura stores data unencrypted on the local disk (the
//! operating system's disk encryption is the place for that); it keeps and reports the
//! setting exactly as DynamoDB does, so templates and SDK calls that set it work here.
//!
//! Without `SSESpecification`, or with `Enabled: false`, a table uses the AWS owned key and
//! DescribeTable has no `SSEDescription`. `Enabled: true` (or `SSEType: KMS`) means a KMS
//! key: the one named by `KMSMasterKeyId`, or the account's AWS managed key.

use kura_model::constraint::Constraints;

use crate::ACCOUNT_ID;
use crate::api::{SseDescription, SseSpecificationInput};
use crate::catalog::SseRecord;

const SSE_TYPES: [&str; 2] = ["AES256", "KMS"];

/// The key id of the AWS managed key `alias/aws/dynamodb` in Kura's one account.
const MANAGED_KEY_ID: &str = "6f3ee9a3-41c5-4cd4-9a1b-000000000ddb";

/// Framework constraints of `SSESpecification`.
pub(super) fn constraints(c: &mut Constraints, sse: Option<&SseSpecificationInput>) {
    if let Some(sse) = sse {
        c.one_of(
            "sSESpecification.sSEType",
            sse.sse_type.as_deref(),
            &SSE_TYPES,
        );
    }
}

/// The setting a request asks for: `None` is the AWS owned key.
pub(super) fn requested(sse: &SseSpecificationInput, region: &str) -> Option<SseRecord> {
    let kms = match sse.enabled {
        Some(enabled) => enabled,
        None => sse.sse_type.as_deref() == Some("KMS"),
    };
    kms.then(|| SseRecord {
        kms_master_key_arn: key_arn(sse.kms_master_key_id.as_deref(), region),
    })
}

/// A key ARN from a key id, alias name, key ARN or alias ARN, as KMS resolves them.
fn key_arn(key: Option<&str>, region: &str) -> String {
    match key {
        Some(arn) if arn.starts_with("arn:") => arn.to_owned(),
        Some(alias) if alias.starts_with("alias/") => {
            format!("arn:aws:kms:{region}:{ACCOUNT_ID}:{alias}")
        }
        Some(id) => format!("arn:aws:kms:{region}:{ACCOUNT_ID}:key/{id}"),
        None => format!("arn:aws:kms:{region}:{ACCOUNT_ID}:key/{MANAGED_KEY_ID}"),
    }
}

pub(super) fn describe(sse: Option<&SseRecord>) -> Option<SseDescription> {
    sse.map(|s| SseDescription {
        status: "ENABLED",
        sse_type: "KMS",
        kms_master_key_arn: s.kms_master_key_arn.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(enabled: Option<bool>, ty: Option<&str>, key: Option<&str>) -> SseSpecificationInput {
        SseSpecificationInput {
            enabled,
            sse_type: ty.map(str::to_owned),
            kms_master_key_id: key.map(str::to_owned),
        }
    }

    #[test]
    fn owned_managed_and_named_keys() {
        assert!(requested(&spec(None, None, None), "r").is_none());
        assert!(requested(&spec(Some(false), Some("KMS"), None), "r").is_none());
        let managed = requested(&spec(Some(true), None, None), "eu-west-1").unwrap();
        assert!(
            managed
                .kms_master_key_arn
                .starts_with("arn:aws:kms:eu-west-1:000000000000:key/")
        );
        let by_type = requested(&spec(None, Some("KMS"), Some("k1")), "r").unwrap();
        assert_eq!(
            by_type.kms_master_key_arn,
            "arn:aws:kms:r:000000000000:key/k1"
        );
        let alias = requested(&spec(Some(true), None, Some("alias/a")), "r").unwrap();
        assert_eq!(
            alias.kms_master_key_arn,
            "arn:aws:kms:r:000000000000:alias/a"
        );
        let arn = "arn:aws:kms:us-west-2:111122223333:key/x";
        let given = requested(&spec(Some(true), None, Some(arn)), "r").unwrap();
        assert_eq!(given.kms_master_key_arn, arn);
    }
}
