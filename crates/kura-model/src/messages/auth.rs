//! The texts of DynamoDB's authentication errors (SigV4), each with its source.
//!
//! Sources: the texts DynamoDB sends as recorded in dynalite's `index.js` comments
//! (captured against us-east-1 and ap-southeast-2), and the DynamoDB API Reference's
//! "Common Errors" page for the types. Where no capture exists the function says so.

/// No `Authorization` header (or not an `AWS4-` one) and no presigned query string.
/// Source: dynalite `index.js`.
pub const MISSING_AUTHENTICATION_TOKEN: &str = "Request is missing Authentication Token";

/// An access key Kura does not know, or a session token that does not belong to the key.
/// Source: dynalite `index.js` ("THEN check keyid"); AWS SDK issue reports quote the same
/// text with the final period.
pub const SECURITY_TOKEN_INVALID: &str = "The security token included in the request is invalid.";

/// A temporary credential past its expiration (`ExpiredTokenException`). Source: DynamoDB
/// responses quoted in guregu/dynamo issue #68 and treeverse/lakeFS issue #7178.
pub const SECURITY_TOKEN_EXPIRED: &str = "The security token included in the request is expired";

/// The signature does not match. Source: dynalite `index.js`; DynamoDB appends the
/// canonical request and string to sign it expected, which Kura leaves out (they would
/// tell a prober what the server computed).
pub const SIGNATURE_MISMATCH: &str = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";

/// `Host` is not among the signed headers. Source: dynalite `index.js`.
pub const HOST_NOT_SIGNED: &str = "'Host' must be a 'SignedHeader' in the AWS Authorization.";

/// One missing `Authorization` parameter (`Credential`, `Signature`, `SignedHeaders`); the
/// pieces are concatenated and followed by [`authorization_echo`]. Source: dynalite
/// `index.js`.
pub fn authorization_requires(parameter: &str) -> String {
    format!("Authorization header requires '{parameter}' parameter. ")
}

/// Neither `X-Amz-Date` nor `Date`. Source: dynalite `index.js`.
pub const AUTHORIZATION_REQUIRES_DATE: &str =
    "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ";

/// The tail of an incomplete-signature message: the header as sent. Source: dynalite.
pub fn authorization_echo(header: &str) -> String {
    format!("Authorization={header}")
}

/// A `key=value` pair of the `Authorization` header without `=`. Source: dynalite
/// `index.js` (a TODO quoting the AWS text).
pub fn not_a_key_value_pair(pair: &str, header: &str) -> String {
    format!(
        "'{pair}' not a valid key=value pair (missing equal-sign) in Authorization header: '{header}'."
    )
}

/// A date not in ISO-8601 basic format. Source: dynalite `index.js`.
pub fn date_format(got: &str) -> String {
    format!(
        "Date must be in ISO-8601 'basic format'. Got '{got}'. See http://en.wikipedia.org/wiki/ISO_8601"
    )
}

/// A request dated more than 15 minutes ago. Source: dynalite `index.js`
/// ("Signature expired: 20130301T000000Z is now earlier than 20130609T094515Z
/// (20130609T100015Z - 15 min.)").
pub fn signature_expired(request: &str, earliest: &str, now: &str) -> String {
    format!("Signature expired: {request} is now earlier than {earliest} ({now} - 15 min.)")
}

/// A request dated more than 15 minutes ahead. Source: AWS's SigV4 wording as servers
/// that reproduce it send it ("Signature not yet current: X is still later than Y
/// (Z + 15 min.)"); no DynamoDB capture in dynalite.
pub fn signature_not_yet_current(request: &str, latest: &str, now: &str) -> String {
    format!("Signature not yet current: {request} is still later than {latest} ({now} + 15 min.)")
}

/// A presigned URL used after `X-Amz-Date` + `X-Amz-Expires`. Source: none captured for
/// DynamoDB; Kura's wording in the shape of [`signature_expired`].
pub fn presigned_expired(expiry: &str, now: &str) -> String {
    format!("Signature expired: {expiry} is now earlier than {now}")
}

