//! HTTPS on Kura's port (`kura serve --tls-cert PEM --tls-key PEM`): rustls with the
//! `ring` provider, TLS 1.2 and 1.3, HTTP/1.1. The same router serves both schemes; with
//! TLS, each accepted connection is handshaken, then served by hyper, and shutdown stops
//! accepting and lets open connections finish their requests.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tower::ServiceExt;

/// A client that opens a connection and never finishes the handshake is dropped after it.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The server's certificate chain and key, ready to accept connections.
#[derive(Clone)]
pub struct TlsConfig {
    config: Arc<rustls::ServerConfig>,
}

impl std::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TlsConfig")
    }
}

impl TlsConfig {
    /// Reads a PEM certificate chain (leaf first) and a PEM private key (PKCS#8, PKCS#1
    /// or SEC1).
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<TlsConfig, String> {
        let certs = CertificateDer::pem_file_iter(cert)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| format!("cannot read certificates from {}: {e}", cert.display()))?;
        if certs.is_empty() {
            return Err(format!("no certificate in {}", cert.display()));
        }
        let key = PrivateKeyDer::from_pem_file(key)
            .map_err(|e| format!("cannot read a private key from {}: {e}", key.display()))?;
        TlsConfig::new(certs, key)
    }

    /// From DER certificates (leaf first) and key.
    pub fn new(
        certs: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
    ) -> Result<TlsConfig, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(|e| format!("the certificate and key do not make a TLS identity: {e}"))?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsConfig {
            config: Arc::new(config),
        })
    }
}

/// Serves `app` over TLS until `shutdown` resolves, then waits for open connections to
/// finish their requests (idle keep-alive connections are closed).
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    tls: &TlsConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let acceptor = tokio_rustls::TlsAcceptor::from(tls.config.clone());
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
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
        let acceptor = acceptor.clone();
        let app = app.clone();
        // Taken before the handshake, so shutdown also waits for handshakes under way.
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            let stream = match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
                Ok(Ok(stream)) => stream,
                Ok(Err(error)) => {
                    tracing::debug!(%peer, "TLS handshake failed: {error}");
                    return;
                }
                Err(_) => {
                    tracing::debug!(%peer, "TLS handshake timed out");
                    return;
                }
            };
            let service =
                hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    app.clone().oneshot(request)
                });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            if let Err(error) = watcher.watch(connection).await {
                tracing::debug!(%peer, "connection ended: {error}");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}
