//! `POST /v1/map` and `POST /v1/crawl`: a site's map or crawl started as
//! a job, its records read from `GET /v1/jobs/{id}/results`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::StreamExt;
use webcanon_client::error::ErrorJson;
use webcanon_crawl::map::{MapConfig, MapError, MapSources, map_stream};
use webcanon_crawl::{CrawlConfig, CrawlError, CrawlLimits, Crawler, Scope, ScopeConfig, SeedSources, crawl_stream};
use webcanon_jobs::{JobFailure, JobStatus};

use crate::api::{CrawlRequest, MapRequest, ScopeName, SeedName};
use crate::error::{ApiError, ApiJson, reason};
use crate::job_routes::{self, job_limits};
use crate::state::AppState;

/// The most include and exclude patterns a request may give, together.
pub const MAX_SCOPE_PATTERNS: usize = 100;
/// The most links of the start page a map request may ask to read.
pub const MAX_MAP_LINKS: usize = 10_000;
/// The most start URLs a crawl request may give.
pub const MAX_CRAWL_STARTS: usize = 100;
/// The name of a crawl job's frontier file in its work folder.
const FRONTIER_FILE: &str = "frontier.sqlite";

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
    let scope = scope_config(request.scope, request.include, request.exclude, None)?;
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

/// Starts a crawl: the sites of the start URLs read breadth first, one
/// `PageRecord` per URL (fetched, refused, out of scope, over a limit)
/// written to the job's results as the pages finish. The frontier lives in
/// the job's folder on disk and is removed when the job stops.
#[utoipa::path(
    post, path = "/v1/crawl", tag = "jobs", request_body = CrawlRequest,
    responses(
        (status = 202, description = "The job started: its status (read it again at `Location`, its records at `/v1/jobs/{id}/results`; each record is a `PageRecord`, as `webcanon crawl` writes them; `counts` are by `not_fetched`, `none` for pages with content). `max_pages` over the job's `max_records` is lowered to it", body = JobStatus,
            headers(("Location" = String, description = "`/v1/jobs/{id}`"))),
        (status = 400, description = "The body is not JSON", body = ErrorJson),
        (status = 403, description = "A start URL is refused by the SSRF guard (`ssrf`)", body = ErrorJson),
        (status = 413, description = "The body is larger than the limit", body = ErrorJson),
        (status = 415, description = "The body is not `application/json`", body = ErrorJson),
        (status = 422, description = "A missing or unknown field, no start URL or more than 100, an invalid URL, agent or fetch option, a pattern that is not a robots.txt path pattern, a job limit over the service's ceiling or a crawl limit of 0 (`invalid_option`)", body = ErrorJson),
        (status = 429, description = "The service runs or keeps as many jobs as it takes (`too_many_jobs`); retry after `Retry-After`", body = ErrorJson),
        (status = 503, description = "Too many requests in flight (`overloaded`), or the job's folder cannot be made here (`local`)", body = ErrorJson),
        (status = 504, description = "The request timed out (`timeout`)", body = ErrorJson),
    )
)]
pub async fn crawl(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<CrawlRequest>,
) -> Result<Response, ApiError> {
    let client = state.client_for(request.agent.as_ref())?;
    let limits = job_limits(&request.limits, state.jobs()?.ceiling())?;
    let starts = request.urls.len();
    if !(1..=MAX_CRAWL_STARTS).contains(&starts) {
        return Err(invalid_option(format!("{starts} start URLs given; a crawl takes 1 to {MAX_CRAWL_STARTS}")));
    }
    let options = client.fetch_options().with(&request.options).map_err(|error| {
        ApiError::usage(StatusCode::UNPROCESSABLE_ENTITY, reason::INVALID_OPTION, error.message(error.option))
    })?;
    let scope = scope_config(request.scope, request.include, request.exclude, request.max_depth)?;
    // The counts are `int64` in the OpenAPI document (1 to 2^63 - 1), the
    // integers most JSON clients can write: larger ones are refused, as
    // the document says, rather than read as "no limit".
    let positive = |name: &str, value: Option<u64>| match value {
        Some(0) => Err(invalid_option(format!("{name} must be at least 1"))),
        Some(n) if i64::try_from(n).is_err() => Err(invalid_option(format!("{name} must be at most {}", i64::MAX))),
        other => Ok(other),
    };
    let max_records = limits.max_records;
    let crawl_limits = CrawlLimits {
        // A page requested is at least one record: pages past the job's
        // records could never be written.
        max_pages: Some(positive("max_pages", request.max_pages)?.map_or(max_records, |n| n.min(max_records))),
        max_bytes: positive("max_total_bytes", request.max_total_bytes)?,
        max_pages_per_host: positive("max_pages_per_host", request.max_pages_per_host)?,
        // Nor can more URLs from a sitemap be fetched.
        max_sitemap_urls: usize::try_from(max_records)
            .unwrap_or(usize::MAX)
            .min(CrawlLimits::default().max_sitemap_urls),
    };
    let seeds = request.seeds.map_or_else(SeedSources::default, |named| SeedSources {
        start: named.contains(&SeedName::Start),
        sitemap: named.contains(&SeedName::Sitemap),
        llms: named.contains(&SeedName::Llms),
    });
    let config = CrawlConfig { scope, seeds, limits: crawl_limits, pacing: client.pacing(), ..CrawlConfig::default() };
    // The start URLs are vetted now (and their robots.txt loaded), so a
    // refused site is this request's error rather than a failed job.
    let texts: Vec<String> = request.urls.iter().map(|url| url.as_str().to_string()).collect();
    for (outcome, url) in client.check_many(&texts).await.into_iter().zip(&texts) {
        if let Err(error) = outcome {
            state.metrics().client_error(&error);
            return Err(ApiError::from_client(&error, url));
        }
    }
    let starts = request.urls.into_iter().map(|url| url.into_url()).collect();
    let crawler = Crawler::new(client, options, config);
    job_routes::start_in(&state, "crawl", "not_fetched", limits, move |folder| {
        crawl_stream(crawler, starts, folder.join(FRONTIER_FILE)).map(|item| match item {
            Ok(record) => Ok(serde_json::to_value(record).unwrap_or_default()),
            Err(error) => Err(crawl_failure(&error)),
        })
    })
}

