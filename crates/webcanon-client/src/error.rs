//! The client's errors: invalid input, policy refusals, SSRF refusals, and
//! fetches that failed. Each carries the URL it is about.

use std::time::Duration;

use webcanon_core::policy::PolicyError;

use crate::ssrf::SsrfError;

/// Why one HTTP exchange failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The SSRF guard refused the URL or the address it resolved to.
    #[error(transparent)]
    Ssrf(SsrfError),
    /// The exchange did not finish in time.
    #[error("timed out after {:.1} s fetching {url}", after.as_secs_f64())]
    Timeout {
        /// The URL being fetched.
        url: String,
        /// How long it ran.
        after: Duration,
    },
    /// No connection could be made.
    #[error("cannot connect to {url}: {message}")]
    Connect {
        /// The URL being fetched.
        url: String,
        /// The cause.
        message: String,
    },
    /// The connection broke or the server spoke invalid HTTP.
    #[error("fetching {url} failed: {message}")]
    Protocol {
        /// The URL being fetched.
        url: String,
        /// The cause.
        message: String,
    },
    /// The final answer was an HTTP error status.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL that answered.
        url: String,
        /// The status.
        status: u16,
    },
    /// More redirects than the limit.
    #[error("more than {limit} redirects starting at {url}")]
    TooManyRedirects {
        /// The first URL.
        url: String,
        /// The limit.
        limit: usize,
    },
    /// A redirect without a usable target.
    #[error("bad redirect from {url}: {message}")]
    BadRedirect {
        /// The URL that redirected.
        url: String,
        /// What is wrong with the target.
        message: String,
    },
    /// The content is neither HTML nor text.
    #[error("{url} is {content_type}, which cannot be converted to text")]
    UnsupportedContent {
        /// The URL.
        url: String,
        /// Its content type.
        content_type: String,
    },
}

impl FetchError {
    pub(crate) fn from_reqwest(url: &url::Url, err: reqwest::Error) -> FetchError {
        let url = url.to_string();
        // The guard's resolver reports refusals through reqwest; keep them
        // as SSRF errors rather than connection failures.
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&err);
        while let Some(cause) = source {
            if let Some(ssrf) = cause.downcast_ref::<SsrfError>() {
                return FetchError::Ssrf(ssrf.clone());
            }
            source = cause.source();
        }
        let message = error_chain(&err);
        if err.is_timeout() {
            FetchError::Timeout { url, after: Duration::ZERO }
        } else if err.is_connect() {
            FetchError::Connect { url, message }
        } else {
            FetchError::Protocol { url, message }
        }
    }

    /// A status code for the JSON error object, when one applies.
    pub fn status(&self) -> Option<u16> {
        match self {
            FetchError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// The messages of an error and its causes, joined.
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

/// Everything [`Client::fetch`](crate::Client::fetch) can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The URL is not an absolute http(s) URL.
    #[error("invalid URL `{url}`: {reason}")]
    InvalidUrl {
        /// The input.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// robots.txt policy refuses the fetch.
    #[error(transparent)]
    Policy(Box<PolicyError>),
    /// The SSRF guard refuses the URL, a redirect target or an address.
    #[error(transparent)]
    Ssrf(SsrfError),
    /// The fetch failed.
    #[error(transparent)]
    Fetch(FetchError),
}

impl Error {
    /// `usage`, `policy`, `ssrf` or `fetch`: the `kind` of the CLI's JSON errors.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::InvalidUrl { .. } => "usage",
            Error::Policy(_) => "policy",
            Error::Ssrf(_) => "ssrf",
            Error::Fetch(_) => "fetch",
        }
    }

    /// Whether robots.txt policy refused the fetch.
    pub fn is_policy(&self) -> bool {
        matches!(self, Error::Policy(_))
    }

    /// Whether the SSRF guard refused the fetch.
    pub fn is_ssrf(&self) -> bool {
        matches!(self, Error::Ssrf(_))
    }
}

impl From<FetchError> for Error {
    fn from(err: FetchError) -> Error {
        match err {
            FetchError::Ssrf(ssrf) => Error::Ssrf(ssrf),
            other => Error::Fetch(other),
        }
    }
}

impl From<PolicyError> for Error {
    fn from(err: PolicyError) -> Error {
        Error::Policy(Box::new(err))
    }
}
