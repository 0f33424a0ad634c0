//! The loopback server: every site on its own address, pages made from the
//! URL as they are asked for, and one log line per request (seconds since
//! start, origin, path and query, status, User-Agent) for the scorer.

use std::convert::Infallible;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue, USER_AGENT};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::discovery::{llms_txt, sitemap_file};
use crate::page::{page_html, page_markdown, trap_html};
use crate::robots::{RobotsAnswer, robots_answer};
use crate::web::{Resource, Site, Web};

/// The request log, shared by every connection.
struct RequestLog {
    started: Instant,
    out: Mutex<BufWriter<File>>,
}

impl RequestLog {
    fn record(&self, origin: &str, path: &str, status: StatusCode, user_agent: &str) {
        let seconds = self.started.elapsed().as_secs_f64();
        let user_agent = user_agent.replace(['\t', '\n'], " ");
        let mut out = self.out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // A full disk ends the benchmark run anyway; the scorer then reads what was written.
        let _ = writeln!(out, "{seconds:.6}\t{origin}\t{path}\t{}\t{user_agent}", status.as_u16());
    }

    fn flush(&self) -> std::io::Result<()> {
        self.out.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).flush()
    }
}

/// Serves every site of `web` until SIGINT or SIGTERM, then flushes the log
/// at `log_path`.
pub async fn serve(web: Web, log_path: &Path) -> std::io::Result<()> {
    let log = Arc::new(RequestLog {
        started: Instant::now(),
        out: Mutex::new(BufWriter::with_capacity(1 << 20, File::create(log_path)?)),
    });
    for site in web.all_sites() {
        let listener = TcpListener::bind((site.address(), web.port)).await?;
        tokio::spawn(accept_loop(web, site, listener, Arc::clone(&log)));
    }
    eprintln!("serving {} sites, {} pages, on port {}", web.sites, web.total_pages(), web.port);
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    log.flush()
}

async fn accept_loop(web: Web, site: Site, listener: TcpListener, log: Arc<RequestLog>) {
    let origin = format!("{}:{}", site.address(), web.port);
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let log = Arc::clone(&log);
        let origin = origin.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let response = respond(&web, &site, &request);
                let user_agent = request.headers().get(USER_AGENT).and_then(|value| value.to_str().ok());
                let path = request.uri().path_and_query().map_or("/", |path| path.as_str());
                log.record(&origin, path, response.status(), user_agent.unwrap_or("-"));
                async move { Ok::<_, Infallible>(response) }
            });
            // A client that hangs up mid-request is its own business.
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

fn respond(web: &Web, site: &Site, request: &Request<Incoming>) -> Response<Full<Bytes>> {
    let origin = site.origin(web.port);
    let path = request.uri().path_and_query().map_or("/", |path| path.as_str());
    match site.resource(path) {
        Resource::Robots => match robots_answer(site, &origin) {
            RobotsAnswer::File(body) => answer(StatusCode::OK, "text/plain; charset=utf-8", body.into_bytes()),
            RobotsAnswer::NotFound => not_found(),
            RobotsAnswer::ServerError => answer(StatusCode::SERVICE_UNAVAILABLE, "text/plain", b"busy".to_vec()),
        },
        Resource::Sitemap => match sitemap_file(site, &origin, request.uri().path()) {
            Some(file) if file.gzip => answer(StatusCode::OK, "application/gzip", file.body),
            Some(file) => answer(StatusCode::OK, "application/xml", file.body),
            None => not_found(),
        },
        Resource::LlmsTxt => {
            answer(StatusCode::OK, "text/markdown; charset=utf-8", llms_txt(site, &origin).into_bytes())
        }
        Resource::Page { number, markdown: false } => {
            answer(StatusCode::OK, "text/html; charset=utf-8", page_html(web, site, number).into_bytes())
        }
        Resource::Page { number, markdown: true } => {
            answer(StatusCode::OK, "text/markdown; charset=utf-8", page_markdown(web, site, number).into_bytes())
        }
        Resource::Trap => match trap_html(request.uri().path()) {
            Some(html) => answer(StatusCode::OK, "text/html; charset=utf-8", html.into_bytes()),
            None => not_found(),
        },
        Resource::Unknown => not_found(),
    }
}

fn not_found() -> Response<Full<Bytes>> {
    answer(StatusCode::NOT_FOUND, "text/plain", b"not found".to_vec())
}

fn answer(status: StatusCode, content_type: &'static str, body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}
