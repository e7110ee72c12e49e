//! Who may read `GET /metrics` on the API's port.

/// Who may read `GET /metrics` on the API's port. The metrics name every table and index,
/// so with `--auth` on they are not open unless asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum MetricsAccess {
    /// Anyone (the default without `--auth`).
    #[default]
    Open,
    /// Requests carrying `Authorization: Bearer <token>` (`--metrics-token`).
    Bearer(String),
    /// No one on the API's port (the default with `--auth`; `--metrics-bind` still serves).
    Refused,
}
