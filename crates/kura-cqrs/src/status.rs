//! The values of a command row's `status` attribute (`{step}:{state}`): how far the
//! command got.

/// Published and waiting for the projector.
pub const STARTED: &str = "projection:STARTED";
/// Published in sync: applied to the data table, its publisher's handlers (listed in
/// the row's `handledBy`) still running. The publisher marks it [`FINISHED`] when they
/// have all applied it; a projector finds it still here after
/// [`crate::ProjectorOptions::sync_grace`] only when the publisher died meanwhile, and
/// runs the handlers itself.
pub const HANDLING: &str = "handlers:STARTED";
/// Applied to the data table and every handler.
pub const FINISHED: &str = "finish:FINISHED";
/// Parked in the dead-letter table, or a sync handler failed.
pub const FAILED: &str = "finish:FAILED";

/// Whether a status is final (the projector, or `publish_sync`, is done with the command).
pub fn is_final(status: &str) -> bool {
    status.starts_with("finish:")
}

/// A command version's status, typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommandStatus {
    /// [`STARTED`]: published asynchronously, waiting for the projector.
    Started,
    /// [`HANDLING`]: published in sync, its publisher's handlers running.
    Handling,
    /// [`FINISHED`]: applied to the data table and every handler.
    Finished,
    /// [`FAILED`]: parked in the dead-letter table.
    Failed,
}

impl CommandStatus {
    /// The stored text of a status (`None`: not one of the framework's).
    pub fn parse(text: &str) -> Option<CommandStatus> {
        Some(match text {
            STARTED => CommandStatus::Started,
            HANDLING => CommandStatus::Handling,
            FINISHED => CommandStatus::Finished,
            FAILED => CommandStatus::Failed,
            _ => return None,
        })
    }

    /// The text stored on the command row.
    pub fn as_str(self) -> &'static str {
        match self {
            CommandStatus::Started => STARTED,
            CommandStatus::Handling => HANDLING,
            CommandStatus::Finished => FINISHED,
            CommandStatus::Failed => FAILED,
        }
    }

    /// Whether the framework is done with the version.
    pub fn is_final(self) -> bool {
        matches!(self, CommandStatus::Finished | CommandStatus::Failed)
    }
}

impl std::fmt::Display for CommandStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_read_back_as_written() {
        for status in [
            CommandStatus::Started,
            CommandStatus::Handling,
            CommandStatus::Finished,
            CommandStatus::Failed,
        ] {
            assert_eq!(CommandStatus::parse(status.as_str()), Some(status));
            assert_eq!(status.is_final(), is_final(status.as_str()));
        }
        assert_eq!(CommandStatus::parse("finish:SOMETHING"), None);
    }
}
