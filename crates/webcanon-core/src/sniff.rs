//! What a body is when its name or media type says otherwise: the one
//! "is this an HTML page?" look that every reader (robots.txt, llms.txt,
//! sitemaps, Markdown copies, the audit) uses.
//!
//! Servers answer a missing `/robots.txt`, `/llms.txt`, `/sitemap.xml` or
//! `.md` page with their HTML error page or the shell of a single-page app,
//! often with status 200. What a body is follows from its first tag, after
//! an optional byte order mark, white space, XML declarations and comments:
//! one that opens an HTML document ([`HtmlStart::Document`]) or a common
//! HTML element ([`HtmlStart::Fragment`], which Markdown may also start
//! with). Only the first 4 KiB are read.

/// How much of a body is looked at.
const HEAD_BYTES: usize = 4096;

/// The document type and the elements that open an HTML document (lower case).
const DOCUMENT_TAGS: &[&[u8]] =
    &[b"!doctype html", b"html", b"head", b"body", b"meta", b"title", b"link", b"script", b"style", b"noscript"];

/// Common elements that open an HTML fragment (lower case); Markdown may
/// open with one too (a centred logo).
const FRAGMENT_TAGS: &[&[u8]] =
    &[b"div", b"span", b"p", b"a", b"br", b"center", b"h1", b"h2", b"h3", b"table", b"pre", b"iframe", b"img", b"form"];

/// How a body that starts with HTML starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HtmlStart {
    /// `<!doctype html>`, `<html>`, `<head>`, `<body>`, `<meta>`,
    /// `<title>`, `<link>`, `<script>`, `<style>` or `<noscript>`: a page.
    Document,
    /// A common element (`<div>`, `<p>`, `<center>`, `<h1>`, `<table>`, …):
    /// an HTML fragment, or Markdown that opens with HTML.
    Fragment,
}

/// Whether `body` is an HTML page: [`html_start`] is
/// [`HtmlStart::Document`].
///
/// ```
/// use webcanon_core::sniff::looks_like_html;
///
/// assert!(looks_like_html(b"\xEF\xBB\xBF\n<!DOCTYPE html><html><body>Not found</body></html>"));
/// assert!(looks_like_html(b"<!-- error page -->\n<HTML><head>"));
/// assert!(!looks_like_html(b"<p align=\"center\"><img src=\"logo.png\"></p>\n\n# Project"));
/// assert!(!looks_like_html(b"<?xml version=\"1.0\"?><urlset xmlns=\"...\"></urlset>"));
/// assert!(!looks_like_html(b"# Project\n\n> Docs for <html> pages."));
/// assert!(!looks_like_html(b"User-agent: *\nDisallow: /<html>"));
/// ```
pub fn looks_like_html(body: &[u8]) -> bool {
    html_start(body) == Some(HtmlStart::Document)
}

/// How `body` starts, if with HTML: its first tag, after an optional UTF-8
/// byte order mark, white space, `<?xml …?>` declarations and `<!-- … -->`
/// comments, case-insensitively. An XML document (`<urlset>`, `<rss>`),
/// Markdown and plain text give `None`.
///
/// ```
/// use webcanon_core::sniff::{HtmlStart, html_start};
///
/// assert_eq!(html_start(b"<center><h1>403 Forbidden</h1></center>"), Some(HtmlStart::Fragment));
/// assert_eq!(html_start(b"<html><body>"), Some(HtmlStart::Document));
/// assert_eq!(html_start(b"<urlset>"), None);
/// ```
pub fn html_start(body: &[u8]) -> Option<HtmlStart> {
    let body = &body[..body.len().min(HEAD_BYTES)];
    let mut rest = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    loop {
        rest = rest.trim_ascii_start();
        if let Some(after) = rest.strip_prefix(b"<?") {
            // An XML declaration or processing instruction.
            let end = memchr::memmem::find(after, b"?>")?;
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix(b"<!--") {
            let end = memchr::memmem::find(after, b"-->")?;
            rest = &after[end + 3..];
        } else {
            break;
        }
    }
    let tag = rest.strip_prefix(b"<")?;
    let opens = |name: &&[u8]| {
        tag.len() >= name.len()
            && tag[..name.len()].eq_ignore_ascii_case(name)
            // The name ends there: `<p>` or `<p class` is a paragraph, `<param` is not.
            && tag.get(name.len()).is_none_or(|&b| b == b'>' || b == b'/' || b.is_ascii_whitespace())
    };
    if DOCUMENT_TAGS.iter().any(opens) {
        Some(HtmlStart::Document)
    } else if FRAGMENT_TAGS.iter().any(opens) {
        Some(HtmlStart::Fragment)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_tags_decide() {
        let rows: &[(&[u8], bool)] = &[
            (b"<!doctype html><html>", true),
            (b"\n  <html lang=en>", true),
            (b"<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01//EN\">", true),
            (b"<?xml version=\"1.0\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\">", true),
            (b"<head><title>x</title>", true),
            (b"<p>Moved</p>", true),
            (b"<p class=x>Moved</p>", true),
            (b"<br/>", true),
            (b"<script>location='/'</script>", true),
            (b"<!-- a --><!-- b -->\n<body>", true),
            (b"<param name=x>", false),
            (b"<pre", true),
            (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><urlset>", false),
            (b"<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">", false),
            (b"<rss version=\"2.0\">", false),
            (b"<project><name>x</name></project>", false),
            (b"<!-- unterminated comment <html>", false),
            (b"# Title\n\n<div>inline html in markdown</div>", false),
            (b"User-agent: *\nDisallow: /\n<html>", false),
            (b"", false),
            (b"<", false),
        ];
        for (body, html) in rows {
            assert_eq!(html_start(body).is_some(), *html, "{:?}", String::from_utf8_lossy(body));
        }
        assert_eq!(html_start(b"<p>Moved</p>"), Some(HtmlStart::Fragment));
        assert_eq!(html_start(b"<!-- x --><title>Moved</title>"), Some(HtmlStart::Document));
    }

    #[test]
    fn only_the_head_is_read() {
        let mut body = vec![b' '; HEAD_BYTES];
        body.extend_from_slice(b"<html>");
        assert_eq!(html_start(&body), None);
    }
}
