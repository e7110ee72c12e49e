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
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

pub use advice::Advisor;
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
    /// The design advisor, for endpoints that do not answer `/kura/advise` themselves;
    /// None: the advise tool answers only from such an endpoint.
    pub advisor: Option<Advisor>,
}

impl McpConfig {
    pub fn tools(&self) -> Result<KuraTools, McpError> {
        let endpoint = Endpoint::new(&self.endpoint, self.key.clone(), &self.region)?;
        Ok(KuraTools::new(endpoint, self.allow_writes, self.advisor))
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

/// Who may use `kura mcp --http`: with a token, clients send `Authorization: Bearer
/// TOKEN` and any address may be bound; without one, only a loopback address may be.
#[derive(Clone, Default)]
pub struct HttpAccess {
    pub token: Option<String>,
}

impl std::fmt::Debug for HttpAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let token = self.token.as_ref().map(|_| "..");
        f.debug_struct("HttpAccess").field("token", &token).finish()
    }
}

/// MCP clients are few: 64 connections, the API port's read deadline, 64 MiB of request
/// bodies held at once (rmcp refuses a single body over its own 4 MiB).
const HTTP_LIMITS: kura_server::connections::ConnectionLimits =
    kura_server::connections::ConnectionLimits {
        max_open: 64,
        read_timeout: std::time::Duration::from_secs(30),
        request_memory: 64 << 20,
    };

/// Serves MCP's streamable HTTP transport at `http://ADDR/mcp` until `shutdown` ends;
/// `ready` is told the bound address first. Connections are capped and held to
/// deadlines as `kura serve`'s are; a request without the token, when there is one, is
/// answered 401 before MCP sees it.
pub async fn serve_http(
    config: &McpConfig,
    addr: SocketAddr,
    access: HttpAccess,
    ready: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), McpError> {
    if access.token.is_none() && !addr.ip().is_loopback() {
        return Err(McpError::Invalid(format!(
            "kura mcp --http {addr}: a server on an address other hosts can reach needs a \
             token (--http-token or KURA_MCP_TOKEN); without one, bind a loopback address"
        )));
    }
    if access
        .token
        .as_ref()
        .is_some_and(|t| t.len() < MIN_TOKEN_CHARS)
    {
        return Err(McpError::Invalid(format!(
            "the MCP HTTP token must be at least {MIN_TOKEN_CHARS} characters"
        )));
    }
    let tools = config.tools()?;
    let cancel = CancellationToken::new();
    let mut http =
        StreamableHttpServerConfig::default().with_cancellation_token(cancel.child_token());
    // rmcp's Host allowlist (loopback names) stops DNS rebinding of a server without a
    // token; a token stops it too (a rebinding page does not have it), and the clients
    // of a server on another address name that address.
    if access.token.is_some() {
        http = http.disable_allowed_hosts();
    } else {
        // The bound loopback address is a name its clients use too (127.0.0.2, say).
        let mut hosts = http.allowed_hosts.clone();
        hosts.push(addr.ip().to_string());
        http = http.with_allowed_hosts(hosts);
    }
    let service = StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(LocalSessionManager::default()),
        http,
    );
    let mut router = axum::Router::new().nest_service("/mcp", service);
    if let Some(token) = access.token {
        let expected: Arc<[u8; 32]> = Arc::new(Sha256::digest(token.as_bytes()).into());
        router = router.layer(axum::middleware::from_fn(move |request, next| {
            bearer_only(expected.clone(), request, next)
        }));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| McpError::Transport(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| McpError::Transport(e.to_string()))?;
    ready(bound);
    let shutdown = async move {
        shutdown.await;
        cancel.cancel();
    };
    kura_server::connections::serve(listener, router, None, &HTTP_LIMITS, shutdown)
        .await
        .map_err(|e| McpError::Transport(e.to_string()))
}

/// A token shorter than this is refused at start: it could be guessed.
const MIN_TOKEN_CHARS: usize = 16;

/// Passes a request that carries the token; answers anything else 401. The digests of
/// the given and the expected token are compared, in constant time, so neither the
/// token's bytes nor its length show in how long a refusal takes.
async fn bearer_only(
    expected: Arc<[u8; 32]>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    use subtle::ConstantTimeEq;
    let given = request
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|value| bearer_token(value.as_bytes()))
        .map(|token| <[u8; 32]>::from(Sha256::digest(token)));
    if given.is_some_and(|given| bool::from(given.ct_eq(&*expected))) {
        return next.run(request).await;
    }
    // A client without the token is not the operator's concern unless debugging.
    tracing::debug!("kura mcp: a request without the token was refused");
    (
        axum::http::StatusCode::UNAUTHORIZED,
        [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
        "this MCP server needs Authorization: Bearer TOKEN\n",
    )
        .into_response()
}

/// The token of an `Authorization: Bearer TOKEN` header (the scheme in any case, as
/// RFC 9110 says auth schemes are).
fn bearer_token(header: &[u8]) -> Option<&[u8]> {
    let (scheme, token) = header.split_at_checked(7)?;
    scheme.eq_ignore_ascii_case(b"bearer ").then_some(token)
}

#[cfg(test)]
mod bearer_tests {
    use super::bearer_token;

    #[test]
    fn the_bearer_scheme_is_read_in_any_case() {
        assert_eq!(bearer_token(b"Bearer abc"), Some(&b"abc"[..]));
        assert_eq!(bearer_token(b"bearer abc"), Some(&b"abc"[..]));
        assert_eq!(bearer_token(b"BEARER abc"), Some(&b"abc"[..]));
        assert_eq!(bearer_token(b"Basic abc"), None);
        assert_eq!(bearer_token(b"Bear"), None);
    }
}
