//! Findings about a sitemap, each with a stable code.
//!
//! Codes never change meaning once published; new checks get new codes.

use std::fmt;

pub use crate::robots::Severity;

crate::codes::diagnostic_codes! {
    /// A stable sitemap diagnostic code (`S001`…).
    SitemapCode, "S001";
    NotWellFormed = "S001", "not-well-formed", Warning,
        "The XML is not well-formed here; parsing went on after the error.";
    MissingLoc = "S002", "missing-loc", Warning,
        "An entry without a `loc`; it was skipped.";
    InvalidLoc = "S003", "invalid-loc", Warning,
        "An entry whose `loc` is not an absolute http(s) URL under 2,048 characters; it was skipped.";
    InvalidLastmod = "S004", "invalid-lastmod", Warning,
        "A `lastmod` that is not a W3C datetime; the date was dropped, the entry kept.";
    InvalidChangefreq = "S005", "invalid-changefreq", Info,
        "A `changefreq` other than always, hourly, daily, weekly, monthly, yearly or never.";
    InvalidPriority = "S006", "invalid-priority", Info,
        "A `priority` that is not a number from 0.0 to 1.0.";
    TooManyUrls = "S007", "too-many-urls", Error,
        "More than 50,000 entries; those past the limit were dropped.";
    FileTooLarge = "S008", "file-too-large", Error,
        "More than 50 MB uncompressed; the rest of the file was not read.";
    DecompressionLimit = "S009", "decompression-limit", Error,
        "The gzip stream expands past 50 MB (a gzip bomb, or an oversized file); decompression stopped there.";
    GzipError = "S010", "gzip-error", Error,
        "The gzip stream is corrupt or truncated; what decompressed before the error was read.";
    DoctypeRefused = "S011", "doctype-refused", Error,
        "A DOCTYPE (with possible ENTITY declarations) is refused, which defeats entity-expansion bombs; nothing after it was read.";
    UnrenderedTemplate = "S012", "unrendered-template", Error,
        "A template (Jekyll front matter, Liquid or Handlebars tags) published without being rendered.";
    HtmlBody = "S013", "html-body", Error,
        "The body is an HTML page, not a sitemap.";
    IndexListsIndex = "S014", "index-lists-index", Warning,
        "A sitemap index that appears to list another index, which the protocol does not allow.";
    UrlsetListsSitemaps = "S015", "urlset-lists-sitemaps", Warning,
        "A `urlset` whose entries are all sitemaps: an index published with the wrong root element.";
    UnknownRoot = "S016", "unknown-root", Error,
        "The root element is not urlset, sitemapindex, rss or feed.";
    MissingNamespace = "S017", "missing-namespace", Info,
        "The root element lacks the sitemaps.org namespace; strict readers reject the file.";
    Empty = "S018", "empty", Warning,
        "The sitemap lists no entries.";
    LastmodWithoutTimezone = "S019", "lastmod-without-timezone", Info,
        "A `lastmod` time without a zone; W3C datetime requires one, it was read as UTC.";
    UnknownEntity = "S020", "unknown-entity", Warning,
        "An entity reference other than the five XML ones or a character reference; it was kept as written.";
    BinaryBody = "S021", "binary-body", Error,
        "The body is binary data, not a sitemap.";
    TooManyNewsUrls = "S022", "too-many-news-urls", Warning,
        "A news sitemap with more than 1,000 news entries.";
    MisplacedEntry = "S023", "misplaced-entry", Warning,
        "A `url` inside a sitemap index or a `sitemap` inside a urlset; it was skipped.";
    TooManyDiagnostics = "S024", "too-many-diagnostics", Info,
        "Further findings were suppressed.";
    InvalidTextLine = "S025", "invalid-text-line", Warning,
        "A line of a text sitemap that is not an absolute http(s) URL; it was skipped.";
    InvalidUtf8 = "S026", "invalid-utf8", Warning,
        "The body is not valid UTF-8; invalid bytes were replaced.";
}

impl fmt::Display for SitemapCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for SitemapCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// One finding: code, severity, line and message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Diagnostic {
    /// The stable code.
    pub code: SitemapCode,
    /// How serious it is.
    pub severity: Severity,
    /// The 1-based line it points at; `None` for the whole file.
    pub line: Option<u32>,
    /// What is wrong, quoting the file only as much as needed.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(code: SitemapCode, line: Option<u32>, message: String) -> Diagnostic {
        Diagnostic { code, severity: code.severity(), line, message }
    }
}
