//! Versions published in sync, between their publisher and the projector.
//!
//! `publish_sync` applies the data in its transaction and then runs its own sync
//! handlers, naming them in the command row's `handledBy`. The projector runs every
//! handler of its own that the publisher lacked (a service built without them, an
//! import), so no read model misses a version; it waits for the publisher to finish the
//! ones it ran, and runs them all itself when the publisher died before it was done.

use std::collections::HashMap;

use aws_sdk_dynamodbstreams::types::AttributeValue as StreamValue;

use crate::names::{HANDLED_BY, STATUS};
use crate::status;

/// What a command row's stream image says of a version published in sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Published {
    /// Finished when written: its publisher had no handlers to run.
    pub finished: bool,
    /// The handlers its publisher ran.
    pub handled_by: Vec<String>,
}

/// How the publisher of a version published in sync left it, as the projector found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Handled {
    /// Finished by its publisher, which ran these handlers.
    ByPublisher(Vec<String>),
    /// A handler of its publisher failed: parked in the dead-letter table already.
    Failed,
    /// Still handling after the projector's grace (the publisher died meanwhile), or
    /// gone: the projector runs every handler.
    Abandoned,
    /// Another projector took the shard over while this one waited.
    LeaseLost,
}

/// The publisher's account of a version, when the image is of one published in sync
/// (`None`: published asynchronously, the projector's to apply).
pub(crate) fn sync_published(image: &HashMap<String, StreamValue>) -> Option<Published> {
    let finished = match image.get(STATUS) {
        Some(StreamValue::S(s)) if s == status::FINISHED => true,
        Some(StreamValue::S(s)) if s == status::HANDLING => false,
        _ => return None,
    };
    let handled_by = match image.get(HANDLED_BY) {
        Some(StreamValue::L(ids)) => ids
            .iter()
            .filter_map(|id| match id {
                StreamValue::S(id) => Some(id.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some(Published {
        finished,
        handled_by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(status: &str, handled: Option<&[&str]>) -> HashMap<String, StreamValue> {
        let mut image = HashMap::from([(STATUS.to_owned(), StreamValue::S(status.into()))]);
        if let Some(ids) = handled {
            let ids = ids.iter().map(|id| StreamValue::S((*id).into())).collect();
            image.insert(HANDLED_BY.to_owned(), StreamValue::L(ids));
        }
        image
    }

    #[test]
    fn async_versions_are_the_projectors() {
        assert_eq!(sync_published(&image(status::STARTED, None)), None);
    }

    #[test]
    fn a_sync_version_names_its_publishers_handlers() {
        assert_eq!(
            sync_published(&image(status::HANDLING, Some(&["search", "mail"]))),
            Some(Published {
                finished: false,
                handled_by: vec!["search".into(), "mail".into()],
            })
        );
        // A publisher without handlers, or a row written before `handledBy` existed.
        assert_eq!(
            sync_published(&image(status::FINISHED, None)),
            Some(Published {
                finished: true,
                handled_by: Vec::new(),
            })
        );
    }
}
