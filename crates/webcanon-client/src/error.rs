//! The client's errors: invalid input, policy refusals, SSRF refusals, and
//! fetches that failed. Each carries the URL it is about.

use std::time::Duration;

use webcanon_core::policy::PolicyError;

use crate::payment::CrawlerPrice;
use crate::ssrf::SsrfError;

/// Why one HTTP exchange failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The SSRF guard refused the URL or the address it resolved to.
    #[error(transparent)]
    Ssrf(SsrfError),
    /// The host name did not resolve to any address (no such host, no
    /// address records, or DNS not answering): a network failure, like a
    /// refused connection, not an SSRF refusal.
    #[error("cannot resolve {host}: {message}")]
    Resolve {
        /// The host name.
        host: String,
        /// What DNS answered.
        message: String,
    },
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
    /// The page answered 402 Payment Required (pay per crawl): a price is
    /// asked, none was paid, and the request is not retried.
    #[error("{url} asks for payment (HTTP 402{}); nothing was paid", price.as_ref().map(|p| format!(", crawler-price {p}")).unwrap_or_default())]
    PaymentRequired {
        /// The URL that answered.
        url: String,
        /// The price its `crawler-price` header asks, when it is readable.
        price: Option<CrawlerPrice>,
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
    /// The content is a PDF that cannot be read: encrypted with a password,
    /// broken beyond repair, or its reader failed on it.
    #[error("{url} is a PDF that cannot be read: {message}")]
    Pdf {
        /// The URL.
        url: String,
        /// What is wrong with it.
        message: String,
    },
    /// The page was to be rendered and no browser could be had: none
    /// installed or found, or it would not start.
    #[error("cannot render {url}: {message}")]
    Render {
        /// The URL.
        url: String,
        /// Why.
        message: String,
    },
    /// This machine could not make the request (out of descriptors,
    /// buffers, local ports or memory), after retries: a fact about this
    /// machine, never about the site, so nothing is recorded for it.
    #[error("this machine could not make the request to {url}: {message}")]
    Local {
        /// The URL.
        url: String,
        /// The operating system's error.
        message: String,
    },
}

impl FetchError {
    /// The failure reqwest reported for `url`, `elapsed` into the exchange
    /// (reqwest's own timeout does not say how long it waited).
    pub(crate) fn from_reqwest(url: &url::Url, err: reqwest::Error, elapsed: Duration) -> FetchError {
        let url = url.to_string();
        // The guard's resolver reports refusals through reqwest; keep them
        // as SSRF errors rather than connection failures.
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&err);
        while let Some(cause) = source {
            if let Some(ssrf) = cause.downcast_ref::<SsrfError>() {
                return FetchError::from_guard(ssrf.clone());
            }
            source = cause.source();
        }
        if let Some(io) = crate::os_limits::local_exhaustion_in(&err) {
            return FetchError::Local { url, message: io.to_string() };
        }
        // The message says what happened in a few words; reqwest's whole
        // chain of causes is for the log (`-v` on the command line).
        tracing::info!("{url}: {}", error_chain(&err));
        let message = short_cause(&err);
        if err.is_timeout() {
            FetchError::Timeout { url, after: elapsed }
        } else if err.is_connect() {
            FetchError::Connect { url, message }
        } else {
            FetchError::Protocol { url, message }
        }
    }

    /// An error of the SSRF guard: a refusal, or, for a name that did not
    /// resolve, [`FetchError::Resolve`].
    pub fn from_guard(ssrf: SsrfError) -> FetchError {
        if ssrf.is_local_failure() {
            FetchError::Local { url: ssrf.target().to_string(), message: ssrf.detail().to_string() }
        } else if ssrf.is_lookup_failure() {
            FetchError::Resolve { host: ssrf.target().to_string(), message: ssrf.detail().to_string() }
        } else {
            FetchError::Ssrf(ssrf)
        }
    }

    /// A 402 answer from `url`, with the price of its `crawler-price`
    /// header (pay per crawl) when it has a readable one.
    pub fn payment_required(url: &str, price_header: Option<&str>) -> FetchError {
        FetchError::PaymentRequired { url: url.to_string(), price: price_header.and_then(CrawlerPrice::parse) }
    }

    /// Why the exchange failed, as a stable word: `ssrf`, `dns`, `timeout`,
    /// `connect`, `protocol`, `status`, `payment_required`, `too_many_redirects`,
    /// `bad_redirect`, `unsupported_content`, `pdf_error`, `render_unavailable`
    /// or `local`.
    pub fn reason(&self) -> &'static str {
        match self {
            FetchError::Ssrf(_) => "ssrf",
            FetchError::Resolve { .. } => "dns",
            FetchError::Timeout { .. } => "timeout",
            FetchError::Connect { .. } => "connect",
            FetchError::Protocol { .. } => "protocol",
            FetchError::Status { .. } => "status",
            FetchError::PaymentRequired { .. } => "payment_required",
            FetchError::TooManyRedirects { .. } => "too_many_redirects",
            FetchError::BadRedirect { .. } => "bad_redirect",
            FetchError::UnsupportedContent { .. } => "unsupported_content",
            FetchError::Pdf { .. } => "pdf_error",
            FetchError::Render { .. } => "render_unavailable",
            FetchError::Local { .. } => "local",
        }
    }

    /// Whether this machine, not the site, failed the request.
    pub fn is_local(&self) -> bool {
        matches!(self, FetchError::Local { .. })
    }

    /// The URL the failure is about (for a name that did not resolve, the
    /// host name; for a refused address, what the guard refused).
    pub fn url(&self) -> &str {
        match self {
            FetchError::Ssrf(ssrf) => ssrf.target(),
            FetchError::Resolve { host, .. } => host,
            FetchError::Timeout { url, .. }
            | FetchError::Connect { url, .. }
            | FetchError::Protocol { url, .. }
            | FetchError::Status { url, .. }
            | FetchError::PaymentRequired { url, .. }
            | FetchError::TooManyRedirects { url, .. }
            | FetchError::BadRedirect { url, .. }
            | FetchError::UnsupportedContent { url, .. }
            | FetchError::Pdf { url, .. }
            | FetchError::Render { url, .. }
            | FetchError::Local { url, .. } => url,
        }
    }

    /// A status code for the JSON error object, when one applies.
    pub fn status(&self) -> Option<u16> {
        match self {
            FetchError::Status { status, .. } => Some(*status),
            FetchError::PaymentRequired { .. } => Some(402),
            _ => None,
        }
    }

    /// The price a 402 answer asks, when it names a readable one.
    pub fn price(&self) -> Option<&CrawlerPrice> {
        match self {
            FetchError::PaymentRequired { price, .. } => price.as_ref(),
            _ => None,
        }
    }
}

