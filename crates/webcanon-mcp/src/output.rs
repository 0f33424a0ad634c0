//! The structured results of the tools (`structuredContent`), with the JSON
//! schemas the tools declare as their `outputSchema`.
//!
//! Field names are snake_case like the CLI's JSON. What the client returns
//! is returned as the client's own types (the robots evidence, warnings, a
//! render's report), whose schemas come from the same types: a field the
//! client adds reaches the tools' results and `outputSchema` with it.

use schemars::JsonSchema;
use serde::Serialize;
use webcanon_client::browser::RenderReport;
use webcanon_client::pdf::PdfInfo;
use webcanon_client::warning::Warning;
use webcanon_client::{Alternative, AlternativeSource, Metadata};
use webcanon_core::policy::{RobotsEvidence, RobotsMode};

/// The Markdown copy used instead of the page.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct AlternativeOutput {
    /// Its URL.
    pub url: String,
    /// How it was found.
    pub source: AlternativeSource,
}

impl AlternativeOutput {
    /// The alternative that was used, if any.
    pub fn used(alternative: Option<&Alternative>) -> Option<AlternativeOutput> {
        alternative.filter(|a| a.used).map(|a| AlternativeOutput { url: a.url.clone(), source: a.source })
    }
}

/// What is known about a fetched page but its text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct PageMeta {
    /// The URL asked for.
    pub requested_url: String,
    /// The URL whose content is returned (a Markdown copy, when one was used).
    pub url_used: String,
    /// Where `url_used` ended after redirects.
    pub final_url: String,
    /// The final HTTP status.
    pub status: u16,
    /// The `Content-Type` of the answer.
    pub content_type: Option<String>,
    /// The page title, when there is one.
    pub title: Option<String>,
    /// The canonical URL the page names.
    pub canonical_url: Option<String>,
    /// Title, author and pages, when the page is a PDF.
    pub pdf: Option<PdfInfo>,
    /// What the page says about itself: author, dates, language, site
    /// name, description, canonical URL, Open Graph and JSON-LD facts
    /// (the `metadata` object of `webcanon fetch --json`).
    pub metadata: Metadata,
    /// The Markdown copy used instead of the page, if any.
    pub alternative: Option<AlternativeOutput>,
    /// Whether the body is returned as received, without conversion to Markdown.
    pub raw: bool,
    /// Whether the content is the page as rendered in headless Chromium.
    pub rendered: bool,
    /// What rendering did, when the page was sent to the browser.
    pub render: Option<RenderReport>,
    /// The robots.txt verdict for the requested URL (the `robots` object of `webcanon fetch --json`).
    pub robots: RobotsEvidence,
    /// Usage warnings (meta robots, X-Robots-Tag, TDMRep, Content-Signal, a cut body...).
    pub warnings: Vec<Warning>,
}

/// What `fetch` returns beside the page text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct FetchOutput {
    /// The page.
    #[serde(flatten)]
    pub page: PageMeta,
    /// The index of the first character returned.
    pub start_index: usize,
    /// One past the index of the last character returned.
    pub end_index: usize,
    /// How many characters the whole content has.
    pub total_length: usize,
    /// The `start_index` of the next page; `null` when this page ends the content.
    pub next_start_index: Option<usize>,
    /// Seconds since the page was fetched, when served from the server's short-lived page cache.
    pub cached_seconds_ago: Option<u64>,
}

/// What `check_url` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct CheckOutput {
    /// The URL checked.
    pub url: String,
    /// The product token robots.txt was evaluated for.
    pub agent: String,
    /// How the server applies the verdict.
    pub mode: RobotsMode,
    /// Whether `fetch` would go ahead under that mode.
    pub fetch_allowed: bool,
    /// The verdict and its evidence.
    pub robots: RobotsEvidence,
    /// Warnings from robots.txt (e.g. a `Content-Signal` record, a stale copy).
    pub warnings: Vec<Warning>,
}

/// One llms.txt link.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct LinkOutput {
    /// The link text.
    pub title: String,
    /// The target, resolved against the llms.txt URL when it parses; as written otherwise.
    pub url: String,
    /// The description after the link, if any.
    pub description: Option<String>,
}

/// One llms.txt section (an H2 heading and its links).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct SectionOutput {
    /// The heading.
    pub name: String,
    /// Its links, in file order.
    pub links: Vec<LinkOutput>,
}

/// Diagnostic counts of an llms.txt file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct DiagnosticCounts {
    /// All findings.
    pub total: usize,
    /// Errors (the file departs from the format).
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
}

