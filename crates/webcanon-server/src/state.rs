//! [`AppState`]: the one client, its per-agent views, the metrics and the limits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use tokio::sync::Semaphore;
use webcanon_client::Client;
use webcanon_client::agent::ProductToken;
use webcanon_jobs::{Jobs, JobsConfig};

use crate::error::{ApiError, reason};
use crate::metrics::Metrics;

/// The default request body limit: 1 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
/// The default number of `/v1` requests answered at once.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;
/// The default time a `/v1` request's body has to arrive, from its headers.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The default time limit of one `/v1` request.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// The most URLs one `POST /v1/robots/eval` may hold.
pub const MAX_EVAL_URLS: usize = 10_000;
/// The longest agent token taken.
pub const MAX_AGENT_LEN: usize = webcanon_client::agent::MAX_AGENT_TOKEN_LEN;
/// How many per-agent clients are kept; past that, others are built per request.
const MAX_KEPT_AGENTS: usize = 1024;

/// The service's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest request body taken, in bytes (larger: 413).
    pub max_body_bytes: usize,
    /// How many `/v1` requests are answered at once (more: 503 at once, no queue).
    pub max_in_flight: usize,
    /// The time limit of one `/v1` request, counted from its admission
    /// once its body has arrived (over it: 504).
    pub request_timeout: Duration,
    /// How long a `/v1` request's body has to arrive once its headers
    /// have (over it: 408). The body is read before the request takes an
    /// in-flight slot, so a client that trickles it holds none.
    pub body_read_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
        }
    }
}

/// What every handler shares: one [`Client`] (one connection pool, one
/// robots cache, one politeness state), a client per agent derived from
/// it, the metrics and the limits. Cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    client: Client,
    agents: Mutex<HashMap<ProductToken, Client>>,
    metrics: Arc<Metrics>,
    limits: Limits,
    permits: Arc<Semaphore>,
    /// The map and crawl jobs: given by [`AppState::with_jobs`], or a
    /// registry with the default settings made at the first job call.
    jobs: Mutex<Option<Jobs>>,
}

impl AppState {
    /// The state around `client` (its agent is the default one) with `limits`.
    pub fn new(client: Client, limits: Limits) -> AppState {
        let metrics = Arc::new(Metrics::new(&client));
        AppState {
            inner: Arc::new(Inner {
                permits: Arc::new(Semaphore::new(limits.max_in_flight.max(1))),
                agents: Mutex::new(HashMap::new()),
                client,
                metrics,
                limits,
                jobs: Mutex::new(None),
            }),
        }
    }

    /// The state with `jobs` as its registry of map and crawl jobs (its
    /// data folder, its limits on jobs at once and per job, its expiry).
    pub fn with_jobs(self, jobs: Jobs) -> AppState {
        *self.inner.jobs.lock().unwrap_or_else(|p| p.into_inner()) = Some(jobs);
        self
    }

    /// The registry of map and crawl jobs (one with the default settings,
    /// in a temporary folder, when none was given).
    pub fn jobs(&self) -> Result<Jobs, ApiError> {
        let mut jobs = self.inner.jobs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(jobs) = jobs.as_ref() {
            return Ok(jobs.clone());
        }
        let made = Jobs::new(JobsConfig::default()).map_err(|error| crate::error::jobs_error(&error))?;
        *jobs = Some(made.clone());
        Ok(made)
    }

    /// The shared client (the default agent).
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    /// The metrics, shared with the middleware that counts every request.
    pub(crate) fn shared_metrics(&self) -> Arc<Metrics> {
        self.inner.metrics.clone()
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.inner.limits
    }

    /// The in-flight permits of `/v1` requests.
    pub(crate) fn permits(&self) -> &Arc<Semaphore> {
        &self.inner.permits
    }

    /// `outcome` of a client call about `url`: its error counted in the
    /// metrics and answered as the API's error.
    pub(crate) fn client_outcome<T>(
        &self,
        outcome: Result<T, webcanon_client::error::Error>,
        url: &str,
    ) -> Result<T, ApiError> {
        outcome.map_err(|error| {
            self.metrics().client_error(&error);
            ApiError::from_client(&error, url)
        })
    }

    /// The client for `agent` (the default one for `None`), on the shared
    /// connections and caches; each agent's client is built once.
    pub fn client_for(&self, agent: Option<&ProductToken>) -> Result<Client, ApiError> {
        let base = &self.inner.client;
        let Some(agent) = agent.filter(|a| *a != base.product_token()) else { return Ok(base.clone()) };
        let mut agents = self.inner.agents.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = agents.get(agent) {
            return Ok(client.clone());
        }
        let client = base.with_agent(agent, None).map_err(invalid_agent)?;
        if agents.len() < MAX_KEPT_AGENTS {
            agents.insert(agent.clone(), client.clone());
        }
        Ok(client)
    }
}

/// The answer to an agent whose client cannot be built (its `User-Agent`
/// header cannot be written).
fn invalid_agent(error: impl std::fmt::Display) -> ApiError {
    ApiError::usage(StatusCode::UNPROCESSABLE_ENTITY, reason::INVALID_AGENT, error.to_string())
}

/// The pattern of a valid agent, for the OpenAPI document.
pub const AGENT_PATTERN: &str = webcanon_client::agent::AGENT_TOKEN_PATTERN;
