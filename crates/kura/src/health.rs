//! `kura healthcheck`: exits 0 when a `kura serve` answers `GET /ready` with 200, for
//! Docker's `HEALTHCHECK` and Kubernetes' exec probes (the image has no curl). Anything
//! else is one plain line on standard error and exit status 1.

use std::time::Duration;

use bytes::Bytes;
use clap::Args;
use http_body_util::{BodyExt, Empty};

#[derive(Args)]
pub struct HealthcheckArgs {
    /// The server to check. Default: this host's `kura serve` as its own environment
    /// configures it (http://127.0.0.1:$KURA_PORT, https with $KURA_TLS_CERT).
    #[arg(long, value_parser = crate::endpoint::parse)]
    endpoint: Option<String>,
    /// Seconds to wait for the answer.
    #[arg(long, default_value_t = 3)]
    timeout: u64,
}

/// Checks the server; `Err` is the line to print.
pub async fn check(args: &HealthcheckArgs) -> Result<(), String> {
    let endpoint = args.endpoint.clone().unwrap_or_else(local_endpoint);
    match tokio::time::timeout(Duration::from_secs(args.timeout), ready(&endpoint)).await {
        Ok(answer) => answer,
        Err(_) => Err(format!(
            "{endpoint} did not answer within {} s",
            args.timeout
        )),
    }
}

/// The endpoint of a server started on this host with the same environment.
fn local_endpoint() -> String {
    let port = std::env::var("KURA_PORT").unwrap_or_else(|_| "8000".to_owned());
    let scheme = if std::env::var_os("KURA_TLS_CERT").is_some() {
        "https"
    } else {
        "http"
    };
    format!("{scheme}://127.0.0.1:{port}")
}

async fn ready(endpoint: &str) -> Result<(), String> {
    let url = format!("{}/ready", endpoint.trim_end_matches('/'));
    let uri: hyper::Uri = url
        .parse()
        .map_err(|_| format!("{endpoint} is not a URL (e.g. http://127.0.0.1:8000)"))?;
    let response = crate::observe::http_client::<Empty<Bytes>>()
        .get(uri)
        .await
        .map_err(|e| crate::endpoint::unreachable(endpoint, &e))?;
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    if status.is_success() {
        return Ok(());
    }
    Err(format!(
        "{endpoint} is not ready ({status}): {}",
        String::from_utf8_lossy(&body).trim()
    ))
}
