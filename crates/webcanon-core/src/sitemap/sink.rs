//! Where the format parsers put what they read: entries are checked and
//! handed on, findings are collected, and the limits are enforced.

use super::codes::{Diagnostic, SitemapCode};
use super::limits::{MAX_DIAGNOSTICS, MAX_ENTRIES, MAX_NEWS_ENTRIES};
use super::model::{Entry, SitemapKind, Summary};

/// Whether a URL is acceptable as a `loc`: absolute http(s), a host, no
/// whitespace, under 2,048 characters (sitemaps.org). Returns why not.
pub(super) fn check_loc(loc: &str) -> Result<(), &'static str> {
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
pub(super) struct Sink<'f> {
    pub(super) kind: SitemapKind,
    diagnostics: Vec<Diagnostic>,
    emitted: usize,
    dropped: usize,
    suppressed: usize,
    news: usize,
    sitemap_like: usize,
    on_entry: &'f mut dyn FnMut(Entry),
}

impl<'f> Sink<'f> {
    /// An empty sink that hands each entry to `on_entry`.
    pub(super) fn new(on_entry: &'f mut dyn FnMut(Entry)) -> Sink<'f> {
        Sink {
            kind: SitemapKind::Unknown,
            diagnostics: Vec::new(),
            emitted: 0,
            dropped: 0,
            suppressed: 0,
            news: 0,
            sitemap_like: 0,
            on_entry,
        }
    }

    pub(super) fn diag(&mut self, code: SitemapCode, line: Option<u32>, message: String) {
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            self.diagnostics.push(Diagnostic::new(code, line, message));
        } else {
            self.suppressed += 1;
        }
    }

    /// Validates the entry's `loc`, then emits it or counts it as dropped.
    pub(super) fn entry(&mut self, entry: Entry) {
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

    /// The findings and counts, once the whole file is read.
    pub(super) fn finish(mut self) -> Summary {
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
