//! The request and answer bodies of the API (their OpenAPI schemas come from these types).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use webcanon_client::FetchOverrides;
use webcanon_client::agent::ProductToken;
use webcanon_client::error::ErrorBody;
use webcanon_client::warning::Warning;
use webcanon_client::web_url::WebUrl;
use webcanon_core::policy::{FetchRecommendation, RobotsEvidence, RuleEvidence, Verdict};
use webcanon_crawl::map::MapSource;

/// `POST /v1/fetch`: a page for an LLM, the way the site owner asked.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchRequest {
    /// The URL to fetch (absolute, http or https).
    #[schema(example = "https://example.com/docs/")]
    pub url: WebUrl,
    /// The product token matched against robots.txt (default: the service's `--agent`).
    pub agent: Option<ProductToken>,
    /// What this request changes of the service's fetch options (body
    /// limit, Markdown copies, content shape, rendering, declared use); the
    /// service's own
    /// for what it leaves out.
    #[serde(flatten)]
    pub options: FetchOverrides,
}

/// `POST /v1/robots/check` and `POST /v1/audit`: a URL and an agent.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UrlRequest {
    /// The URL (absolute, http or https).
    #[schema(example = "https://example.com/private/page")]
    pub url: WebUrl,
    /// The product token matched against robots.txt (default: the service's `--agent`).
    pub agent: Option<ProductToken>,
}

/// The answer of `POST /v1/robots/check`: the verdict without fetching the page.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CheckResponse {
    /// The verdict and its evidence (the `robots` object of `webcanon fetch --json`).
    pub robots: RobotsEvidence,
    /// Warnings from robots.txt (a stale copy, a body that is not a robots.txt, `Content-Signal`).
    pub warnings: Vec<Warning>,
}

/// `POST /v1/robots/eval`: many URLs for one agent.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EvalRequest {
    /// The product token matched against robots.txt (default: the service's `--agent`).
    pub agent: Option<ProductToken>,
    /// The URLs, at most 10,000; each one that is not a web URL gets an
    /// error of its own in the answer.
    #[schema(max_items = 10000)]
    pub urls: Vec<String>,
}

/// The answer of `POST /v1/robots/eval`: one item per URL, in input order.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EvalResponse {
    /// The agent the URLs were decided for.
    pub agent: String,
    /// One item per URL, in input order.
    pub results: Vec<EvalItem>,
}

/// The outcome for one URL of a batch: a decision, or an error of its own.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum EvalItem {
    /// robots.txt decided the URL.
    Decided(EvalDecision),
    /// The URL is invalid or refused by the SSRF guard.
    Failed(EvalFailure),
}

/// robots.txt's decision on one URL.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EvalDecision {
    /// The URL as given.
    pub url: String,
    /// Whether the service would fetch it under its robots mode.
    pub allowed: bool,
    /// What robots.txt says.
    pub verdict: Verdict,
    /// What a well-behaved agent should do.
    pub recommendation: FetchRecommendation,
    /// The rule that decided, if one matched.
    pub rule: Option<RuleEvidence>,
}

/// A URL of a batch that could not be decided.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EvalFailure {
    /// The URL as given.
    pub url: String,
    /// Why (kind `usage` for an invalid URL, `ssrf` for a refused address).
    pub error: ErrorBody,
}

/// The answer of `GET /healthz`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Health {
    /// Always `ok` while the service answers.
    #[schema(example = "ok")]
    pub status: String,
    /// The webcanon version.
    pub version: String,
}

/// What a map or crawl job may produce, each limit at most the service's
/// ceiling (`webcanon serve --job-max-*`); a limit left out is the ceiling.
#[derive(Debug, Clone, Copy, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JobLimitsRequest {
    /// The most records the job writes.
    #[schema(minimum = 1)]
    pub max_records: Option<u64>,
    /// The most bytes of results (JSON lines) the job writes.
    #[schema(minimum = 1)]
    pub max_result_bytes: Option<u64>,
    /// The most seconds the job runs.
    #[schema(minimum = 1)]
    pub max_seconds: Option<u64>,
}

/// The query of `GET /v1/jobs/{id}/results`.
#[derive(Debug, Clone, Copy, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ResultsQuery {
    /// Where the page starts: `next_cursor` of the page before (default 0, the first record).
    pub cursor: Option<u64>,
    /// The most records in the page (default 100, at most 1,000; a page
    /// also stops past 4 MiB of records).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<usize>,
}

