//! What the client's calls return: [`FetchResult`], [`RawResponse`],
//! [`RobotsCheck`] and their parts.

use serde::Serialize;
use webcanon_core::policy::RobotsEvidence;

use crate::error::FetchError;
use crate::page;
use crate::warning::Warning;

/// One redirect on the way to the content.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RedirectHop {
    /// The URL that redirected.
    pub url: String,
    /// Its status.
    pub status: u16,
}

/// How long the parts of a fetch took, in milliseconds.
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Timings {
    /// Deciding robots.txt for the requested URL (cached or fetched).
    pub robots_ms: u64,
    /// Fetching the page, redirects included.
    pub fetch_ms: u64,
    /// Decoding and converting the content.
    pub convert_ms: u64,
    /// The whole call.
    pub total_ms: u64,
}

/// The answer of [`Client::check`](super::Client::check): the robots verdict for a URL, with its
/// evidence, and the usage warnings robots.txt gives (`Content-Signal`, a
/// stale copy), without the page.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct RobotsCheck {
    /// The verdict, the recommendation, the matched rule and how robots.txt
    /// was obtained.
    pub robots: RobotsEvidence,
    /// Usage warnings from robots.txt.
    pub warnings: Vec<Warning>,
}

/// The answer of [`Client::get`](super::Client::get): status, headers and body as received.
#[derive(Debug, Clone)]
pub struct RawResponse {
    /// The URL asked for.
    pub requested_url: String,
    /// Where it ended after redirects.
    pub final_url: String,
    /// The final HTTP status.
    pub status: u16,
    pub(super) headers: reqwest::header::HeaderMap,
    /// The body, at most the limit asked for (after decompression).
    pub body: Vec<u8>,
    /// Whether the body was longer than the limit and cut there.
    pub truncated: bool,
    /// The robots verdict for the requested URL.
    pub robots: RobotsEvidence,
    /// Redirects followed.
    pub redirects: Vec<RedirectHop>,
    /// Warnings from robots.txt and the redirects.
    pub warnings: Vec<Warning>,
}

impl RawResponse {
    /// The answer's status as an error, when it is one: 402 is
    /// [`FetchError::PaymentRequired`] with the price asked, any other
    /// status from 400 on is [`FetchError::Status`].
    pub fn status_error(&self) -> Option<FetchError> {
        match self.status {
            402 => Some(FetchError::payment_required(&self.final_url, self.header(crate::payment::PRICE_HEADER))),
            400.. => Some(FetchError::Status { url: self.final_url.clone(), status: self.status }),
            _ => None,
        }
    }

    /// A response header as text, if present and printable.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Every value of a header that may repeat.
    pub fn header_all<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a str> + use<'a> {
        self.headers.get_all(name).iter().filter_map(|v| v.to_str().ok())
    }

    /// The media type of `Content-Type`, lower-cased, without parameters.
    pub fn media_type(&self) -> Option<String> {
        self.header("content-type").map(|t| t.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body decoded as text (charset from `Content-Type`, a `<meta>`
    /// or a BOM; UTF-8 otherwise, invalid bytes replaced).
    pub fn text(&self) -> String {
        page::decode_body(&self.body, self.header("content-type"), url::Url::parse(&self.final_url).ok().as_ref())
    }
}

/// The result of [`Client::fetch`](super::Client::fetch).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FetchResult {
    /// The URL asked for.
    pub requested_url: String,
    /// The URL whose content is returned.
    pub fetched_url: String,
    /// Where `fetched_url` ended after redirects.
    pub final_url: String,
    /// The final HTTP status.
    pub status: u16,
    /// The `Content-Type` of the answer.
    pub content_type: Option<String>,
    /// The page title, when there is one.
    pub title: Option<String>,
    /// The canonical URL (`rel=canonical` link or `Link` header).
    pub canonical_url: Option<String>,
    /// The content: Markdown for HTML and PDF, the text itself for Markdown
    /// and text.
    pub content: String,
    /// Title, author and page counts, when the content is a PDF.
    pub pdf: Option<crate::pdf::PdfInfo>,
    /// What the page says about itself: author, dates, language, site
    /// name, description, canonical URL, Open Graph and JSON-LD facts (an
    /// HTML page), title and author (a PDF); empty for a Markdown or text
    /// answer.
    pub metadata: crate::Metadata,
    /// The robots verdict for the requested URL, with its evidence.
    pub robots: RobotsEvidence,
    /// The alternative that decided the content: the one used, else the
    /// first one tried and skipped; `None` when none was tried.
    pub alternative: Option<Alternative>,
    /// Every alternative tried, in order.
    pub alternatives: Vec<Alternative>,
    /// Usage warnings: never blocks, always worth telling.
    pub warnings: Vec<Warning>,
    /// Redirects followed.
    pub redirects: Vec<RedirectHop>,
    /// Where the time went.
    pub timings: Timings,
    /// Whether the content is the page as rendered in the browser (its DOM
    /// after its scripts ran), not the HTML as fetched.
    pub rendered: bool,
    /// What the render did (requests made and refused); `None` when the
    /// page was not sent to the browser.
    pub render: Option<crate::browser::RenderReport>,
    /// The size of the body the content was read from, after
    /// decompression (at most the fetch's byte limit).
    pub body_bytes: u64,
    /// The links of the page when it was HTML (as fetched, or its DOM
    /// when rendered), bounded per page: what a crawler follows. Not part
    /// of the serialised result, which is the page for a reader.
    #[serde(skip)]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub links: crate::markdown::PageLinks,
}

/// Where the hint for an alternative came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AlternativeSource {
    /// A link in the llms.txt that covers the page (or that the page names
    /// with `rel="describedby"`).
    LlmsTxt,
    /// A `rel="alternate" type="text/markdown"` link in the page's `<head>`
    /// or `Link:` header.
    LinkAlternate,
    /// The server answered `Accept: text/markdown` with Markdown.
    ContentNegotiation,
}

impl AlternativeSource {
    /// The name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            AlternativeSource::LlmsTxt => "llms_txt",
            AlternativeSource::LinkAlternate => "link_alternate",
            AlternativeSource::ContentNegotiation => "content_negotiation",
        }
    }
}

/// Why a candidate was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SkipReason {
    /// robots.txt of the candidate's origin does not permit it (a disallow
    /// or an unreachable robots.txt), for the URL or a redirect hop.
    Robots,
    /// The SSRF guard refused the candidate or a redirect hop.
    Ssrf,
    /// The candidate answered with an HTTP error status.
    HttpStatus,
    /// The candidate's answer is not Markdown (an HTML page, binary data).
    NotMarkdown,
    /// The request failed (timeout, connection, too many redirects).
    FetchError,
}

impl SkipReason {
    /// The name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::Robots => "robots",
            SkipReason::Ssrf => "ssrf",
            SkipReason::HttpStatus => "http_status",
            SkipReason::NotMarkdown => "not_markdown",
            SkipReason::FetchError => "fetch_error",
        }
    }
}

/// An alternative URL tried instead of the requested one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Alternative {
    /// The candidate URL.
    pub url: String,
    /// Where the hint came from.
    pub source: AlternativeSource,
    /// Whether its content is what the result carries.
    pub used: bool,
    /// Why it was not used; `None` when it was.
    pub skipped_reason: Option<SkipReason>,
    /// What happened, in words (the status, the matched rule, the error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The llms.txt that listed the candidate, for [`AlternativeSource::LlmsTxt`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llms_txt: Option<String>,
}