/// What `llms_txt` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct LlmsOutput {
    /// The llms.txt URL requested.
    pub llms_url: String,
    /// Where it ended after redirects.
    pub final_url: String,
    /// The H1: the site or project name.
    pub title: Option<String>,
    /// The blockquote summary.
    pub summary: Option<String>,
    /// Links listed before the first section.
    pub intro_links: Vec<LinkOutput>,
    /// The sections, except `## Optional`, in file order.
    pub sections: Vec<SectionOutput>,
    /// The links of the `## Optional` section, which a reader may skip.
    pub optional_links: Vec<LinkOutput>,
    /// The validator's findings, counted (`webcanon llms check` lists them).
    pub diagnostics: DiagnosticCounts,
    /// The robots.txt verdict for the llms.txt URL.
    pub robots: RobotsEvidence,
}

/// One URL from a sitemap.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct SitemapUrlOutput {
    /// The page URL, as the sitemap wrote it.
    pub url: String,
    /// Its last modification (W3C date or date-time), when given and valid.
    pub lastmod: Option<String>,
    /// The sitemap that listed it.
    pub sitemap: String,
}

/// A sitemap that was not read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct SkippedSitemapOutput {
    /// Its URL.
    pub url: String,
    /// Why: `robots`, `ssrf`, `http_status`, `not_found`, `fetch_error`, `invalid_url`, `cycle`,
    /// `depth_limit`, `count_limit` or `byte_limit`.
    pub reason: String,
    /// Why, in words.
    pub detail: String,
}

/// What `sitemap_urls` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct SitemapOutput {
    /// The site whose sitemaps were read.
    pub site: String,
    /// The URLs of this page, in discovery order.
    pub urls: Vec<SitemapUrlOutput>,
    /// The position of the first URL of this page.
    pub offset: usize,
    /// The `offset` of the next page; `null` when no more URLs were found.
    pub next_offset: Option<usize>,
    /// Sitemaps read in this run.
    pub sitemaps_read: usize,
    /// Sitemaps skipped in this run.
    pub skipped_total: usize,
    /// The first 20 sitemaps skipped, with the reason.
    pub skipped: Vec<SkippedSitemapOutput>,
    /// Parser diagnostics over the sitemaps read.
    pub diagnostics: usize,
}

/// One check of an audit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct AuditCheckOutput {
    /// The stable check id (`robots-txt`, `llms-txt`, ...).
    pub id: String,
    /// Its title.
    pub title: String,
    /// `pass`, `warn`, `fail` or `skip`.
    pub status: String,
    /// 0 to 100; `null` when skipped.
    #[schemars(range(max = 100))]
    pub score: Option<u8>,
}

/// One audit finding.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct AuditFindingOutput {
    /// The check that found it.
    pub check: String,
    /// `fail`, `warn` or `info`.
    pub severity: String,
    /// What was found.
    pub message: String,
    /// What to change.
    pub fix: Option<String>,
    /// Where (`/robots.txt:12`, a URL).
    pub location: Option<String>,
}

/// What `audit_site` returns.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct AuditOutput {
    /// The origin audited.
    pub target: String,
    /// The product token robots.txt was read for.
    pub agent: String,
    /// 0 to 100.
    #[schemars(range(max = 100))]
    pub score: u8,
    /// `pass`, `warn` or `fail`.
    pub status: String,
    /// Every check, in a fixed order.
    pub checks: Vec<AuditCheckOutput>,
    /// The most serious findings (fail, then warn, then info), at most 10.
    pub top_findings: Vec<AuditFindingOutput>,
    /// All findings, counted.
    pub findings_total: usize,
}

/// One call's page of a `map` or `crawl` job's records.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct JobPageOutput {
    /// The job, as it stood when the page was read.
    pub job: JobOutput,
    /// The records of this call, in the order the job wrote them: a map's
    /// URL records, or a crawl's page records (the `webcanon crawl` JSON
    /// lines).
    pub records: Vec<serde_json::Value>,
    /// Records whose `content` was cut so that the call stays within its
    /// byte bound (they have `content_truncated: true`; fetch the URL for
    /// the whole page).
    pub truncated: usize,
    /// The token to pass as `continuation` for the next records; absent
    /// once the job has finished and every record was returned.
    pub continuation: Option<String>,
}

/// A job's state and counts.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct JobOutput {
    /// `map` or `crawl`.
    pub kind: String,
    /// `running`, `completed`, `limit_reached`, `cancelled` or `failed`.
    pub state: String,
    /// The limit it stopped at (`records`, `result_bytes`, `duration`), when `state` is `limit_reached`.
    pub limit: Option<String>,
    /// Records written so far.
    pub records: u64,
    /// Records counted by verdict (map) or by `not_fetched` reason (crawl; `none` for pages with content).
    pub counts: std::collections::BTreeMap<String, u64>,
    /// Why it failed, when `state` is `failed`.
    pub error: Option<serde_json::Value>,
}
