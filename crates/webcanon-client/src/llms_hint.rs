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

use std::future::Future;
use std::sync::Arc;

use url::Url;
use webcanon_core::llms::{LlmsTxt, is_markdown_copy_of};
use webcanon_core::policy::RobotsAvailability;

use crate::clock::Clock;
use crate::single_flight::KeyedLocks;
use crate::store::{OffWorker, RobotsRecord, RobotsStore};

/// Only this many bytes of an llms.txt are read: an index larger than this
/// is not an index, and a hostile file must not cost unbounded memory.
pub const LLMS_MAX_BYTES: usize = 1024 * 1024;

/// Directories below the root whose llms.txt is looked for (deepest
/// first), before `/llms.txt` itself.
pub const MAX_NESTED_LEVELS: usize = 3;

/// How long a failed llms.txt load (timeout, 5xx) is remembered.
const FAILURE_TTL: u64 = 5 * 60;

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

/// How one llms.txt load ended.
#[derive(Debug, Clone)]
pub(crate) enum LlmsFetched {
    /// A 2xx answer with this body (at most [`LLMS_MAX_BYTES`]).
    Found(Vec<u8>),
    /// No file: a 4xx answer, a redirect elsewhere that failed, or a
    /// location the robots policy or the SSRF guard refuses.
    Absent(String),
    /// The server did not answer usefully (timeout, 5xx): retried sooner.
    Failed(String),
}

/// An llms.txt location and what is there.
#[derive(Debug)]
pub(crate) struct LoadedLlms {
    /// Where it was looked for.
    pub url: Url,
    /// The parsed file, when one was found and it is llms.txt Markdown.
    pub file: Option<LlmsTxt>,
    expires_at: u64,
    /// The body's size, from which what this holds in memory is reckoned.
    body_bytes: usize,
}

/// The default memory budget of parsed llms.txt files: 16 MiB (least
/// recently used dropped first, read again from the store).
pub const LLMS_MEMORY_BYTES: u64 = 16 << 20;

impl LoadedLlms {
    fn from_record(url: Url, record: &RobotsRecord) -> LoadedLlms {
        let file = match (&record.body, record.availability) {
            (Some(body), RobotsAvailability::Parsed) => Some(LlmsTxt::parse(body)).filter(|f| f.not_llms.is_none()),
            _ => None,
        };
        let body_bytes = record.body.as_ref().map_or(0, Vec::len);
        LoadedLlms { url, file, expires_at: record.expires_at, body_bytes }
    }

    /// Roughly what this holds in memory: the parsed file keeps its text
    /// (about the body again, twice to be safe) and a fixed part.
    fn approx_bytes(&self) -> u32 {
        u32::try_from(2 * self.body_bytes + self.url.as_str().len() + 256).unwrap_or(u32::MAX)
    }
}

/// The key under which an llms.txt outcome is kept in a [`RobotsStore`],
/// beside the robots.txt outcomes (keyed by origin, which never contains a
/// space).
fn store_key(url: &Url) -> String {
    format!("llms.txt {url}")
}

/// Loaded llms.txt files, in memory over the client's store, one load per
/// URL at a time; fresh for the robots.txt cache time, failures minutes.
#[derive(Debug)]
pub(crate) struct LlmsCache {
    /// Called off the async workers when it can block.
    store: OffWorker,
    /// What "now" is for freshness.
    clock: Clock,
    ttl: u64,
    /// Parsed files within a byte budget, least recently used dropped.
    loaded: moka::sync::Cache<String, Arc<LoadedLlms>>,
    inflight: KeyedLocks,
}

impl LlmsCache {
    pub(crate) fn new(store: Arc<dyn RobotsStore>, ttl: u64, clock: Clock) -> LlmsCache {
        LlmsCache::with_budget(store, ttl, LLMS_MEMORY_BYTES, clock)
    }

    pub(crate) fn with_budget(store: Arc<dyn RobotsStore>, ttl: u64, memory_bytes: u64, clock: Clock) -> LlmsCache {
        let loaded = moka::sync::Cache::builder()
            .max_capacity(memory_bytes)
            .weigher(|key: &String, loaded: &Arc<LoadedLlms>| {
                loaded.approx_bytes().saturating_add(u32::try_from(key.len()).unwrap_or(u32::MAX))
            })
            .build();
        LlmsCache { store: OffWorker::new(store), clock, ttl, loaded, inflight: KeyedLocks::default() }
    }

