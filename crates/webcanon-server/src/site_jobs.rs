//! `POST /v1/map`: a site's map started as a job, its records read from
//! `GET /v1/jobs/{id}/results`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::StreamExt;
use webcanon_client::error::ErrorJson;
use webcanon_crawl::map::{MapConfig, MapError, MapSources, map_stream};
use webcanon_crawl::{Scope, ScopeConfig};
use webcanon_jobs::{JobFailure, JobStatus};

use crate::api::{MapRequest, ScopeName};
use crate::error::{ApiError, ApiJson, reason};
use crate::job_routes::{self, job_limits};
use crate::state::AppState;

/// The most include and exclude patterns a request may give, together.
pub const MAX_SCOPE_PATTERNS: usize = 100;
/// The most links of the start page a map request may ask to read.
pub const MAX_MAP_LINKS: usize = 10_000;

/// Starts a map of a site: the URLs of its sitemaps, llms.txt and start
/// page, each with its robots verdict for the agent and the rule that
/// matched, written to the job's results as they are decided.
#[utoipa::path(
    post, path = "/v1/map", tag = "jobs", request_body = MapRequest,
    responses(
        (status = 202, description = "The job started: its status (read it again at `Location`, its records at `/v1/jobs/{id}/results`; each record is a `MapRecord`)", body = JobStatus,
            headers(("Location" = String, description = "`/v1/jobs/{id}`"))),
        (status = 400, description = "The body is not JSON", body = ErrorJson),
        (status = 403, description = "The site is refused by the SSRF guard (`ssrf`)", body = ErrorJson),
        (status = 413, description = "The body is larger than the limit", body = ErrorJson),
        (status = 415, description = "The body is not `application/json`", body = ErrorJson),
        (status = 422, description = "A missing or unknown field, an invalid URL or agent, a pattern that is not a robots.txt path pattern, a limit over the service's ceiling (`invalid_option`)", body = ErrorJson),
        (status = 429, description = "The service runs or keeps as many jobs as it takes (`too_many_jobs`); retry after `Retry-After`", body = ErrorJson),
        (status = 503, description = "Too many requests in flight (`overloaded`)", body = ErrorJson),
        (status = 504, description = "The request timed out (`timeout`)", body = ErrorJson),
    )
)]
pub async fn map(State(state): State<AppState>, ApiJson(request): ApiJson<MapRequest>) -> Result<Response, ApiError> {
    let client = state.client_for(request.agent.as_ref())?;
    let limits = job_limits(&request.limits, state.jobs()?.ceiling())?;
    let max_links = request.max_links.unwrap_or(webcanon_crawl::map::DEFAULT_MAX_LINKS);
    if max_links > MAX_MAP_LINKS {
        return Err(invalid_option(format!("max_links must be at most {MAX_MAP_LINKS}, not {max_links}")));
    }
    let scope = scope_config(request.scope, request.include, request.exclude)?;
    let sources = request.sources.map_or_else(MapSources::default, |named| MapSources {
        sitemaps: named.contains(&webcanon_crawl::map::MapSource::Sitemap),
        llms_txt: named.contains(&webcanon_crawl::map::MapSource::LlmsTxt),
        links: named.contains(&webcanon_crawl::map::MapSource::Link),
    });
    let config = MapConfig {
        scope,
        sources,
        // One URL past the job's limit, so that the job tells a map cut at
        // its limit from one that ended there.
        max_urls: usize::try_from(limits.max_records.saturating_add(1)).unwrap_or(usize::MAX),
        max_links,
        ..MapConfig::default()
    };
    // The site is vetted now (and its robots.txt loaded), so a refused
    // site is this request's error rather than a failed job.
    if let Err(error) = client.check(&request.url).await {
        state.metrics().client_error(&error);
        return Err(ApiError::from_client(&error, request.url.as_str()));
    }
    let url = request.url.as_str().to_string();
    let records = map_stream(client, request.url.into_url(), config).map(move |item| match item {
        Ok(record) => Ok(serde_json::to_value(record).unwrap_or_default()),
        Err(error) => Err(failure(&error, &url)),
    });
    job_routes::start(&state, "map", "verdict", limits, records)
}

/// The scope of a request, its patterns checked.
fn scope_config(scope: ScopeName, include: Vec<String>, exclude: Vec<String>) -> Result<ScopeConfig, ApiError> {
    let patterns = include.len() + exclude.len();
    if patterns > MAX_SCOPE_PATTERNS {
        return Err(invalid_option(format!(
            "{patterns} include and exclude patterns given; a request takes at most {MAX_SCOPE_PATTERNS}"
        )));
    }
    let scope = match scope {
        ScopeName::Origin => Scope::Origin,
        ScopeName::Domain => Scope::Domain,
        ScopeName::Prefix => Scope::Prefix,
    };
    let config = ScopeConfig { scope, include, exclude, max_depth: None };
    config.validate().map_err(|error| invalid_option(error.to_string()))?;
    Ok(config)
}

fn invalid_option(message: String) -> ApiError {
    ApiError::usage(StatusCode::UNPROCESSABLE_ENTITY, reason::INVALID_OPTION, message)
}

/// The error that ends a map job, as the API's JSON error body.
fn failure(error: &MapError, url: &str) -> JobFailure {
    let body = match error {
        MapError::Client(error) => ApiError::from_client(error, url).body().clone(),
        other => invalid_option(other.to_string()).body().clone(),
    };
    JobFailure(serde_json::to_value(body).unwrap_or_default())
}
