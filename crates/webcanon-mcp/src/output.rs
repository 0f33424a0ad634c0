//! The structured results of the tools (`structuredContent`), with the JSON
//! schemas the tools declare as their `outputSchema`.
//!
//! Field names are snake_case like the CLI's JSON. Verdicts, recommendations
//! and statuses are the stable snake_case strings of `webcanon-core`.

use schemars::JsonSchema;
use serde::Serialize;
use webcanon_client::Alternative;
use webcanon_client::warning::{Warning, WarningCode, WarningSource};
use webcanon_core::policy::{RobotsEvidence, RuleEvidence};

/// The matched robots.txt rule.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct RuleOutput {
    /// The 1-based line number in robots.txt.
    pub line: u32,
    /// `allow` or `disallow`.
    pub directive: String,
    /// The pattern as written.
    pub pattern: String,
}

impl From<&RuleEvidence> for RuleOutput {
    fn from(rule: &RuleEvidence) -> RuleOutput {
        RuleOutput { line: rule.line, directive: rule.directive.as_str().to_string(), pattern: rule.pattern.clone() }
    }
}

/// The robots.txt verdict for a URL and its evidence.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct RobotsOutput {
    /// The verdict: `allowed_explicit`, `allowed_implicit`, `disallowed_explicit`, `unknown_unreachable`,
    /// `unknown_parse_error` or `skipped_by_user_policy`.
    pub verdict: String,
    /// `recommended`, `not_recommended`, `unknown_do_not_fetch_by_default` or `allowed_but_warn`.
    pub recommendation: String,
    /// The rule that decided, if one matched.
    pub rule: Option<RuleOutput>,
    /// The robots.txt consulted (none when the server ignores robots.txt).
    pub robots_url: Option<String>,
    /// The final HTTP status of the robots.txt fetch, if an answer came.
    pub robots_status: Option<u16>,
    /// `parsed`, `not_robots`, `unavailable`, `auth_disallow_all` or `unreachable`.
    pub availability: Option<String>,
    /// Whether robots.txt came from the cache.
    pub from_cache: bool,
    /// Seconds since robots.txt was fetched, when it came from the cache.
    pub cache_age_seconds: Option<u64>,
}

impl From<&RobotsEvidence> for RobotsOutput {
    fn from(e: &RobotsEvidence) -> RobotsOutput {
        RobotsOutput {
            verdict: e.verdict.as_str().to_string(),
            recommendation: e.recommendation.as_str().to_string(),
            rule: e.rule.as_ref().map(RuleOutput::from),
            robots_url: e.robots_url.clone(),
            robots_status: e.status,
            availability: e
                .availability
                .map(|a| serde_json::to_value(a).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()),
            from_cache: e.from_cache,
            cache_age_seconds: e.cache_age_seconds.filter(|_| e.from_cache),
        }
    }
}

/// A usage warning: never a block, always worth telling.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct WarningOutput {
    /// A stable snake_case code (`noai`, `tdm_reservation`, `body_truncated`, ...).
    #[schemars(schema_with = "warning_code_schema")]
    pub code: &'static str,
    /// Where it came from (`meta_robots`, `x_robots_tag`, `robots_txt`, ...).
    #[schemars(schema_with = "warning_source_schema")]
    pub source: &'static str,
    /// What it means, in a sentence.
    pub detail: String,
}

impl From<&Warning> for WarningOutput {
    fn from(w: &Warning) -> WarningOutput {
        WarningOutput { code: w.code.as_str(), source: w.source.as_str(), detail: w.detail.clone() }
    }
}

/// A string schema that lists every spelling.
fn string_enum_schema(values: impl Iterator<Item = &'static str>) -> schemars::Schema {
    let values: Vec<&str> = values.collect();
    schemars::json_schema!({ "type": "string", "enum": values })
}

/// `render`: a boolean, or `on`, `off`, `auto`.
pub(crate) fn render_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let spellings = webcanon_client::browser::RenderMode::SPELLINGS;
    schemars::json_schema!({ "oneOf": [{ "type": "boolean" }, { "type": "string", "enum": spellings }] })
}

/// `purpose`: an RSL 1.0 usage token.
pub(crate) fn usage_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    string_enum_schema(webcanon_core::rsl::Usage::ALL.iter().map(|u| u.as_str()))
}

/// `format`: `markdown` or `text`.
pub(crate) fn content_format_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    string_enum_schema(["markdown", "text"].into_iter())
}

/// `links`: `inline`, `references` or `drop`.
pub(crate) fn link_style_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    string_enum_schema(["inline", "references", "drop"].into_iter())
}

