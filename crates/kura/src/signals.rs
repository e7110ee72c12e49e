//! Shutting down on SIGINT and SIGTERM.

/// Installs the SIGINT and SIGTERM handlers at once, so that a signal sent right after the
/// readiness line is not met by the default action (death by signal), and resolves when
/// either arrives. Call it inside the runtime, before announcing readiness.
pub(crate) fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        async fn arrival(signal: Option<Signal>) {
            match signal {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        let interrupt = signal(SignalKind::interrupt()).ok();
        let terminate = signal(SignalKind::terminate()).ok();
        async move {
            tokio::select! {
                () = arrival(interrupt) => tracing::info!("SIGINT: shutting down"),
                () = arrival(terminate) => tracing::info!("SIGTERM: shutting down"),
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_ok() {
            tracing::info!("Ctrl-C: shutting down");
        }
    }
}
