//! Kura's container image as a [testcontainers] image (feature `testcontainers`): the
//! server in its own container, for suites that already run their other services that
//! way, beside [`crate::TestKura`] (the server in the test process).
//!
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use kura_testkit::container::{Kura, KuraContainer};
//! use testcontainers::runners::AsyncRunner;
//!
//! let kura: KuraContainer = Kura::default().start().await?;
//! let client = kura_testkit::container::client(&kura).await?;
//! client.list_tables().send().await?;
//! kura_testkit::container::reset(&kura).await?; // an empty server for the next test
//! # Ok(()) }
//! ```
//!
//! The image is `kura:latest`, or `$KURA_IMAGE` (`NAME:TAG`), as `scripts/image.sh` builds
//! it; nothing is pulled when it is there. By default the container serves in memory with
//! the test controls on (`serve --in-memory --test-controls`), so [`reset`] empties it in
//! under a millisecond; [`Kura::durable`] serves from the image's `/data` volume instead.
//! testcontainers-rs runs no Ryuk sidecar: a container is removed when its handle drops.

use std::borrow::Cow;

use testcontainers::core::{ContainerPort, WaitFor};
use testcontainers::{ContainerAsync, Image, TestcontainersError};

/// The port Kura serves on inside the container.
pub const PORT: ContainerPort = ContainerPort::Tcp(8000);

/// A started Kura container.
pub type KuraContainer = ContainerAsync<Kura>;

/// Kura's image and how to start it.
#[derive(Debug, Clone)]
pub struct Kura {
    name: String,
    tag: String,
    args: Vec<String>,
}

impl Default for Kura {
    /// `$KURA_IMAGE` or `kura:latest`, serving in memory with the test controls.
    fn default() -> Self {
        let reference = std::env::var("KURA_IMAGE")
            .ok()
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "kura:latest".to_owned());
        Kura::image(&reference)
    }
}

impl Kura {
    /// The image `reference` (`NAME` or `NAME:TAG`; the tag defaults to `latest`), serving
    /// in memory with the test controls.
    pub fn image(reference: &str) -> Self {
        // A registry host may carry a port (`host:5000/kura`): the tag follows the last '/'.
        let (name, tag) = match reference.rsplit_once(':') {
            Some((name, tag)) if !tag.contains('/') => (name, tag),
            _ => (reference, "latest"),
        };
        Kura {
            name: name.to_owned(),
            tag: tag.to_owned(),
            args: vec![
                "serve".into(),
                "--in-memory".into(),
                "--test-controls".into(),
            ],
        }
    }

    /// Serve from the image's `/data` volume (the image's default command): data outlives
    /// a restart of the container; the test controls that wipe state are refused.
    pub fn durable(mut self) -> Self {
        self.args = vec!["serve".into()];
        self
    }

    /// More `kura serve` flags, e.g. `["--enforce-capacity"]` or `["--clock", "manual"]`.
    pub fn with_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }
}

impl Image for Kura {
    fn name(&self) -> &str {
        &self.name
    }

    fn tag(&self) -> &str {
        &self.tag
    }

    /// The readiness line `kura serve` logs once it accepts requests.
    fn ready_conditions(&self) -> Vec<WaitFor> {
        vec![WaitFor::message_on_stderr("kura ready on")]
    }

    fn cmd(&self) -> impl IntoIterator<Item = impl Into<Cow<'_, str>>> {
        self.args.iter().map(String::as_str)
    }

    fn expose_ports(&self) -> &[ContainerPort] {
        std::slice::from_ref(&PORT)
    }
}

/// The container's DynamoDB endpoint as the host reaches it, e.g. `http://127.0.0.1:32768`.
pub async fn endpoint(container: &KuraContainer) -> Result<String, TestcontainersError> {
    let host = container.get_host().await?;
    let port = container.get_host_port_ipv4(PORT).await?;
    Ok(format!("http://{host}:{port}"))
}

/// An SDK client for the container (any credentials work without `--auth`).
pub async fn client(
    container: &KuraContainer,
) -> Result<aws_sdk_dynamodb::Client, TestcontainersError> {
    Ok(crate::endpoint_client(&endpoint(container).await?))
}

/// A DynamoDB Streams client for the container.
pub async fn streams_client(
    container: &KuraContainer,
) -> Result<aws_sdk_dynamodbstreams::Client, TestcontainersError> {
    Ok(crate::endpoint_streams_client(&endpoint(container).await?))
}

/// Empties the server (`POST /kura/admin/reset`): no tables, backups or exports. Only in
/// the default in-memory mode.
pub async fn reset(container: &KuraContainer) -> Result<(), String> {
    let url = format!(
        "{}/kura/admin/reset",
        endpoint(container).await.map_err(|e| e.to_string())?
    );
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build(hyper_util::client::legacy::connect::HttpConnector::new());
    let request = http::Request::post(&url)
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .map_err(|e| e.to_string())?;
    let response = client
        .request(request)
        .await
        .map_err(|e| format!("POST {url}: {e}"))?;
    match response.status() {
        status if status.is_success() => Ok(()),
        status => Err(format!(
            "POST {url}: {status} (reset needs the in-memory mode)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::Kura;
    use testcontainers::Image;

    #[test]
    fn image_references_split_into_name_and_tag() {
        let kura = Kura::image("kura:0.1.0");
        assert_eq!((kura.name(), kura.tag()), ("kura", "0.1.0"));
        let kura = Kura::image("registry.local:5000/kura");
        assert_eq!(
            (kura.name(), kura.tag()),
            ("registry.local:5000/kura", "latest")
        );
        let kura = Kura::image("registry.local:5000/kura:dev");
        assert_eq!(
            (kura.name(), kura.tag()),
            ("registry.local:5000/kura", "dev")
        );
    }
}