/// An algorithm other than `AWS4-HMAC-SHA256`. Source: dynalite `index.js`.
pub fn unsupported_algorithm(algorithm: &str) -> String {
    format!("Unsupported AWS 'algorithm': '{algorithm}' (only AWS4-HMAC-SHA256 for now). ")
}

/// A credential that is not `keyid/date/region/service/aws4_request`. Source: dynalite
/// `index.js`.
pub fn credential_shape(credential: &str) -> String {
    format!(
        "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '{credential}'"
    )
}

/// Scope checks; several are concatenated. Source: dynalite `index.js`.
pub fn scope_region(region: &str) -> String {
    format!("Credential should be scoped to a valid region, not '{region}'. ")
}
/// Source: dynalite `index.js`.
pub fn scope_service(service: &str) -> String {
    format!("Credential should be scoped to correct service: '{service}'. ")
}
/// Source: dynalite `index.js`.
pub fn scope_terminator(terminator: &str) -> String {
    format!(
        "Credential should be scoped with a valid terminator: 'aws4_request', not '{terminator}'. "
    )
}
/// Source: dynalite `index.js`.
pub fn scope_date(scope_date: &str, date_day: &str, date: &str) -> String {
    format!(
        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '{scope_date}' != '{date_day}', from '{date}'."
    )
}

/// A presigned query string missing one of its parameters. Source: the AWS SigV4
/// query-string wording (S3's `AuthorizationQueryParametersError`); no DynamoDB capture.
pub const QUERY_PARAMETERS_REQUIRED: &str = "AWS query-string parameters must include 'X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Signature', 'X-Amz-Date', 'X-Amz-SignedHeaders'. Re-examine the query-string parameters.";

/// `X-Amz-Expires` not a number of seconds from 1 to 604800. Source: none captured for
/// DynamoDB; the limit is SigV4's (seven days).
pub const QUERY_EXPIRES: &str =
    "X-Amz-Expires must be a number of seconds between 1 and 604800 (seven days).";

/// AccessDeniedException: the identity policies do not allow `action` on `resource`
/// (`explicit`: a Deny statement matched). IAM's wording since 2021, as DynamoDB sends it
/// for an identity policy without a matching Allow: "User: arn:aws:sts::…:assumed-role/…
/// is not authorized to perform: dynamodb:Query on resource: arn:aws:dynamodb:us-east-1:…
/// :table/… because no identity-based policy allows the dynamodb:Query action" (quoted in
/// AntonShuvaev/intellij-dynamodb issue #29, 2023, and anomalyco/sst issue #4469, 2024);
/// the explicit-deny form ends "with an explicit deny in an identity-based policy" (IAM
/// User Guide, "Troubleshoot access denied error messages"). Kura's inline policies have
/// no policy ARN, so none follows the explicit-deny form.
/// AccessDeniedException for a Deny statement of the table's or stream's resource-based
/// policy: IAM's explicit-deny form "with an explicit deny in a resource-based policy"
/// (IAM User Guide, "Troubleshoot access denied error messages", which lists the
/// identity-based and resource-based variants of the explicit-deny ending).
pub fn access_denied_by_resource_policy(principal: &str, action: &str, resource: &str) -> String {
    format!(
        "User: {principal} is not authorized to perform: {action} on resource: {resource} with an explicit deny in a resource-based policy"
    )
}

/// A table named by an ARN of another account, with no resource-based policy granting
/// the caller. Source: the IAM cross-account wording DynamoDB answers (AWS, "Using
/// resource-based policies for DynamoDB", cross-account access).
pub fn cross_account(principal: &str, action: &str, resource: &str) -> String {
    format!(
        "User: {principal} is not authorized to perform: {action} on resource: {resource} because no resource-based policy allows the {action} action"
    )
}

pub fn access_denied(principal: &str, action: &str, resource: &str, explicit: bool) -> String {
    if explicit {
        format!(
            "User: {principal} is not authorized to perform: {action} on resource: {resource} with an explicit deny in an identity-based policy"
        )
    } else {
        format!(
            "User: {principal} is not authorized to perform: {action} on resource: {resource} because no identity-based policy allows the {action} action"
        )
    }
}
