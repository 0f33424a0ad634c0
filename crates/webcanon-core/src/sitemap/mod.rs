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
mod limits;
mod model;
mod sink;
mod text;
mod xml;

use std::io::Read;

pub use codes::{Diagnostic, Severity, SitemapCode};
pub use date::{DateTime, Time};
pub use limits::{MAX_BYTES, MAX_DIAGNOSTICS, MAX_ENTRIES, MAX_NEWS_ENTRIES};
pub use model::{Alternate, ChangeFreq, Entry, Image, News, Sitemap, SitemapKind, Summary, Video};

use sink::Sink;

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
    let mut sink = Sink::new(&mut on_entry);
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
