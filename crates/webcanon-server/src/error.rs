//! JSON errors: the CLI's kinds and codes, with an HTTP status each.
//!
//! | situation | status | `kind` | `code` |
//! |---|---|---|---|
//! | body is not JSON | 400 | `usage` | 2 |
//! | JSON of the wrong shape (`invalid_body`), a `url` that is not a web URL (`invalid_url`), an `agent` that is not a product token (`invalid_agent`), an option out of range (`invalid_option`) | 422 | `usage` | 2 |
//! | `Content-Type` is not JSON | 415 | `usage` | 2 |
//! | body over the limit | 413 | `usage` | 2 |
//! | body not sent within the body time limit | 408 | `usage` (`reason: body_timeout`) | 2 |
//! | unknown path / method | 404 / 405 | `usage` | 2 |
//! | robots.txt refuses | 403 | `policy` | 3 |
//! | SSRF guard refuses | 403 | `ssrf` | 4 |
//! | the page could not be fetched | 502 (504 when it timed out) | `fetch` | 5 |
//! | an audited origin does not answer | 502 | `fetch` (`reason: unreachable`) | 5 |
//! | this server could not make the request (out of descriptors) | 503 | `fetch` (`reason: local`) | 5 |
//! | the request ran out of time | 504 | `timeout` | 5 |
//! | too many requests in flight | 503 | `overloaded` | 5 |
//! | too many jobs running or kept | 429 | `overloaded` (`reason: too_many_jobs`) | 5 |
//! | no such job (never started, or expired) | 404 | `usage` (`reason: no_such_job`) | 2 |
//! | a job id or results cursor that is not one the service gave (`invalid_job_id`, `invalid_cursor`), a malformed query (`invalid_query`), a job limit over the service's ceiling (`invalid_option`) | 422 | `usage` | 2 |
//! | a job's results cannot be read on this server | 503 | `fetch` (`reason: local`) | 5 |

use std::time::Duration;

use axum::Json;
use axum::extract::rejection::{JsonDataError, JsonRejection};
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;
use webcanon_client::error::{Error, ErrorBody, ErrorJson, FetchError, code};

/// Stable `reason` words of usage errors.
pub mod reason {
    /// The body is not valid JSON.
    pub const INVALID_JSON: &str = "invalid_json";
    /// The JSON does not have the expected shape (a missing or unknown field, a wrong type).
    pub const INVALID_BODY: &str = "invalid_body";
    /// The `Content-Type` is not `application/json`.
    pub const UNSUPPORTED_MEDIA_TYPE: &str = "unsupported_media_type";
    /// The body is larger than the limit.
    pub const BODY_TOO_LARGE: &str = "body_too_large";
    /// The body did not arrive within the time limit (408).
    pub const BODY_TIMEOUT: &str = "body_timeout";
    /// The body could not be read.
    pub const UNREADABLE_BODY: &str = "unreadable_body";
    /// The URL is not an absolute http(s) URL.
    pub const INVALID_URL: &str = "invalid_url";
    /// The agent is not a product token.
    pub const INVALID_AGENT: &str = "invalid_agent";
    /// An option is out of range.
    pub const INVALID_OPTION: &str = "invalid_option";
    /// A batch holds more URLs than allowed.
    pub const TOO_MANY_URLS: &str = "too_many_urls";
    /// No such path.
    pub const NOT_FOUND: &str = "not_found";
    /// The path does not take this method.
    pub const METHOD_NOT_ALLOWED: &str = "method_not_allowed";
    /// No job has this id (never started, or forgotten after its time to live).
    pub const NO_SUCH_JOB: &str = "no_such_job";
    /// The job id is not one the service gives.
    pub const INVALID_JOB_ID: &str = "invalid_job_id";
    /// The results cursor is not one a page of this job gave.
    pub const INVALID_CURSOR: &str = "invalid_cursor";
    /// The query string does not have the expected shape.
    pub const INVALID_QUERY: &str = "invalid_query";
    /// The service runs or keeps as many jobs as it takes (429).
    pub const TOO_MANY_JOBS: &str = "too_many_jobs";
    /// This server failed, not the site (its disk, its random source).
    pub const LOCAL: &str = "local";
}

/// The `reason` of a body whose JSON does not fit the request: the checked
/// field that refused its value (`url`, an item of `urls`, `agent`), or the
/// shape itself.
fn data_error_reason(error: &JsonDataError) -> &'static str {
    let mut source = std::error::Error::source(error);
    while let Some(error) = source {
        if let Some(located) = error.downcast_ref::<serde_path_to_error::Error<serde_json::Error>>() {
            let mut path = located.path().iter().rev();
            return match (path.next(), path.next()) {
                (Some(Segment::Map { key }), _) if key == "url" => reason::INVALID_URL,
                (Some(Segment::Map { key }), _) if key == "agent" => reason::INVALID_AGENT,
                // A start URL of a crawl (`urls[3]`).
                (Some(Segment::Seq { .. }), Some(Segment::Map { key })) if key == "urls" => reason::INVALID_URL,
                _ => reason::INVALID_BODY,
            };
        }
        source = error.source();
    }
    reason::INVALID_BODY
}

/// An error answer: an HTTP status and a JSON error body.
#[derive(Debug, Clone)]
pub struct ApiError {
    status: StatusCode,
    body: Box<ErrorBody>,
}

impl ApiError {
    /// An error with this status and body.
    pub fn new(status: StatusCode, body: ErrorBody) -> ApiError {
        ApiError { status, body: Box::new(body) }
    }

