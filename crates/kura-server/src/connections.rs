//! Accepting and serving connections, HTTP or HTTPS alike, within limits: at most
//! `max_open` connections at once (beyond them, new ones wait in the kernel's backlog
//! until one closes), a deadline for each request's headers and another for its body,
//! and one budget of request bytes for all connections together (`body_limits`), so
//! clients that open connections and trickle or flood bytes cannot hold memory or sockets
//! without bound. Shutdown stops accepting and lets open connections
//! finish their requests (idle keep-alive connections are closed).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Semaphore;
use tower::ServiceExt;

use crate::body_limits::{BodyBudget, LimitedBody};
use crate::tls::TlsConfig;

/// A client that opens a connection and never finishes the TLS handshake is dropped
/// after it.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How many connections a server keeps open, how long it waits for a request's headers
/// and body, and how many request bytes it holds at once (`kura serve
/// --max-connections`, `--request-read-timeout`, `--request-memory-mb`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    pub max_open: usize,
    /// From a request's first byte to its last: the headers, then (separately) the body.
    pub read_timeout: Duration,
    /// Request body bytes read or held at once, over every connection and route (the
    /// inflated copies of API bodies included); past it a request is answered 503.
    pub request_memory: usize,
}

impl ConnectionLimits {
    /// 4,096 connections (each costs about 14 KB while it idles, measured), 30 s for the
    /// headers and 30 s for the body (hyper's default for headers), 256 MiB of request
    /// bytes (sixteen bodies at DynamoDB's 16 MB limit, thousands of usual ones).
    pub const DEFAULT: ConnectionLimits = ConnectionLimits {
        max_open: 4096,
        read_timeout: Duration::from_secs(30),
        request_memory: 256 << 20,
    };
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits::DEFAULT
    }
}

/// Serves `app` on `listener` (over TLS when `tls` is given) until `shutdown` resolves.
/// `kura mcp --http` serves with it too.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    tls: Option<&TlsConfig>,
    limits: &ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let acceptor = tls.map(|tls| tokio_rustls::TlsAcceptor::from(tls.server_config()));
    let open = Arc::new(Semaphore::new(limits.max_open.max(1)));
    let budget = BodyBudget::new(limits.request_memory);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // A place first: at the cap, accepting waits and connections queue in the backlog.
        let place = tokio::select! {
            place = open.clone().acquire_owned() => match place {
                Ok(place) => place,
                Err(_) => break, // never closed
            },
            () = &mut shutdown => break,
        };
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(error) => {
                    // Out of file descriptors and the like: back off, keep serving.
                    tracing::warn!("accept failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Answers go out in one write each; without Nagle's delay a small one is not held
        // back waiting for the client's acknowledgement.
        let _ = tcp.set_nodelay(true);
        let app = app.clone();
        let acceptor = acceptor.clone();
        let read_timeout = limits.read_timeout;
        let budget = budget.clone();
        // Taken before the handshake, so shutdown also waits for handshakes under way.
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            let _place = place;
            match acceptor {
                None => serve_one(tcp, peer, app, read_timeout, budget, watcher).await,
                Some(acceptor) => {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
                        Ok(Ok(stream)) => {
                            serve_one(stream, peer, app, read_timeout, budget, watcher).await
                        }
                        Ok(Err(error)) => tracing::debug!(%peer, "TLS handshake failed: {error}"),
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                }
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// Serves one connection's requests with HTTP/1.1 keep-alive; each request carries the
/// peer's address (the audit log's `sourceIPAddress`) and its account of the budget, and
/// its body is held to the deadline and the budget.
async fn serve_one(
    io: impl AsyncRead + AsyncWrite + Unpin + Send + 'static,
    peer: SocketAddr,
    app: Router,
    read_timeout: Duration,
    budget: BodyBudget,
    watcher: Watcher,
) {
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let held = budget.account();
        let mut request = request
            .map(|body| axum::body::Body::new(LimitedBody::new(body, read_timeout, held.clone())));
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(held);
        app.clone().oneshot(request)
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(read_timeout)
        .serve_connection(TokioIo::new(io), service);
    if let Err(error) = watcher.watch(connection).await {
        tracing::debug!(%peer, "connection ended: {error}");
    }
}
