//! The links of a page, read from its raw HTML in one linear pass: what a
//! crawler follows (`<a href>`, `<area href>`, `<link rel=next>`), each
//! with whether its `rel` says `nofollow`, resolved against the page's
//! `<base href>` or its URL.
//!
//! The pass uses the pre-scan's tokenizer (no tree): any input costs time
//! linear in its length, and at most [`LinkLimits::max_links`] links are
//! kept, so a page of a million links costs no more memory than the cap.

use std::collections::HashSet;

use url::Url;

use super::scan::{RAW_TEXT, attributes, raw_text_end, tag_end, tag_name};

/// Bounds on what one page's links may cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkLimits {
    /// The most links kept from one page (default 5,000); the rest are
    /// counted in [`PageLinks::cut`], not read.
    pub max_links: usize,
    /// The longest `href` read, in bytes (default 2,048: longer ones are
    /// left out, as most servers and crawlers refuse them).
    pub max_url_bytes: usize,
    /// The most link elements read from one page, repeats included
    /// (default 50,000): resolving a link costs far more than skipping a
    /// tag, so a page repeating one link a million times stops here.
    pub max_link_elements: usize,
}

impl Default for LinkLimits {
    fn default() -> Self {
        LinkLimits { max_links: 5_000, max_url_bytes: 2_048, max_link_elements: 50_000 }
    }
}

/// Where a link was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkSource {
    /// `<a href>`.
    Anchor,
    /// `<area href>` of an image map.
    Area,
    /// `<link rel="next">`: the next page of a series.
    Next,
}

/// One link of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageLink {
    /// The target, absolute, without its fragment (`http` or `https` only).
    pub url: Url,
    /// The element it came from.
    pub source: LinkSource,
    /// Whether its `rel` includes `nofollow`.
    pub nofollow: bool,
}

/// The links read from one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageLinks {
    /// The distinct links in document order, at most
    /// [`LinkLimits::max_links`].
    pub links: Vec<PageLink>,
    /// Whether the page had more links, or link elements, than the caps
    /// (the reading stopped there).
    pub cut: bool,
}

/// Reads the links of `html`, fetched from `url`.
///
/// ```
/// use url::Url;
/// use webcanon_extract::html::{LinkLimits, LinkSource, read_links};
///
/// # fn main() -> Result<(), url::ParseError> {
/// let page = Url::parse("https://example.com/docs/")?;
/// let html = r#"<a href="start#top">Start</a> <a rel="nofollow" href="/login">Log in</a>
///               <link rel="next" href="page2">"#;
/// let found = read_links(html, &page, &LinkLimits::default());
/// let urls: Vec<&str> = found.links.iter().map(|l| l.url.as_str()).collect();
/// assert_eq!(urls, ["https://example.com/docs/start", "https://example.com/login", "https://example.com/docs/page2"]);
/// assert!(found.links[1].nofollow);
/// assert_eq!(found.links[2].source, LinkSource::Next);
/// # Ok(()) }
/// ```
pub fn read_links(html: &str, url: &Url, limits: &LinkLimits) -> PageLinks {
    let bytes = html.as_bytes();
    let mut base: Option<Url> = None;
    let mut seen: HashSet<Url> = HashSet::new();
    let mut out = PageLinks::default();
    let mut elements = 0;
    let mut i = 0;
    while let Some(offset) = memchr::memchr(b'<', &bytes[i..]) {
        i += offset + 1;
        let Some(&first) = bytes.get(i) else { break };
        if first == b'!' {
            let end = if bytes[i..].starts_with(b"!--") { "-->" } else { ">" };
            i = memchr::memmem::find(&bytes[i..], end.as_bytes()).map_or(bytes.len(), |e| i + e + end.len());
            continue;
        }
        if !first.is_ascii_alphabetic() {
            continue;
        }
        let (end, self_closing, _) = tag_end(bytes, i);
        let inner = &bytes[i..end.saturating_sub(1).max(i)];
        let name = tag_name(inner);
        let source = match name.as_str() {
            "a" => Some(LinkSource::Anchor),
            "area" => Some(LinkSource::Area),
            "link" | "base" => None,
            _ => {
                i = skip_raw_text(bytes, end, &name, self_closing);
                continue;
            }
        };
        i = end;
        let attrs = attributes(&inner[name.len()..]);
        let attr = |wanted: &str| attrs.iter().find(|(n, _)| n == wanted).map(|(_, v)| v.trim());
        let rel_has = |value: &str| {
            attr("rel").is_some_and(|r| r.split_ascii_whitespace().any(|v| v.eq_ignore_ascii_case(value)))
        };
        let Some(href) = attr("href").filter(|h| !h.is_empty() && h.len() <= limits.max_url_bytes) else { continue };
        let source = match (name.as_str(), source) {
            ("base", _) => {
                // The first `<base href>` sets the base of every later link.
                if base.is_none() {
                    base = url.join(href).ok();
                }
                continue;
            }
            ("link", _) if rel_has("next") => LinkSource::Next,
            (_, Some(source)) => source,
            _ => continue,
        };
        if elements == limits.max_link_elements {
            out.cut = true;
            break;
        }
        elements += 1;
        let Ok(mut target) = base.as_ref().unwrap_or(url).join(href) else { continue };
        if !matches!(target.scheme(), "http" | "https") {
            continue;
        }
        target.set_fragment(None);
        if seen.contains(&target) {
            continue;
        }
        if out.links.len() == limits.max_links {
            out.cut = true;
            break;
        }
        seen.insert(target.clone());
        out.links.push(PageLink { url: target, source, nofollow: rel_has("nofollow") });
    }
    out
}

