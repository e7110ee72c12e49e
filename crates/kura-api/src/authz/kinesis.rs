//! What the Kinesis operations ask of the policies: `kinesis:<Operation>` on the stream's
//! ARN in the signer's region and account (ListStreams on `*`; GetRecords on the stream
//! its shard iterator reads).

use kura_engine::api::kinesis::{GetRecordsInput, NamesStream};

use super::{Check, Scope};
use crate::operation::Op;

/// The check of an operation on the stream `input` names. A request that names none is
/// checked on every stream, and the engine then reports what is missing.
pub(crate) fn on_stream(scope: &Scope<'_>, op: Op, input: &impl NamesStream) -> Vec<Check> {
    let named = input.stream();
    let name = named
        .stream_arn
        .and_then(|arn| arn.split_once(":stream/").map(|(_, name)| name))
        .or(named.stream_name)
        .unwrap_or("*");
    vec![Check::of(op, scope.kinesis_stream(name))]
}

pub(crate) fn list_streams(scope: &Scope<'_>) -> Vec<Check> {
    vec![Check::of(Op::KinesisListStreams, scope.any())]
}

pub(crate) fn get_records(scope: &Scope<'_>, input: &GetRecordsInput) -> Vec<Check> {
    let arn = input
        .shard_iterator
        .as_deref()
        .and_then(|it| scope.engine.kinesis_iterator_stream_arn(scope.ctx, it))
        .and_then(|arn| arn.split_once(":stream/").map(|(_, n)| n.to_owned()))
        .unwrap_or_else(|| "*".to_owned());
    vec![Check::of(Op::KinesisGetRecords, scope.kinesis_stream(&arn))]
}
