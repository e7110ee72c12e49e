//! The names requests are signed for.

/// The service name DynamoDB and DynamoDB Streams are signed for (the AWS SDKs sign
/// Streams calls with `dynamodb` as well).
pub const SERVICE: &str = "dynamodb";
/// The region a console session acts in (any region shares one namespace in Kura).
pub const DEFAULT_REGION: &str = "us-east-1";
