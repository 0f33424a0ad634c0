//! Sitemaps: streaming parsing of urlset, sitemapindex, text, RSS and Atom
//! ([sitemaps.org protocol](https://www.sitemaps.org/protocol.html)).
//!
//! [`parse`] returns every entry at once; [`parse_with`] hands each entry to a
//! callback as soon as its closing tag is read, so a caller can filter or
//! forward fifty thousand URLs without holding them. Both never fail: a bad
//! entry is skipped with a line-numbered [`Diagnostic`] and the rest of the
//! file is kept.
//!
//! What the parser guards against, since sitemaps come from the network:
//! gzip is recognised by its magic bytes (not by the file name or a header)
//! and decompressed only up to [`MAX_BYTES`], so a gzip bomb stops there;
//! files over [`MAX_BYTES`] and entries past [`MAX_ENTRIES`] are dropped with
//! a diagnostic; a DOCTYPE is refused, so entity-expansion bombs cannot
//! start; unrendered templates and HTML pages are recognised, not parsed.
//!
//! Extensions kept: images (`image:image`), videos (`video:video`), news
//! (`news:news`) and hreflang alternates (`xhtml:link`). Dates are kept at the
//! precision written ([`DateTime`]).
//!
//! ```
//! use webcanon_core::sitemap::{self, SitemapKind};
//!
//! let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
//! <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
//!   <url><loc>https://example.com/</loc><lastmod>2024-05-01</lastmod></url>
//!   <url><loc>/relative</loc></url>
//! </urlset>"#;
//! let parsed = sitemap::parse(xml);
//! assert_eq!(parsed.kind, SitemapKind::UrlSet);
//! assert_eq!(parsed.entries.len(), 1);
//! assert_eq!(parsed.entries[0].lastmod.unwrap().to_string(), "2024-05-01");
//! assert_eq!(parsed.diagnostics[0].line, Some(4)); // the relative loc, skipped
//! ```

mod codes;
mod date;
mod text;
mod xml;

use std::io::Read;

pub use codes::{Diagnostic, Severity, SitemapCode};
pub use date::{DateTime, Time};

/// Entries kept per file; the protocol's limit. Later entries are dropped
/// with [`SitemapCode::TooManyUrls`].
pub const MAX_ENTRIES: usize = 50_000;

/// Uncompressed bytes read per file: the protocol's 50 MB (52,428,800
/// bytes). Also the decompression cap.
pub const MAX_BYTES: usize = 52_428_800;

/// A news sitemap should list at most this many news entries (Google).
pub const MAX_NEWS_ENTRIES: usize = 1_000;

/// Findings kept per file; a file with a million bad lines yields this many
/// and one [`SitemapCode::TooManyDiagnostics`].
pub const MAX_DIAGNOSTICS: usize = 1_000;

/// What the file turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum SitemapKind {
    /// `<urlset>`: page URLs.
    UrlSet,
    /// `<sitemapindex>`: the entries are other sitemaps.
    Index,
    /// One URL per line.
    Text,
    /// RSS 2.0 (or RSS 1.0 / RDF): each item's link.
    Rss,
    /// Atom 1.0: each entry's link.
    Atom,
    /// Not a sitemap (HTML, a template, binary, an unknown root element).
    Unknown,
}

impl SitemapKind {
    /// Whether the entries are sitemaps to fetch rather than pages.
    pub fn is_index(self) -> bool {
        self == SitemapKind::Index
    }
}

/// How often a page is said to change (`changefreq`; search engines ignore it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[allow(missing_docs)]
pub enum ChangeFreq {
    Always,
    Hourly,
    Daily,
    Weekly,
    Monthly,
    Yearly,
    Never,
}

impl ChangeFreq {
    /// Parses the protocol's values, case-insensitively.
    pub fn parse(s: &str) -> Option<ChangeFreq> {
        const ALL: [(&str, ChangeFreq); 7] = [
            ("always", ChangeFreq::Always),
            ("hourly", ChangeFreq::Hourly),
            ("daily", ChangeFreq::Daily),
            ("weekly", ChangeFreq::Weekly),
            ("monthly", ChangeFreq::Monthly),
            ("yearly", ChangeFreq::Yearly),
            ("never", ChangeFreq::Never),
        ];
        ALL.iter().find(|(name, _)| name.eq_ignore_ascii_case(s)).map(|(_, v)| *v)
    }
}

