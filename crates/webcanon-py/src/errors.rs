//! The exceptions: one per error kind of the CLI and the HTTP service, under
//! one base class, each carrying the same JSON error object as a dict.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use webcanon_batch::BatchError;
use webcanon_client::error::{Error, ErrorBody, ErrorJson, FetchError};

create_exception!(
    webcanon,
    WebcanonError,
    PyException,
    "The base class of webcanon's errors. `kind` (usage, policy, ssrf, fetch), `code` (the CLI's exit status) \
     and `error` (the JSON error object of `webcanon ... --json`, as a dict) describe it."
);
create_exception!(webcanon, InvalidUrlError, WebcanonError, "The URL is not an absolute http(s) URL.");
create_exception!(
    webcanon,
    PolicyRefused,
    WebcanonError,
    "robots.txt refused the fetch. `verdict`, `recommendation`, `robots_url` and `rule` (the matched rule only, \
     never the file) say why."
);
create_exception!(
    webcanon,
    SsrfRefused,
    WebcanonError,
    "The SSRF guard refused the URL, a redirect target or an address; `reason` says which."
);
create_exception!(
    webcanon,
    FetchFailed,
    WebcanonError,
    "The fetch failed: a timeout, a connection or protocol error, an HTTP error status (`status`)."
);
create_exception!(
    webcanon,
    PaymentRequired,
    FetchFailed,
    "The page answered 402 Payment Required (pay per crawl): `price` is what its `crawler-price` header asks \
     (`{\"currency\": \"USD\", \"amount\": \"0.01\"}`) or None; nothing was paid and it is not retried."
);
create_exception!(
    webcanon,
    SnapshotError,
    WebcanonError,
    "A robots snapshot or a URL column could not be read, written or used."
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("WebcanonError", py.get_type::<WebcanonError>())?;
    m.add("InvalidUrlError", py.get_type::<InvalidUrlError>())?;
    m.add("PolicyRefused", py.get_type::<PolicyRefused>())?;
    m.add("SsrfRefused", py.get_type::<SsrfRefused>())?;
    m.add("FetchFailed", py.get_type::<FetchFailed>())?;
    m.add("PaymentRequired", py.get_type::<PaymentRequired>())?;
    m.add("SnapshotError", py.get_type::<SnapshotError>())?;
    Ok(())
}

/// The exception for a client error about `url`, with the JSON error object
/// and its fields as attributes.
pub(crate) fn client_error(py: Python<'_>, err: &Error, url: &str) -> PyErr {
    let body = ErrorBody::from_error(err, url);
    let exception = match err {
        Error::InvalidUrl { .. } => InvalidUrlError::new_err(body.message.clone()),
        Error::Policy(_) => PolicyRefused::new_err(body.message.clone()),
        Error::Ssrf(_) => SsrfRefused::new_err(body.message.clone()),
        Error::Fetch(FetchError::PaymentRequired { .. }) => PaymentRequired::new_err(body.message.clone()),
        Error::Fetch(_) => FetchFailed::new_err(body.message.clone()),
        _ => WebcanonError::new_err(body.message.clone()),
    };
    match describe(py, &exception, body) {
        Ok(()) => exception,
        Err(failed) => failed,
    }
}

/// The exception for a batch error (a snapshot or URL column): kind
/// `usage`, as `webcanon batch` reports the same error.
pub(crate) fn batch_error(py: Python<'_>, err: &BatchError) -> PyErr {
    let body = ErrorBody::new("usage", webcanon_client::error::code::USAGE, err.to_string());
    let exception = SnapshotError::new_err(body.message.clone());
    match describe(py, &exception, body) {
        Ok(()) => exception,
        Err(failed) => failed,
    }
}

/// A usage error (a bad option value) as the base exception with kind `usage`.
pub(crate) fn usage_error(py: Python<'_>, message: String) -> PyErr {
    let body = ErrorBody::new("usage", webcanon_client::error::code::USAGE, message.clone());
    let exception = WebcanonError::new_err(message);
    match describe(py, &exception, body) {
        Ok(()) => exception,
        Err(failed) => failed,
    }
}

/// Sets `kind`, `code`, `url`, the kind's evidence and `error` on the exception.
fn describe(py: Python<'_>, exception: &PyErr, body: ErrorBody) -> PyResult<()> {
    let value = exception.value(py);
    value.setattr("kind", &body.kind)?;
    value.setattr("code", body.code)?;
    value.setattr("url", body.url.as_deref())?;
    if body.kind == "policy" {
        value.setattr("verdict", body.verdict.map(|v| v.as_str()))?;
        value.setattr("recommendation", body.recommendation.map(|r| r.as_str()))?;
        value.setattr("robots_url", body.robots_url.as_deref())?;
        value.setattr("rule", pythonize::pythonize(py, &body.rule)?)?;
    }
    if body.kind == "ssrf" {
        value.setattr("reason", body.reason.as_deref())?;
    }
    if body.kind == "fetch" {
        value.setattr("status", body.status)?;
        value.setattr("reason", body.reason.as_deref())?;
        value.setattr("price", pythonize::pythonize(py, &body.price)?)?;
    }
    value.setattr("error", pythonize::pythonize(py, &ErrorJson { error: body })?)?;
    Ok(())
}