/// The scope of a request, its patterns checked.
fn scope_config(
    scope: ScopeName,
    include: Vec<String>,
    exclude: Vec<String>,
    max_depth: Option<u32>,
) -> Result<ScopeConfig, ApiError> {
    let patterns = include.len() + exclude.len();
    if patterns > MAX_SCOPE_PATTERNS {
        return Err(invalid_option(format!(
            "{patterns} include and exclude patterns given; a request takes at most {MAX_SCOPE_PATTERNS}"
        )));
    }
    // `int32` in the OpenAPI document, as for the counts of a crawl.
    if let Some(depth) = max_depth.filter(|depth| i32::try_from(*depth).is_err()) {
        return Err(invalid_option(format!("max_depth {depth} is over the most, {}", i32::MAX)));
    }
    let scope = match scope {
        ScopeName::Origin => Scope::Origin,
        ScopeName::Domain => Scope::Domain,
        ScopeName::Prefix => Scope::Prefix,
    };
    let config = ScopeConfig { scope, include, exclude, max_depth };
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

/// The error that ends a crawl job: a start URL the crawl cannot take, or
/// this server's frontier failing (a site's failure is a record).
fn crawl_failure(error: &CrawlError) -> JobFailure {
    let answer = match error {
        CrawlError::StartUrl { .. } => invalid_option(error.to_string()),
        _ => ApiError::usage(StatusCode::SERVICE_UNAVAILABLE, reason::LOCAL, error.to_string()),
    };
    JobFailure(serde_json::to_value(answer.body()).unwrap_or_default())
}
