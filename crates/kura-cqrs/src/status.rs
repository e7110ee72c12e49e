//! The values of a command row's `status` attribute (`{step}:{state}`): how far the
//! command got.

/// Published and waiting for the projector.
pub const STARTED: &str = "projection:STARTED";
/// Applied to the data table and every handler (or published in sync).
pub const FINISHED: &str = "finish:FINISHED";
/// Parked in the dead-letter table, or a sync handler failed.
pub const FAILED: &str = "finish:FAILED";

/// Whether a status is final (the projector, or `publish_sync`, is done with the command).
pub fn is_final(status: &str) -> bool {
    status.starts_with("finish:")
}
