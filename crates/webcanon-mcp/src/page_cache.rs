//! A short-lived cache of fetched pages, so that paging through a long page
//! (`start_index`) costs the site one request, not one per page.
//!
//! Entries are keyed by (URL, product token, raw or converted) and live
//! [`PAGE_TTL`]; at most [`MAX_PAGES`] pages and [`MAX_CHARS`] characters are
//! kept, the oldest dropped first. Only successful fetches are kept: a
//! refusal or a failure is decided again on the next call.

use std::sync::Arc;
use std::time::Duration;

use crate::ttl_cache::TtlCache;

/// How long a fetched page is served from the cache.
pub(crate) const PAGE_TTL: Duration = Duration::from_secs(300);
/// How many pages are kept at most.
pub(crate) const MAX_PAGES: usize = 16;
/// How many characters are kept at most, over all pages.
pub(crate) const MAX_CHARS: usize = 32 * 1024 * 1024;

/// What identifies a cached page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageKey {
    /// The URL asked for.
    pub url: webcanon_client::web_url::WebUrl,
    /// The product token robots.txt was evaluated for.
    pub agent: webcanon_client::agent::ProductToken,
    /// Whether the body was kept as received.
    pub raw: bool,
    /// The options the page was fetched under (shape, rendering, limit).
    pub options: webcanon_client::FetchOptions,
}

/// A fetched page: its content and what is known about it.
#[derive(Debug)]
pub(crate) struct CachedPage<T> {
    /// The content.
    pub content: String,
    /// Its length in characters.
    pub total_length: usize,
    /// Everything else about the fetch.
    pub meta: T,
}

impl<T> CachedPage<T> {
    /// A page of `content`, its length counted once.
    pub fn new(content: String, meta: T) -> CachedPage<T> {
        let total_length = content.chars().count();
        CachedPage { content, total_length, meta }
    }
}

/// The cache: pages weighed by their characters.
pub(crate) struct PageCache<T>(TtlCache<PageKey, CachedPage<T>>);

impl<T> std::fmt::Debug for PageCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T> PageCache<T> {
    /// An empty cache whose pages live `ttl`.
    pub fn new(ttl: Duration) -> PageCache<T> {
        PageCache(TtlCache::new(ttl, MAX_PAGES, MAX_CHARS))
    }

    /// The page for `key` and its age, if it is still fresh.
    pub fn get(&self, key: &PageKey) -> Option<(Arc<CachedPage<T>>, Duration)> {
        self.0.get(key)
    }

    /// Keeps `page` for `key`, replacing an older copy; drops the oldest
    /// pages past the limits. A page over the character limit is not kept.
    pub fn put(&self, key: PageKey, page: Arc<CachedPage<T>>) {
        let weight = page.total_length;
        self.0.put(key, page, weight);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(url: &str) -> PageKey {
        PageKey {
            url: url.parse().unwrap(),
            agent: "webcanon".parse().unwrap(),
            raw: false,
            options: Default::default(),
        }
    }

    #[test]
    fn keys_tell_agents_and_raw_apart() {
        let cache = PageCache::new(PAGE_TTL);
        cache.put(key("https://a/"), Arc::new(CachedPage::new("converted".into(), ())));
        assert_eq!(cache.get(&key("https://a/")).unwrap().0.content, "converted");
        assert!(cache.get(&PageKey { raw: true, ..key("https://a/") }).is_none());
        assert!(cache.get(&PageKey { agent: "GPTBot".parse().unwrap(), ..key("https://a/") }).is_none());
        let purpose = Some(webcanon_core::rsl::Usage::AiTrain);
        let options = webcanon_client::FetchOptions { purpose, ..Default::default() };
        assert!(cache.get(&PageKey { options, ..key("https://a/") }).is_none(), "warnings differ by declared use");
    }

    #[test]
    fn the_oldest_pages_go_first_and_stale_ones_are_not_served() {
        let cache = PageCache::new(PAGE_TTL);
        for i in 0..=MAX_PAGES {
            cache.put(key(&format!("https://a/{i}")), Arc::new(CachedPage::new(format!("{i}"), ())));
        }
        assert!(cache.get(&key("https://a/0")).is_none());
        assert!(cache.get(&key("https://a/1")).is_some());
        assert!(cache.get(&key(&format!("https://a/{MAX_PAGES}"))).is_some());

        let stale = PageCache::new(Duration::ZERO);
        stale.put(key("https://a/"), Arc::new(CachedPage::new("x".into(), ())));
        assert!(stale.get(&key("https://a/")).is_none());
    }
}
