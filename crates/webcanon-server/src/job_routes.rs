//! The job endpoints: a job's status, its results page by page, its
//! cancellation; and how a start (`POST /v1/map`) makes one.

use std::time::Duration;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use utoipa::IntoParams;
use webcanon_client::error::ErrorJson;
use webcanon_jobs::{JobFailure, JobId, JobLimits, JobSpec, JobStatus, MAX_PAGE_RECORDS, ResultsPage};

use crate::api::{JobLimitsRequest, ResultsQuery};
use crate::error::{ApiError, jobs_error, reason};
use crate::responses::{InvalidJobId, NoSuchJob, Overloaded};
use crate::state::AppState;

/// Records of a page when the query names no `limit`.
pub const DEFAULT_PAGE_RECORDS: usize = 100;

/// A job's status and counts.
#[utoipa::path(
    get, path = "/v1/jobs/{id}", tag = "jobs",
    params(JobPath),
    responses(
        (status = 200, description = "The job's status and counts", body = JobStatus),
        NoSuchJob,
        InvalidJobId,
        Overloaded,
    )
)]
pub async fn status(State(state): State<AppState>, JobPath { id }: JobPath) -> Result<Json<JobStatus>, ApiError> {
    state.jobs()?.status(&id).map(Json).map_err(|error| jobs_error(&error))
}

/// A page of a job's records, from disk: while it runs and after, until
/// it expires.
#[utoipa::path(
    get, path = "/v1/jobs/{id}/results", tag = "jobs",
    params(
        JobPath,
        ResultsQuery,
    ),
    responses(
        (status = 200, description = "The records from `cursor`, and the cursor of the next page (absent once every record of a finished job is read)", body = ResultsPage),
        NoSuchJob,
        (status = 422, description = "The id is not a job id, the cursor is not one a page gave (`invalid_cursor`), or the query is malformed (`invalid_query`)", body = ErrorJson),
        (status = 503, description = "Too many requests in flight (`overloaded`), or the results cannot be read here (`local`)", body = ErrorJson),
    )
)]
pub async fn results(
    State(state): State<AppState>,
    JobPath { id }: JobPath,
    query: Result<Query<ResultsQuery>, QueryRejection>,
) -> Result<Json<ResultsPage>, ApiError> {
    let Query(query) = query.map_err(|rejection| {
        ApiError::usage(StatusCode::UNPROCESSABLE_ENTITY, reason::INVALID_QUERY, rejection.body_text())
    })?;
    let limit = match query.limit {
        None => DEFAULT_PAGE_RECORDS,
        Some(n) if (1..=MAX_PAGE_RECORDS).contains(&n) => n,
        Some(n) => {
            let message = format!("`limit` must be between 1 and {MAX_PAGE_RECORDS}, not {n}");
            return Err(ApiError::usage(StatusCode::UNPROCESSABLE_ENTITY, reason::INVALID_QUERY, message));
        }
    };
    let page = state.jobs()?.page(&id, query.cursor.unwrap_or(0), limit).await;
    page.map(Json).map_err(|error| jobs_error(&error))
}

/// Cancels a job: its work stops; the records written stay readable until
/// it expires.
#[utoipa::path(
    delete, path = "/v1/jobs/{id}", tag = "jobs",
    params(JobPath),
    responses(
        (status = 200, description = "The job's status after (`cancelled`, or how it had ended before)", body = JobStatus),
        NoSuchJob,
        InvalidJobId,
        Overloaded,
    )
)]
pub async fn cancel(State(state): State<AppState>, JobPath { id }: JobPath) -> Result<Json<JobStatus>, ApiError> {
    state.jobs()?.cancel(&id).map(Json).map_err(|error| jobs_error(&error))
}

/// Starts a job of `kind` on `records` under `limits`: 202 with its
/// status and its `Location`.
pub(crate) fn start<S>(
    state: &AppState,
    kind: &'static str,
    count_by: &'static str,
    limits: JobLimits,
    records: S,
) -> Result<Response, ApiError>
where
    S: Stream<Item = Result<serde_json::Value, JobFailure>> + Send + 'static,
{
    let spec = JobSpec { kind, limits, count_by: Some(count_by) };
    let status = state.jobs()?.start(spec, records).map_err(|error| jobs_error(&error))?;
    accepted(status)
}

/// 202 with a started job's status and its `Location`.
fn accepted(status: JobStatus) -> Result<Response, ApiError> {
    let location = HeaderValue::from_str(&format!("/v1/jobs/{}", status.id)).map_err(|_| {
        ApiError::usage(StatusCode::INTERNAL_SERVER_ERROR, reason::LOCAL, "the job's location could not be written")
    })?;
    Ok((StatusCode::ACCEPTED, [(header::LOCATION, location)], Json(status)).into_response())
}

/// Starts a job of `kind` whose work needs a folder of its own (`work` is
/// given it): 202 with its status and its `Location`.
pub(crate) fn start_in<S>(
    state: &AppState,
    kind: &'static str,
    count_by: &'static str,
    limits: JobLimits,
    work: impl FnOnce(&std::path::Path) -> S,
) -> Result<Response, ApiError>
where
    S: Stream<Item = Result<serde_json::Value, JobFailure>> + Send + 'static,
{
    let spec = JobSpec { kind, limits, count_by: Some(count_by) };
    let status = state.jobs()?.start_in(spec, work).map_err(|error| jobs_error(&error))?;
    accepted(status)
}

/// The limits a job request asks for, each at most the service's ceiling;
/// a limit left out is the ceiling. A limit of 0 or over the ceiling is
/// refused, naming the ceiling.
pub(crate) fn job_limits(asked: &JobLimitsRequest, ceiling: JobLimits) -> Result<JobLimits, ApiError> {
    let checked = |name: &str, asked: Option<u64>, ceiling: u64| match asked {
        None => Ok(ceiling),
        Some(value) if (1..=ceiling).contains(&value) => Ok(value),
        Some(value) => Err(ApiError::usage(
            StatusCode::UNPROCESSABLE_ENTITY,
            reason::INVALID_OPTION,
            format!("limits.{name} must be between 1 and this service's ceiling of {ceiling}, not {value}"),
        )),
    };
    Ok(JobLimits {
        max_records: checked("max_records", asked.max_records, ceiling.max_records)?,
        max_result_bytes: checked("max_result_bytes", asked.max_result_bytes, ceiling.max_result_bytes)?,
        max_duration: Duration::from_secs(checked(
            "max_seconds",
            asked.max_seconds,
            ceiling.max_duration.as_secs().max(1),
        )?),
    })
}

/// The `{id}` of a job route, read as a job id: a path that does not hold
/// one is refused (`invalid_job_id`).
#[derive(Debug, Clone, IntoParams)]
#[into_params(parameter_in = Path)]
pub(crate) struct JobPath {
    /// The job's id, as its start answered
    #[param(value_type = String)]
    id: JobId,
}

impl<S: Send + Sync> FromRequestParts<S> for JobPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<JobPath, ApiError> {
        let invalid =
            |message: String| ApiError::usage(StatusCode::UNPROCESSABLE_ENTITY, reason::INVALID_JOB_ID, message);
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| invalid(rejection.body_text()))?;
        let id = id.parse().map_err(|error: webcanon_jobs::InvalidJobId| invalid(error.to_string()))?;
        Ok(JobPath { id })
    }
}
