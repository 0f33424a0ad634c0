//! Serving connections: what every HTTP face of webcanon (`serve`, and
//! `mcp --http`) puts in front of its routes.
//!
//! - **Host and Origin** ([`AllowedHosts`]): a request is answered only
//!   when its `Host` names the server (loopback names, the address it
//!   listens on, or a name the operator allowed), so a page in a browser
//!   that rebinds its own name to 127.0.0.1 cannot use the API; a request
//!   with an `Origin` (a browser's cross-site request) is answered only
//!   when that origin's host is allowed too. `GET /healthz` is exempt.
//! - **Connections** ([`ServeOptions`]): at most `max_connections` at once
//!   (beyond that the listener waits: back-pressure, not an error), a
//!   client has `header_read_timeout` to send a request's headers (idle
//!   keep-alive connections included), and a shutdown lets requests in
//!   flight finish for `grace`.

use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::error::ApiError;

/// How long a client has to send a request's headers.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections kept at most when the open-file limit cannot be read.
pub const FALLBACK_MAX_CONNECTIONS: usize = 512;

/// The `Host` values (and browser origins) a server answers.
///
/// An entry is a name or address, for any port (`example.com`, `10.0.0.5`,
/// `::1`), or with a port for that port only (`example.com:8080`,
/// `[::1]:8080`); names compare without case. `*` answers every host, for
/// a server behind a proxy that checks `Host` itself.
///
/// ```
/// use webcanon_server::AllowedHosts;
///
/// let hosts = AllowedHosts::loopback().allow("api.example.com").unwrap();
/// assert!(hosts.permits_host("localhost:8080"));
/// assert!(hosts.permits_host("API.example.com"));
/// assert!(!hosts.permits_host("rebound.attacker.example"));
/// assert!(hosts.permits_origin("https://api.example.com"));
/// assert!(!hosts.permits_origin("https://attacker.example"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedHosts {
    entries: Vec<HostEntry>,
    any: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct HostEntry {
    host: String,
    port: Option<u16>,
}

impl AllowedHosts {
    /// `localhost`, `127.0.0.1` and `::1`, any port.
    pub fn loopback() -> AllowedHosts {
        let entries = ["localhost", "127.0.0.1", "::1"].map(|host| HostEntry { host: host.into(), port: None });
        AllowedHosts { entries: entries.into(), any: false }
    }

    /// Every host (`*`): for a server behind a proxy that checks `Host`.
    pub fn any() -> AllowedHosts {
        AllowedHosts { entries: Vec::new(), any: true }
    }

    /// Also answers `entry` (`name`, `address`, `name:port`, `[v6]:port`,
    /// or `*`). An entry that is not a host is an error that says why.
    pub fn allow(mut self, entry: &str) -> Result<AllowedHosts, String> {
        let entry = entry.trim();
        if entry == "*" {
            self.any = true;
            return Ok(self);
        }
        let parsed = split_authority(entry)
            .filter(|(host, _)| !host.is_empty() && host.bytes().all(|b| b.is_ascii_graphic() && b != b'/'))
            .ok_or_else(|| format!("`{entry}` is not a host name or address (with an optional :port)"))?;
        let entry = HostEntry { host: parsed.0, port: parsed.1 };
        if !self.entries.contains(&entry) {
            self.entries.push(entry);
        }
        Ok(self)
    }

    /// Also answers the address `ip` (any port), unless it is unspecified
    /// (`0.0.0.0`, `::`), which no client names.
    pub fn allow_address(mut self, ip: IpAddr) -> AllowedHosts {
        if !ip.is_unspecified() {
            let entry = HostEntry { host: ip.to_string(), port: None };
            if !self.entries.contains(&entry) {
                self.entries.push(entry);
            }
        }
        self
    }

    /// Whether every host is answered.
    pub fn is_any(&self) -> bool {
        self.any
    }

    /// The entries as written for other checkers (`host` or `host:port`,
    /// `[v6]:port`); empty when every host is answered.
    pub fn entries(&self) -> Vec<String> {
        if self.any {
            return Vec::new();
        }
        self.entries
            .iter()
            .map(|e| match (e.port, e.host.contains(':')) {
                (None, _) => e.host.clone(),
                (Some(port), true) => format!("[{}]:{port}", e.host),
                (Some(port), false) => format!("{}:{port}", e.host),
            })
            .collect()
    }

    /// Whether a request whose `Host` header is `value` is answered.
    pub fn permits_host(&self, value: &str) -> bool {
        if self.any {
            return true;
        }
        match split_authority(value.trim()) {
            Some((host, port)) => self.permits(&host, port),
            None => false,
        }
    }

