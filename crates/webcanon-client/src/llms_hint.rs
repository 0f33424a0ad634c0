//! llms.txt as a hint: which llms.txt applies to a page, which of its links
//! is the page's Markdown copy, and a cache of loaded files.
//!
//! llms.txt v2 (<https://llmstxt.org/>): a file covers the URLs under its
//! own path and the most specific file wins (`/docs/llms.txt` before
//! `/llms.txt`); a page may also name its file with `rel="describedby"`.
//! A link is the Markdown copy of a page when its path is the page's path
//! with `.md` (or `.html.md`, `index.md`, `index.html.md` for a bare
//! directory) added; on another origin (docs mirrored elsewhere), when its
//! path without that suffix equals the page's path.
//!
//! The file is untrusted content: only its links are read, and only to pick
//! one candidate URL, which then goes through the SSRF guard and robots.txt
//! like any other.

use url::Url;
use webcanon_core::llms::{LlmsTxt, is_markdown_copy_of};

use crate::hint_cache::{HintCache, HintKind, LoadedHint};

/// Only this many bytes of an llms.txt are read: an index larger than this
/// is not an index, and a hostile file must not cost unbounded memory.
pub const LLMS_MAX_BYTES: usize = 1024 * 1024;

/// Directories below the root whose llms.txt is looked for (deepest
/// first), before `/llms.txt` itself.
pub const MAX_NESTED_LEVELS: usize = 3;

/// What every face asks for when loading an llms.txt.
pub const LLMS_ACCEPT: &str = "text/markdown, text/plain;q=0.9, */*;q=0.1";

/// The llms.txt a URL means, for every face (`webcanon llms`, the MCP
/// `llms_txt` tool): a URL that names an `llms.txt` or `llms-full.txt` file
/// is that file; a directory (`/`, `/docs/`) means the `llms.txt` in it; any
/// other page means the site's `/llms.txt`. The fragment is dropped, and
/// the query too when the URL is replaced.
///
/// ```
/// use url::Url;
/// use webcanon_client::llms_txt_url;
///
/// let url = |s| Url::parse(s).unwrap();
/// assert_eq!(llms_txt_url(&url("https://example.com")).as_str(), "https://example.com/llms.txt");
/// assert_eq!(llms_txt_url(&url("https://example.com/docs/")).as_str(), "https://example.com/docs/llms.txt");
/// assert_eq!(llms_txt_url(&url("https://example.com/docs/page?x=1")).as_str(), "https://example.com/llms.txt");
/// assert_eq!(llms_txt_url(&url("https://example.com/llms-full.txt#a")).as_str(), "https://example.com/llms-full.txt");
/// ```
pub fn llms_txt_url(url: &Url) -> Url {
    let mut url = url.clone();
    url.set_fragment(None);
    let file = url.path().rsplit('/').next().unwrap_or("");
    if file.ends_with("llms.txt") || file.ends_with("llms-full.txt") {
        return url;
    }
    let path = if file.is_empty() { format!("{}llms.txt", url.path()) } else { "/llms.txt".to_string() };
    url.set_path(&path);
    url.set_query(None);
    url
}

/// The llms.txt files that may cover `page`, most specific first: the one
/// in each directory of its path (at most [`MAX_NESTED_LEVELS`] below the
/// root), then `/llms.txt`.
///
/// `https://a.test/docs/guide/intro` gives `/docs/guide/llms.txt`,
/// `/docs/llms.txt`, `/llms.txt`.
pub fn llms_txt_locations(page: &Url) -> Vec<Url> {
    let path = page.path();
    let dir_end = path.rfind('/').map_or(0, |i| i + 1);
    let mut dirs: Vec<&str> = Vec::new();
    let mut dir = &path[..dir_end];
    while dir.len() > 1 {
        dirs.push(dir);
        let parent = dir[..dir.len() - 1].rfind('/').map_or(0, |i| i + 1);
        dir = &dir[..parent];
    }
    dirs.truncate(MAX_NESTED_LEVELS);
    dirs.push("/");
    dirs.into_iter()
        .map(|d| {
            let mut url = page.clone();
            url.set_query(None);
            url.set_fragment(None);
            // Credentials never travel to a hint file.
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.set_path(&format!("{d}llms.txt"));
            url
        })
        .collect()
}

/// The link of `file` (loaded from `file_url`) that is the Markdown copy of
/// `page`, if any: a link on the page's own origin first, then one on
/// another origin whose path matches. Links are resolved against
/// `file_url`; links with a query or a non-http(s) scheme are not copies.
pub fn markdown_copy_in(file: &LlmsTxt, file_url: &Url, page: &Url) -> Option<Url> {
    if page.query().is_some() {
        // A query names a dynamic view; static copies do not have one.
        return None;
    }
    let mut elsewhere = None;
    for link in file.links() {
        let Ok(target) = file_url.join(link.link.url.trim()) else { continue };
        if !matches!(target.scheme(), "http" | "https") || target.query().is_some() || target == *page {
            continue;
        }
        if !is_markdown_copy_of(target.path(), page.path()) {
            continue;
        }
        if target.origin() == page.origin() {
            return Some(without_fragment(target));
        }
        elsewhere.get_or_insert(target);
    }
    elsewhere.map(without_fragment)
}

fn without_fragment(mut url: Url) -> Url {
    url.set_fragment(None);
    url
}