/// One entry: a page (urlset, text, feed) or a child sitemap (index).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Entry {
    /// The absolute URL (`loc`, a feed item's link).
    pub loc: String,
    /// The line of the `loc` (or of the entry when it has none).
    pub line: u32,
    /// `lastmod`, RSS `pubDate`, Atom `updated` (or `published`).
    pub lastmod: Option<DateTime>,
    /// `changefreq`.
    pub changefreq: Option<ChangeFreq>,
    /// `priority`, 0.0 to 1.0.
    pub priority: Option<f32>,
    /// Feed item title (RSS, Atom).
    pub title: Option<String>,
    /// `image:image` children.
    pub images: Vec<Image>,
    /// `video:video` children.
    pub videos: Vec<Video>,
    /// The `news:news` child.
    pub news: Option<News>,
    /// hreflang alternates (`xhtml:link rel="alternate"`).
    pub alternates: Vec<Alternate>,
}

/// An image of the Google image extension.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Image {
    /// `image:loc`.
    pub loc: String,
    /// `image:caption` (deprecated by Google, still common).
    pub caption: Option<String>,
    /// `image:title`.
    pub title: Option<String>,
    /// `image:geo_location`.
    pub geo_location: Option<String>,
    /// `image:license`.
    pub license: Option<String>,
}

/// A video of the Google video extension.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Video {
    /// `video:thumbnail_loc`.
    pub thumbnail_loc: Option<String>,
    /// `video:title`.
    pub title: Option<String>,
    /// `video:description`.
    pub description: Option<String>,
    /// `video:content_loc`.
    pub content_loc: Option<String>,
    /// `video:player_loc`.
    pub player_loc: Option<String>,
    /// `video:duration`, in seconds.
    pub duration: Option<u32>,
    /// `video:publication_date`.
    pub publication_date: Option<DateTime>,
}

/// The Google news extension.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct News {
    /// `news:publication/news:name`.
    pub publication_name: Option<String>,
    /// `news:publication/news:language`.
    pub language: Option<String>,
    /// `news:publication_date`.
    pub publication_date: Option<DateTime>,
    /// `news:title`.
    pub title: Option<String>,
    /// `news:keywords` (not used by Google; kept).
    pub keywords: Option<String>,
}

/// An hreflang alternate of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Alternate {
    /// The `hreflang` value (`en`, `de-CH`, `x-default`).
    pub hreflang: String,
    /// The alternate URL.
    pub href: String,
}

/// A whole parsed sitemap.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Sitemap {
    /// What the file is.
    pub kind: SitemapKind,
    /// The entries kept, in file order.
    pub entries: Vec<Entry>,
    /// Findings, in the order met.
    pub diagnostics: Vec<Diagnostic>,
    /// Entries dropped because they came after [`MAX_ENTRIES`].
    pub dropped: usize,
}

/// What [`parse_with`] returns once the file is read: everything but the entries.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Summary {
    /// What the file is.
    pub kind: SitemapKind,
    /// Entries handed to the callback.
    pub entries: usize,
    /// Entries dropped because they came after [`MAX_ENTRIES`].
    pub dropped: usize,
    /// Findings, in the order met.
    pub diagnostics: Vec<Diagnostic>,
    /// Bytes of text read, after decompression: the work the file cost.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub bytes: usize,
}

/// Parses a sitemap body (possibly gzip-compressed) into its entries.
///
/// Protocol: <https://www.sitemaps.org/protocol.html>.
pub fn parse(bytes: &[u8]) -> Sitemap {
    let mut entries = Vec::new();
    let summary = parse_with(bytes, |entry| entries.push(entry));
    Sitemap { kind: summary.kind, entries, diagnostics: summary.diagnostics, dropped: summary.dropped }
}

