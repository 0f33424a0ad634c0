//! [`TestProxy`]: a real forward HTTP proxy on loopback. It takes
//! absolute-form requests (`GET http://host:port/path HTTP/1.1`), logs the
//! URL each one names, and forwards every request to one upstream server,
//! whatever host the URL names: it "resolves" every name to that server, as
//! a proxy resolving names its own way would.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;

#[derive(Debug)]
struct Shared {
    upstream: SocketAddr,
    log: Mutex<Vec<String>>,
}

/// A forward HTTP proxy on `127.0.0.1` with a random port. Stops when dropped.
#[derive(Debug)]
pub struct TestProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl TestProxy {
    /// Starts a proxy that forwards every request to `upstream`.
    pub async fn start(upstream: SocketAddr) -> TestProxy {
        let shared = Arc::new(Shared { upstream, log: Mutex::new(Vec::new()) });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
        let addr = listener.local_addr().expect("local address");
        let app = axum::Router::new().fallback(forward).with_state(shared.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        TestProxy { addr, shared, task }
    }

    /// `http://127.0.0.1:PORT`, the proxy URL clients are given.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The request targets received so far, in order, as the client wrote
    /// them (absolute URLs from a client that uses the proxy properly).
    pub fn requests(&self) -> Vec<String> {
        self.shared.log.lock().unwrap().clone()
    }
}

impl Drop for TestProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    shared.log.lock().unwrap().push(request.uri().to_string());
    match send_upstream(shared.upstream, request).await {
        Ok(response) => response,
        Err(message) => Response::builder().status(StatusCode::BAD_GATEWAY).body(Body::from(message)).unwrap(),
    }
}

/// Sends `request` to `upstream` in origin form, keeping its `Host`.
async fn send_upstream(upstream: SocketAddr, request: Request) -> Result<Response, String> {
    let (mut parts, body) = request.into_parts();
    let host = parts.uri.authority().map(|a| a.to_string());
    parts.uri = parts.uri.path_and_query().map_or("/", |p| p.as_str()).parse().map_err(|e| format!("{e}"))?;
    if let Some(host) = host {
        parts.headers.insert(header::HOST, host.parse().map_err(|e| format!("{e}"))?);
    }
    parts.headers.remove("proxy-connection");
    let stream = tokio::net::TcpStream::connect(upstream).await.map_err(|e| e.to_string())?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let answer = sender.send_request(Request::from_parts(parts, body)).await.map_err(|e| e.to_string())?;
    let (mut parts, body) = answer.into_parts();
    // The body is passed on whole: the server frames it again.
    parts.headers.remove(header::TRANSFER_ENCODING);
    parts.headers.remove(header::CONTENT_LENGTH);
    let bytes = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
    Ok(Response::from_parts(parts, Body::from(bytes)))
}
