//! DynamoDB Streams: one stream per table at a time, its records written in the item
//! write's batch ([`record`]), its shards and sequence numbers ([`meta`]), and the
//! DynamoDBStreams_20120810 read API ([`operations`]).

pub(crate) mod iterator;
pub(crate) mod meta;
pub(crate) mod operations;
pub(crate) mod record;
pub(crate) mod specification;

pub use meta::ShardShape;
pub use operations::StreamLag;
