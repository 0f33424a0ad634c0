//! Transports: stdio for one client that started the server, streamable
//! HTTP for any number of clients, as an axum router another service can
//! merge into its own.

use std::fmt;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::CancellationToken;

use crate::WebcanonMcp;

/// The path of the streamable HTTP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// Sessions kept at most by default; an `initialize` beyond them gets 503.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;

/// The largest request body the endpoint reads (tool arguments are small).
pub const MAX_REQUEST_BODY_BYTES: usize = 1024 * 1024;

/// How long a client waits before trying again when the sessions are full.
const RETRY_AFTER_SECS: u64 = 30;

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
    max_sessions: usize,
}

impl Default for HttpOptions {
    /// Requests whose `Host` is a loopback name or address (`localhost`,
    /// `127.0.0.1`, `::1`, any port), which blocks DNS rebinding against a
    /// server on a workstation.
    fn default() -> Self {
        HttpOptions {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            shutdown: CancellationToken::new(),
            max_sessions: DEFAULT_MAX_SESSIONS,
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

    /// Accepts requests for any `Host` (the service in front checks it).
    pub fn allow_any_host(mut self) -> Self {
        self.allowed_hosts.clear();
        self
    }

    /// The accepted `Host` values; empty when any is.
    pub fn allowed_hosts(&self) -> &[String] {
        &self.allowed_hosts
    }

    /// Keeps at most `max` sessions at once (at least 1); an `initialize`
    /// beyond them is answered 503 with `Retry-After` until sessions close
    /// or expire (after 5 minutes idle). Each session costs memory.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
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
/// then shares the server's client and caches. Serve it with
/// `webcanon_server::serve_with`, which checks `Host` and `Origin` for
/// every route and bounds connections.
///
/// Sessions are kept in memory, at most [`HttpOptions::max_sessions`], for
/// clients on protocol versions that use them; newer clients are served
/// without one. Request bodies over [`MAX_REQUEST_BODY_BYTES`] get 413.
pub fn http_router(server: WebcanonMcp, options: &HttpOptions) -> axum::Router {
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(options.shutdown.child_token());
    config = if options.allowed_hosts.is_empty() {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(options.allowed_hosts.clone())
    };
    let sessions = Arc::new(LocalSessionManager::default());
    let gate = SessionGate { sessions: sessions.clone(), max: options.max_sessions };
    let service = StreamableHttpService::new(move || Ok(server.clone()), sessions, config);
    axum::Router::new().route_service(MCP_PATH, service).route_layer(from_fn_with_state(gate, admit))
}

/// What [`admit`] needs to know: the sessions and their cap.
#[derive(Clone)]
struct SessionGate {
    sessions: Arc<LocalSessionManager>,
    max: usize,
}

/// Middleware: reads a POST body up to 1 MiB before anything else sees it
/// (a longer one is refused with 413, whatever the session), and answers an
/// `initialize` with 503 while the sessions are full.
async fn admit(State(gate): State<SessionGate>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    if parts.method != Method::POST {
        let body = Body::new(http_body_util::Limited::new(body, MAX_REQUEST_BODY_BYTES));
        return next.run(Request::from_parts(parts, body)).await;
    }
    let declared =
        parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_REQUEST_BODY_BYTES as u64) {
        return too_large();
    }
    let bytes = match axum::body::to_bytes(body, MAX_REQUEST_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) if is_length_limit(&e) => return too_large(),
        Err(e) => return jsonrpc_error(StatusCode::BAD_REQUEST, &format!("the request body could not be read: {e}")),
    };
    let opens_session = !parts.headers.contains_key("mcp-session-id");
    if !opens_session || gate.sessions.sessions.read().await.len() < gate.max {
        return next.run(Request::from_parts(parts, Body::from(bytes))).await;
    }
    let initialize = serde_json::from_slice::<serde_json::Value>(&bytes)
        .is_ok_and(|v| v.get("method").and_then(|m| m.as_str()) == Some("initialize"));
    if initialize {
        let message =
            format!("the server keeps {} MCP sessions, all in use; try again in {RETRY_AFTER_SECS} s", gate.max);
        let mut response = jsonrpc_error(StatusCode::SERVICE_UNAVAILABLE, &message);
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
        return response;
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

fn jsonrpc_error(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": message}});
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

fn too_large() -> Response {
    jsonrpc_error(StatusCode::PAYLOAD_TOO_LARGE, "the request body is larger than 1 MiB")
}

/// Whether a body read failed on the length limit (not on the connection).
fn is_length_limit(error: &axum::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if e.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        cause = e.source();
    }
    false
}
