//! Test support: a real HTTP server on loopback whose answers are scripted
//! per path and which logs every request it receives, a forward HTTP proxy
//! ([`TestProxy`]) logging what passes through it, a real `redis-server`
//! ([`RedisServer`]) for the fleet store's tests, small PDFs written
//! byte by byte ([`pdf::PdfSpec`]), a process's memory figures
//! ([`memory`]) and the processes a test started ([`processes`]); for the
//! browser tests, the browser ([`chromium`]) and a single-page application
//! ([`serve_single_page_app`]); for the binary's tests, a `webcanon serve`
//! process ([`ServeProcess`]).
//!
//! ```no_run
//! # async fn demo() {
//! use webcanon_test::{Route, TestServer};
//! let server = TestServer::start().await;
//! server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
//! assert_eq!(server.hits("/private"), 0);
//! # }
//! ```

/// The one table of per-request fetch overrides every face is tested
/// against (JSON: the page, its path, and rows of `overrides` with the
/// `contains`/`absent` strings or the usage `error` expected); the Python
/// tests read the same file.
pub const FETCH_OVERRIDES_TABLE: &str = include_str!("../data/fetch_overrides.json");

/// An article page in its chrome (header, navigation, footer, a script)
/// with the signals a page carries in its head (canonical, Markdown
/// alternate, `describedby` llms.txt, meta robots, TDM reservation): the
/// page the extraction's tests and bench read and the client's tests serve.
pub const ARTICLE_HTML: &str = include_str!("../data/article.html");

mod chromium;
pub mod memory;
pub mod pdf;
pub mod processes;
mod proxy;
mod redis_server;
mod serve;
mod spa;

pub use chromium::{DEBIAN_CHROMIUM, chromium};
pub use proxy::TestProxy;
pub use redis_server::RedisServer;
pub use serve::{HttpAnswer, ServeProcess, http_exchange, http_request};
pub use spa::serve_single_page_app;

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;

/// How the server answers one path.
#[derive(Debug, Clone)]
pub struct Route {
    status: u16,
    headers: Vec<(String, String)>,
    body: BodyKind,
    delay: Option<Duration>,
}

#[derive(Debug, Clone)]
enum BodyKind {
    Bytes(Bytes),
    /// `chunk` repeated `count` times, streamed.
    Repeat {
        chunk: Bytes,
        count: usize,
    },
}

impl Route {
    /// A `text/plain` answer.
    pub fn text(status: u16, body: &str) -> Route {
        Route::bytes(status, "text/plain; charset=utf-8", body.as_bytes().to_vec())
    }

    /// A `text/html` answer.
    pub fn html(status: u16, body: &str) -> Route {
        Route::bytes(status, "text/html; charset=utf-8", body.as_bytes().to_vec())
    }

    /// An answer with the given content type and body.
    pub fn bytes(status: u16, content_type: &str, body: Vec<u8>) -> Route {
        Route {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: BodyKind::Bytes(Bytes::from(body)),
            delay: None,
        }
    }

    /// A redirect to `location`.
    pub fn redirect(status: u16, location: &str) -> Route {
        Route {
            status,
            headers: vec![("location".into(), location.into())],
            body: BodyKind::Bytes(Bytes::new()),
            delay: None,
        }
    }

    /// A body that is `chunk` repeated `count` times, streamed in pieces.
    pub fn repeat(status: u16, content_type: &str, chunk: &[u8], count: usize) -> Route {
        Route {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: BodyKind::Repeat { chunk: Bytes::copy_from_slice(chunk), count },
            delay: None,
        }
    }

    /// `body` gzip-compressed, served with `Content-Encoding: gzip`.
    pub fn gzip(status: u16, content_type: &str, body: &[u8]) -> Route {
        Route::bytes(status, content_type, gzip(body)).header("content-encoding", "gzip")
    }

    /// Adds a response header.
    pub fn header(mut self, name: &str, value: &str) -> Route {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Waits this long before answering.
    pub fn delay(mut self, delay: Duration) -> Route {
        self.delay = Some(delay);
        self
    }
}

/// `body` as one gzip member (best compression), e.g. for a `.xml.gz` file
/// served as it is.
pub fn gzip(body: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(body).expect("gzip in memory");
    encoder.finish().expect("gzip in memory")
}

/// A sitemap (`<urlset>`) holding `entries`, each a whole `<url>` element.
pub fn urlset(entries: impl IntoIterator<Item = String>) -> String {
    let mut xml = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#,
    );
    xml.extend(entries);
    xml.push_str("</urlset>");
    xml
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Logged {
    /// The path and query.
    pub path_and_query: String,
    /// The `Host` header.
    pub host: Option<String>,
    /// The `User-Agent` header.
    pub user_agent: Option<String>,
    /// The `Accept` header.
    pub accept: Option<String>,
}

#[derive(Debug, Default)]
struct Shared {
    routes: Mutex<HashMap<String, Route>>,
    /// Routes for one `Host` (name without port), checked first.
    host_routes: Mutex<HashMap<(String, String), Route>>,
    /// Requests with the time the server received them.
    log: Mutex<Vec<(Instant, Logged)>>,
    /// The answer for paths no route names (404 when unset).
    fallback: Mutex<Option<Route>>,
}

/// A real HTTP/1.1 server on `127.0.0.1` with a random port. Stops when dropped.
#[derive(Debug)]
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Starts a server on `127.0.0.1:0`. Unknown paths answer 404.
    pub async fn start() -> TestServer {
        TestServer::start_on("127.0.0.1:0").await
    }

