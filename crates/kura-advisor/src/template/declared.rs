//! A table a template declares, and the small readings of its parts both dialects share.

use crate::template_intrinsics::NotLiteral;
use serde_json::Value;

/// One table a template declares, as the calls that make it.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    /// The template's name for it: a logical id, a Terraform address, or the table name.
    pub resource: String,
    /// The line of the file where it is declared (1-based), when it can be found.
    pub line: Option<usize>,
    /// Where the next resource starts (CloudFormation), bounding the search for a property.
    pub end_line: Option<usize>,
    pub create: Value,
    /// UpdateTimeToLive's TimeToLiveSpecification, when TTL is on.
    pub ttl: Option<Value>,
    pub pitr: bool,
    /// PITR's `RecoveryPeriodInDays`, when the template gives one.
    pub recovery_period_days: Option<i64>,
    /// Kinesis Data Streams destinations of its changes (ARNs, or what stands for one).
    pub kinesis: Vec<String>,
    /// The parts whose value only the deployment knows (CloudFormation).
    pub not_literal: Vec<NotLiteral>,
    /// Why a finding on it may have no line (said in the report rather than left out).
    pub no_line: Option<&'static str>,
    /// For a global table judged as its weakest replica: the replica's region behind a
    /// rule's finding (rule id, region).
    pub replica_behind: Vec<(&'static str, String)>,
}

impl Declared {
    pub(super) fn new(create: Value) -> Declared {
        Declared {
            resource: create["TableName"].as_str().unwrap_or_default().to_owned(),
            line: None,
            end_line: None,
            create,
            ttl: None,
            pitr: false,
            recovery_period_days: None,
            kinesis: Vec::new(),
            not_literal: Vec::new(),
            no_line: Some("a schema file gives no line per table"),
            replica_behind: Vec::new(),
        }
    }
}

/// A CreateTable input cut to what CreateTable takes (as `--schema` does).
pub(super) fn schema_input(create: Value) -> Value {
    kura_api::schema_file::schema_inputs(&create.to_string())
        .ok()
        .and_then(|mut inputs| inputs.pop())
        .unwrap_or(create)
}

/// The top-level property a path names (`Properties.X...` is `X`).
pub(super) fn top_property(path: &str) -> Option<&str> {
    path.strip_prefix("Properties.")?.split(['.', '[']).next()
}

/// A Kinesis destination's stream ARN, usually a `Fn::GetAtt` of the stream: that there is
/// a destination is known, which is what the rule on it judges.
pub(super) fn is_kinesis_stream_arn(path: &str) -> bool {
    path.ends_with("KinesisStreamSpecification.StreamArn")
}
