//! Command-table stream records read once into a typed value: the version published,
//! how it was published, where it is in the stream. The projector reads its records
//! this way, and so can an application's own consumer (its own Lambda function, a
//! poller) instead of picking attribute values out of images.

use aws_sdk_dynamodbstreams::types::{OperationType, Record};
use serde::de::DeserializeOwned;

use crate::command::CommandModel;
use crate::entity::Entity;
use crate::error::Result;
use crate::stream_image::stream_image;
use crate::sync_handoff::{Published, sync_published};

/// How a version was published.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Publishing {
    /// By `publish_async`: the projector applies it.
    Async,
    /// By `publish_sync`: the data table has it; `handled_by` are the sync handlers its
    /// publisher runs (or ran, when `finished`).
    Sync {
        finished: bool,
        handled_by: Vec<String>,
    },
}

/// One command version as the command table's stream delivered it.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandRecord {
    /// The record's place in its shard (what a Lambda function reports back for a
    /// record it could not finish).
    pub sequence_number: String,
    /// When the version was written, in seconds since the epoch (the stream's
    /// approximate creation time), when the stream says.
    pub created_at: Option<i64>,
    pub command: CommandModel,
    pub publishing: Publishing,
}

impl CommandRecord {
    /// The version a stream record publishes; `None` for a record that publishes none
    /// (a status change of a command row, a command row's expiry: commands are only
    /// ever inserted). A new image that is no command row is `CqrsError::Malformed`.
    pub fn from_stream(record: &Record) -> Result<Option<CommandRecord>> {
        if record.event_name() != Some(&OperationType::Insert) {
            return Ok(None);
        }
        let Some(change) = record.dynamodb() else {
            return Ok(None);
        };
        let Some(image) = change.new_image() else {
            return Ok(None);
        };
        let publishing = match sync_published(image) {
            None => Publishing::Async,
            Some(Published {
                finished,
                handled_by,
            }) => Publishing::Sync {
                finished,
                handled_by,
            },
        };
        Ok(Some(CommandRecord {
            sequence_number: change.sequence_number().unwrap_or_default().to_owned(),
            created_at: change.approximate_creation_date_time().map(|t| t.secs()),
            command: CommandModel::from_item(&stream_image(image))?,
            publishing,
        }))
    }

    /// The version's attributes read as `T` ([`Entity::from_row`]).
    pub fn entity<T: DeserializeOwned>(&self) -> Result<Entity<T>> {
        Entity::from_row(self.command.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodbstreams::types::{AttributeValue as V, StreamRecord};
    use std::collections::HashMap;

    fn record(event: OperationType, image: HashMap<String, V>) -> Record {
        Record::builder()
            .event_name(event)
            .dynamodb(
                StreamRecord::builder()
                    .sequence_number("42")
                    .approximate_creation_date_time(aws_smithy_types::DateTime::from_secs(7))
                    .set_new_image(Some(image))
                    .build(),
            )
            .build()
    }

    fn image(extra: &[(&str, V)]) -> HashMap<String, V> {
        let mut image: HashMap<String, V> = [
            ("pk", V::S("ORDER#t1".into())),
            ("sk", V::S("ORDER#1@2".into())),
            ("version", V::N("2".into())),
            ("type", V::S("ORDER".into())),
            (
                "attributes",
                V::M(HashMap::from([("total".to_owned(), V::N("12".into()))])),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        image.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        image
    }

    #[derive(serde::Deserialize)]
    struct Order {
        total: u32,
    }

    #[test]
    fn an_insert_reads_as_the_version_it_publishes() {
        let read = CommandRecord::from_stream(&record(OperationType::Insert, image(&[])))
            .expect("a command row")
            .expect("an insert");
        assert_eq!(
            (read.sequence_number.as_str(), read.created_at),
            ("42", Some(7))
        );
        assert_eq!(
            (read.command.version, read.command.base_sk()),
            (2.into(), "ORDER#1")
        );
        assert_eq!(read.publishing, Publishing::Async);
        assert_eq!(read.entity::<Order>().expect("an order").total, 12);
    }

    #[test]
    fn a_sync_publish_names_its_handlers_and_other_events_publish_nothing() {
        let sync = image(&[
            ("status", V::S("handlers:STARTED".into())),
            ("handledBy", V::L(vec![V::S("search".into())])),
        ]);
        let read = CommandRecord::from_stream(&record(OperationType::Insert, sync))
            .expect("read")
            .expect("an insert");
        assert_eq!(
            read.publishing,
            Publishing::Sync {
                finished: false,
                handled_by: vec!["search".into()]
            }
        );
        for event in [OperationType::Modify, OperationType::Remove] {
            let read = CommandRecord::from_stream(&record(event, image(&[]))).expect("read");
            assert!(read.is_none());
        }
    }
}