    fn fresh(&self, key: &str, now: u64) -> Option<Arc<LoadedLlms>> {
        self.loaded.get(key).filter(|l| now < l.expires_at)
    }

    fn remember(&self, key: &str, loaded: &Arc<LoadedLlms>) {
        self.loaded.insert(key.to_string(), loaded.clone());
    }

    /// The bytes the parsed files in memory are reckoned to hold.
    #[cfg(test)]
    fn weighted_size(&self) -> u64 {
        self.loaded.run_pending_tasks();
        self.loaded.weighted_size()
    }

    /// The llms.txt at `url`, from memory, the store, or `fetch`.
    pub(crate) async fn get<F, Fut>(&self, url: &Url, fetch: F) -> Arc<LoadedLlms>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = LlmsFetched>,
    {
        let key = store_key(url);
        if let Some(hit) = self.fresh(&key, self.clock.now()) {
            return hit;
        }
        let _guard = self.inflight.lock(&key).await;
        let now = self.clock.now();
        if let Some(hit) = self.fresh(&key, now) {
            return hit;
        }
        let load_key = key.clone();
        let stored = self.store.run(move |s| s.load(&load_key)).await.unwrap_or_else(|err| {
            tracing::warn!("{err}; loading llms.txt without the store");
            None
        });
        if let Some(record) = stored.filter(|r| r.is_fresh(now)) {
            let loaded = Arc::new(LoadedLlms::from_record(url.clone(), &record));
            self.remember(&key, &loaded);
            return loaded;
        }
        let record = self.record(&key, url, fetch().await, self.clock.now());
        let saved = record.clone();
        if let Err(err) = self.store.run(move |s| s.save(&saved)).await {
            tracing::warn!("{err}; the llms.txt outcome is kept in memory only");
        }
        let loaded = Arc::new(LoadedLlms::from_record(url.clone(), &record));
        self.remember(&key, &loaded);
        loaded
    }

    fn record(&self, key: &str, url: &Url, fetched: LlmsFetched, now: u64) -> RobotsRecord {
        let (availability, body, error, ttl) = match fetched {
            LlmsFetched::Found(body) => (RobotsAvailability::Parsed, Some(body), None, self.ttl),
            LlmsFetched::Absent(why) => (RobotsAvailability::Unavailable, None, Some(why), self.ttl),
            LlmsFetched::Failed(why) => (RobotsAvailability::Unreachable, None, Some(why), FAILURE_TTL.min(self.ttl)),
        };
        RobotsRecord {
            origin: key.to_string(),
            robots_url: url.to_string(),
            fetched_at: now,
            expires_at: now.saturating_add(ttl),
            status: None,
            availability,
            body,
            failures: 0,
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn failures_are_kept_minutes_and_answers_the_cache_time() {
        let cache = LlmsCache::new(Arc::new(crate::store::MemoryStore::new()), 86_400, Clock::system());
        let at = url("https://a.test/llms.txt");
        let ttl = |fetched| {
            let record = cache.record("k", &at, fetched, 1_000);
            record.expires_at - record.fetched_at
        };
        assert_eq!(ttl(LlmsFetched::Found(b"# A\n".to_vec())), 86_400);
        assert_eq!(ttl(LlmsFetched::Absent("HTTP 404".into())), 86_400);
        assert_eq!(ttl(LlmsFetched::Failed("HTTP 503".into())), FAILURE_TTL);
    }

    #[tokio::test]
    async fn parsed_files_stay_within_the_memory_budget() {
        let budget = 4 << 20;
        let cache = LlmsCache::with_budget(Arc::new(crate::store::MemoryStore::new()), 86_400, budget, Clock::system());
        let link = "- [Page](/d/page.md): a page\n";
        let body =
            format!("# Big\n\n> A large llms.txt.\n\n## Docs\n\n{}", link.repeat((LLMS_MAX_BYTES - 64) / link.len()));
        for i in 0..40 {
            let at = url(&format!("https://example.com/d{i}/llms.txt"));
            let loaded = cache.get(&at, || async { LlmsFetched::Found(body.clone().into_bytes()) }).await;
            assert!(loaded.file.is_some());
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