/// `images`: `keep` or `drop`.
pub(crate) fn image_style_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    string_enum_schema(["keep", "drop"].into_iter())
}

fn warning_code_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    string_enum_schema(WarningCode::ALL.iter().map(|c| c.as_str()))
}

fn warning_source_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    string_enum_schema(WarningSource::ALL.iter().map(|s| s.as_str()))
}

/// The Markdown copy used instead of the page.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct AlternativeOutput {
    /// Its URL.
    pub url: String,
    /// How it was found: `llms_txt`, `link_alternate`, `llms_txt_described_by` or `content_negotiation`.
    pub source: String,
}

impl AlternativeOutput {
    /// The alternative that was used, if any.
    pub fn used(alternative: Option<&Alternative>) -> Option<AlternativeOutput> {
        alternative
            .filter(|a| a.used)
            .map(|a| AlternativeOutput { url: a.url.clone(), source: a.source.as_str().to_string() })
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
    pub pdf: Option<PdfOutput>,
    /// The Markdown copy used instead of the page, if any.
    pub alternative: Option<AlternativeOutput>,
    /// Whether the body is returned as received, without conversion to Markdown.
    pub raw: bool,
    /// Whether the content is the page as rendered in headless Chromium.
    pub rendered: bool,
    /// What rendering did, when the page was sent to the browser.
    pub render: Option<RenderOutput>,
    /// The robots.txt verdict for the requested URL.
    pub robots: RobotsOutput,
    /// Usage warnings (meta robots, X-Robots-Tag, TDMRep, Content-Signal, a cut body...).
    pub warnings: Vec<WarningOutput>,
}

/// What a render did: the page's requests, each decided by webcanon.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct RenderOutput {
    /// Requests fetched for the page (the main document not counted).
    pub requests_made: usize,
    /// Requests refused (SSRF guard, robots.txt, resource type, limits).
    pub requests_refused: usize,
    /// Bytes fetched for the page.
    pub bytes: u64,
    /// The first refused requests, with why.
    pub refused: Vec<RefusedOutput>,
    /// The page's time in the browser, from its slot to its DOM read, in
    /// milliseconds (what the per-page limit bounds).
    pub render_ms: u64,
    /// How long the page waited for a free slot before that, in milliseconds.
    pub wait_ms: u64,
}

/// A request of the page that was refused.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct RefusedOutput {
    /// The URL asked for.
    pub url: String,
    /// Why: `ssrf`, `robots`, `resource_type`, `document`, `method`, `scheme`, `requests`, `bytes`, `worker` or `window`.
    pub reason: String,
}

impl From<&webcanon_client::browser::RenderReport> for RenderOutput {
    fn from(report: &webcanon_client::browser::RenderReport) -> RenderOutput {
        RenderOutput {
            requests_made: report.requests_made,
            requests_refused: report.requests_refused,
            bytes: report.bytes,
            refused: report
                .refused
                .iter()
                .map(|r| RefusedOutput { url: r.url.clone(), reason: r.reason.clone() })
                .collect(),
            render_ms: report.render_ms,
            wait_ms: report.wait_ms,
        }
    }
}

/// What is known about a PDF besides its text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct PdfOutput {
    /// The document's title, from its metadata.
    pub title: Option<String>,
    /// Its author, from its metadata.
    pub author: Option<String>,
    /// How many pages it has.
    pub pages: usize,
    /// How many of them were read (fewer when a limit cut it).
    pub pages_read: usize,
    /// The pages (from 1) whose text was left out because reading them
    /// would pass a cap on characters or decoded content; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pages_skipped: Vec<usize>,
}

impl From<&webcanon_client::pdf::PdfInfo> for PdfOutput {
    fn from(info: &webcanon_client::pdf::PdfInfo) -> PdfOutput {
        PdfOutput {
            title: info.title.clone(),
            author: info.author.clone(),
            pages: info.pages,
            pages_read: info.pages_read,
            pages_skipped: info.pages_skipped.clone(),
        }
    }
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
    /// How the server applies the verdict: `respect`, `report_only` or `ignore`.
    pub mode: String,
    /// Whether `fetch` would go ahead under that mode.
    pub fetch_allowed: bool,
    /// The verdict and its evidence.
    pub robots: RobotsOutput,
    /// Warnings from robots.txt (e.g. a `Content-Signal` record, a stale copy).
    pub warnings: Vec<WarningOutput>,
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
    pub robots: RobotsOutput,
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
