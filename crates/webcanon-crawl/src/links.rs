//! The links a crawl takes from a fetched page, and which of them it may
//! follow.
//!
//! An HTML page's links come from its DOM (as fetched, or as rendered):
//! `a[href]`, `area[href]` and `link rel=next`, read by the client
//! ([`FetchResult::links`]). A page served as Markdown (an alternative, or
//! a Markdown answer) has its Markdown links read instead: inline links
//! and autolinks. The canonical URL is a link too.
//!
//! `nofollow` (DESIGN.md, "Crawl: nofollow and canonical"): a page whose
//! meta robots or `X-Robots-Tag` says `nofollow` (or `none`) for the
//! agent gives no link to follow; a link whose `rel` says `nofollow` is
//! not followed from that page. Neither is a hint to be weighed: the site
//! asked, so the crawl does not.

use url::Url;
use webcanon_client::FetchResult;
use webcanon_client::markdown::LinkSource;
use webcanon_core::signals::WarningCode;

/// The most Markdown links read from one page, as for HTML
/// ([`webcanon_client::markdown::LinkLimits`]).
pub const MAX_MARKDOWN_LINKS: usize = 5_000;

/// The most `[` tried as the start of a Markdown link in one page: reading
/// stops there, so a page of brackets costs a bounded time.
const MAX_MARKDOWN_TRIES: usize = 50_000;

/// How far after a `[` a Markdown link may end (text and target).
const MAX_MARKDOWN_LINK_BYTES: usize = 4_096;

/// How a link was found on its page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FoundBy {
    /// An HTML `a`, `area` or `link rel=next`.
    Html,
    /// A link of the page's Markdown.
    Markdown,
    /// The page's canonical URL.
    Canonical,
}

/// One link of a fetched page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The absolute target.
    pub url: Url,
    /// Where it was found.
    pub found_by: FoundBy,
    /// Whether the page or the link asks not to follow it.
    pub nofollow: bool,
}

/// The links of a fetched page, in document order, the canonical URL last.
///
/// ```
/// # fn demo(page: &webcanon_client::FetchResult) {
/// for link in webcanon_crawl::links_of(page) {
///     if !link.nofollow {
///         println!("{}", link.url);
///     }
/// }
/// # }
/// ```
pub fn links_of(page: &FetchResult) -> Vec<Link> {
    let page_nofollow = page_says_nofollow(page);
    let base = Url::parse(&page.final_url).ok();
    let mut out: Vec<Link> = page
        .links
        .links
        .iter()
        .map(|link| Link {
            url: link.url.clone(),
            found_by: FoundBy::Html,
            nofollow: page_nofollow || (link.nofollow && link.source != LinkSource::Next),
        })
        .collect();
    let served_markdown = page.alternatives.iter().any(|a| a.used) || !is_html(page);
    if served_markdown
        && page.links.links.is_empty()
        && let Some(base) = &base
    {
        out.extend(markdown_links(&page.content, base).into_iter().map(|url| Link {
            url,
            found_by: FoundBy::Markdown,
            nofollow: page_nofollow,
        }));
    }
    if let Some(canonical) = page.canonical_url.as_deref().and_then(|c| Url::parse(c).ok()) {
        out.push(Link { url: canonical, found_by: FoundBy::Canonical, nofollow: page_nofollow });
    }
    out
}

/// Whether the page's meta robots or `X-Robots-Tag` (for every agent or
/// for this one: the client read them for its agent) says `nofollow` or
/// `none`.
pub fn page_says_nofollow(page: &FetchResult) -> bool {
    page.warnings.iter().any(|w| matches!(w.code, WarningCode::Nofollow | WarningCode::None))
}

fn is_html(page: &FetchResult) -> bool {
    page.content_type.as_deref().is_some_and(|t| {
        let essence = t.split(';').next().unwrap_or_default().trim();
        essence.eq_ignore_ascii_case("text/html") || essence.eq_ignore_ascii_case("application/xhtml+xml")
    })
}

/// The targets of the inline links (`[text](target)`, images left out)
/// and autolinks (`<https://…>`) of `markdown`, resolved against `base`, http(s) only,
/// fragments dropped, each once, at most [`MAX_MARKDOWN_LINKS`].
pub fn markdown_links(markdown: &str, base: &Url) -> Vec<Url> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut tries = 0;
    for (at, byte) in markdown.bytes().enumerate() {
        if out.len() == MAX_MARKDOWN_LINKS || tries == MAX_MARKDOWN_TRIES {
            break;
        }
        let target = match byte {
            // An image (`![alt](src)`) is not a page to crawl.
            b'[' if at > 0 && markdown.as_bytes()[at - 1] == b'!' => None,
            b'[' => {
                tries += 1;
                let window = window(markdown, at, MAX_MARKDOWN_LINK_BYTES);
                webcanon_core::llms::inline_link(window).map(|(_, target, _)| target)
            }
            b'<' => {
                tries += 1;
                let window = window(markdown, at + 1, MAX_MARKDOWN_LINK_BYTES);
                window
                    .split_once('>')
                    .map(|(inside, _)| inside)
                    .filter(|inside| inside.starts_with("http://") || inside.starts_with("https://"))
            }
            _ => None,
        };
        let Some(mut url) = target.and_then(|t| base.join(t.trim()).ok()) else { continue };
        if !matches!(url.scheme(), "http" | "https") {
            continue;
        }
        url.set_fragment(None);
        if seen.insert(url.clone()) {
            out.push(url);
        }
    }
    out
}

/// At most `len` bytes of `text` from `start`, cut at a character boundary.
fn window(text: &str, start: usize, len: usize) -> &str {
    let mut end = (start + len).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(start..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_links_are_read_resolved_and_bounded() {
        let base = Url::parse("https://example.com/docs/a.md").unwrap();
        let md = "See [b](b.md#x), [again](b.md) and <https://other.example/>. ![img](i.png) [mail](mailto:x@y)";
        let urls: Vec<String> = markdown_links(md, &base).iter().map(Url::to_string).collect();
        assert_eq!(urls, ["https://example.com/docs/b.md", "https://other.example/"]);
    }

    #[test]
    fn a_million_links_or_brackets_cost_a_bounded_time() {
        let base = Url::parse("https://example.com/").unwrap();
        let many: String = (0..1_000_000).map(|n| format!("[p](/p{n}) ")).collect();
        assert_eq!(markdown_links(&many, &base).len(), MAX_MARKDOWN_LINKS);
        let brackets = "[".repeat(10_000_000);
        let started = std::time::Instant::now();
        assert!(markdown_links(&brackets, &base).is_empty());
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    }
}
