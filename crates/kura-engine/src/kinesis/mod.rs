//! Kinesis Data Streams (`Kinesis_20131202`) on Kura's store: streams and their shards
//! ([`stream`]), the stream operations ([`stream_admin`]) and the record operations
//! ([`records`]). Records are written by the one writer, in the batch of the request that
//! puts them, so an acknowledged record survives a crash like an acknowledged item.

pub(crate) mod destination;
pub(crate) mod destinations;
pub(crate) mod records;
pub(crate) mod reshard;
pub(crate) mod stream;
pub(crate) mod stream_admin;
pub(crate) mod trim;

use crate::api::kinesis::StreamRef;
use crate::error::{EngineError, Result};
use crate::keys;
use kura_store::{Snapshot, Space};
use stream::{KinesisStream, name_of_arn};

/// The account's shard quota (Kinesis's default in the large regions).
pub(crate) const MAX_SHARDS: u32 = 500;

pub(crate) fn invalid_argument(message: impl Into<String>) -> EngineError {
    EngineError::InvalidArgument(message.into())
}

/// The stream name a request names, by name or ARN (both: they must agree).
pub(crate) fn resolve(stream: StreamRef<'_>) -> Result<&str> {
    let mut c = kura_model::constraint::Constraints::new();
    stream::stream_name_constraint(&mut c, "streamName", stream.stream_name, false);
    if let Some(arn) = stream.stream_arn {
        c.length("streamARN", arn, arn.chars().count(), 1, 2048);
        if name_of_arn(arn).is_none() {
            c.fail(
                Some(arn),
                "streamARN",
                "Member must satisfy regular expression pattern: \
                 arn:aws.*:kinesis:.*:\\d{12}:stream/\\S+",
            );
        }
    }
    c.finish()?;
    match (stream.stream_name, stream.stream_arn.and_then(name_of_arn)) {
        (None, None) => Err(invalid_argument(
            "Either StreamName or StreamARN should be provided.",
        )),
        (Some(name), Some(from_arn)) if name != from_arn => Err(invalid_argument(format!(
            "StreamARN {} and StreamName {name} do not name the same stream.",
            stream.stream_arn.unwrap_or_default()
        ))),
        (_, Some(name)) | (Some(name), None) => Ok(name),
    }
}

/// The metadata of the stream named `name`, in `snapshot`.
pub(crate) fn stream_by_name(snapshot: &dyn Snapshot, name: &str) -> Result<Option<KinesisStream>> {
    let Some(id) = snapshot.get(Space::Meta, &keys::kinesis_name_key(name))? else {
        return Ok(None);
    };
    let id = u64::from_be_bytes(
        id.as_slice()
            .try_into()
            .map_err(|_| EngineError::Internal("corrupt Kinesis stream name record".into()))?,
    );
    stream_by_id(snapshot, id)
}

/// The metadata of stream `id`, in `snapshot`.
pub(crate) fn stream_by_id(snapshot: &dyn Snapshot, id: u64) -> Result<Option<KinesisStream>> {
    snapshot
        .get(Space::Meta, &keys::kinesis_stream_key(id))?
        .map(|bytes| KinesisStream::decode(&bytes))
        .transpose()
}
