//! `kura mcp`: a Model Context Protocol server in front of any DynamoDB endpoint (Kura,
//! DynamoDB Local, AWS), over stdio or streamable HTTP, built on the official Rust SDK
//! (`rmcp`). Assistants list and describe tables, get, query and scan in bounded pages,
//! run PartiQL, read the design advisor's findings and a table's access patterns; they
//! write only when the server is started with `--allow-writes`. Every DynamoDB call is
//! signed with SigV4, so a Kura started with `--auth` holds the assistant to the key's
//! policies (docs/mcp.md).

pub mod access;
mod advice;
mod error;
mod pages;
pub mod params;
pub mod requests;
mod statement;
mod tools;

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

pub use error::McpError;
pub use kura_auth::sign::SigningKey;
pub use kura_client::{ClientError, Endpoint};
pub use statement::reads_only;
pub use tools::KuraTools;

/// What `kura mcp` serves.
#[derive(Debug, Clone)]
pub struct McpConfig {
    /// The DynamoDB endpoint, `http(s)://host[:port]`.
    pub endpoint: String,
    /// The region requests are signed for.
    pub region: String,
    pub key: SigningKey,
    /// Offer the write tools and PartiQL writes.
    pub allow_writes: bool,
}

impl McpConfig {
    pub fn tools(&self) -> Result<KuraTools, McpError> {
        let endpoint = Endpoint::new(&self.endpoint, self.key.clone(), &self.region)?;
        Ok(KuraTools::new(endpoint, self.allow_writes))
    }
}

/// Serves MCP on standard input and output until the client closes them.
pub async fn serve_stdio(config: &McpConfig) -> Result<(), McpError> {
    let service = config
        .tools()?
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError::Transport(e.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|e| McpError::Transport(e.to_string()))?;
    Ok(())
}

/// Serves MCP's streamable HTTP transport at `http://ADDR/mcp` until `shutdown` ends;
/// `ready` is told the bound address first.
pub async fn serve_http(
    config: &McpConfig,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), McpError> {
    let tools = config.tools()?;
    let cancel = CancellationToken::new();
    let service = StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_cancellation_token(cancel.child_token()),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| McpError::Transport(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| McpError::Transport(e.to_string()))?;
    ready(bound);
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            cancel.cancel();
        })
        .await
        .map_err(|e| McpError::Transport(e.to_string()))
}
