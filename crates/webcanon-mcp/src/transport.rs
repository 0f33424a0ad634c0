//! Transports: stdio for one client that started the server, streamable
//! HTTP for any number of clients, as an axum router another service can
//! merge into its own.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::WebcanonMcp;

/// The path of the streamable HTTP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// The server could not run: the client never initialised the session, or
/// the transport failed.
#[derive(Debug)]
pub struct ServeError(String);

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServeError {}

/// Serves one client over standard input and output until it closes the
/// connection. Nothing but protocol messages is written to stdout.
pub async fn serve_stdio(server: WebcanonMcp) -> Result<(), ServeError> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError(format!("the MCP session did not start: {e}")))?;
    running.waiting().await.map_err(|e| ServeError(format!("the MCP session failed: {e}")))?;
    Ok(())
}

/// Settings of the streamable HTTP endpoint.
///
/// ```
/// use webcanon_mcp::HttpOptions;
///
/// let options = HttpOptions::default().allow_host("mcp.example.com");
/// assert!(options.allowed_hosts().iter().any(|h| h == "mcp.example.com"));
/// assert!(options.allowed_hosts().iter().any(|h| h == "localhost"));
/// ```
#[derive(Debug, Clone)]
pub struct HttpOptions {
    allowed_hosts: Vec<String>,
    shutdown: CancellationToken,
}

impl Default for HttpOptions {
    /// Requests whose `Host` is a loopback name or address (`localhost`,
    /// `127.0.0.1`, `::1`, any port), which blocks DNS rebinding against a
    /// server on a workstation.
    fn default() -> Self {
        HttpOptions {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            shutdown: CancellationToken::new(),
        }
    }
}

impl HttpOptions {
    /// Also accepts requests whose `Host` is `host` (a name or address, any
    /// port; or `host:port` for that port only): a server reached by name
    /// or on a non-loopback address.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        let host = host.into();
        if !self.allowed_hosts.contains(&host) {
            self.allowed_hosts.push(host);
        }
        self
    }

    /// The accepted `Host` values.
    pub fn allowed_hosts(&self) -> &[String] {
        &self.allowed_hosts
    }

    /// Ends every MCP session and stream when `token` is cancelled (for a
    /// graceful shutdown of the service that mounts the router).
    pub fn shutdown_token(mut self, token: CancellationToken) -> Self {
        self.shutdown = token;
        self
    }
}

/// The streamable HTTP endpoint of `server` at [`MCP_PATH`] (`/mcp`), as an
/// axum router to serve alone or merge into another service's router, which
/// then shares the server's client and caches.
///
/// Sessions are kept in memory for clients on protocol versions that use
/// them; newer clients are served without one.
pub fn http_router(server: WebcanonMcp, options: &HttpOptions) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(options.allowed_hosts.clone())
        .with_cancellation_token(options.shutdown.child_token());
    let service =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::new(LocalSessionManager::default()), config);
    axum::Router::new().route_service(MCP_PATH, service)
}

/// Serves the endpoint on `listener` until `shutdown` completes; then ends
/// the sessions and streams, lets requests in progress finish and returns.
pub async fn serve_http<F>(
    listener: TcpListener,
    server: WebcanonMcp,
    options: HttpOptions,
    shutdown: F,
) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let token = options.shutdown.clone();
    let router = http_router(server, &options);
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            token.cancel();
        })
        .await
}