/// Parses a sitemap body and calls `on_entry` for each entry as soon as it
/// is complete, in file order, at most [`MAX_ENTRIES`] times.
///
/// The format is found from the content: gzip magic bytes, then XML root
/// element (`urlset`, `sitemapindex`, `rss`, `feed`), else one URL per line.
pub fn parse_with(bytes: &[u8], mut on_entry: impl FnMut(Entry)) -> Summary {
    let mut sink = Sink {
        kind: SitemapKind::Unknown,
        diagnostics: Vec::new(),
        emitted: 0,
        dropped: 0,
        suppressed: 0,
        news: 0,
        sitemap_like: 0,
        on_entry: &mut on_entry,
    };
    let decompressed;
    let mut body = bytes;
    if body.starts_with(&[0x1f, 0x8b]) {
        decompressed = gunzip(body, &mut sink);
        body = &decompressed;
    } else if body.len() > MAX_BYTES {
        sink.diag(
            SitemapCode::FileTooLarge,
            None,
            format!("the file is {} bytes; only the first {MAX_BYTES} were read", body.len()),
        );
        body = &body[..MAX_BYTES];
    }
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let text = String::from_utf8_lossy(body);
    if matches!(text, std::borrow::Cow::Owned(_)) {
        sink.diag(SitemapCode::InvalidUtf8, None, "the body is not valid UTF-8; invalid bytes were replaced".into());
    }
    sniff_and_parse(&text, &mut sink);
    let mut summary = sink.finish();
    summary.bytes = body.len();
    summary
}

fn sniff_and_parse(text: &str, sink: &mut Sink<'_>) {
    let start = text.trim_start();
    let head = &start.as_bytes()[..start.len().min(1024)];
    if head.contains(&0) || head.iter().filter(|b| b.is_ascii_control() && !b.is_ascii_whitespace()).count() > 8 {
        sink.diag(SitemapCode::BinaryBody, None, "the body is binary data, not a sitemap".into());
        return;
    }
    let template_head = &start[..floor_char_boundary(start, 8192)];
    if start.starts_with("---") || template_head.contains("{%") {
        let line = text[..text.len() - start.len()].matches('\n').count() as u32 + 1;
        sink.diag(
            SitemapCode::UnrenderedTemplate,
            Some(line),
            "the file is an unrendered template (front matter or Liquid tags), not a sitemap".into(),
        );
        return;
    }
    if start.starts_with('<') {
        if crate::sniff::html_start(start.as_bytes()).is_some() {
            sink.diag(SitemapCode::HtmlBody, None, "the body is an HTML page, not a sitemap".into());
            return;
        }
        xml::parse(text, sink);
    } else {
        text::parse(text, sink);
    }
}

fn floor_char_boundary(s: &str, mut at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Decompresses up to [`MAX_BYTES`] + 1 bytes: one byte more tells an
/// oversized stream from one of exactly the limit.
fn gunzip(bytes: &[u8], sink: &mut Sink<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity((bytes.len() * 4).min(MAX_BYTES));
    let decoder = flate2::read::MultiGzDecoder::new(bytes);
    let result = decoder.take(MAX_BYTES as u64 + 1).read_to_end(&mut out);
    if let Err(e) = result {
        sink.diag(SitemapCode::GzipError, None, format!("gzip error after {} bytes: {e}", out.len()));
    }
    if out.len() > MAX_BYTES {
        out.truncate(MAX_BYTES);
        sink.diag(
            SitemapCode::DecompressionLimit,
            None,
            format!("the gzip stream expands past {MAX_BYTES} bytes; decompression stopped there"),
        );
    }
    out
}

/// Whether a URL is acceptable as a `loc`: absolute http(s), a host, no
/// whitespace, under 2,048 characters (sitemaps.org). Returns why not.
pub(crate) fn check_loc(loc: &str) -> Result<(), &'static str> {
    if loc.len() >= 2048 {
        return Err("longer than 2,048 characters");
    }
    let rest = strip_prefix_ignore_case(loc, "https://").or_else(|| strip_prefix_ignore_case(loc, "http://"));
    let Some(rest) = rest else {
        return Err(if loc.contains("://") { "not an http or https URL" } else { "not an absolute URL" });
    };
    if rest.is_empty() || rest.starts_with(['/', '?', '#']) {
        return Err("no host");
    }
    if loc.bytes().any(|b| b.is_ascii_whitespace() || b.is_ascii_control()) {
        return Err("contains whitespace");
    }
    Ok(())
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    (s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes()))
        .then(|| &s[prefix.len()..])
}