    /// Starts a server on the given address (e.g. `127.0.0.2:0`).
    pub async fn start_on(addr: &str) -> TestServer {
        let shared = Arc::new(Shared::default());
        let listener = tokio::net::TcpListener::bind(addr).await.expect("bind loopback");
        let addr = listener.local_addr().expect("local address");
        let app = axum::Router::new().fallback(answer).with_state(shared.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        TestServer { addr, shared, task }
    }

    /// Sets the answer for `path` (path and query, e.g. `/a?b=1`; a route
    /// for the bare path answers every query too).
    pub fn route(&self, path: &str, route: Route) -> &TestServer {
        self.shared.routes.lock().unwrap().insert(path.to_string(), route);
        self
    }

    /// Sets the answer for `path` when the request's `Host` names `host`
    /// (port ignored): one server can play several hosts resolved to it.
    pub fn route_host(&self, host: &str, path: &str, route: Route) -> &TestServer {
        let key = (host.to_ascii_lowercase(), path.to_string());
        self.shared.host_routes.lock().unwrap().insert(key, route);
        self
    }

    /// Sets the answer for every path no route names (a site that answers
    /// unknown paths with a page: a soft 404).
    pub fn fallback(&self, route: Route) -> &TestServer {
        *self.shared.fallback.lock().unwrap() = Some(route);
        self
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Logged> {
        self.shared.log.lock().unwrap().iter().map(|(_, logged)| logged.clone()).collect()
    }

    /// Every request so far, in order, with the time the server received
    /// it (before any scripted delay): for checking the spacing of requests.
    pub fn requests_with_times(&self) -> Vec<(Instant, Logged)> {
        self.shared.log.lock().unwrap().clone()
    }

    /// How many requests asked for exactly this path (query included if given).
    pub fn hits(&self, path: &str) -> usize {
        self.shared
            .log
            .lock()
            .unwrap()
            .iter()
            .map(|(_, logged)| logged)
            .filter(|r| r.path_and_query == path || r.path_and_query.split('?').next() == Some(path))
            .count()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn answer(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    // Only the parts: the body is not `Sync`, so no reference to the request
    // may live across an await.
    let (parts, _) = request.into_parts();
    let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let path_and_query = parts.uri.path_and_query().map_or("/".to_string(), |p| p.as_str().to_string());
    let received = Instant::now();
    shared.log.lock().unwrap().push((
        received,
        Logged {
            path_and_query: path_and_query.clone(),
            host: header("host"),
            user_agent: header("user-agent"),
            accept: header("accept"),
        },
    ));
    let host_name = header("host").map(|h| h.rsplit_once(':').map_or(h.clone(), |(n, _)| n.to_string()));
    let host_route = host_name.and_then(|host| {
        let routes = shared.host_routes.lock().unwrap();
        let key = |path: &str| (host.to_ascii_lowercase(), path.to_string());
        routes.get(&key(&path_and_query)).or_else(|| routes.get(&key(parts.uri.path()))).cloned()
    });
    let route = host_route.or_else(|| {
        let routes = shared.routes.lock().unwrap();
        routes.get(&path_and_query).or_else(|| routes.get(parts.uri.path())).cloned()
    });
    let route = route.or_else(|| shared.fallback.lock().unwrap().clone());
    let Some(route) = route else {
        return Response::builder().status(StatusCode::NOT_FOUND).body(Body::from("not found")).unwrap();
    };
    if let Some(delay) = route.delay {
        tokio::time::sleep(delay).await;
    }
    let body = match route.body {
        BodyKind::Bytes(bytes) => Body::from(bytes),
        BodyKind::Repeat { chunk, count } => {
            let stream = futures_util::stream::iter((0..count).map(move |_| Ok::<_, Infallible>(chunk.clone())));
            Body::from_stream(stream)
        }
    };
    let mut response = Response::builder().status(route.status);
    for (name, value) in &route.headers {
        response = response.header(
            HeaderName::from_bytes(name.as_bytes()).expect("header name"),
            HeaderValue::from_str(value).expect("header value"),
        );
    }
    response.body(body).expect("response")
}