/// Where reading resumes after the start tag `name` ending at `end`: past
/// the content of a raw-text element (`<script>`, `<style>`, …), whose
/// `<a` are not tags.
fn skip_raw_text(bytes: &[u8], end: usize, name: &str, self_closing: bool) -> usize {
    if self_closing || !RAW_TEXT.contains(&name) {
        return end;
    }
    raw_text_end(bytes, end, name).unwrap_or(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(html: &str) -> Vec<String> {
        let page = Url::parse("https://example.com/a/b").unwrap();
        read_links(html, &page, &LinkLimits::default()).links.into_iter().map(|l| l.url.to_string()).collect()
    }

    #[test]
    fn reads_anchors_areas_and_next_links_once_each() {
        let html = r#"<a href="c">1</a><area href="/d"><a href="c#x">again</a><link rel="next" href="?page=2">
            <link rel="stylesheet" href="/s.css"><a href="mailto:x@example.com">m</a><a href="javascript:void(0)">j</a>"#;
        assert_eq!(urls(html), ["https://example.com/a/c", "https://example.com/d", "https://example.com/a/b?page=2"]);
    }

    #[test]
    fn base_href_resolves_later_links() {
        let html = r#"<head><base href="https://cdn.example.org/root/"></head><a href="x">x</a>"#;
        assert_eq!(urls(html), ["https://cdn.example.org/root/x"]);
    }

    #[test]
    fn scripts_comments_and_long_urls_give_no_links() {
        let long = format!("<a href=\"/{}\">long</a>", "x".repeat(3000));
        let html = format!(
            r#"<script>var s = '<a href="/in-script">';</script><!-- <a href="/hidden"> -->{long}<a href=/ok>ok</a>"#
        );
        assert_eq!(urls(&html), ["https://example.com/ok"]);
    }

    #[test]
    fn nofollow_is_read_from_rel() {
        let page = Url::parse("https://example.com/").unwrap();
        let found = read_links(
            r#"<a rel="external NoFollow" href="/x">x</a><a href="/y">y</a>"#,
            &page,
            &LinkLimits::default(),
        );
        assert_eq!(found.links.iter().map(|l| l.nofollow).collect::<Vec<_>>(), [true, false]);
    }

    #[test]
    fn a_page_of_a_million_links_keeps_the_cap() {
        let html: String = (0..1_000_000).map(|n| format!("<a href=/p{n}>p</a>")).collect();
        let page = Url::parse("https://example.com/").unwrap();
        let started = std::time::Instant::now();
        let found = read_links(&html, &page, &LinkLimits::default());
        assert_eq!(found.links.len(), 5_000);
        assert!(found.cut);
        // Reading stops at the cap: far less than one pass over 17 MB in a debug build.
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    }

    #[test]
    fn a_million_repeated_links_stop_at_the_element_cap() {
        let html = "<a href=/same>p</a>".repeat(1_000_000);
        let page = Url::parse("https://example.com/").unwrap();
        let started = std::time::Instant::now();
        let found = read_links(&html, &page, &LinkLimits::default());
        assert_eq!((found.links.len(), found.cut), (1, true));
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    }
}
