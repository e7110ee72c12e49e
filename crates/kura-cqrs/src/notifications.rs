//! Notifications of command status: the projector (and `publish_sync`) tell subscribers
//! when a command version finishes or fails, so that a client can be told instead of
//! polling `wait_finished`. A broadcast channel: subscribers that fall behind lose the
//! oldest notifications (and are told how many), the publisher never waits.

use serde::Serialize;
use tokio::sync::broadcast;

use crate::command::CommandModel;
use crate::version::Version;

/// One command version reaching a final status.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    /// The command table.
    pub table: String,
    pub pk: String,
    /// The command's sort key (`base@version`).
    pub sk: String,
    /// The entity's id (`pk#base`).
    pub id: String,
    pub version: Version,
    pub tenant_code: String,
    /// The user who published it (`updatedBy`).
    pub user: String,
    /// `finish:FINISHED` or `finish:FAILED`.
    pub status: String,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Notification {
    pub fn of(
        table: &str,
        command: &CommandModel,
        status: &str,
        error: Option<&str>,
    ) -> Notification {
        Notification {
            table: table.to_owned(),
            pk: command.pk.clone(),
            sk: command.sk.clone(),
            id: command.id.clone(),
            version: command.version,
            tenant_code: command.tenant_code.clone(),
            user: command.audit.updated_by.clone(),
            status: status.to_owned(),
            error: error.map(str::to_owned),
        }
    }
}

/// Where notifications go: clone it into every projector and service of a process;
/// `subscribe` for a receiver.
#[derive(Debug, Clone)]
pub struct Notifier(broadcast::Sender<Notification>);

impl Notifier {
    /// A channel keeping up to `capacity` notifications for a slow subscriber.
    pub fn new(capacity: usize) -> Notifier {
        Notifier(broadcast::channel(capacity.max(1)).0)
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Notification> {
        self.0.subscribe()
    }

    /// Sends to the current subscribers (none is fine).
    pub fn send(&self, notification: Notification) {
        let _ = self.0.send(notification);
    }
}

impl Default for Notifier {
    fn default() -> Notifier {
        Notifier::new(1024)
    }
}