/// Whether a URL looks like a sitemap file (for index detection).
fn looks_like_sitemap(loc: &str) -> bool {
    let path = loc.split(['?', '#']).next().unwrap_or(loc).to_ascii_lowercase();
    let last = path.rsplit('/').next().unwrap_or("");
    last.contains("sitemap") && (last.ends_with(".xml") || last.ends_with(".xml.gz") || last.ends_with(".txt"))
}

/// Collects findings and hands entries out, enforcing the limits.
pub(crate) struct Sink<'f> {
    pub(crate) kind: SitemapKind,
    diagnostics: Vec<Diagnostic>,
    emitted: usize,
    dropped: usize,
    suppressed: usize,
    news: usize,
    sitemap_like: usize,
    on_entry: &'f mut dyn FnMut(Entry),
}

impl Sink<'_> {
    pub(crate) fn diag(&mut self, code: SitemapCode, line: Option<u32>, message: String) {
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            self.diagnostics.push(Diagnostic::new(code, line, message));
        } else {
            self.suppressed += 1;
        }
    }

    /// Validates the entry's `loc`, then emits it or counts it as dropped.
    pub(crate) fn entry(&mut self, entry: Entry) {
        if entry.loc.is_empty() {
            self.diag(SitemapCode::MissingLoc, Some(entry.line), "an entry without a loc; skipped".into());
            return;
        }
        if entry.loc.contains("{{") || entry.loc.contains("{%") {
            let message = "a loc holding an unrendered template tag; skipped".into();
            self.diag(SitemapCode::UnrenderedTemplate, Some(entry.line), message);
            return;
        }
        if let Err(why) = check_loc(&entry.loc) {
            self.diag(SitemapCode::InvalidLoc, Some(entry.line), format!("loc is {why}; skipped"));
            return;
        }
        if self.emitted >= MAX_ENTRIES {
            if self.dropped == 0 {
                let message = format!("more than {MAX_ENTRIES} entries; the rest are dropped");
                self.diag(SitemapCode::TooManyUrls, Some(entry.line), message);
            }
            self.dropped += 1;
            return;
        }
        if entry.news.is_some() {
            self.news += 1;
        }
        if looks_like_sitemap(&entry.loc) {
            self.sitemap_like += 1;
            if self.kind == SitemapKind::Index && entry.loc.to_ascii_lowercase().contains("index") {
                let message = "this child looks like another sitemap index, which an index may not list".into();
                self.diag(SitemapCode::IndexListsIndex, Some(entry.line), message);
            }
        }
        self.emitted += 1;
        (self.on_entry)(entry);
    }

    fn finish(mut self) -> Summary {
        if self.kind == SitemapKind::UrlSet && self.emitted > 0 && self.sitemap_like == self.emitted {
            let message = format!("all {} entries are sitemaps: this is an index published as <urlset>", self.emitted);
            self.diag(SitemapCode::UrlsetListsSitemaps, None, message);
        }
        if self.news > MAX_NEWS_ENTRIES {
            let message = format!("{} news entries; news sitemaps may hold at most {MAX_NEWS_ENTRIES}", self.news);
            self.diag(SitemapCode::TooManyNewsUrls, None, message);
        }
        if self.emitted == 0 && self.kind != SitemapKind::Unknown {
            self.diag(SitemapCode::Empty, None, "the sitemap lists no entries".into());
        }
        if self.suppressed > 0 {
            let message = format!("{} further findings were suppressed", self.suppressed);
            self.diagnostics.push(Diagnostic::new(SitemapCode::TooManyDiagnostics, None, message));
        }
        Summary {
            kind: self.kind,
            entries: self.emitted,
            dropped: self.dropped,
            diagnostics: self.diagnostics,
            bytes: 0,
        }
    }
}
