//! HTTPS on Kura's port (`kura serve --tls-cert PEM --tls-key PEM`): rustls with the
//! `ring` provider, TLS 1.2 and 1.3, HTTP/1.1. The same router and accept loop
//! (`connections`) serve both schemes; with TLS, each accepted connection is handshaken
//! first.

use std::path::Path;
use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

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

    pub(crate) fn server_config(&self) -> Arc<rustls::ServerConfig> {
        self.config.clone()
    }
}