/// The default memory budget of parsed llms.txt files: 16 MiB (least
/// recently used dropped first, read again from the store).
pub const LLMS_MEMORY_BYTES: u64 = 16 << 20;

/// llms.txt files as hint files: the parsed file, when one was found and
/// it is llms.txt Markdown.
#[derive(Debug)]
pub(crate) struct LlmsTxtHint;

impl HintKind for LlmsTxtHint {
    type Document = Option<LlmsTxt>;
    const STORE_KEY: &'static str = "llms.txt";
    const NAME: &'static str = "llms.txt";

    fn read(found: Result<&[u8], &str>) -> Option<LlmsTxt> {
        found.ok().map(LlmsTxt::parse).filter(|f| f.not_llms.is_none())
    }
}

/// Loaded llms.txt files, keyed `llms.txt <url>` in the store.
pub(crate) type LlmsCache = HintCache<LlmsTxtHint>;

/// An llms.txt location and what is there.
pub(crate) type LoadedLlms = LoadedHint<LlmsTxtHint>;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::clock::Clock;
    use crate::hint_cache::HintFetched;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn paths(page: &str) -> Vec<String> {
        llms_txt_locations(&url(page)).iter().map(|u| u.path().to_string()).collect()
    }

    #[test]
    fn locations_most_specific_first() {
        assert_eq!(paths("https://a.test/docs/guide/intro"), ["/docs/guide/llms.txt", "/docs/llms.txt", "/llms.txt"]);
        assert_eq!(paths("https://a.test/docs/"), ["/docs/llms.txt", "/llms.txt"]);
        assert_eq!(paths("https://a.test/"), ["/llms.txt"]);
        assert_eq!(paths("https://a.test/page"), ["/llms.txt"]);
        assert_eq!(
            paths("https://a.test/a/b/c/d/e/page?q=1"),
            ["/a/b/c/d/e/llms.txt", "/a/b/c/d/llms.txt", "/a/b/c/llms.txt", "/llms.txt"]
        );
        let located = llms_txt_locations(&url("https://u:p@a.test:8443/x/y?q#f"));
        assert_eq!(located[0].as_str(), "https://a.test:8443/x/llms.txt");
    }

    fn copy(file: &str, file_url: &str, page: &str) -> Option<String> {
        markdown_copy_in(&LlmsTxt::parse(file), &url(file_url), &url(page)).map(|u| u.to_string())
    }

    #[test]
    fn copies_by_naming_rule() {
        let file = "# Site\n\n## Docs\n\n- [Intro](/docs/intro.md): start\n- [Guide](https://a.test/docs/guide.html.md)\n- [Home](https://a.test/index.md)\n- [Api](https://mirror.test/api/ref.md)\n";
        let at = "https://a.test/llms.txt";
        assert_eq!(copy(file, at, "https://a.test/docs/intro").as_deref(), Some("https://a.test/docs/intro.md"));
        assert_eq!(copy(file, at, "https://a.test/docs/guide").as_deref(), Some("https://a.test/docs/guide.html.md"));
        assert_eq!(
            copy(file, at, "https://a.test/docs/guide.html").as_deref(),
            Some("https://a.test/docs/guide.html.md")
        );
        assert_eq!(copy(file, at, "https://a.test/").as_deref(), Some("https://a.test/index.md"));
        assert_eq!(copy(file, at, "https://a.test/api/ref").as_deref(), Some("https://mirror.test/api/ref.md"));
        assert_eq!(copy(file, at, "https://a.test/docs/other"), None);
        assert_eq!(copy(file, at, "https://a.test/docs/intro?tab=2"), None);
    }

    #[test]
    fn same_origin_copy_wins_over_a_mirror() {
        let file = "# S\n\n## D\n\n- [M](https://mirror.test/p.md)\n- [L](https://a.test/p.md)\n";
        assert_eq!(copy(file, "https://a.test/llms.txt", "https://a.test/p").as_deref(), Some("https://a.test/p.md"));
    }

    #[tokio::test]
    async fn parsed_files_stay_within_the_memory_budget() {
        let budget = 4 << 20;
        let cache = LlmsCache::new(Arc::new(crate::store::MemoryStore::new()), 86_400, budget, Clock::system());
        let link = "- [Page](/d/page.md): a page\n";
        let body =
            format!("# Big\n\n> A large llms.txt.\n\n## Docs\n\n{}", link.repeat((LLMS_MAX_BYTES - 64) / link.len()));
        for i in 0..40 {
            let at = url(&format!("https://example.com/d{i}/llms.txt"));
            let loaded = cache.get(&at, || async { HintFetched::Found(body.clone().into_bytes()) }).await;
            assert!(loaded.document.is_some());
        }
        let held = cache.weighted_size();
        assert!(held <= budget, "{held} bytes held, budget {budget}");
        assert!(held > budget / 4, "the cache keeps what fits: {held}");
    }

    #[test]
    fn non_copies_are_ignored() {
        let file = "# S\n\n## D\n\n- [A](javascript:alert(1)//p.md)\n- [B](https://a.test/p.md?x=1)\n- [C](https://a.test/p.html)\n- [D](file:///p.md)\n";
        assert_eq!(copy(file, "https://a.test/llms.txt", "https://a.test/p"), None);
    }
}