/// What failed, in a few words, from the causes of `err`: the deepest I/O
/// error by its kind (`connection refused`), or else the deepest cause's
/// own message, without an OS error number.
fn short_cause(err: &(dyn std::error::Error + 'static)) -> String {
    let mut deepest = err;
    let mut io = None;
    let mut source = Some(err);
    while let Some(cause) = source {
        if let Some(e) = cause.downcast_ref::<std::io::Error>() {
            io = Some(e);
        }
        deepest = cause;
        source = cause.source();
    }
    if let Some(phrase) = io.and_then(|io| io_phrase(io.kind())) {
        return phrase.to_string();
    }
    let text = deepest.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

/// The connection failures people meet, by their I/O error kind.
fn io_phrase(kind: std::io::ErrorKind) -> Option<&'static str> {
    use std::io::ErrorKind;
    Some(match kind {
        ErrorKind::ConnectionRefused => "connection refused",
        ErrorKind::ConnectionReset => "connection reset by the server",
        ErrorKind::ConnectionAborted => "connection aborted",
        ErrorKind::TimedOut => "connection timed out",
        ErrorKind::HostUnreachable => "host unreachable",
        ErrorKind::NetworkUnreachable => "network unreachable",
        ErrorKind::AddrNotAvailable => "address not available",
        ErrorKind::UnexpectedEof => "connection closed before the answer was complete",
        _ => return None,
    })
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

impl From<crate::web_url::InvalidWebUrl> for Error {
    fn from(invalid: crate::web_url::InvalidWebUrl) -> Error {
        Error::InvalidUrl { url: invalid.input, reason: invalid.reason.to_string() }
    }
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

    /// The URL the error is about: the input that is not a URL, the URL
    /// robots.txt refused (a redirect target included), what the SSRF guard
    /// refused, or the URL whose fetch failed.
    pub fn url(&self) -> &str {
        match self {
            Error::InvalidUrl { url, .. } => url,
            Error::Policy(policy) => &policy.url,
            Error::Ssrf(ssrf) => ssrf.target(),
            Error::Fetch(fetch) => fetch.url(),
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

/// The stable numeric code of each error kind: the `webcanon` exit status
/// for it, and the `code` of every JSON error object.
pub mod code {
    /// Bad usage or invalid input (`usage`).
    pub const USAGE: u8 = 2;
    /// Refused by robots.txt policy (`policy`).
    pub const POLICY: u8 = 3;
    /// Refused by the SSRF guard (`ssrf`).
    pub const SSRF: u8 = 4;
    /// The fetch failed (`fetch`, and the HTTP service's `timeout` and `overloaded`).
    pub const FETCH: u8 = 5;
}

impl Error {
    /// The stable code of this error's kind: 2 usage, 3 policy, 4 SSRF, 5 fetch.
    pub fn code(&self) -> u8 {
        match self {
            Error::InvalidUrl { .. } => code::USAGE,
            Error::Policy(_) => code::POLICY,
            Error::Ssrf(_) => code::SSRF,
            Error::Fetch(_) => code::FETCH,
        }
    }
}

/// A JSON error object, `{"error": ErrorBody}`: what `webcanon ... --json`
/// prints and the HTTP service answers when something fails.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorJson {
    /// The error.
    pub error: ErrorBody,
}

/// The body of a JSON error: its kind, a message, the stable code, and the
/// evidence that fits the kind. A policy refusal quotes the matched rule,
/// never the robots.txt file.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// `usage`, `policy`, `ssrf` or `fetch` (the HTTP service adds `timeout` and `overloaded`).
    pub kind: String,
    /// What went wrong, in a sentence.
    pub message: String,
    /// The stable code of the kind (see [`code`]): the CLI's exit status.
    pub code: u8,
    /// The URL the error is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// For `policy`: the verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<webcanon_core::policy::Verdict>,
    /// For `policy`: the recommendation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommendation: Option<webcanon_core::policy::FetchRecommendation>,
    /// For `policy`: the robots.txt consulted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robots_url: Option<String>,
    /// For `policy`: the rule that matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<webcanon_core::policy::RuleEvidence>,
    /// For `ssrf` and `fetch` (see [`FetchError::reason`]), and for usage
    /// errors of the HTTP service: why, as a stable word or phrase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For `fetch`: the HTTP status the page answered with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// For `fetch` with reason `payment_required` (HTTP 402): the price the
    /// page's `crawler-price` header asks. Nothing was paid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<CrawlerPrice>,
}

impl ErrorBody {
    /// A body with only a kind, a code and a message.
    pub fn new(kind: &str, code: u8, message: impl Into<String>) -> ErrorBody {
        ErrorBody {
            kind: kind.to_string(),
            message: message.into(),
            code,
            url: None,
            verdict: None,
            recommendation: None,
            robots_url: None,
            rule: None,
            reason: None,
            status: None,
            price: None,
        }
    }

    /// The body for a client error about `url`, with the evidence of its kind.
    pub fn from_error(err: &Error, url: &str) -> ErrorBody {
        let mut body = ErrorBody::new(err.kind(), err.code(), err.to_string());
        body.url = Some(url.to_string());
        match err {
            Error::Policy(policy) => {
                body.verdict = Some(policy.evidence.verdict);
                body.recommendation = Some(policy.evidence.recommendation);
                body.robots_url = policy.evidence.robots_url.clone();
                body.rule = policy.evidence.rule.clone();
            }
            Error::Ssrf(ssrf) => body.reason = Some(ssrf.reason().to_string()),
            Error::Fetch(fetch) => {
                body.reason = Some(fetch.reason().to_string());
                body.status = fetch.status();
                body.price = fetch.price().cloned();
            }
            Error::InvalidUrl { .. } => {}
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use webcanon_core::policy::{PolicyError, RobotsEvidence};

    use super::*;

    /// reqwest's error for a refused connection, as its chain stands.
    #[derive(Debug)]
    struct Sending(std::io::Error);

    impl std::fmt::Display for Sending {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error sending request for url (http://127.0.0.1:9/): client error (Connect)")
        }
    }

    impl std::error::Error for Sending {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_failure_is_said_in_a_few_words_from_its_deepest_cause() {
        use std::io::{Error as IoError, ErrorKind};
        let refused =
            Sending(IoError::new(ErrorKind::ConnectionRefused, "tcp connect error: Connection refused (os error 111)"));
        assert_eq!(short_cause(&refused), "connection refused");
        let other = Sending(IoError::other("no buffer space available (os error 105)"));
        assert_eq!(short_cause(&other), "no buffer space available");
        assert!(error_chain(&refused).starts_with("error sending request for url"), "the chain keeps every cause");
    }

    #[test]
    fn every_error_names_its_url() {
        let fetch = |e: FetchError| Error::Fetch(e);
        let rows = [
            (Error::InvalidUrl { url: "not a url".into(), reason: "relative".into() }, "not a url"),
            (
                Error::Policy(Box::new(PolicyError {
                    url: "https://a.test/private".into(),
                    evidence: RobotsEvidence::skipped(),
                })),
                "https://a.test/private",
            ),
            (
                fetch(FetchError::Timeout { url: "https://a.test/slow".into(), after: Duration::ZERO }),
                "https://a.test/slow",
            ),
            (fetch(FetchError::Resolve { host: "nowhere.test".into(), message: "NXDOMAIN".into() }), "nowhere.test"),
            (fetch(FetchError::Status { url: "https://a.test/gone".into(), status: 404 }), "https://a.test/gone"),
            (fetch(FetchError::Local { url: "https://a.test/".into(), message: "EMFILE".into() }), "https://a.test/"),
        ];
        for (error, url) in rows {
            assert_eq!(error.url(), url, "{error}");
        }
    }
}