/// `POST /v1/map`: the URLs of a site an agent may fetch, as a job.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MapRequest {
    /// Any URL of the site (its origin's robots.txt, sitemaps and llms.txt are read; the page itself for its links).
    #[schema(example = "https://example.com/docs/")]
    pub url: WebUrl,
    /// The product token matched against robots.txt (default: the service's `--agent`).
    pub agent: Option<ProductToken>,
    /// Which URLs are kept: the start URL's origin (default), its registrable domain, or its origin under its folder.
    #[serde(default)]
    pub scope: ScopeName,
    /// Only URLs whose path matches one of these robots.txt patterns (`/docs/`, `/*.html$`).
    #[serde(default)]
    #[schema(max_items = 100)]
    pub include: Vec<String>,
    /// URLs whose path matches one of these robots.txt patterns are left out.
    #[serde(default)]
    #[schema(max_items = 100)]
    pub exclude: Vec<String>,
    /// The sources read (default: all three).
    pub sources: Option<Vec<MapSource>>,
    /// The most links of the start page read (default 1,000, at most 10,000).
    #[schema(minimum = 0, maximum = 10000)]
    pub max_links: Option<usize>,
    /// What the job may produce (`max_records` is the most URLs reported).
    #[serde(default)]
    pub limits: JobLimitsRequest,
}

/// How far from its start URL a map or crawl goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScopeName {
    /// Scheme, host and port of the start URL.
    #[default]
    Origin,
    /// The start URL's registrable domain (any subdomain, scheme and port).
    Domain,
    /// The start URL's origin, under the folder of its path.
    Prefix,
}

impl From<ScopeName> for webcanon_crawl::Scope {
    fn from(name: ScopeName) -> webcanon_crawl::Scope {
        match name {
            ScopeName::Origin => webcanon_crawl::Scope::Origin,
            ScopeName::Domain => webcanon_crawl::Scope::Domain,
            ScopeName::Prefix => webcanon_crawl::Scope::Prefix,
        }
    }
}

/// `POST /v1/crawl`: a site read breadth first from its start URLs, as a
/// job whose records are the `PageRecord`s `webcanon crawl` writes.
///
/// Every request goes through the service's client: its robots mode, SSRF
/// guard and pacing, which no field here can loosen. The fetch options
/// (`max_bytes` per page, `format`, `render`, ...) are those of
/// `POST /v1/fetch`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CrawlRequest {
    /// The start URLs (absolute, http or https), at most 100; their sites are the crawl's scope.
    #[schema(min_items = 1, max_items = 100, example = json!(["https://example.com/docs/"]))]
    pub urls: Vec<WebUrl>,
    /// The product token matched against robots.txt (default: the service's `--agent`).
    pub agent: Option<ProductToken>,
    /// Which URLs are followed: the start URLs' origins (default), their registrable domains, or their origins under each start URL's folder.
    #[serde(default)]
    pub scope: ScopeName,
    /// Only URLs whose path matches one of these robots.txt patterns (`/docs/`, `/*.html$`).
    #[serde(default)]
    #[schema(max_items = 100)]
    pub include: Vec<String>,
    /// URLs whose path matches one of these robots.txt patterns are left out.
    #[serde(default)]
    #[schema(max_items = 100)]
    pub exclude: Vec<String>,
    /// Where the crawl starts (default: all three): the start URLs, their sites' sitemaps, their llms.txt.
    pub seeds: Option<Vec<SeedName>>,
    /// The deepest link depth followed (start URLs are 0; default: no limit).
    pub max_depth: Option<u32>,
    /// The most pages requested; more than the job's `max_records` is lowered to it (each page is a record).
    #[schema(minimum = 1)]
    pub max_pages: Option<u64>,
    /// The most body bytes received, all pages together (the per-page limit is `max_bytes`).
    #[schema(minimum = 1)]
    pub max_total_bytes: Option<u64>,
    /// The most pages requested from one host.
    #[schema(minimum = 1)]
    pub max_pages_per_host: Option<u64>,
    /// What the job may produce (`max_records` is the most records, pages and URLs not fetched together).
    #[serde(default)]
    pub limits: JobLimitsRequest,
    /// What this crawl changes of the service's fetch options, as in `POST /v1/fetch`.
    #[serde(flatten)]
    pub options: FetchOverrides,
}

/// A source of a crawl's first URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeedName {
    /// The start URLs themselves.
    Start,
    /// The URLs the start sites' sitemaps list.
    Sitemap,
    /// The links of the start sites' llms.txt.
    Llms,
}
