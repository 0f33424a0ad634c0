//! The HTTP JSON API of webcanon (`webcanon serve`).
//!
//! One [`webcanon_client::Client`] serves every request: one connection
//! pool, one robots.txt cache and one politeness state for all agents (a
//! request's `agent` gets a client derived with
//! [`Client::with_agent`](webcanon_client::Client::with_agent), built once
//! per agent). Endpoints:
//!
//! | endpoint | body | answer |
//! |---|---|---|
//! | `POST /v1/fetch` | `{url, agent?, max_bytes?, alternatives?}` | the object of `webcanon fetch --json` |
//! | `POST /v1/robots/check` | `{url, agent?}` | `{robots, warnings}` |
//! | `POST /v1/robots/eval` | `{agent?, urls}` | `{agent, results: [{url, allowed, verdict, recommendation, rule} or {url, error}]}` |
//! | `POST /v1/audit` | `{url, agent?}` | the report of `webcanon audit --json` |
//! | `POST /v1/map` | `{url, agent?, scope?, include?, exclude?, sources?, max_links?, limits?}` | 202 and a job: the site's URLs with their robots verdicts |
//! | `POST /v1/crawl` | `{urls, agent?, scope?, include?, exclude?, seeds?, max_depth?, max_pages?, max_total_bytes?, max_pages_per_host?, limits?, ...fetch options}` | 202 and a job: a `PageRecord` per URL, as `webcanon crawl` writes them |
//! | `GET /v1/jobs/{id}` | | a map or crawl job's status and counts |
//! | `GET /v1/jobs/{id}/results?cursor=&limit=` | | a page of its records, read from disk, and the next cursor |
//! | `DELETE /v1/jobs/{id}` | | cancels it; its records stay readable until it expires |
//! | `GET /healthz` | | `{status, version}` |
//! | `GET /metrics` | | Prometheus metrics (see [`metrics`]) |
//! | `GET /openapi.json` | | the OpenAPI 3.1 document ([`openapi::ApiDoc`]) |
//!
//! Errors are JSON with the CLI's kinds and codes (see [`error`]). The
//! `/v1` routes are guarded by the [`Limits`]: body size and the time its
//! body has to arrive (read before the request is admitted, so a client
//! that trickles a body holds no in-flight slot), requests in flight (load
//! shedding) and a time limit. [`serve_with`] answers only
//! requests whose `Host` (and `Origin`, from browsers) names the server
//! ([`AllowedHosts`]), caps connections and gives clients a time limit to
//! send their headers ([`ServeOptions`]).
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use webcanon_server::{AppState, Limits, router, serve};
//!
//! let client = webcanon_client::Client::builder().build().expect("client");
//! let app = router(AppState::new(client, Limits::default()));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! # drop(stop);
//! serve(listener, app, async { let _ = stopped.await; }).await
//! # }
//! ```

pub mod api;
pub mod error;
mod handlers;
mod job_routes;
mod limits;
mod listen;
pub mod metrics;
pub mod openapi;
mod responses;
mod site_jobs;
mod state;

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};
use tokio::net::TcpListener;

pub use job_routes::DEFAULT_PAGE_RECORDS;
pub use listen::{
    AllowedHosts, DEFAULT_HEADER_READ_TIMEOUT, FALLBACK_MAX_CONNECTIONS, ServeOptions, default_max_connections,
    reason as host_reason, serve_with,
};
pub use state::{
    AGENT_PATTERN, AppState, DEFAULT_BODY_READ_TIMEOUT, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_REQUEST_TIMEOUT, Limits, MAX_AGENT_LEN, MAX_EVAL_URLS,
};
pub use webcanon_crawl::map::MAX_REQUEST_LINKS as MAX_MAP_LINKS;
pub use webcanon_crawl::{MAX_CRAWL_STARTS, MAX_SCOPE_PATTERNS};

/// How long [`serve`] lets in-flight requests finish after the shutdown signal.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The service's routes over `state`. A plain [`Router`]: more services
/// (an MCP endpoint under `/mcp`) can be merged into it, outside the
/// service's limits, body limit and request metrics, which are layers of
/// these routes only.
pub fn router(state: AppState) -> Router {
    let v1 = Router::new()
        .route("/v1/fetch", post(handlers::fetch))
        .route("/v1/robots/check", post(handlers::robots_check))
        .route("/v1/robots/eval", post(handlers::robots_eval))
        .route("/v1/audit", post(handlers::audit))
        .route("/v1/map", post(site_jobs::map))
        .route("/v1/crawl", post(site_jobs::crawl))
        .route("/v1/jobs/{id}", get(job_routes::status).delete(job_routes::cancel))
        .route("/v1/jobs/{id}/results", get(job_routes::results))
        .route_layer(from_fn_with_state(state.clone(), limits::guard));
    Router::new()
        .merge(v1)
        .route("/healthz", get(handlers::healthz))
        .route("/metrics", get(handlers::metrics))
        .route("/openapi.json", get(openapi::openapi))
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(DefaultBodyLimit::max(state.limits().max_body_bytes))
        .layer(from_fn_with_state(state.shared_metrics(), metrics::track))
        .with_state(state)
}

/// Serves `router` on `listener` with the default [`ServeOptions`] (loopback
/// hosts only, connections capped from the open-file limit, a 10 s header
/// read timeout) until `shutdown` completes, then stops accepting
/// connections and lets in-flight requests finish for up to
/// [`DEFAULT_SHUTDOWN_GRACE`].
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, router, ServeOptions::default(), shutdown).await
}
