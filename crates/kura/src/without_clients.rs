//! A `kura` built without the `clients` feature (a plain `cargo build`, made for a fast
//! first build; ADR 0020) has no commands that are AWS SDK clients (`kura dev`, `kura
//! cqrs`) and no S3 buckets.
//! Asking for one gets a line that says how to get a build that has it. `kura dev`'s
//! types exist here only as empty enums, so the server's start needs no cfg of its own.

use std::sync::Arc;
use std::time::Instant;

/// The commands and flags only a build with `clients` (`full`) has.
const CLIENT_COMMANDS: [&str; 2] = ["dev", "cqrs"];

/// What to say when `words` (the command line after `kura`) asks for something this build
/// does not have.
pub fn missing(words: &[String]) -> String {
    let first = words.first().map(String::as_str).unwrap_or_default();
    if first == "--s3-endpoint" || CLIENT_COMMANDS.contains(&first) {
        format!(
            "`{first}` is not in this build of kura: build it with \
             `cargo build --release -p kura --features full` (the static binary, the \
             container image and the packages have it)"
        )
    } else {
        format!("unrecognized subcommand '{first}'; see `kura --help`")
    }
}

/// `kura dev`'s configuration: none can exist in this build.
pub enum DevConfig {}

/// `kura dev`'s notifications: none are sent in this build (a field, so that it is made
/// as the real one is, with `default()`).
#[derive(Clone, Default)]
pub struct Notifier {
    _none: (),
}

/// `kura dev`'s notification stream: never made in this build (no configuration exists).
pub fn notifications_front_end(config: &DevConfig, _notifier: Notifier) -> kura_server::FrontEnd {
    match *config {}
}

/// `kura dev`'s stack: none can run in this build.
pub enum Stack {}

impl Stack {
    pub async fn start(
        config: DevConfig,
        _triggers: &Arc<kura_triggers::Triggers>,
        _endpoint: &str,
        _notifier: Notifier,
        _started: Instant,
    ) -> Result<Stack, String> {
        match config {}
    }

    pub async fn stop(self) {
        match self {}
    }
}

#[cfg(test)]
mod tests {
    use super::missing;

    #[test]
    fn client_commands_say_how_to_get_them() {
        let line = missing(&["cqrs".into(), "project".into()]);
        assert!(line.contains("`cqrs` is not in this build"), "{line}");
        assert!(missing(&["backup".into()]).starts_with("unrecognized"));
        assert!(line.contains("--features full"), "{line}");
        assert_eq!(
            missing(&["bakup".into()]),
            "unrecognized subcommand 'bakup'; see `kura --help`"
        );
    }
}
