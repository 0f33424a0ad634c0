//! The `/v1` guard: an in-flight limit with load shedding and a time limit.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::error::ApiError;

/// Middleware: answers 503 at once when `max_in_flight` requests are being
/// answered (no queue: a client retries after `Retry-After`), and 504 when
/// the request runs past `request_timeout` (its work is dropped).
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let limits = state.limits();
    let Ok(_permit) = state.permits().clone().try_acquire_owned() else {
        return ApiError::overloaded(limits.max_in_flight).into_response();
    };
    match tokio::time::timeout(limits.request_timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::timeout(limits.request_timeout).into_response(),
    }
}