    /// Whether a browser request from `origin` (an `Origin` header:
    /// `scheme://host[:port]`) is answered: its host must be allowed. The
    /// opaque origin `null` never is, unless every host is.
    pub fn permits_origin(&self, origin: &str) -> bool {
        if self.any {
            return true;
        }
        let Some((scheme, authority)) = origin.trim().split_once("://") else {
            return false;
        };
        if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") || authority.contains('/') {
            return false;
        }
        match split_authority(authority) {
            Some((host, port)) => self.permits(&host, port),
            None => false,
        }
    }

    fn permits(&self, host: &str, port: Option<u16>) -> bool {
        self.entries.iter().any(|e| e.host == host && e.port.is_none_or(|p| Some(p) == port))
    }
}

/// `host[:port]` or `[v6][:port]` as (lower-cased host without brackets,
/// port); `None` when the port is not a number or the brackets are open.
fn split_authority(value: &str) -> Option<(String, Option<u16>)> {
    let (host, port) = if let Some(rest) = value.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        match after {
            "" => (host, None),
            _ => (host, Some(after.strip_prefix(':')?)),
        }
    } else {
        match value.rsplit_once(':') {
            // A bare IPv6 address (`::1`) has colons but no port.
            Some((host, port)) if !host.contains(':') => (host, Some(port)),
            _ => (value, None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    Some((host.trim_end_matches('.').to_ascii_lowercase(), port))
}

/// Stable `reason` words of the Host and Origin refusals.
pub mod reason {
    /// The `Host` header is missing or names a host this server does not answer.
    pub const HOST_NOT_ALLOWED: &str = "host_not_allowed";
    /// The `Origin` header names a site this server does not answer.
    pub const ORIGIN_NOT_ALLOWED: &str = "origin_not_allowed";
}

/// Middleware: 403 for a request whose `Host` or `Origin` is not allowed.
async fn check_host(State(hosts): State<Arc<AllowedHosts>>, request: Request, next: Next) -> Response {
    if request.uri().path() == "/healthz" {
        return next.run(request).await;
    }
    if let Err(refusal) = admit(&hosts, request.headers(), request.uri().authority().map(|a| a.as_str())) {
        return refusal.into_response();
    }
    next.run(request).await
}

fn admit(hosts: &AllowedHosts, headers: &HeaderMap, uri_authority: Option<&str>) -> Result<(), ApiError> {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).or(uri_authority);
    match host {
        Some(host) if hosts.permits_host(host) => {}
        Some(host) => {
            tracing::warn!(host, "refused a request naming a host this server does not answer");
            return Err(ApiError::usage(
                StatusCode::FORBIDDEN,
                reason::HOST_NOT_ALLOWED,
                format!(
                    "this server does not answer requests for host `{host}` (a guard against DNS rebinding); \
                     start it with --allow-host {host} if clients reach it by that name"
                ),
            ));
        }
        None => {
            return Err(ApiError::usage(
                StatusCode::FORBIDDEN,
                reason::HOST_NOT_ALLOWED,
                "the request has no Host header; this server answers only requests that name it",
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("(not text)");
        if !hosts.permits_origin(origin) {
            tracing::warn!(origin, "refused a browser request from another site");
            return Err(ApiError::usage(
                StatusCode::FORBIDDEN,
                reason::ORIGIN_NOT_ALLOWED,
                format!(
                    "this server does not answer browser requests from `{origin}`; allow its host with --allow-host"
                ),
            ));
        }
    }
    Ok(())
}

/// How [`serve_with`] serves connections.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Whom requests may name; see [`AllowedHosts`].
    pub allowed_hosts: AllowedHosts,
    /// Connections served at once; more wait in the listen queue.
    pub max_connections: usize,
    /// How long a client has to send a request's headers.
    pub header_read_timeout: Duration,
    /// After the shutdown signal, how long requests in flight may finish.
    pub grace: Duration,
}

impl Default for ServeOptions {
    /// Loopback hosts, [`default_max_connections`], a 10 s header read
    /// timeout and 30 s of grace.
    fn default() -> Self {
        ServeOptions {
            allowed_hosts: AllowedHosts::loopback(),
            max_connections: default_max_connections(),
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            grace: crate::DEFAULT_SHUTDOWN_GRACE,
        }
    }
}

/// Half the process's open-file limit (the other half is for the sockets
/// the service opens to sites, its caches and files), between 16 and
/// 65,536; [`FALLBACK_MAX_CONNECTIONS`] when the limit cannot be read.
pub fn default_max_connections() -> usize {
    match webcanon_client::open_file_limit() {
        Some(limit) => usize::try_from(limit / 2).unwrap_or(usize::MAX).clamp(16, 65_536),
        None => FALLBACK_MAX_CONNECTIONS,
    }
}

/// Serves `router` on `listener` with `options` until `shutdown` completes;
/// then stops accepting and lets requests in flight finish for up to
/// `options.grace`. Connections still open after that are left to the
/// runtime's shutdown.
pub async fn serve_with(
    listener: TcpListener,
    router: Router,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = router.layer(from_fn_with_state(Arc::new(options.allowed_hosts.clone()), check_host));
    let slots = Arc::new(Semaphore::new(options.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(options.header_read_timeout);
    let mut last_full_warning: Option<Instant> = None;
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        if slots.available_permits() == 0 && last_full_warning.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
            tracing::warn!(
                max = options.max_connections,
                "serving the most connections allowed; new ones wait in the listen queue"
            );
            last_full_warning = Some(Instant::now());
        }
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    // Out of descriptors or buffers: wait for connections
                    // to close instead of spinning; other accept errors
                    // concern one connection only.
                    if webcanon_client::is_local_exhaustion(&err) {
                        tracing::warn!("cannot accept a connection: {err}; waiting 100 ms");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let connection = builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(router.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!("connection ended with an error: {err}");
            }
            drop(slot);
        });
    }
    tracing::info!("shutting down: no new connections; letting requests in flight finish");
    drop(listener);
    if tokio::time::timeout(options.grace, graceful.shutdown()).await.is_err() {
        tracing::warn!(
            "requests still running after {:.0} s of grace are left to be cut off",
            options.grace.as_secs_f64()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_table() {
        let hosts = AllowedHosts::loopback()
            .allow("api.example.com")
            .unwrap()
            .allow("pinned.example:8443")
            .unwrap()
            .allow("[fd00::1]:9000")
            .unwrap()
            .allow_address("10.0.0.5".parse().unwrap())
            .allow_address("0.0.0.0".parse().unwrap());
        let cases: &[(&str, bool)] = &[
            ("localhost", true),
            ("localhost:8080", true),
            ("LOCALHOST:1", true),
            ("localhost.", true),
            ("127.0.0.1:8080", true),
            ("[::1]:8080", true),
            ("[::1]", true),
            ("api.example.com", true),
            ("api.example.com:443", true),
            ("pinned.example:8443", true),
            ("pinned.example:8444", false),
            ("pinned.example", false),
            ("[fd00::1]:9000", true),
            ("[fd00::1]:9001", false),
            ("10.0.0.5:8080", true),
            ("0.0.0.0:8080", false),
            ("127.0.0.2", false),
            ("localhost.attacker.example", false),
            ("attacker.example", false),
            ("localhost:notaport", false),
            ("[::1", false),
            ("", false),
        ];
        for (value, expected) in cases {
            assert_eq!(hosts.permits_host(value), *expected, "Host: {value}");
        }
    }

    #[test]
    fn origin_table() {
        let hosts = AllowedHosts::loopback().allow("app.example.com").unwrap();
        let cases: &[(&str, bool)] = &[
            ("http://localhost:3000", true),
            ("http://127.0.0.1", true),
            ("https://app.example.com", true),
            ("https://attacker.example", false),
            ("https://app.example.com.attacker.example", false),
            ("null", false),
            ("file://", false),
            ("chrome-extension://abc", false),
            ("http://localhost/path", false),
            ("", false),
        ];
        for (value, expected) in cases {
            assert_eq!(hosts.permits_origin(value), *expected, "Origin: {value}");
        }
        assert!(AllowedHosts::any().permits_origin("null"));
        assert!(AllowedHosts::any().permits_host("anything"));
    }

    #[test]
    fn entries_that_are_not_hosts_are_refused_with_a_reason() {
        for bad in ["", "http://x", "a b", "x:99999", "[::1"] {
            let err = AllowedHosts::loopback().allow(bad).unwrap_err();
            assert!(err.contains("is not a host"), "{bad}: {err}");
        }
        let hosts = AllowedHosts::loopback().allow("[::1]:8080").unwrap().allow("x.example:81").unwrap();
        assert!(hosts.entries().contains(&"[::1]:8080".to_owned()));
        assert!(hosts.entries().contains(&"x.example:81".to_owned()));
        assert!(AllowedHosts::loopback().allow("*").unwrap().entries().is_empty());
    }
}