    /// A usage error (kind `usage`, code 2) with a stable `reason`.
    pub fn usage(status: StatusCode, reason: &str, message: impl Into<String>) -> ApiError {
        let mut body = ErrorBody::new("usage", code::USAGE, message);
        body.reason = Some(reason.to_string());
        ApiError::new(status, body)
    }

    /// A 422 usage error for an option out of range (`invalid_option`).
    pub(crate) fn invalid_option(message: impl Into<String>) -> ApiError {
        ApiError::usage(StatusCode::UNPROCESSABLE_ENTITY, reason::INVALID_OPTION, message)
    }

    /// The answer for a client error about `url`.
    pub fn from_client(err: &Error, url: &str) -> ApiError {
        let mut body = ErrorBody::from_error(err, url);
        let status = match err {
            Error::InvalidUrl { .. } => {
                body.reason = Some(reason::INVALID_URL.to_string());
                StatusCode::UNPROCESSABLE_ENTITY
            }
            Error::Policy(_) | Error::Ssrf(_) => StatusCode::FORBIDDEN,
            Error::Fetch(FetchError::Timeout { .. }) => StatusCode::GATEWAY_TIMEOUT,
            // This server, not the site, failed: try again later.
            Error::Fetch(FetchError::Local { .. }) => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::BAD_GATEWAY,
        };
        ApiError::new(status, body)
    }

    /// The answer for an origin that cannot be audited: 403 `ssrf` when the
    /// guard refused it, 502 `fetch` (reason `unreachable`) when it does
    /// not answer.
    pub fn from_audit(err: &webcanon_audit::AuditError) -> ApiError {
        let (status, code, reason) = match err {
            webcanon_audit::AuditError::Refused { .. } => (StatusCode::FORBIDDEN, code::SSRF, "refused"),
            _ => (StatusCode::BAD_GATEWAY, code::FETCH, "unreachable"),
        };
        let mut body = ErrorBody::new(err.kind(), code, err.to_string());
        body.url = Some(err.origin().to_string());
        body.reason = Some(reason.to_string());
        ApiError::new(status, body)
    }

    /// The request did not finish within the service's time limit.
    pub fn timeout(limit: Duration) -> ApiError {
        let message = format!("the request did not finish within {:.1} s", limit.as_secs_f64());
        ApiError::new(StatusCode::GATEWAY_TIMEOUT, ErrorBody::new("timeout", code::FETCH, message))
    }

    /// Too many requests are in flight.
    pub fn overloaded(limit: usize) -> ApiError {
        let message = format!("{limit} requests are in flight already; try again shortly");
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, ErrorBody::new("overloaded", code::FETCH, message))
    }

    /// The answer for a body the JSON extractor refused.
    pub fn from_rejection(rejection: &JsonRejection) -> ApiError {
        let (status, why) = match rejection {
            JsonRejection::JsonDataError(error) => (StatusCode::UNPROCESSABLE_ENTITY, data_error_reason(error)),
            JsonRejection::JsonSyntaxError(_) => (StatusCode::BAD_REQUEST, reason::INVALID_JSON),
            JsonRejection::MissingJsonContentType(_) => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, reason::UNSUPPORTED_MEDIA_TYPE)
            }
            other if other.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                (StatusCode::PAYLOAD_TOO_LARGE, reason::BODY_TOO_LARGE)
            }
            other => (other.status(), reason::UNREADABLE_BODY),
        };
        let message = match rejection {
            JsonRejection::MissingJsonContentType(_) => "expected `Content-Type: application/json`".to_string(),
            other if other.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                "the request body is larger than the limit".to_string()
            }
            other => other.body_text(),
        };
        ApiError::usage(status, why, message)
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The JSON error body.
    pub fn body(&self) -> &ErrorBody {
        &self.body
    }
}

/// The answer for a call the registry of jobs refused.
pub(crate) fn jobs_error(error: &webcanon_jobs::JobsError) -> ApiError {
    use webcanon_jobs::JobsError;
    let message = error.to_string();
    let (status, kind, code, why) = match error {
        JobsError::NotFound => (StatusCode::NOT_FOUND, "usage", code::USAGE, reason::NO_SUCH_JOB),
        JobsError::InvalidCursor { .. } => {
            (StatusCode::UNPROCESSABLE_ENTITY, "usage", code::USAGE, reason::INVALID_CURSOR)
        }
        JobsError::TooManyRunning { .. } | JobsError::TooManyKept { .. } => {
            (StatusCode::TOO_MANY_REQUESTS, "overloaded", code::FETCH, reason::TOO_MANY_JOBS)
        }
        _ => (StatusCode::SERVICE_UNAVAILABLE, "fetch", code::FETCH, reason::LOCAL),
    };
    let mut body = ErrorBody::new(kind, code, message);
    body.reason = Some(why.to_string());
    ApiError::new(status, body)
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let overloaded = matches!(self.status, StatusCode::SERVICE_UNAVAILABLE | StatusCode::TOO_MANY_REQUESTS);
        let mut response = (self.status, Json(ErrorJson { error: *self.body })).into_response();
        if overloaded {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

/// A JSON request body whose rejections are JSON errors too.
#[derive(Debug, Clone)]
pub struct ApiJson<T>(pub T);

impl<T, S> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(ApiJson(value)),
            Err(rejection) => Err(ApiError::from_rejection(&rejection)),
        }
    }
}

/// The answer for a path that does not exist.
pub async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::usage(StatusCode::NOT_FOUND, reason::NOT_FOUND, format!("no such path: {}", uri.path()))
}

/// The answer for a method the path does not take.
pub async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::usage(
        StatusCode::METHOD_NOT_ALLOWED,
        reason::METHOD_NOT_ALLOWED,
        format!("{} does not take {method}", uri.path()),
    )
}
