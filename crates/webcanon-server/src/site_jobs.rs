//! `POST /v1/map` and `POST /v1/crawl`: a site's map or crawl started as
//! a job, its records read from `GET /v1/jobs/{id}/results`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use futures_util::StreamExt;
use webcanon_client::Client;
use webcanon_client::agent::ProductToken;
use webcanon_client::error::ErrorJson;
use webcanon_crawl::map::{MAX_REQUEST_LINKS, MapConfig, MapError, MapSources, map_stream};
use webcanon_crawl::{
    CountRange, CrawlConfig, CrawlError, CrawlLimits, CrawlLimitsRequest, Crawler, MAX_CRAWL_STARTS, ScopeConfig,
    SeedSources, crawl_stream,
};
use webcanon_jobs::{JobFailure, JobLimits, JobStatus};

use crate::api::{CrawlRequest, JobLimitsRequest, MapRequest, SeedName};
use crate::error::{ApiError, ApiJson, reason};
use crate::handlers::fetch_options;
use crate::job_routes::{self, job_limits};
use crate::responses::{BodyErrors, Overloaded, TimedOut, TooManyJobs};
use crate::state::AppState;

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
        BodyErrors,
        (status = 403, description = "The site is refused by the SSRF guard (`ssrf`)", body = ErrorJson),
        (status = 422, description = "A missing or unknown field, an invalid URL or agent, a pattern that is not a robots.txt path pattern, a limit over the service's ceiling (`invalid_option`)", body = ErrorJson),
        TooManyJobs,
        Overloaded,
        TimedOut,
    )
)]
pub async fn map(State(state): State<AppState>, ApiJson(request): ApiJson<MapRequest>) -> Result<Response, ApiError> {
    let scope = ScopeConfig {
        scope: request.scope.into(),
        include: request.include,
        exclude: request.exclude,
        max_depth: None,
    };
    let SiteJob { client, limits, scope } = SiteJob::open(&state, request.agent.as_ref(), &request.limits, scope)?;
    let max_links = request.max_links.unwrap_or(webcanon_crawl::map::DEFAULT_MAX_LINKS);
    if max_links > MAX_REQUEST_LINKS {
        return Err(ApiError::invalid_option(format!(
            "max_links must be at most {MAX_REQUEST_LINKS}, not {max_links}"
        )));
    }
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
    state.client_outcome(client.check(&request.url).await, request.url.as_str())?;
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
        BodyErrors,
        (status = 403, description = "A start URL is refused by the SSRF guard (`ssrf`)", body = ErrorJson),
        (status = 422, description = "A missing or unknown field, no start URL or more than 100, an invalid URL, agent or fetch option, a pattern that is not a robots.txt path pattern, a job limit over the service's ceiling or a crawl limit of 0 (`invalid_option`)", body = ErrorJson),
        TooManyJobs,
        (status = 503, description = "Too many requests in flight (`overloaded`), or the job's folder cannot be made here (`local`)", body = ErrorJson),
        TimedOut,
    )
)]
pub async fn crawl(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<CrawlRequest>,
) -> Result<Response, ApiError> {
    let scope = ScopeConfig {
        scope: request.scope.into(),
        include: request.include,
        exclude: request.exclude,
        max_depth: request.max_depth,
    };
    let SiteJob { client, limits, scope } = SiteJob::open(&state, request.agent.as_ref(), &request.limits, scope)?;
    let starts = request.urls.len();
    if !(1..=MAX_CRAWL_STARTS).contains(&starts) {
        return Err(ApiError::invalid_option(format!(
            "{starts} start URLs given; a crawl takes 1 to {MAX_CRAWL_STARTS}"
        )));
    }
    let options = fetch_options(&client, &request.options)?;
    let asked = CrawlLimitsRequest {
        max_pages: request.max_pages,
        max_total_bytes: request.max_total_bytes,
        max_pages_per_host: request.max_pages_per_host,
    };
    let crawl_limits = CrawlLimits::for_job(asked, limits.max_records, COUNT_RANGE)
        .map_err(|error| ApiError::invalid_option(error.to_string()))?;
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
        state.client_outcome(outcome, url)?;
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

/// The counts and depths a request may give: `int64` and `int32` in the
/// OpenAPI document, the integers most JSON clients can write; larger
/// ones are refused, as the document says, rather than read as "no limit".
const COUNT_RANGE: CountRange = CountRange::SIGNED;

/// What a map and a crawl request open with, checked: the client for its
/// agent, the job's limits within the service's ceiling, its scope.
struct SiteJob {
    client: Client,
    limits: JobLimits,
    scope: ScopeConfig,
}

impl SiteJob {
    /// The client for `agent`, the job's `limits` checked against the
    /// service's ceiling, and `scope` checked as a request's scope.
    fn open(
        state: &AppState,
        agent: Option<&ProductToken>,
        limits: &JobLimitsRequest,
        scope: ScopeConfig,
    ) -> Result<SiteJob, ApiError> {
        let client = state.client_for(agent)?;
        let limits = job_limits(limits, state.jobs()?.ceiling())?;
        scope.validate_request(COUNT_RANGE).map_err(|error| ApiError::invalid_option(error.to_string()))?;
        Ok(SiteJob { client, limits, scope })
    }
}

/// The error that ends a map job, as the API's JSON error body.
fn failure(error: &MapError, url: &str) -> JobFailure {
    let body = match error {
        MapError::Client(error) => ApiError::from_client(error, url).body().clone(),
        other => ApiError::invalid_option(other.to_string()).body().clone(),
    };
    JobFailure(serde_json::to_value(body).unwrap_or_default())
}

/// The error that ends a crawl job: a start URL the crawl cannot take, or
/// this server's frontier failing (a site's failure is a record).
fn crawl_failure(error: &CrawlError) -> JobFailure {
    let answer = match error {
        CrawlError::StartUrl { .. } => ApiError::invalid_option(error.to_string()),
        _ => ApiError::usage(StatusCode::SERVICE_UNAVAILABLE, reason::LOCAL, error.to_string()),
    };
    JobFailure(serde_json::to_value(answer.body()).unwrap_or_default())
}
