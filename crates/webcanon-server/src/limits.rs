//! The `/v1` guard: the body read within a time limit before admission,
//! then an in-flight limit with load shedding and a time limit.

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};

use crate::error::{ApiError, reason};
use crate::state::AppState;

/// Middleware: reads the whole body first, within `body_read_timeout`
/// (else 408) and `max_body_bytes` (else 413), holding no in-flight
/// permit while it arrives; then answers 503 at once when `max_in_flight`
/// requests are being answered (no queue: a client retries after
/// `Retry-After`), and 504 when the answer runs past `request_timeout`
/// (its work is dropped).
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let limits = state.limits();
    let (parts, body) = request.into_parts();
    let body = match tokio::time::timeout(limits.body_read_timeout, read_body(body, limits.max_body_bytes)).await {
        Ok(Ok(body)) => body,
        Ok(Err(refusal)) => return refusal.into_response(),
        Err(_) => return body_timeout(limits.body_read_timeout),
    };
    let request = Request::from_parts(parts, Body::from(body));
    let Ok(_permit) = state.permits().clone().try_acquire_owned() else {
        return ApiError::overloaded(limits.max_in_flight).into_response();
    };
    match tokio::time::timeout(limits.request_timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::timeout(limits.request_timeout).into_response(),
    }
}

/// The body, whole, or the answer to a body over `max_bytes` or broken off.
async fn read_body(body: Body, max_bytes: usize) -> Result<Bytes, ApiError> {
    match Limited::new(body, max_bytes).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => Err(ApiError::usage(
            StatusCode::PAYLOAD_TOO_LARGE,
            reason::BODY_TOO_LARGE,
            "the request body is larger than the limit",
        )),
        Err(error) => Err(ApiError::usage(
            StatusCode::BAD_REQUEST,
            reason::UNREADABLE_BODY,
            format!("the request body could not be read: {error}"),
        )),
    }
}

/// 408 for a body still arriving at the limit; the connection is closed
/// (the rest of the body is not read).
fn body_timeout(limit: std::time::Duration) -> Response {
    let mut response = ApiError::usage(
        StatusCode::REQUEST_TIMEOUT,
        reason::BODY_TIMEOUT,
        format!("the request body did not arrive within {:.1} s of its headers", limit.as_secs_f64()),
    )
    .into_response();
    response.headers_mut().insert(header::CONNECTION, header::HeaderValue::from_static("close"));
    response
}
