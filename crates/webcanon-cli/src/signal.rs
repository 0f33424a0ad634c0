//! Stopping on request: long-running servers (`serve`, `mcp --http`), and
//! a rendering `fetch`, which ends its browser before exiting.

use std::future::Future;

/// A future that completes on SIGTERM or Ctrl-C (SIGINT). The handlers are
/// installed when this is called, not when the future is first polled, so
/// call it before announcing the server: a signal that arrives right after
/// `listening on` still stops it gracefully. Must be called within a Tokio
/// runtime.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate()).ok();
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        async move {
            let terminated = async {
                match terminate.as_mut() {
                    Some(stream) => {
                        stream.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            let interrupted = async {
                match interrupt.as_mut() {
                    Some(stream) => {
                        stream.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = terminated => {}
                () = interrupted => {}
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}
