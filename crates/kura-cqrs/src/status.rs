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
