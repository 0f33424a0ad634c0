//! The endpoints.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use webcanon_audit::{Report, Site};
use webcanon_client::error::ErrorJson;
use webcanon_client::{Client, FetchOptions, FetchOverrides, FetchResult};

use crate::api::{
    CheckResponse, EvalDecision, EvalFailure, EvalItem, EvalRequest, EvalResponse, FetchRequest, Health, UrlRequest,
};
use crate::error::{ApiError, ApiJson, reason};
use crate::responses::{BodyErrors, Overloaded, SsrfRefused, TimedOut};
use crate::state::{AppState, MAX_EVAL_URLS};

/// Fetches a page for an LLM: robots.txt respected, SSRF-guarded, content as Markdown.
#[utoipa::path(
    post, path = "/v1/fetch", tag = "retrieval", request_body = FetchRequest,
    responses(
        (status = 200, description = "The page (the object `webcanon fetch --json` prints)", body = FetchResult),
        BodyErrors,
        (status = 403, description = "Refused by robots.txt (`policy`, the matched rule quoted) or by the SSRF guard (`ssrf`)", body = ErrorJson),
        (status = 422, description = "A missing or unknown field, an invalid URL, agent or option", body = ErrorJson),
        (status = 502, description = "The page could not be fetched (`fetch`; `status` is its HTTP status when it answered with an error; a page that asks for payment, HTTP 402, has `reason` `payment_required` and the `price` asked, never paid)", body = ErrorJson),
        (status = 503, description = "Too many requests in flight (`overloaded`); retry after `Retry-After`", body = ErrorJson),
        (status = 504, description = "The page or the request timed out (`fetch` or `timeout`)", body = ErrorJson),
    )
)]
pub async fn fetch(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<FetchRequest>,
) -> Result<Json<FetchResult>, ApiError> {
    let client = state.client_for(request.agent.as_ref())?;
    let options = fetch_options(&client, &request.options)?;
    let result = state.client_outcome(client.fetch_with(&request.url, &options).await, request.url.as_str())?;
    state.metrics().verdict(result.robots.verdict);
    Ok(Json(result))
}

/// The client's fetch options with what a request changes of them; an
/// option out of range is refused (`invalid_option`).
pub(crate) fn fetch_options(client: &Client, overrides: &FetchOverrides) -> Result<FetchOptions, ApiError> {
    client.fetch_options().with(overrides).map_err(|error| ApiError::invalid_option(error.message(error.option)))
}

/// The robots.txt verdict for one URL, without fetching the page.
#[utoipa::path(
    post, path = "/v1/robots/check", tag = "robots", request_body = UrlRequest,
    responses(
        (status = 200, description = "The verdict and its evidence (an unreachable robots.txt is a verdict, not an error)", body = CheckResponse),
        BodyErrors,
        SsrfRefused,
        (status = 422, description = "A missing or unknown field, an invalid URL or agent", body = ErrorJson),
        Overloaded,
        TimedOut,
    )
)]
pub async fn robots_check(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<UrlRequest>,
) -> Result<Json<CheckResponse>, ApiError> {
    let client = state.client_for(request.agent.as_ref())?;
    let checked = state.client_outcome(client.check(&request.url).await, request.url.as_str())?;
    let webcanon_client::RobotsCheck { robots, warnings, .. } = checked;
    state.metrics().verdict(robots.verdict);
    Ok(Json(CheckResponse { robots, warnings }))
}

/// The robots.txt verdicts for many URLs (at most 10,000), in input order;
/// robots.txt is loaded once per origin.
#[utoipa::path(
    post, path = "/v1/robots/eval", tag = "robots", request_body = EvalRequest,
    responses(
        (status = 200, description = "One item per URL, in input order; an invalid or refused URL gets its own error", body = EvalResponse),
        BodyErrors,
        (status = 422, description = "A missing or unknown field, an invalid agent, more than 10,000 URLs", body = ErrorJson),
        Overloaded,
        TimedOut,
    )
)]
pub async fn robots_eval(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<EvalRequest>,
) -> Result<Json<EvalResponse>, ApiError> {
    if request.urls.len() > MAX_EVAL_URLS {
        return Err(ApiError::usage(
            StatusCode::UNPROCESSABLE_ENTITY,
            reason::TOO_MANY_URLS,
            format!("{} URLs given; one request takes at most {MAX_EVAL_URLS}", request.urls.len()),
        ));
    }
    let client = state.client_for(request.agent.as_ref())?;
    let outcomes = client.check_many(&request.urls).await;
    let mode = client.mode();
    let results = request
        .urls
        .into_iter()
        .zip(outcomes)
        .map(|(url, outcome)| match outcome {
            Ok((robots, _)) => {
                state.metrics().verdict(robots.verdict);
                EvalItem::Decided(EvalDecision {
                    allowed: !mode.blocks(robots.verdict),
                    verdict: robots.verdict,
                    recommendation: robots.recommendation,
                    rule: robots.rule,
                    url,
                })
            }
            Err(err) => {
                state.metrics().client_error(&err);
                let error = ApiError::from_client(&err, &url).body().clone();
                EvalItem::Failed(EvalFailure { url, error })
            }
        })
        .collect();
    Ok(Json(EvalResponse { agent: client.agent().to_string(), results }))
}

/// Audits what AI agents will see on a live origin (the report of `webcanon audit --json`).
#[utoipa::path(
    post, path = "/v1/audit", tag = "audit", request_body = UrlRequest,
    responses(
        (status = 200, description = "The audit report", body = Report),
        BodyErrors,
        SsrfRefused,
        (status = 422, description = "A missing or unknown field, a URL that is not a live http(s) origin, an invalid agent", body = ErrorJson),
        (status = 502, description = "The origin does not answer (`fetch`, reason `unreachable`): nothing to score", body = ErrorJson),
        Overloaded,
        TimedOut,
    )
)]
pub async fn audit(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<UrlRequest>,
) -> Result<Json<Report>, ApiError> {
    let client = state.client_for(request.agent.as_ref())?;
    // The SSRF guard first, so a refused origin is an error rather than a
    // report of unreachable resources; it also loads robots.txt into the
    // cache the audit reads it from.
    state.client_outcome(client.check(&request.url).await, request.url.as_str())?;
    let agent = client.agent().to_string();
    match webcanon_audit::audit_off_runtime(Site::origin(request.url.into_url(), client), &agent).await {
        Ok(report) => Ok(Json(report)),
        Err(err) => Err(ApiError::from_audit(&err)),
    }
}

/// Whether the service answers.
#[utoipa::path(
    get, path = "/healthz", tag = "service",
    responses((status = 200, description = "The service answers", body = Health))
)]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok".into(), version: env!("CARGO_PKG_VERSION").into() })
}

/// The metrics, in the OpenMetrics text format Prometheus reads.
#[utoipa::path(
    get, path = "/metrics", tag = "service",
    responses((status = 200, description = "Prometheus metrics", body = String, content_type = "application/openmetrics-text"))
)]
pub async fn metrics(State(state): State<AppState>) -> Response {
    ([(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)], state.metrics().encode()).into_response()
}
